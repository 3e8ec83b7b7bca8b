// The slot timeline: each slot's block, time, candidates per algorithm (or each builder's bid), relay bid, who won, block hash.
import { html } from 'dashboard/html.js'
import { count, eth, short, time, STATES, STATE_COLOURS } from 'dashboard/format.js'

export function Timeline({ slots }) {
  if (slots.length === 0) return html`<p class="muted">Waiting for the first slot…</p>`
  return html`<table class="timeline">
    <thead><tr><th>block</th><th>time</th><th>candidates (value)</th><th>relay bid</th><th>won by</th><th>block value</th><th>block hash</th><th>bundles</th></tr></thead>
    <tbody>${slots.map((slot) => html`<${SlotRowView} key=${slot.blockNumber} slot=${slot} />`)}</tbody>
  </table>`
}

function SlotRowView({ slot }) {
  return html`<tr class="slot-row" data-block=${slot.blockNumber}>
    <td><a href=${`#/slot/${slot.blockNumber}`}>${slot.blockNumber}</a></td>
    <td>${time(slot.timestamp)}</td>
    <td>${slot.builders ? slot.builders.map((b) => html`<div class=${b.won ? 'candidate best builder-bid' : 'candidate builder-bid'}>${b.name}: ${eth(b.value)} <span class="muted">(${b.algorithm}, ${count(b.bundleCount, 'bundle')})</span></div>`) : slot.candidates.map((c) => html`<div class=${c.algorithm === slot.winner ? 'candidate best' : 'candidate'}>${c.algorithm}: ${eth(c.value)} <span class="muted">(${count(c.bundleCount, 'bundle')})</span></div>`)}</td>
    <td>${slot.competitorBid === null ? '—' : eth(slot.competitorBid)}</td>
    <td>${wonBy(slot)}</td>
    <td class="num">${eth(slot.value)}</td>
    <td class="mono" title=${slot.blockHash}>${short(slot.blockHash)}</td>
    <td><${StateBar} slot=${slot} /></td>
  </tr>`
}

/** Who won the relay auction: us (and with which algorithm), a named builder, or the competitor. */
export function wonBy(slot) {
  if (slot.builders) return slot.builder ? html`<span class="won winning-builder">builder ${slot.builder} (${slot.winner})</span>` : html`<span class="lost">competitor</span>`
  return slot.won ? html`<span class="won">us (${slot.winner})</span>` : html`<span class="lost">competitor</span>`
}

/** The slot's disclosed bundles by state, as a thin coloured bar with counts. */
export function StateBar({ slot }) {
  const total = STATES.reduce((sum, s) => sum + slot.states[s], 0)
  return html`<div class="state-bar" title=${STATES.filter((s) => slot.states[s]).map((s) => `${s}: ${slot.states[s]}`).join(', ')}>
    ${STATES.filter((s) => slot.states[s] > 0).map((s) => html`<span style=${`flex:${slot.states[s]};background:${STATE_COLOURS[s]}`}></span>`)}
  </div>
  <span class="muted">${total}${slot.undisclosed ? ` + ${slot.undisclosed} not yet disclosed` : ''}</span>`
}
