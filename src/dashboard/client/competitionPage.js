// The competition view (a market run, --flow): each searcher's record and profit over time, then
// every opportunity newest first with the bundles that went for it: their bids, outcomes, the winner.
import { html } from 'dashboard/html.js'
import { useJson } from 'dashboard/useJson.js'
import { StatePill } from 'dashboard/bundleTable.js'
import { ProfitChart } from 'dashboard/profitChart.js'
import { count, eth, short, stateOf } from 'dashboard/format.js'

export function CompetitionPage({ page, refresh }) {
  const { data, error } = useJson('/api/competition', refresh)
  if (!data) return html`<p class="muted">${error ?? 'Loading…'}</p>`
  if (data.error) return html`<section class="card"><h2>Competition</h2><p class="muted">${data.error}</p></section>`
  return html`<${Searchers} view=${data} />
    <${ProfitChart} profit=${data.profitOverTime} />
    ${data.prices ? html`<${Prices} prices=${data.prices} />` : null}
    <${Opportunities} page=${page} refresh=${refresh} />`
}

/** A searcher by its name (its address beside it), else its address. */
function Searcher({ name, address }) {
  if (name) return html`<b>${name}</b> <span class="muted mono" title=${address}>${short(address)}</span>`
  return address ? html`<span class="mono" title=${address}>${short(address)}</span>` : html`<span class="muted">unsigned</span>`
}

function Searchers({ view }) {
  const rate = (r) => `${(r * 100).toFixed(1)} %`
  return html`<section class="card competition">
    <h2>Competition <span class="muted">${view.captured} of ${view.opportunities} opportunities captured, blocks ${view.fromBlock}–${view.toBlock}</span></h2>
    <table class="competition-searchers">
      <thead><tr><th>searcher</th><th>captured</th><th>lost</th><th>failed</th><th>capture rate</th><th>profit</th><th>paid the builder</th></tr></thead>
      <tbody>${view.searchers.map(
        (s) => html`<tr class="searcher-row" data-searcher=${s.name ?? s.searcher}>
          <td><${Searcher} name=${s.name} address=${s.searcher} /></td>
          <td class="num">${s.captured}</td>
          <td class="num">${s.lost}</td>
          <td class="num" title=${failedTitle(s)}>${s.failed}</td>
          <td class="num">${rate(s.captureRate)}</td>
          <td class="num">${eth(s.profitWei)}</td>
          <td class="num" title=${s.grossPaymentWei !== s.builderPaymentWei ? `${eth(s.grossPaymentWei)} before refunds paid out of it` : ''}>${eth(s.builderPaymentWei)}</td>
        </tr>`,
      )}</tbody>
    </table>
  </section>`
}

const VENUES = { 'uniswap-v2': 'Uniswap V2', sushiswap: 'SushiSwap', 'uniswap-v3': 'Uniswap V3', 'uniswap-v4': 'Uniswap V4' }
const priceText = (p) => (p >= 100 ? p.toFixed(2) : p >= 1 ? p.toFixed(4) : p.toPrecision(6))

/** Each pool's price after the latest block beside the exchange's at the block's time: how far each drifted. */
function Prices({ prices }) {
  return html`<section class="card prices">
    <h2>Prices <span class="muted">after block ${prices.blockNumber}: each pool beside the exchange's price at the block's time; a pool further than its fee is a CEX-DEX gap</span></h2>
    <table class="pool-prices">
      <thead><tr><th>pair</th><th>pool</th><th>fee</th><th>pool's price</th><th>exchange's</th><th>gap</th></tr></thead>
      <tbody>${prices.pools.map(
        (p) => html`<tr class="pool-price-row" data-pool=${p.pool}>
          <td>${p.pair}</td>
          <td>${VENUES[p.dex] ?? p.dex} <span class="muted mono" title=${p.pool}>${short(p.pool)}</span></td>
          <td class="num">${(p.fee / 10_000).toFixed(2)} %</td>
          <td class="num">${priceText(p.price)}</td>
          <td class="num">${p.referencePrice === null ? '—' : priceText(p.referencePrice)}</td>
          <td class=${`num${p.gapBps !== null && Math.abs(p.gapBps) * 100 > p.fee ? ' gap-open' : ''}`}>${p.gapBps === null ? '—' : `${p.gapBps > 0 ? '+' : ''}${p.gapBps.toFixed(1)} bp`}</td>
        </tr>`,
      )}</tbody>
    </table>
  </section>`
}

/** Its failed rounds by kind (its bundle's errorKind), for the cell's tooltip. */
function failedTitle(s) {
  return Object.entries(s.failedKinds ?? {}).map(([kind, n]) => `${kind}: ${n}`).join(', ')
}

