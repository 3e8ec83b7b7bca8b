import WebSocket from 'ws'
import { parseGwei } from 'viem'
import { versus, plain, type BenchResult } from './report.js'
import { advanceSlot, benchAccounts, benchHarness, fund, independentBundles, rpc, signTransfer, submitBundles, using, type BenchOptions } from './support.js'


/**
 * A slot of N bundles with and without a WebSocket subscriber that stopped reading
 * (subscribed to newHeads, full pending txs and every log), in alternating rounds on one
 * harness: the subscriber must cost the builder nothing, and its unread data stays bounded.
 */
export async function benchStalledSubscriber({ quick, size }: BenchOptions): Promise<BenchResult> {
  const count = size ?? (quick ? 30 : 1_000)
  // Public txs sent before each measured slot: their full-tx notifications fill the stalled socket.
  const publicTxs = quick ? 20 : 200
  const rounds = ['without', 'stalled', 'without', 'stalled'] as const
  const prepared = await Promise.all(rounds.map((_, r) => independentBundles(count, `stall-${r}`, (i) => ({ tip: parseGwei(String(1 + (i % 5))) }))))
  const publicSenders = benchAccounts(rounds.length, 'stall-public')

  return using(benchHarness(), async (harness) => {
    await fund(harness.anvilUrl, [...prepared.flatMap((p) => p.accounts.map((a) => a.address)), ...publicSenders.map((a) => a.address)])
    await advanceSlot(harness)
    const slotMs: Record<(typeof rounds)[number], number[]> = { without: [], stalled: [] }
    let closedAsSlow = 0
    let peakRssMb = 0
    for (const [r, kind] of rounds.entries()) {
      const subscriber = kind === 'stalled' ? await stalledSubscriber(harness.rpcUrl) : null
      for (let nonce = 0; nonce < publicTxs; nonce++) {
        const tx = await signTransfer(publicSenders[r]!, nonce, 1n, 31337, { dataBytes: 2_000 })
        await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [tx.raw])
      }
      await submitBundles(harness.rpcUrl, prepared[r]!.bundles)
      const report = await advanceSlot(harness)
      if (report.bundles.length !== count) throw new Error(`stalled subscriber bench: ${report.bundles.length} of ${count} bundles landed`)
      slotMs[kind].push(report.timings.totalMs - report.timings.verifyWaitMs)
      peakRssMb = Math.max(peakRssMb, process.memoryUsage().rss / 2 ** 20)
      if (subscriber) closedAsSlow += (await subscriber.release()) === 1008 ? 1 : 0
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
    return {
      name: 'stalledSubscriber',
      title: 'Stalled WebSocket subscriber',
      figures: [
        versus(`${count} bundles → block mined, with a stalled ws subscriber`, mean(slotMs.stalled), 'ms', { name: 'the same slot without it', value: mean(slotMs.without) }, '≤ 1.1'),
        plain('stalled subscribers closed as too slow (1008)', closedAsSlow, 'sockets'),
        plain('peak RSS of the bench process (harness inside)', peakRssMb, 'MB'),
      ],
      notes: [
        `${rounds.length} alternating rounds on one harness (${rounds.join(', ')}); each sends ${publicTxs} public txs with 2 KB of calldata, then ${count} 2-tx bundles, then runs the slot.`,
        `the stalled client subscribes to newHeads, newPendingTransactions (full txs) and logs, then stops reading its socket; the server closes it once more than ${harness.config.wsMaxBufferedBytes} bytes wait unread.`,
        `per-round slot ms: without ${slotMs.without.map(Math.round).join(', ')}; stalled ${slotMs.stalled.map(Math.round).join(', ')}.`,
      ],
    }
  })
}

/** A client that subscribes to everything, then stops reading; `release()` reads again and returns the close code it gets. */
async function stalledSubscriber(rpcUrl: string): Promise<{ release(): Promise<number | null> }> {
  const socket = new WebSocket(rpcUrl.replace(/^http/, 'ws'))
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  const answered = new Promise((resolve) => {
    let answers = 0
    socket.on('message', () => ++answers === 3 && resolve(undefined))
  })
  const subscriptions = [['newHeads'], ['newPendingTransactions', true], ['logs', {}]]
  subscriptions.forEach((params, id) => socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params })))
  await answered
  const tcp = (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket
  tcp.pause()
  return {
    release: async () => {
      const closed = new Promise<number | null>((resolve) => socket.once('close', (code) => resolve(code)))
      tcp.resume()
      const code = await Promise.race([closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 2_000))])
      socket.terminate()
      return code
    },
  }
}
