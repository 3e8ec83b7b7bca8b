import type { Address, Hash } from 'viem'
import type { BundleStats } from '../../src/index.js'
import { harnessStatus, type Endpoints, type LoadRun } from './drive.js'

/** What a load run achieved, and every way it lost or garbled something (empty: nothing). */
export interface NoLossReport {
  problems: string[]
  figures: {
    submissions: number
    acknowledged: number
    refused: number
    submissionsPerSecond: number
    latencyP50Ms: number
    latencyP99Ms: number
    landed: number
    blocks: number
    /** How many traces ended in each status. */
    statuses: Record<string, number>
  }
}

interface RpcReply<T> {
  id: number
  result?: T
  error?: { code: number; message: string }
}

interface Block {
  number: string
  transactions: Array<{ hash: Hash; from: Address }>
}

/** JSON-RPC batches of at most 200, answered in id order. */
async function batch<T>(url: string, calls: Array<[string, unknown[]]>): Promise<Array<RpcReply<T>>> {
  const out: Array<RpcReply<T>> = []
  for (let start = 0; start < calls.length; start += 200) {
    const body = calls.slice(start, start + 200).map(([method, params], i) => ({ jsonrpc: '2.0', id: start + i, method, params }))
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const replies = (await res.json()) as Array<RpcReply<T>>
    out.push(...replies.sort((a, b) => a.id - b.id))
  }
  return out
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/**
 * The no-loss checks over a finished load run (every target block built):
 * - every request was acknowledged with a hash, and no two submissions share one;
 * - every hash is traceable now (`svc_getBundleStats` answers with a trace);
 * - no trace is left in a non-final state: `landed` has no error, every other status says
 *   why in `error` (a `received` bundle whose block was built, a `simulationpass` never
 *   built, …);
 * - every landed bundle's txs are on chain, in the block its trace names;
 * - nothing is written twice: no tx is claimed by two landed traces, and every tx of the
 *   load's accounts on chain belongs to exactly one landed trace of that block.
 */
export async function checkNoLoss(harness: Endpoints, run: LoadRun): Promise<NoLossReport> {
  const problems: string[] = []
  const acknowledged = run.submissions.filter((s) => s.hash !== null)
  for (const s of run.submissions.filter((s) => s.hash === null)) problems.push(`client ${s.client}: ${s.method} refused: ${s.error}`)

  const byHash = new Map<Hash, (typeof acknowledged)[number]>()
  for (const s of acknowledged) {
    if (byHash.has(s.hash!)) problems.push(`hash ${s.hash} returned for two different submissions`)
    byHash.set(s.hash!, s)
  }

  const hashes = [...byHash.keys()]
  const replies = await batch<BundleStats>(harness.statsUrl, hashes.map((hash) => ['svc_getBundleStats', [{ bundle_hash: hash }]]))
  const traces = new Map<Hash, BundleStats>()
  const statuses: Record<string, number> = {}
  replies.forEach((reply, i) => {
    const hash = hashes[i]!
    if (!reply.result) {
      problems.push(`${hash}: not traceable (${reply.error?.code} ${reply.error?.message})`)
      return
    }
    const trace = reply.result
    traces.set(hash, trace)
    statuses[trace.status] = (statuses[trace.status] ?? 0) + 1
    const landed = trace.status.toLowerCase() === 'landed'
    if (landed && trace.error !== null) problems.push(`${hash}: landed with an error: ${trace.error}`)
    if (!landed && !trace.error) problems.push(`${hash}: left ${trace.status} after block ${trace.targetBlock} was built, with no error saying why`)
    if (landed && trace.blockNumber === null) problems.push(`${hash}: landed in no block`)
  })

  // The chain: which load tx is in which block.
  const head = (await harnessStatus(harness)).blockNumber
  const blocks = await batch<Block>(
    harness.rpcUrl,
    Array.from({ length: head }, (_, i) => ['eth_getBlockByNumber', [`0x${(i + 1).toString(16)}`, true]] as [string, unknown[]]),
  )
  const loadSenders = new Set(run.submissions.flatMap((s) => s.txs.map((tx) => tx.from.toLowerCase())))
  const onChain = new Map<Hash, number>()
  for (const reply of blocks) {
    for (const tx of reply.result?.transactions ?? []) {
      if (!loadSenders.has(tx.from.toLowerCase())) continue
      if (onChain.has(tx.hash)) problems.push(`tx ${tx.hash} is on chain twice`)
      onChain.set(tx.hash, Number(reply.result!.number))
    }
  }

  const claimedBy = new Map<Hash, Hash>()
  let landedCount = 0
  for (const [hash, trace] of traces) {
    if (trace.status.toLowerCase() !== 'landed') continue
    landedCount++
    for (const tx of byHash.get(hash)!.txs) {
      const block = onChain.get(tx.hash)
      if (block === undefined) problems.push(`${hash}: landed, but its tx ${tx.hash} is not on chain`)
      else if (block !== trace.blockNumber) problems.push(`${hash}: landed in block ${trace.blockNumber}, but its tx ${tx.hash} is in block ${block}`)
      const other = claimedBy.get(tx.hash)
      if (other) problems.push(`tx ${tx.hash} claimed by two landed bundles: ${other} and ${hash}`)
      claimedBy.set(tx.hash, hash)
    }
  }
  for (const [txHash, block] of onChain) {
    if (!claimedBy.has(txHash)) problems.push(`tx ${txHash} is on chain in block ${block}, but no landed trace claims it`)
  }

  const latencies = acknowledged.map((s) => s.latencyMs).sort((a, b) => a - b)
  return {
    problems,
    figures: {
      submissions: run.submissions.length,
      acknowledged: acknowledged.length,
      refused: run.submissions.length - acknowledged.length,
      submissionsPerSecond: Math.round((acknowledged.length / run.submitMs) * 1000),
      latencyP50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
      latencyP99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
      landed: landedCount,
      blocks: head,
      statuses,
    },
  }
}
