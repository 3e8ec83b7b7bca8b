// A slot's bids over time (--get-header-ms): each builder's bids as a rising step line, the
// proposer's getHeader as a dashed line, the delivered bid ringed, bids after it faded.
import { html } from 'dashboard/html.js'
import { eth, SERIES_COLOURS as COLOURS } from 'dashboard/format.js'

const W = 640
const H = 200
const PAD = { left: 12, right: 12, top: 12, bottom: 24 }

export function BidChart({ bids, getHeaderMs, slotMs }) {
  const builders = [...new Set(bids.map((b) => b.builder))]
  const top = bids.reduce((max, b) => (BigInt(b.value) > max ? BigInt(b.value) : max), 1n)
  const x = (ms) => PAD.left + (Math.min(ms, slotMs) / slotMs) * (W - PAD.left - PAD.right)
  // Values as a fraction of the top bid (BigInt-safe: scaled to parts per million first).
  const y = (wei) => H - PAD.bottom - (Number((BigInt(wei) * 1_000_000n) / top) / 1_000_000) * (H - PAD.top - PAD.bottom)
  const lines = builders.map((name, i) => {
    const own = bids.filter((b) => b.builder === name)
    let path = ''
    own.forEach((b, j) => {
      path += j === 0 ? `M${x(b.msIntoSlot)},${y(b.value)}` : `H${x(b.msIntoSlot)}V${y(b.value)}`
    })
    path += `H${x(slotMs)}`
    return { name, colour: COLOURS[i % COLOURS.length], own, path }
  })
  return html`<div class="bid-chart">
    <svg viewBox=${`0 0 ${W} ${H}`} width="100%" role="img" aria-label="bids of the slot over time">
      <line x1=${PAD.left} x2=${W - PAD.right} y1=${H - PAD.bottom} y2=${H - PAD.bottom} stroke="#9ca3af" />
      <line class="get-header" x1=${x(getHeaderMs)} x2=${x(getHeaderMs)} y1=${PAD.top} y2=${H - PAD.bottom} stroke="#ef4444" stroke-dasharray="4 3" />
      <text x=${x(getHeaderMs) + 4} y=${PAD.top + 10} font-size="11" fill="#ef4444">getHeader ${getHeaderMs} ms</text>
      <text x=${PAD.left} y=${H - 6} font-size="11" fill="#6b7280">0 ms</text>
      <text x=${W - PAD.right} y=${H - 6} font-size="11" fill="#6b7280" text-anchor="end">${slotMs} ms</text>
      ${lines.map(
        (line) => html`<g>
          <path d=${line.path} fill="none" stroke=${line.colour} stroke-width="2" />
          ${line.own.map(
            (b) => html`<circle class=${b.delivered ? 'bid delivered' : 'bid'} cx=${x(b.msIntoSlot)} cy=${y(b.value)} r=${b.delivered ? 6 : 4} fill=${b.afterGetHeader ? '#fff' : line.colour} stroke=${b.delivered ? '#111827' : line.colour} stroke-width="2">
              <title>${line.name}: ${eth(b.value)} at ${b.msIntoSlot} ms${b.afterGetHeader ? ' (after getHeader: lost)' : ''}${b.delivered ? ' — delivered' : ''}</title>
            </circle>`,
          )}
        </g>`,
      )}
    </svg>
    <div class="bid-legend">${lines.map((line) => html`<span><i style=${`background:${line.colour}`}></i>${line.name}</span>`)}</div>
    <table class="bid-table">
      <thead><tr><th>ms into slot</th><th>builder</th><th>bid</th><th></th></tr></thead>
      <tbody>${bids.map((b) => html`<tr class=${b.afterGetHeader ? 'muted' : ''}><td>${b.msIntoSlot}</td><td>${b.builder}</td><td>${eth(b.value)}</td><td>${b.delivered ? 'delivered' : b.afterGetHeader ? 'after getHeader' : ''}</td></tr>`)}</tbody>
    </table>
  </div>`
}
