// One slot: its report and its bundles, a page at a time, filtered by state.
import { html } from 'dashboard/html.js'
import { useJson } from 'dashboard/useJson.js'
import { BundleTable, StatePill } from 'dashboard/bundleTable.js'
import { count, eth, short, time, STATES } from 'dashboard/format.js'
import { BidChart } from 'dashboard/bidChart.js'

export function SlotPage({ block, page, state, refresh }) {
  const query = `/api/bundles?slot=${block}&page=${page}${state ? `&state=${state}` : ''}`
  const { data, error } = useJson(query, refresh)
  if (!data) return html`<p class="muted">${error ?? 'Loading…'}</p>`
  const { slot } = data
  const pages = Math.max(1, Math.ceil(data.total / data.pageSize))
  const link = (p, s = state) => `#/slot/${block}?page=${p}${s ? `&state=${s}` : ''}`
  return html`<section class="card">
      <h2>Block ${block}</h2>
      ${slot
        ? html`<dl class="facts">
            <dt>time</dt><dd>${time(slot.timestamp)}</dd>
            <dt>block hash</dt><dd class="mono">${slot.blockHash}</dd>
            <dt>mined block</dt><dd>${slot.builders ? (slot.builder ? `builder ${slot.builder}’s (${slot.winner})` : 'a competitor’s') : slot.won ? `ours (${slot.winner})` : 'a competitor’s'}, value ${eth(slot.value)}, ${slot.landedBundles.length} bundles, ${slot.mempoolTxCount} public txs</dd>
            <dt>relay bid</dt><dd>${slot.competitorBid === null ? 'none' : eth(slot.competitorBid)}</dd>
            ${slot.bids && html`<dt>bids over the slot</dt><dd><${BidChart} bids=${slot.bids} getHeaderMs=${slot.getHeaderMs} slotMs=${slot.slotMs ?? 12000} /></dd>`}
            ${slot.builders && html`<dt>builders’ bids</dt><dd>${slot.builders.map((b) => html`<div>${b.name}: ${eth(b.value)} (${b.algorithm}, ${count(b.bundleCount, 'bundle')})${b.won ? ' — won' : ''}</div>`)}</dd>`}
            <dt>candidates</dt><dd>${slot.candidates.map((c) => html`<div>${c.algorithm}: ${eth(c.value)} (${count(c.bundleCount, 'bundle')})${c.algorithm === slot.winner ? ' — submitted' : ''}</div>`)}</dd>
            <dt>landed bundles</dt><dd>${slot.landedBundles.length ? slot.landedBundles.map((h, i) => html`<div>${i + 1}. <a class="mono" href=${`#/bundle/${h}`}>${short(h)}</a></div>`) : '—'}</dd>
            <dt>slot took</dt><dd>${slot.totalMs} ms</dd>
          </dl>`
        : html`<p class="muted">No slot report for this block (not built yet, or before this run).</p>`}
    </section>
    <section class="card">
      <h2>Bundles for block ${block} <span class="muted">(${data.total}${state ? ` ${state}` : ''})</span></h2>
      <nav class="filters">
        <a class=${state ? '' : 'active'} href=${link(0, '')}>all</a>
        ${STATES.map((s) => html`<a class=${state === s ? 'active' : ''} href=${link(0, s)}><${StatePill} state=${s} /></a>`)}
      </nav>
      ${data.undisclosed > 0 ? html`<p class="notice">${data.undisclosed} more bundle(s) targeted this block; they are shown from block ${data.availableAtBlock} on (the stats delay).</p>` : null}
      <${BundleTable} rows=${data.rows} />
      ${pages > 1
        ? html`<nav class="pager">
            ${data.page > 0 ? html`<a href=${link(data.page - 1)}>← newer</a>` : null}
            <span>page ${data.page + 1} of ${pages}</span>
            ${data.page + 1 < pages ? html`<a href=${link(data.page + 1)}>more →</a>` : null}
          </nav>`
        : null}
    </section>`
}
