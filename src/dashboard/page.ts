import { IMPORT_MAP } from './assets.js'

/** The live dashboard's HTML: a shell that loads the page's modules from `/assets/`; they fetch `/api/…`. */
export function dashboardHtml(): string {
  return htmlShell({
    head: `<link rel="stylesheet" href="/assets/uPlot.min.css">\n<link rel="stylesheet" href="/assets/style.css">\n<script type="importmap">${JSON.stringify(IMPORT_MAP)}</script>`,
    entry: '<script type="module" src="/assets/app.js"></script>',
  })
}

/** The document around the page: `head` (styles, import map, data) and the `entry` script. */
export function htmlShell({ title = 'bundlesim dashboard', head, entry }: { title?: string; head: string; entry: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${head}
</head>
<body>
<div id="app">Loading…</div>
${entry}
</body>
</html>
`
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
}
