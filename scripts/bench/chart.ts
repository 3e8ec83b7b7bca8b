import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import * as vega from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'

/** One point of a line chart; `series` names the line it belongs to. */
export interface ChartPoint {
  x: number
  y: number
  series: string
}

export interface LineChart {
  title: string
  xTitle: string
  yTitle: string
  points: readonly ChartPoint[]
}

/**
 * Renders a line chart to SVG with Vega-Lite, headless (no browser, no canvas: Vega's SVG
 * renderer is plain strings), and writes it to `path`.
 *
 * @example
 * await writeLineChartSvg('bench/scaling.svg', { title: 'Slot time', xTitle: 'bundles', yTitle: 'ms', points: [{ x: 100, y: 40, series: 'bundlesim' }] })
 */
export async function writeLineChartSvg(path: string, chart: LineChart): Promise<void> {
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: chart.title,
    width: 640,
    height: 360,
    background: 'white',
    data: { values: chart.points.map((p) => ({ ...p })) },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: chart.xTitle },
      y: { field: 'y', type: 'quantitative', title: chart.yTitle },
      color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'top-left', labelLimit: 400 } },
    },
  }
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' })
  const svg = await view.toSVG()
  view.finalize()
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, svg)
}
