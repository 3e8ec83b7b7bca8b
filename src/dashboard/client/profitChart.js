// Each searcher's cumulative profit block by block, one line a searcher (uPlot draws them).
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { html } from 'dashboard/html.js'
import { short, SERIES_COLOURS } from 'dashboard/format.js'

const WHOLE = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]

/** Decimal wei as a float of ETH: precise enough for a line on a chart, never for a figure in a table. */
const toEth = (wei) => Number(wei) / 1e18

export function ProfitChart({ profit }) {
  const box = useRef(null)
  useEffect(() => {
    if (!box.current || profit.blocks.length === 0) return
    // Points only while few enough to tell apart; a long run is a line.
    const points = { show: profit.blocks.length <= 60, size: 5 }
    const series = profit.searchers.map((s, i) => ({ label: s.name ?? short(s.searcher), stroke: SERIES_COLOURS[i % SERIES_COLOURS.length], width: 2, points }))
    const plot = new uPlot(
      {
        width: box.current.clientWidth || 800,
        height: 200,
        // One block alone would be a zero-width scale.
        scales: { x: { time: false, range: (_u, min, max) => (min === max ? [min - 1, max + 1] : [min, max]) } },
        axes: [{ label: 'block', incrs: WHOLE }, { label: 'ETH', size: 70 }],
        legend: { live: false },
        series: [{ label: 'block' }, ...series],
      },
      [profit.blocks, ...profit.searchers.map((s) => s.cumulativeWei.map(toEth))],
      box.current,
    )
    return () => plot.destroy()
  }, [profit])
  return html`<section class="card">
    <h2>Profit over time <span class="muted">each searcher’s cumulative profit, after each block</span></h2>
    <div class="chart profit-chart" ref=${box}></div>
    ${profit.blocks.length === 0 ? html`<p class="muted">No block has been classified yet.</p>` : null}
  </section>`
}
