import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Hash } from 'viem'
import { startHarness, type Harness } from '../../src/index.js'
import { writeMempoolCsv, type DumpRow } from '../../src/backtest/mempoolDump.js'
import { WsClient } from './wsClient.js'
import { rpc } from './harness.js'

/**
 * A stand-in "mainnet" for backtests (there is no internet here): bundlesim's own market run
 * for `slots` slots on one Anvil — users swapping in the public mempool, the rivals backrunning
 * them through bundles, the gas market — and its public mempool written as a mempool-dumpster
 * dump. Each public tx's `timestamp_ms` is placed inside the slot of the block that included it,
 * in the order the public view announced them (a manual clock has no wall-clock slot to measure).
 */
export interface StandInMainnet {
  /** The stand-in's Anvil: what a backtest forks, as it would a mainnet node. */
  anvilUrl: string
  harness: Harness
  /** Its blocks made by the market: first and last. */
  from: number
  to: number
  /** The dump's rows: every public tx the blocks included. */
  rows: DumpRow[]
  /** The market's competition report over the blocks: who won each opportunity "in reality". */
  competition: any
  writeDump(file: string): Promise<void>
  /**
   * Its exchange's price as Binance publishes a day of trades: one ETHUSDT and one BTCUSDT trade
   * at each block's time, at the price the market's reference price had then (the slot reports'
   * `referencePrices`), and an exchange file replaying them (`--exchange`). Returns its path.
   */
  writeExchange(dir: string): Promise<string>
  stop(): Promise<void>
}

export async function startStandInMainnet(options: { slots: number; market: Record<string, unknown> }): Promise<StandInMainnet> {
  const harness = await startHarness({ clock: 'manual', port: 0, statsPort: 0, anvilPort: 0, mevSharePort: 0, statsDelaySlots: 0, logLevel: 'error', ...options.market })
  try {
    const ws = await WsClient.connect(harness.rpcUrl)
    const subscription = await ws.subscribe('newPendingTransactions')
    // The market's first block also holds what it sent while starting, before anyone could subscribe: it is left out.
    const reports = await harness.advanceSlot()
    const from = Number(harness.status().blockNumber) + 1
    reports.push(...(await harness.advanceSlot(options.slots)))
    ws.close()
    const to = from + options.slots - 1
    const seen = ws.notifications(subscription).map((hash: string) => hash.toLowerCase() as Hash)
    const order = new Map(seen.map((hash, i) => [hash, i]))
    const chainId = harness.status().chainId
    const rows: DumpRow[] = []
    for (let number = from; number <= to; number++) {
      const [block, parent] = await Promise.all([getBlock(harness.anvilUrl, number), getBlock(harness.anvilUrl, number - 1)])
      const publicTxs = (block.transactions as Array<{ hash: string; from: string; to: string | null; nonce: string }>).filter((tx) => order.has(tx.hash.toLowerCase() as Hash))
      publicTxs.sort((a, b) => order.get(a.hash.toLowerCase() as Hash)! - order.get(b.hash.toLowerCase() as Hash)!)
      const slotMs = (Number(block.timestamp) - Number(parent.timestamp)) * 1000
      publicTxs.forEach((tx, i) => {
        rows.push({
          hash: tx.hash.toLowerCase() as Hash,
          timestampMs: Number(parent.timestamp) * 1000 + Math.round(((i + 1) * slotMs) / (publicTxs.length + 2)),
          chainId,
          includedAtBlock: number,
          from: tx.from,
          to: tx.to ?? '',
          nonce: Number(tx.nonce),
          includedBlockTimestampMs: Number(block.timestamp) * 1000,
        })
      })
    }
    const competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [{ fromBlock: from, toBlock: to }])).body.result
    const writeExchange = async (dir: string) => {
      // Wei of WETH for one whole token: USDC's gives ETH in USD (USDC at 1 USD), WBTC's BTC in ETH.
      const trades = reports.map((report, i) => {
        const { atMs, tokens } = report.referencePrices!
        const weiOf = (symbol: string) => Number(tokens.find((t) => t.symbol === symbol)!.priceWei)
        const eth = 1e18 / weiOf('USDC')
        return { i, atMs, eth, btc: (weiOf('WBTC') / 1e18) * eth }
      })
      const csv = (price: (t: (typeof trades)[number]) => number) => trades.map((t) => `${t.i + 1},${price(t).toFixed(8)},0.10000000,${t.i + 1},${t.i + 1},${t.atMs},True,True`).join('\n') + '\n'
      await writeFile(path.join(dir, 'ETHUSDT-aggTrades.csv'), csv((t) => t.eth))
      await writeFile(path.join(dir, 'BTCUSDT-aggTrades.csv'), csv((t) => t.btc))
      const file = path.join(dir, 'exchange.yaml')
      await writeFile(file, 'exchange:\n  assets:\n    ETH: { replay: { file: ETHUSDT-aggTrades.csv } }\n    BTC: { replay: { file: BTCUSDT-aggTrades.csv } }\n  symbols: [ETHUSDT, ETHUSDC, BTCUSDT, ETHBTC]\n')
      return file
    }
    return { anvilUrl: harness.anvilUrl, harness, from, to, rows, competition, writeDump: (file) => writeMempoolCsv(file, rows), writeExchange, stop: () => harness.stop() }
  } catch (error) {
    await harness.stop()
    throw error
  }
}

async function getBlock(url: string, number: number): Promise<any> {
  return (await rpc(url, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, true])).body.result
}
