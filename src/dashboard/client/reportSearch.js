// Search in a static report: the live service's /api/search rules, over the answers the report holds.
export function searchReport(report, query) {
  const q = query.trim().toLowerCase()
  const bundlePages = Object.entries(report).filter(([path, page]) => path.startsWith('/api/bundle/') && page.shown)
  const rowsWhere = (test) => bundlePages.filter(([, page]) => test(page)).map(([, page]) => page.bundle)
  if (/^\d+$/.test(q)) return { kind: 'slot', blockNumber: Number(q) }
  if (/^0x[0-9a-f]{64}$/.test(q)) {
    if (report[`/api/bundle/${q}`]?.shown) return { kind: 'bundle', bundleHash: q }
    const holding = rowsWhere((page) => page.txs.some((tx) => tx.hash.toLowerCase() === q))
    if (holding.length === 1) return { kind: 'bundle', bundleHash: holding[0].bundleHash }
    if (holding.length > 1) return { kind: 'bundles', title: `bundles holding tx ${q}`, rows: holding, total: holding.length }
  }
  if (/^0x[0-9a-f]{40}$/.test(q)) {
    const theirs = rowsWhere((page) => page.bundle.searcher?.toLowerCase() === q || page.txs[0]?.from?.toLowerCase() === q)
    if (theirs.length > 0) return { kind: 'bundles', title: `bundles of searcher ${q}`, rows: theirs, total: theirs.length }
  }
  return { kind: 'none', message: `nothing in this report matches ${q}` }
}
