import { IMPORT_MAP, assetBody, clientModules } from './assets.js'
import { htmlShell } from './page.js'

/**
 * A static report: one HTML file that opens from disk (file://) with no server. Browsers load
 * no module from a file:// page's folder, so every module is inlined as a data: URL in the
 * import map, the styles as <style>, and the answers (from `reportData`) as JSON.
 */
export function reportHtml(data: Record<string, unknown>, title: string): string {
  const dataUrl = (name: string) => `data:text/javascript;base64,${assetBody(name)!.body.toString('base64')}`
  const imports: Record<string, string> = {}
  for (const [specifier, url] of Object.entries(IMPORT_MAP.imports)) if (!specifier.endsWith('/')) imports[specifier] = dataUrl(url.replace('/assets/', ''))
  for (const name of clientModules()) imports[`dashboard/${name}`] = dataUrl(name)
  const css = ['uPlot.min.css', 'style.css'].map((name) => assetBody(name)!.body.toString('utf8')).join('\n')
  return htmlShell({
    title,
    head: [
      `<style>${css.replace(/<\//g, '<\\/')}</style>`,
      `<script type="importmap">${JSON.stringify({ imports })}</script>`,
      `<script id="report-data" type="application/json">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`,
    ].join('\n'),
    entry: `<script type="module">import 'dashboard/app.js'</script>`,
  })
}
