import { formatEther } from 'viem'
import type { BacktestReport } from './report.js'

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const eth = (wei: string) => `${Number(formatEther(BigInt(wei))).toFixed(6)}`
const short = (hex: string) => `<code title="${escape(hex)}">${escape(hex.slice(0, 10))}…</code>`

/**
 * The backtest's report as one static HTML page (no script, opens from disk): the totals, a row
 * per block (real value and ours, the bot's bundles), and every opportunity with who captured it
 * in reality and here, and what the bot's bundles became.
 */
export function backtestPage(report: BacktestReport): string {
  const t = report.totals
  const botName = escape(report.bot.name)
  const source = report.source.recording ? `recording ${escape(report.source.recording)}` : escape(report.source.node ?? '')
  const blockRows = report.blocks
    .map((b) => {
      const bundles = b.bot.bundles.map((bundle) => `${short(bundle.bundleHash)} <span class="${bundle.landed ? 'ok' : 'bad'}">${escape(bundle.status)}</span>${bundle.error ? `<div class="why">${escape(bundle.error)}</div>` : ''}`).join('<br>')
      return `<tr><td>${b.number}</td><td>${b.txCount} <span class="dim">(${b.publicTxs} public, ${b.orders.length} orders, ${b.orders.filter((o) => o.landed).length} landed)</span></td><td class="num">${eth(b.realValueWei)}</td><td class="num">${eth(b.ourValueWei)}</td><td>${b.opportunities.length}</td><td>${b.bot.captured}</td><td class="num">${eth(b.bot.profitWei)}</td><td>${bundles || '<span class="dim">none</span>'}</td></tr>`
    })
    .join('\n')
  const opportunityRows = report.blocks
    .flatMap((b) =>
      b.opportunities.map((o) => {
        const real = o.real ? short(o.real.searcher) : '<span class="dim">nobody</span>'
        const here = o.here ? `${o.here.bot ? `<strong>${botName}</strong>` : o.here.name ? escape(o.here.name) : short(o.here.searcher)} <span class="dim">profit</span> ${eth(o.here.profitWei)} <span class="dim">paid</span> ${eth(o.here.builderPaymentWei)}` : '<span class="dim">nobody</span>'
        return `<tr><td>${b.number}</td><td>${o.victim === null ? 'CEX-DEX' : short(o.victim)}</td><td>${short(o.pool)}</td><td class="num">${eth(o.gapWei)}</td><td>${real}</td><td>${here}</td><td class="num">${o.marginWei === null ? '' : eth(o.marginWei)}</td><td>${o.botContended ? 'yes' : ''}</td></tr>`
      }),
    )
    .join('\n')
  const failures = report.expectations.failures.map((f) => `<li class="bad">${escape(f)}</li>`).join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bundlesim backtest ${report.source.from}–${report.source.to}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1d2430; background: #fafbfc; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.dim { color: #6a7383; } .ok { color: #18794e; } .bad { color: #c62a2f; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 16px 0; }
.card { background: #fff; border: 1px solid #dde1e7; border-radius: 8px; padding: 10px 14px; min-width: 150px; }
.card b { display: block; font-size: 18px; }
table { border-collapse: collapse; background: #fff; border: 1px solid #dde1e7; width: 100%; }
th, td { padding: 6px 10px; border-bottom: 1px solid #eef0f3; text-align: left; vertical-align: top; }
th { background: #f3f5f8; font-weight: 600; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.why { color: #6a7383; font-size: 12px; max-width: 520px; }
code { font: 12px ui-monospace, monospace; }
</style></head><body>
<h1>Backtest of blocks ${report.source.from}–${report.source.to}</h1>
<div class="dim">chain ${report.source.chainId} · ${source}${report.source.mempool ? ` · mempool ${escape(report.source.mempool)}` : ' · no mempool dump'} · bot <strong>${botName}</strong> (<code>${escape(report.bot.command)}</code>) · slot ${report.slotMs} ms + ${report.reactMs} ms · ${(report.elapsedMs / 1000).toFixed(1)} s</div>
${report.error ? `<p class="bad">Stopped: ${escape(report.error)}</p>` : ''}
${failures ? `<ul>${failures}</ul>` : ''}
<div class="cards">
<div class="card"><span class="dim">blocks</span><b>${t.blocks}</b></div>
<div class="card"><span class="dim">value, real / ours (ETH)</span><b>${eth(t.realValueWei)} / ${eth(t.ourValueWei)}</b></div>
<div class="card"><span class="dim">opportunities</span><b>${t.opportunities}</b></div>
<div class="card"><span class="dim">captured in reality / here</span><b>${t.capturedInReality} / ${t.capturedHere}</b></div>
<div class="card"><span class="dim">captured by ${botName}</span><b>${t.botCaptured}</b></div>
<div class="card"><span class="dim">${botName}'s profit / paid (ETH)</span><b>${eth(t.botProfitWei)} / ${eth(t.botBuilderPaymentWei)}</b></div>
<div class="card"><span class="dim">${botName}'s bundles / landed</span><b>${t.botBundles} / ${t.botLanded}</b></div>
</div>
<h2>Opportunities</h2>
<table><thead><tr><th>block</th><th>victim</th><th>pool</th><th>gap (ETH)</th><th>captured in reality</th><th>captured here</th><th>margin (ETH)</th><th>${botName} went for it</th></tr></thead>
<tbody>${opportunityRows || '<tr><td colspan="8" class="dim">none</td></tr>'}</tbody></table>
<h2>Blocks</h2>
<table><thead><tr><th>block</th><th>txs</th><th>real value (ETH)</th><th>our value (ETH)</th><th>opportunities</th><th>${botName} captured</th><th>${botName}'s profit (ETH)</th><th>${botName}'s bundles</th></tr></thead>
<tbody>${blockRows || '<tr><td colspan="8" class="dim">none</td></tr>'}</tbody></table>
</body></html>
`
}