function Opportunities({ page, refresh }) {
  const { data, error } = useJson(`/api/competition/opportunities?page=${page}`, refresh)
  if (!data) return html`<section class="card"><p class="muted">${error ?? 'Loading…'}</p></section>`
  const pages = Math.max(1, Math.ceil(data.total / data.pageSize))
  return html`<section class="card">
    <h2>Opportunities <span class="muted">${data.total}, newest first; the winner in green, the margin is its bid less the best losing one</span></h2>
    ${data.rows.length === 0
      ? html`<p class="muted">No user swap has left a gap yet.</p>`
      : html`<table class="opportunities">
          <thead><tr><th>block</th><th>victim tx (or kind)</th><th>gap</th><th>contender</th><th>searcher</th><th>bid</th><th>outcome</th><th>margin</th></tr></thead>
          ${data.rows.map((o) => html`<${OpportunityRows} key=${opportunityKey(o)} o=${o} />`)}
        </table>`}
    ${pages > 1
      ? html`<nav class="pager">
          ${data.page > 0 ? html`<a href=${`#/competition?page=${data.page - 1}`}>← newer</a>` : null}
          <span>page ${data.page + 1} of ${pages}</span>
          ${data.page + 1 < pages ? html`<a href=${`#/competition?page=${data.page + 1}`}>older →</a>` : null}
        </nav>`
      : null}
  </section>`
}

/** An opportunity's key on the page: its block and its victim (a CEX-DEX gap has none: its pool; a liquidation, its position too: one oracle round puts several under). */
function opportunityKey(o) {
  return o.kind === 'liquidation' ? `${o.blockNumber}:${o.position}` : `${o.blockNumber}:${o.victim ?? o.pool}`
}

/** What the opportunity was: a user's swap (the victim), a CEX-DEX gap (its pool), or a liquidation (the position, after the oracle round). */
function OpportunityWhat({ o }) {
  if (o.kind === 'liquidation')
    return html`<span title="an oracle round put the position under a health factor of 1">liquidation</span>
      <div class="muted">position <span class="mono" title=${o.position}>${short(o.position)}</span></div>
      ${o.victim ? html`<div class="muted">after round <span class="mono" title=${o.victim}>${short(o.victim)}</span></div>` : null}`
  return html`${o.victim === null ? html`<span title="the pool started the block away from the exchange's price">CEX-DEX</span>` : html`<span class="mono" title=${o.victim}>${short(o.victim)}</span>`}<div class="muted">pool <span class="mono" title=${o.pool}>${short(o.pool)}</span></div>`
}

/** One opportunity: a row per contender; block, what it was, gap and margin span them all. */
function OpportunityRows({ o }) {
  const rows = contenderRows(o)
  const span = rows.length
  return html`<tbody class="opportunity" data-opportunity=${opportunityKey(o)} data-kind=${o.kind} data-block=${o.blockNumber}>
    ${rows.map(
      (row, i) => html`<tr class=${row.className} data-bundle=${row.bundleHash}>
        ${i === 0
          ? html`<td rowspan=${span}><a href=${`#/slot/${o.blockNumber}`}>${o.blockNumber}</a></td>
              <td rowspan=${span}><${OpportunityWhat} o=${o} /></td>
              <td rowspan=${span} class="num">${eth(o.gapWei)}</td>`
          : null}
        ${row.cells}
        ${i === 0 ? html`<td rowspan=${span} class="num margin">${margin(o)}</td>` : null}
      </tr>`,
    )}
  </tbody>`
}

/**
 * The contender columns of each row (contender, searcher, bid, outcome): the listed contenders
 * (the winner first), a winner that came in no bundle, and a note for those not disclosed yet.
 */
function contenderRows(o) {
  const rows = o.contenders.map((c) => ({
    className: c.captured ? 'contender-row winner' : 'contender-row',
    bundleHash: c.bundleHash,
    cells: html`<td><${BundleLink} hash=${c.bundleHash} disclosed=${c.disclosed} /></td>
      <td><${Searcher} name=${c.name} address=${c.searcher} /></td>
      <td class="num">${eth(c.builderPaymentWei)}</td>
      <td>${c.captured ? html`<${Won} o=${o} />` : html`<${StatePill} state=${stateOf(c.status)} status=${c.status} />${c.errorKind ? html` <span class="tag">${c.errorKind}</span>` : null}`}</td>`,
  }))
  if (o.searcher && !o.contenders.some((c) => c.captured)) rows.unshift(winnerOutsideBundle(o))
  if (o.undisclosed > 0) rows.push(note(o.availableAtBlock === null ? `${count(o.undisclosed, 'more contender')}, not shown (traces expired)` : `${count(o.undisclosed, 'more contender')}, shown from block ${o.availableAtBlock} on (the stats delay)`, 'undisclosed-row'))
  if (rows.length === 0) rows.push(note('nobody went for it', 'nobody-row'))
  return rows
}

/** Captured by txs that came in no bundle (the public mempool, a private tx): the winner all the same. */
function winnerOutsideBundle(o) {
  return {
    className: 'contender-row winner',
    bundleHash: undefined,
    cells: html`<td class="muted">not a bundle: <span class="mono" title=${o.backrunTxs[0]}>${short(o.backrunTxs[0])}</span></td>
      <td><${Searcher} name=${o.name} address=${o.searcher} /></td>
      <td class="num">${eth(o.builderPaymentWei)}</td>
      <td><${Won} o=${o} /></td>`,
  }
}

function note(text, className) {
  return { className, bundleHash: undefined, cells: html`<td colspan="4" class="muted">${text}</td>` }
}

function Won({ o }) {
  return html`<span class="won">✓ won</span> <span class="muted">profit ${eth(o.profitWei)}, gas ${eth(o.gasWei)}</span>`
}

/** A contender's hash: a link to its page once its stats are served (disclosure.ts), else just the hash. */
function BundleLink({ hash, disclosed }) {
  if (disclosed) return html`<a class="mono" href=${`#/bundle/${hash}`} title=${hash}>${short(hash)}</a>`
  return html`<span class="mono" title=${`${hash} (not disclosed yet)`}>${short(hash)}</span>`
}

function margin(o) {
  if (o.marginWei !== null) return eth(o.marginWei)
  return o.undisclosed > 0 ? html`<span class="muted">once disclosed</span>` : '—'
}
