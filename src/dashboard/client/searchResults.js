// What a search found: straight to the bundle or slot when it is one, else a list of bundles.
import { useEffect } from 'preact/hooks'
import { html } from 'dashboard/html.js'
import { useJson } from 'dashboard/useJson.js'
import { BundleTable } from 'dashboard/bundleTable.js'

export function SearchResults({ query, refresh }) {
  const { data, error } = useJson(`/api/search?q=${encodeURIComponent(query)}`, refresh)
  useEffect(() => {
    if (data?.kind === 'bundle') location.replace(`#/bundle/${data.bundleHash}`)
    if (data?.kind === 'slot') location.replace(`#/slot/${data.blockNumber}`)
  }, [data])
  if (!data) return html`<p class="muted">${error ?? 'Searching…'}</p>`
  if (data.kind === 'none') return html`<section class="card"><h2>Search</h2><p class="notice">${data.message}</p></section>`
  if (data.kind !== 'bundles') return html`<p class="muted">Opening…</p>`
  return html`<section class="card"><h2>${data.title} <span class="muted">(${data.total}${data.total > data.rows.length ? `, newest ${data.rows.length} shown` : ''})</span></h2><${BundleTable} rows=${data.rows} showBlock=${true} /></section>`
}
