// One bundle: its trace (the block it reached, by state; whom it lost to) and its txs (gas, status, revert reason, coinbase difference, place in the block).
import { html } from 'dashboard/html.js'
import { useJson } from 'dashboard/useJson.js'
import { StatePill } from 'dashboard/bundleTable.js'
import { eth, gas, short, time } from 'dashboard/format.js'

export function BundlePage({ hash, refresh }) {
  const { data, error } = useJson(`/api/bundle/${hash}`, refresh)
  if (!data) return html`<p class="muted">${error ?? 'Loading…'}</p>`
  if (!data.shown) {
    return html`<section class="card"><h2>Bundle <span class="mono">${short(hash)}</span></h2>
      <p class="notice">${data.availableAtBlock === null ? 'No such bundle (or its trace has expired).' : `Not disclosed yet: shown from block ${data.availableAtBlock} on, like svc_getBundleStats.`}</p></section>`
  }
  const b = data.bundle
  return html`<section class="card">
      <h2>Bundle <span class="mono">${b.bundleHash}</span></h2>
      <dl class="facts">
        <dt>state</dt><dd><${StatePill} state=${b.state} status=${b.status} />${data.live ? '' : ' (withdrawn: never built again)'}</dd>
        <dt>error</dt><dd class="error">${b.error ?? '—'}</dd>
        <dt>reverting tx</dt><dd class="reverting"><span class="mono">${b.revertingHash ?? '—'}</span>${b.revertReason ? html` <span class="error revert-reason">${b.revertReason}</span>` : null}</dd>
        <dt>builder payment</dt><dd>${eth(b.builderPayment)}</dd>
        ${b.lostTo ? html`<dt>lost to</dt><dd class="lost-to"><${LostTo} lostTo=${b.lostTo} disclosed=${data.lostToDisclosed} own=${b.builderPayment} /></dd>` : null}
        <dt>target block</dt><dd><a href=${`#/slot/${b.targetBlock}`}>${b.targetBlock}</a>${b.minTimestamp || b.maxTimestamp ? ` (window ${b.minTimestamp ?? '…'}–${b.maxTimestamp ?? '…'})` : ''}</dd>
        <${BlockFact} bundle=${b} />
        <dt>received</dt><dd>${time(b.receivedAt)} — for block ${data.receivedForBlock}, ${data.receivedMsIntoSlot} ms into the slot${data.boosted ? ' (boosted)' : ''}</dd>
        <dt>simulated</dt><dd>${time(b.simulatedAt)}</dd>
        <dt>submitted</dt><dd>${time(b.submittedAt)}</dd>
        ${b.builders && html`<dt>builders</dt><dd class="builder-views">${b.builders.length ? b.builders.map((v) => html`<div>${v.name}${v.name === b.builder ? ' (furthest)' : ''}: ${v.status}${v.error ? html` <span class="muted">— ${v.error}</span>` : ''}</div>`) : 'no builder saw it'}</dd>`}
        <dt>searcher</dt><dd class="mono">${b.searcher ?? 'unsigned request'}</dd>
        <dt>refund</dt><dd>${b.refund ? html`${eth(b.refund.amount)} to <span class="mono">${b.refund.recipient}</span> (payout <span class="mono">${short(b.refund.txHash)}</span>)` : '—'}</dd>
        <dt>sponsorship</dt><dd>${b.sponsorships.length ? b.sponsorships.map((s) => html`<div>${eth(s.amount)} for <span class="mono">${short(s.txHash)}</span></div>`) : '—'}</dd>
        <dt>replacement uuid</dt><dd class="mono">${b.replacementUuid ?? '—'}</dd>
      </dl>
    </section>
    <section class="card">
      <h2>Transactions</h2>
      <table class="txs">
        <thead><tr><th>#</th><th>tx</th><th>from → to</th><th>gas limit / used</th><th>status</th><th>revert reason</th><th>coinbase diff</th><th>in block</th></tr></thead>
        <tbody>${data.txs.map((tx) => html`<${TxRow} key=${tx.hash} tx=${tx} revertReason=${tx.hash === b.revertingHash ? b.revertReason : null} />`)}</tbody>
      </table>
    </section>
    ${data.builderTxs.length
      ? html`<section class="card">
          <h2>Builder txs for this bundle</h2>
          <table class="builder-txs">
            <thead><tr><th>kind</th><th>tx</th><th>amount</th><th>status</th><th>in block</th></tr></thead>
            <tbody>${data.builderTxs.map((tx) => html`<tr class="builder-tx-row" key=${tx.hash}>
              <td>${tx.kind}</td><td class="mono" title=${tx.hash}>${short(tx.hash)}</td><td class="num">${eth(tx.amount)}</td>
              <td>${tx.onChain ? tx.onChain.status : 'not on chain'}</td><td><${Placement} onChain=${tx.onChain} /></td></tr>`)}</tbody>
          </table>
        </section>`
      : null}`
}

/**
 * A bundle's `blockNumber` means a different block in each state: only a landed bundle's block
 * holds it on chain; an included one's is a candidate block the builder did not submit; a
 * submitted one's went to the relay and lost the auction (or not every tx was mined).
 */
const BLOCK_FACTS = {
  Landed: { label: 'landed in', note: '' },
  IncludedInBlock: { label: 'included in', note: 'a candidate block that was not submitted' },
  Submitted: { label: 'submitted in', note: 'sent to the relay; it did not land' },
}

function BlockFact({ bundle }) {
  const fact = BLOCK_FACTS[bundle.state] ?? { label: bundle.blockNumber === null ? 'landed in' : 'block', note: '' }
  return html`<dt class="block-label">${fact.label}</dt>
    <dd class="block-fact">${bundle.blockNumber === null ? '—' : html`<a href=${`#/slot/${bundle.blockNumber}`}>block ${bundle.blockNumber}</a>${fact.note ? html` <span class="muted">(${fact.note})</span>` : null}`}</dd>`
}

/** The order that took what this bundle went for, and what it paid the builder against this bundle's own payment. */
function LostTo({ lostTo, disclosed, own }) {
  const hash = lostTo.bundleHash
  const link = disclosed ? html`<a class="mono" href=${`#/bundle/${hash}`} title=${hash}>${short(hash)}</a>` : html`<span class="mono" title=${hash}>${short(hash)}</span>`
  const who = lostTo.name ? html` (${lostTo.name})` : lostTo.searcher ? html` (<span class="mono" title=${lostTo.searcher}>${short(lostTo.searcher)}</span>)` : null
  return html`${link}${who}, which paid the builder ${eth(lostTo.builderPayment)} against this bundle’s ${eth(own)}`
}

/** `revertReason`: the stats' decoded reason when this is the bundle's reverting tx (a tx reverted in simulation has no receipt to read one from). */
function TxRow({ tx, revertReason }) {
  const c = tx.onChain
  const status = c ? c.status : tx.revertedInSimulation ? 'reverted in simulation' : 'not on chain'
  return html`<tr class="tx-row" data-hash=${tx.hash}>
    <td>${tx.index}</td>
    <td class="mono" title=${tx.hash}>${short(tx.hash)}${tx.mayRevert ? html` <span class="tag">may revert</span>` : null}${tx.mayDrop ? html` <span class="tag">may drop</span>` : null}</td>
    <td class="mono">${short(tx.from)} → ${tx.to ? short(tx.to) : 'create'}</td>
    <td class="num">${gas(tx.gasLimit)}${c ? html` / ${gas(c.gasUsed)}` : null}</td>
    <td class=${`tx-status ${c?.status ?? (tx.revertedInSimulation ? 'reverted' : '')}`}>${status}</td>
    <td class="error">${c?.revertReason ?? revertReason ?? (tx.revertedInSimulation ? 'see the bundle’s error' : '—')}</td>
    <td class="num">${c ? eth(c.coinbaseDiff) : '—'}</td>
    <td><${Placement} onChain=${c} /></td>
  </tr>`
}

/** Where a tx is on chain: its block and its position there. */
function Placement({ onChain }) {
  if (!onChain) return '—'
  return html`<a href=${`#/slot/${onChain.blockNumber}`}>block ${onChain.blockNumber}</a>, position ${onChain.position + 1} of ${onChain.blockTxCount}`
}
