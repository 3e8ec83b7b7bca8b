import { searchReport } from 'dashboard/reportSearch.js'

// The page's one way to read data: the stats port's read-only JSON endpoints, or, in a static
// report, the same answers inlined in the HTML (keyed by the path the live page would fetch).
const inlined = document.getElementById('report-data')
const report = inlined ? JSON.parse(inlined.textContent) : null

export const isStaticReport = report !== null

export async function getJson(path) {
  if (report) {
    if (path.startsWith('/api/search?')) return searchReport(report, new URLSearchParams(path.split('?')[1]).get('q') ?? '')
    if (path in report) return report[path]
    throw new Error(`not in this report: ${path}`)
  }
  const res = await fetch(path, { headers: { accept: 'application/json' } })
  const body = await res.json()
  if (!res.ok && res.status !== 404) throw new Error(body.error ?? `HTTP ${res.status}`)
  return body
}

/** Calls `onSlot` for every slot the service runs (server-sent events; the browser reconnects by itself). */
export function onSlots(onSlot, onStatus) {
  if (report) return () => {}
  const source = new EventSource('/api/events')
  source.addEventListener('slot', (event) => onSlot(JSON.parse(event.data)))
  source.onopen = () => onStatus(true)
  source.onerror = () => onStatus(false)
  return () => source.close()
}
