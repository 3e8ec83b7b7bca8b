import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The file a scenario's dashboard report is saved as: its name, made safe for any file system. */
export function reportFileName(scenarioName: string): string {
  return `${scenarioName.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'scenario'}.html`
}

/**
 * Saves the dashboard of a finished run as one static HTML file (`GET /report.html` on the
 * stats port: every slot, bundle and tx inlined; opens from disk). Returns its path.
 */
export async function saveDashboardReport(statsUrl: string, dir: string, scenarioName: string): Promise<string> {
  const res = await fetch(new URL('report.html', statsUrl))
  if (!res.ok) throw new Error(`the dashboard report could not be read: HTTP ${res.status}`)
  await mkdir(dir, { recursive: true })
  const file = join(dir, reportFileName(scenarioName))
  await writeFile(file, await res.text())
  return file
}
