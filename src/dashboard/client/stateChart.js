// Bundles per state per slot, as stacked bars (uPlot draws them; we stack the series).
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { html } from 'dashboard/html.js'
import { STATES, STATE_COLOURS } from 'dashboard/format.js'

const WHOLE = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]

export function StateChart({ slots }) {
  const box = useRef(null)
  useEffect(() => {
    if (!box.current || slots.length === 0) return
    const ordered = [...slots].sort((a, b) => a.blockNumber - b.blockNumber)
    const x = ordered.map((s) => s.blockNumber)
    // Stacked: each series is the running sum, drawn from the top state down so the bars nest.
    const stacked = []
    let running = ordered.map(() => 0)
    for (const state of STATES) {
      running = running.map((sum, i) => sum + ordered[i].states[state])
      stacked.push(running)
    }
    const bars = uPlot.paths.bars({ size: [0.7, 40] })
    const series = STATES.map((state) => ({ label: state, stroke: STATE_COLOURS[state], fill: STATE_COLOURS[state], paths: bars, points: { show: false } })).reverse()
    const plot = new uPlot(
      {
        width: box.current.clientWidth || 800,
        height: 180,
        scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        // Whole blocks and whole bundles only.
        axes: [{ label: 'block', incrs: WHOLE }, { label: 'bundles', incrs: WHOLE }],
        legend: { live: false },
        series: [{ label: 'block' }, ...series],
      },
      [x, ...stacked.slice().reverse()],
      box.current,
    )
    return () => plot.destroy()
  }, [slots])
  return html`<section class="card"><h2>Bundles per state per slot</h2><div class="chart" ref=${box}></div>${slots.length === 0 ? html`<p class="muted">No slot has run yet.</p>` : null}</section>`
}
