import { keccak256, toHex, type Hash } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { HarnessStatus } from '../../src/index.js'
import { signTransfer, type SignedTx } from '../bench/support.js'

/** A running bundlesim as its clients know it: two URLs (in this process or another). */
export interface Endpoints {
  rpcUrl: string
  statsUrl: string
}

/** How hard and how long to hammer the submission RPC. */
export interface LoadOptions {
  /** Concurrent clients, each a bot with its own funded account and its own HTTP calls. */
  clients: number
  /** Submissions stop after this long … */
  durationMs: number
  /** … or after this many in all, whichever comes first. */
  maxSubmissions: number
  /** Distinct bundles a client may send per nonce (each one a different value). */
  variantsPerNonce: number
  /** Nonces presigned per client: at least the slots the run will see, plus two. */
  noncesPerClient: number
  /** Manual clock: call `harness_advanceSlot` this often, concurrently with the clients. Realtime: leave unset. */
  advanceEveryMs?: number
  /** With a key the harness accepts, every 7th submission goes through `svc_boostBundle`. */
  apiKey?: string
}

/** One submission as the client saw it. */
export interface Submission {
  client: number
  method: 'eth_sendBundle' | 'svc_boostBundle'
  txs: SignedTx[]
  /** The acknowledged hash, or `null` when the request was refused. */
  hash: Hash | null
  error: string | null
  latencyMs: number
}

export interface LoadRun {
  submissions: Submission[]
  /** Wall time of the submitting phase. */
  submitMs: number
  /** Head when submitting stopped: every default target is at most two blocks later. */
  headAtEnd: number
  options: LoadOptions
}

/** `harness_status` over the submission RPC. */
export async function harnessStatus(endpoints: Endpoints): Promise<HarnessStatus> {
  const reply = (await post(endpoints.rpcUrl, request('harness_status', []))) as RpcReply
  if (!reply.result) throw new Error(`harness_status failed: ${reply.error?.message}`)
  return reply.result as HarnessStatus
}

interface RpcReply {
  result?: unknown
  error?: { code: number; message: string }
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcReply | RpcReply[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  })
  return (await res.json()) as RpcReply | RpcReply[]
}

const request = (method: string, params: unknown[], id = 1) => ({ jsonrpc: '2.0', id, method, params })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Submissions between two reads of a client's nonce and the head. */
const READ_EVERY = 8

/** Deterministic load accounts, apart from Anvil's dev accounts and the benchmarks'. */
export function loadAccounts(count: number): PrivateKeyAccount[] {
  return Array.from({ length: count }, (_, i) => privateKeyToAccount(keccak256(toHex(`bundlesim no-loss client ${i}`))))
}

/**
 * Fires bundles from many concurrent clients while slots run, bounded by count and time,
 * on loopback. Each client reads its nonce and the head (one batch request), then submits a
 * bundle at that nonce, as a bot re-bidding every few ms does: the first at each nonce is a
 * plain bundle (every 5th of two txs, every 7th boosted), every later one carries the
 * client's `replacementUuid` and replaces its pending predecessor; every 6th is aimed two
 * blocks ahead. The plain bundle and the uuid's survivor spend the same nonce, so blocks
 * see conflicts too: a mix of landed, replaced, excluded and failed bundles.
 */
