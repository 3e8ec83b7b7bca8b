import { keccak256, toHex, type Hash } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { signTransfer } from '../bench/support.js'
import type { SoakLedger } from './ledger.js'
import type { RpcAnswer, RpcPool } from './rpcPool.js'

/** One connection's two accounts: one signs its bundles, the other its public txs. */
export interface SoakAccounts {
  bundles: PrivateKeyAccount
  publicTxs: PrivateKeyAccount
}

export function soakAccounts(connections: number): SoakAccounts[] {
  const key = (what: string, i: number) => privateKeyToAccount(keccak256(toHex(`bundlesim soak ${what} ${i}`)))
  return Array.from({ length: connections }, (_, i) => ({ bundles: key('bundles', i), publicTxs: key('public', i) }))
}

/** What the senders saw: latencies of accepted submissions and why others were refused. */
export interface TrafficTally {
  bundleLatencies: number[]
  txLatencies: number[]
  refused: Map<string, number>
}

export interface TrafficOptions {
  accounts: readonly SoakAccounts[]
  /** Submission rounds a second over all connections (each round: one bundle and one public tx). */
  roundsPerSecond: number
  stopAt: number
  /** The chain epoch now (bumped by the fault injector before each kill). */
  epoch: () => number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * One loop per connection, paced to `roundsPerSecond` in all: read the bundle account's
 * chain nonce and the public account's pending nonce (one batch), send a bundle at that
 * nonce (every 4th of two txs; the other connections' bundles at the same nonce of their own
 * accounts, so several variants of one nonce compete within a slot), then a public tx at the
 * pending nonce. Accepted submissions go to the ledger; refusals are tallied by reason.
 */
export async function runTraffic(rpc: RpcPool, ledger: SoakLedger, options: TrafficOptions): Promise<TrafficTally> {
  const tally: TrafficTally = { bundleLatencies: [], txLatencies: [], refused: new Map() }
  const refuse = (what: string, answer: RpcAnswer) => {
    // Group by the message up to its first detail ("Anvil is down: restarting (…)").
    const reason = `${what}: ${answer.error?.code} ${(answer.error?.message ?? 'no result').split(/[(:]/)[0]!.trim()}`
    tally.refused.set(reason, (tally.refused.get(reason) ?? 0) + 1)
  }
  const intervalMs = (1000 * options.accounts.length) / options.roundsPerSecond

  const connection = async ({ bundles, publicTxs }: SoakAccounts, index: number) => {
    await sleep((intervalMs * index) / options.accounts.length) // spread the connections over the interval
    for (let round = 1; performance.now() < options.stopAt; round++) {
      const started = performance.now()
      const [chainNonce, pendingNonce] = await rpc.batch<string>([
        ['eth_getTransactionCount', [bundles.address, 'latest']],
        ['eth_getTransactionCount', [publicTxs.address, 'pending']],
      ])
      if (!chainNonce?.result || !pendingNonce?.result) {
        refuse('nonce read', chainNonce?.result ? pendingNonce! : chainNonce!)
        await sleep(200)
        continue
      }
      const nonce = Number(chainNonce.result)
      const value = BigInt(round * 64 + index) // distinct txs: no two submissions share a hash
      const txs = [await signTransfer(bundles, nonce, value)]
      if (round % 4 === 0) txs.push(await signTransfer(bundles, nonce + 1, value))
      const epoch = options.epoch()
      let sent = performance.now()
      const bundleAnswer = await rpc.call<{ bundleHash: Hash }>('eth_sendBundle', [{ txs: txs.map((t) => t.raw) }])
      if (bundleAnswer.result?.bundleHash) {
        tally.bundleLatencies.push(performance.now() - sent)
        ledger.add({ kind: 'bundle', hash: bundleAnswer.result.bundleHash, txHashes: txs.map((t) => t.hash), epoch, sentAt: sent })
      } else refuse('eth_sendBundle', bundleAnswer)

      const tx = await signTransfer(publicTxs, Number(pendingNonce.result), value)
      const txEpoch = options.epoch()
      sent = performance.now()
      const txAnswer = await rpc.call<Hash>('eth_sendRawTransaction', [tx.raw])
      if (txAnswer.result) {
        tally.txLatencies.push(performance.now() - sent)
        ledger.add({ kind: 'tx', hash: tx.hash, txHashes: [tx.hash], epoch: txEpoch, sentAt: sent })
      } else refuse('eth_sendRawTransaction', txAnswer)
      await sleep(Math.max(0, started + intervalMs - performance.now()))
    }
  }
  await Promise.all(options.accounts.map(connection))
  return tally
}
