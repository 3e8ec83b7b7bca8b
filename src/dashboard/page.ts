import { IMPORT_MAP } from './assets.js'

/**
 * The dashboard's HTML: a shell that loads the page's modules. `data`, when given, is the whole
 * view inlined for a static report (no server behind it); the live page fetches `/api/…`.
 */
export function dashboardHtml(options: { title?: string; data?: unknown; assetBase?: string } = {}): string {
  const base = options.assetBase ?? '/assets/'
  const importMap = JSON.stringify({ imports: Object.fromEntries(Object.entries(IMPORT_MAP.imports).map(([name, url]) => [name, url.replace('/assets/', base)])) })
  const inline = options.data === undefined ? '' : `<script id="report-data" type="application/json">${JSON.stringify(options.data).replace(/</g, '\\u003c')}</script>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title ?? 'bundlesim dashboard')}</title>
<link rel="stylesheet" href="${base}uPlot.min.css">
<link rel="stylesheet" href="${base}style.css">
<script type="importmap">${importMap}</script>
${inline}
</head>
<body>
<div id="app">Loading…</div>
<script type="module" src="${base}app.js"></script>
</body>
</html>
`
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
}
