// The competition view (a market run, --flow): who captured the users' opportunities, their profit and builder payment, and slot by slot.
import { html } from 'dashboard/html.js'
import { useJson } from 'dashboard/useJson.js'
import { eth, short } from 'dashboard/format.js'

export function CompetitionPage({ refresh }) {
  const { data, error } = useJson('/api/competition', refresh)
  if (!data) return html`<p class="muted">${error ?? 'Loading…'}</p>`
  if (data.error) return html`<section class="card"><h2>Competition</h2><p class="muted">${data.error}</p></section>`
  const rate = (r) => `${(r * 100).toFixed(1)} %`
  return html`<section class="card competition">
      <h2>Competition <span class="muted">${data.captured} of ${data.opportunities} opportunities captured</span></h2>
      <table class="competition-searchers">
        <thead><tr><th>searcher</th><th>captured</th><th>capture rate</th><th>profit</th><th>paid the builder</th></tr></thead>
        <tbody>${data.searchers.map(
          (s) => html`<tr class="searcher-row" data-searcher=${s.name ?? s.searcher}>
            <td>${s.name ? html`<b>${s.name}</b> <span class="muted mono">${short(s.searcher)}</span>` : html`<span class="mono">${s.searcher}</span>`}</td>
            <td class="num">${s.captured}</td>
            <td class="num">${rate(s.captureRate)}</td>
            <td class="num">${eth(s.profitWei)}</td>
            <td class="num">${eth(s.builderPaymentWei)}</td>
          </tr>`,
        )}</tbody>
      </table>
    </section>
    <section class="card">
      <h2>By slot</h2>
      <table class="competition-slots">
        <thead><tr><th>block</th><th>opportunities</th><th>captured</th><th>by</th></tr></thead>
        <tbody>${data.slots.map(
          (slot) => html`<tr>
            <td><a href=${`#/slot/${slot.blockNumber}`}>${slot.blockNumber}</a></td>
            <td class="num">${slot.opportunities}</td>
            <td class="num">${slot.captured}</td>
            <td>${slot.winners.map((w) => `${w.name} ×${w.captured}`).join(', ') || html`<span class="muted">nobody</span>`}</td>
          </tr>`,
        )}</tbody>
      </table>
    </section>`
}