export async function driveLoad(harness: Endpoints, options: LoadOptions): Promise<LoadRun> {
  const accounts = loadAccounts(options.clients)
  for (const account of accounts) {
    await post(harness.rpcUrl, request('harness_setBalance', [{ address: account.address, wei: (10n ** 21n).toString() }]))
  }
  // Signing is slow in JS: every tx a client may send is signed before the clock starts.
  const signed: SignedTx[][][] = []
  for (const account of accounts) {
    const byNonce: SignedTx[][] = []
    for (let nonce = 0; nonce < options.noncesPerClient; nonce++) {
      const variants: SignedTx[] = []
      for (let v = 0; v < options.variantsPerNonce; v++) variants.push(await signTransfer(account, nonce, BigInt(v + 1)))
      byNonce.push(variants)
    }
    signed.push(byNonce)
  }

  const submissions: Submission[] = []
  const started = performance.now()
  const deadline = started + options.durationMs
  let budget = options.maxSubmissions
  let submitting = true

  const client = async (index: number) => {
    const account = accounts[index]!
    const used = new Map<number, number>()
    let nonce = 0
    let head = 0
    let sinceRead = Infinity
    while (performance.now() < deadline && budget > 0) {
      // Reads wait while a slot is built, so a bot re-reads its nonce every few bids only.
      if (sinceRead >= READ_EVERY) {
        const replies = (await post(harness.rpcUrl, [
          request('eth_getTransactionCount', [account.address, 'latest'], 1),
          request('eth_blockNumber', [], 2),
        ])) as RpcReply[]
        nonce = Number(replies.find((r) => (r as { id?: number }).id === 1)?.result)
        head = Number(replies.find((r) => (r as { id?: number }).id === 2)?.result)
        sinceRead = 0
      }
      sinceRead++
      const variant = used.get(nonce) ?? 0
      const txsAtNonce = signed[index]![nonce]
      if (txsAtNonce === undefined) break
      if (variant >= options.variantsPerNonce) {
        // Every variant for this nonce is out: wait for a block.
        await sleep(20)
        sinceRead = Infinity
        continue
      }
      used.set(nonce, variant + 1)
      budget--
      const count = submissions.length
      const plain = variant === 0
      const two = plain && count % 5 === 4 && signed[index]![nonce + 1] !== undefined
      const txs = two ? [txsAtNonce[variant]!, signed[index]![nonce + 1]![variant]!] : [txsAtNonce[variant]!]
      const bundle: Record<string, unknown> = { txs: txs.map((tx) => tx.raw) }
      if (!plain) bundle.replacementUuid = `00000000-0000-4000-8000-${index.toString().padStart(12, '0')}`
      if (count % 6 === 5) bundle.blockNumber = toHex(head + 2)
      const boosted = plain && options.apiKey !== undefined && count % 7 === 6
      const method = boosted ? 'svc_boostBundle' : 'eth_sendBundle'
      const sent = performance.now()
      const reply = (await post(harness.rpcUrl, request(method, [bundle]), boosted ? { 'x-api-key': options.apiKey! } : {})) as RpcReply
      const hash = (reply.result as { bundleHash?: Hash } | undefined)?.bundleHash ?? null
      submissions.push({
        client: index,
        method,
        txs,
        hash,
        error: reply.error ? `${reply.error.code} ${reply.error.message}` : hash ? null : 'no bundleHash in the result',
        latencyMs: performance.now() - sent,
      })
    }
  }

  const slots = async () => {
    if (options.advanceEveryMs === undefined) return
    while (submitting) {
      await sleep(options.advanceEveryMs)
      await post(harness.rpcUrl, request('harness_advanceSlot', []))
    }
  }

  const slotLoop = slots()
  await Promise.all(accounts.map((_, index) => client(index)))
  const submitMs = performance.now() - started
  submitting = false
  await slotLoop
  return { submissions, submitMs, headAtEnd: (await harnessStatus(harness)).blockNumber, options }
}

/**
 * Runs slots (manual clock) or waits for them (realtime) until every submission's target
 * block is built and its trace is served (`statsDelaySlots` later).
 */
export async function settle(harness: Endpoints, run: LoadRun, statsDelaySlots: number): Promise<void> {
  // Default targets are head + 1 (head + 2 mid-build), aimed ones head + 2 at the time read.
  const needed = run.headAtEnd + 3 + statsDelaySlots
  const status = await harnessStatus(harness)
  if (status.clock === 'manual') {
    if (needed > status.blockNumber) await post(harness.rpcUrl, request('harness_advanceSlot', [{ slots: needed - status.blockNumber }]))
    return
  }
  const deadline = Date.now() + 120_000
  while ((await harnessStatus(harness)).blockNumber < needed) {
    if (Date.now() > deadline) throw new Error(`slots did not reach block ${needed} in time`)
    await sleep(100)
  }
}
