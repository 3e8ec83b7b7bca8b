// Search by bundle hash, tx hash, block hash, searcher address or block number.
import { useState } from 'preact/hooks'
import { html } from 'dashboard/html.js'

export function SearchBox({ initial = '' }) {
  const [query, setQuery] = useState(initial)
  const submit = (event) => {
    event.preventDefault()
    if (query.trim()) location.hash = `#/search/${encodeURIComponent(query.trim())}`
  }
  return html`<form class="search" onSubmit=${submit}>
    <input name="q" placeholder="bundle hash, tx hash, searcher address or block number" value=${query} onInput=${(e) => setQuery(e.currentTarget.value)} />
    <button type="submit">Search</button>
  </form>`
}
