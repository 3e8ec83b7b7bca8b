// The dashboard: a hash router over the home (chart + slot timeline), a slot, a bundle and search; live via server-sent events.
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { html } from 'dashboard/html.js'
import { onSlots, isStaticReport } from 'dashboard/api.js'
import { useJson } from 'dashboard/useJson.js'
import { Timeline } from 'dashboard/timeline.js'
import { StateChart } from 'dashboard/stateChart.js'
import { SlotPage } from 'dashboard/slotPage.js'
import { BundlePage } from 'dashboard/bundlePage.js'
import { SearchResults } from 'dashboard/searchResults.js'
import { SearchBox } from 'dashboard/searchBox.js'
import { CompetitionPage } from 'dashboard/competitionPage.js'

function parseRoute(hash) {
  const [path, query = ''] = hash.replace(/^#/, '').split('?')
  const params = new URLSearchParams(query)
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  return { name: parts[0] ?? 'home', arg: parts[1], params }
}

function Home({ params, refresh }) {
  const before = params.get('before')
  const { data, error } = useJson(`/api/slots?limit=50${before ? `&before=${before}` : ''}`, refresh)
  if (!data) return html`<p class="muted">${error ?? 'Loading…'}</p>`
  return html`<${StateChart} slots=${data.slots} />
    <section class="card">
      <h2>Slots <span class="muted">head ${data.head}; bundles are disclosed ${data.statsDelaySlots} slot(s) after their target block</span></h2>
      <${Timeline} slots=${data.slots} />
      <nav class="pager">${before ? html`<a href="#/">← newest</a>` : null}${data.next !== null ? html`<a href=${`#/?before=${data.next}`}>older →</a>` : null}</nav>
    </section>`
}

function App() {
  const [route, setRoute] = useState(parseRoute(location.hash))
  const [refresh, setRefresh] = useState(0)
  const [live, setLive] = useState({ connected: false, lastBlock: null })
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])
  useEffect(
    () =>
      onSlots(
        (slot) => {
          setLive({ connected: true, lastBlock: slot.blockNumber })
          setRefresh((n) => n + 1)
        },
        (connected) => setLive((old) => ({ ...old, connected })),
      ),
    [],
  )
  const { name, arg, params } = route
  let view
  if (name === 'slot') view = html`<${SlotPage} key=${arg} block=${Number(arg)} page=${Number(params.get('page') ?? 0)} state=${params.get('state') ?? ''} refresh=${refresh} />`
  else if (name === 'bundle') view = html`<${BundlePage} key=${arg} hash=${arg} refresh=${refresh} />`
  else if (name === 'competition') view = html`<${CompetitionPage} page=${Number(params.get('page') ?? 0)} refresh=${refresh} />`
  else if (name === 'search') view = html`<${SearchResults} key=${arg} query=${arg} refresh=${refresh} />`
  else view = html`<${Home} params=${params} refresh=${refresh} />`
  return html`<header>
      <a class="brand" href="#/">bundlesim</a>
      <a class="nav" href="#/competition">competition</a>
      <${SearchBox} key=${name === 'search' ? arg : ''} initial=${name === 'search' ? arg : ''} />
      <span class=${`live ${live.connected ? 'on' : 'off'}`} id="live">${isStaticReport ? 'report' : live.connected ? `live${live.lastBlock === null ? '' : ` · block ${live.lastBlock}`}` : 'connecting…'}</span>
    </header>
    <main>${view}</main>`
}

const root = document.getElementById('app')
root.textContent = ''
render(html`<${App} />`, root)
