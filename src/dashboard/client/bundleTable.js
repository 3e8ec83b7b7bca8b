// A page of bundles: state (coloured), builder payment, reverting tx and error, refund and sponsorship, searcher.
import { html } from 'dashboard/html.js'
import { eth, short } from 'dashboard/format.js'

export function StatePill({ state, status }) {
  return html`<span class=${`pill state-${state}`} data-state=${state}>${status ?? state}</span>`
}

/** `showBlock`: a column for the target block (lists that span slots, like search results). */
export function BundleTable({ rows, showBlock = false }) {
  if (rows.length === 0) return html`<p class="muted">No bundles to show.</p>`
  return html`<table class="bundles">
    <thead><tr><th>bundle</th>${showBlock ? html`<th>block</th>` : null}<th>state</th><th>builder payment</th><th>txs</th><th>reverting tx / error</th><th>refund</th><th>sponsored</th><th>searcher</th></tr></thead>
    <tbody>${rows.map((row) => html`<${BundleRowView} key=${row.bundleHash} row=${row} showBlock=${showBlock} />`)}</tbody>
  </table>`
}

function BundleRowView({ row, showBlock }) {
  const sponsored = row.sponsorships.reduce((sum, s) => sum + BigInt(s.amount), 0n)
  return html`<tr class="bundle-row" data-hash=${row.bundleHash}>
    <td><a class="mono" href=${`#/bundle/${row.bundleHash}`} title=${row.bundleHash}>${short(row.bundleHash)}</a>${row.boosted ? html` <span class="tag">boost</span>` : null}</td>
    ${showBlock ? html`<td><a href=${`#/slot/${row.targetBlock}`}>${row.targetBlock}</a></td>` : null}
    <td><${StatePill} state=${row.state} status=${row.status} /></td>
    <td class="num">${eth(row.builderPayment)}</td>
    <td class="num">${row.txCount}</td>
    <td class="error">${row.revertingHash ? html`<span class="mono" title=${row.revertingHash}>${short(row.revertingHash)}</span> ` : null}${row.error ?? ''}</td>
    <td>${row.refund ? html`${eth(row.refund.amount)} → <span class="mono" title=${row.refund.recipient}>${short(row.refund.recipient)}</span>` : '—'}</td>
    <td>${row.sponsorships.length ? `${eth(sponsored.toString())} (${row.sponsorships.length} tx)` : '—'}</td>
    <td>${row.searcher ? html`<a class="mono" href=${`#/search/${row.searcher}`} title=${row.searcher}>${short(row.searcher)}</a>` : html`<span class="muted">unsigned</span>`}</td>
  </tr>`
}
