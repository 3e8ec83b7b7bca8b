import { keccak256, parseGwei, toHex, type Address, type Hash, type Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { createBundlesimClient, createJsonRpcTransport, startHarness, type Harness, type JsonRpcCall, type SlotReport } from '../../src/index.js'
import type { BundlesimConfig } from '../../src/config/config.js'
import { launchAnvil, type LaunchedAnvil } from '../../src/chain/launchAnvil.js'
import { keepAliveRpc, type BatchAnswer } from '../../src/chain/keepAliveTransport.js'

/** Sizes and the time bound every benchmark runs under. */
export interface BenchOptions {
  quick: boolean
  /** Overrides the benchmark's size (bundles, traces) for a run in between quick and full. */
  size?: number
  /** Where a benchmark writes files beside the results JSON (charts). */
  outDir?: string
}

/** Every tx the benchmarks sign pays 1 wei to this address with a 2 gwei tip. */
export const SINK: Address = '0x00000000000000000000000000000000000be7c4'
export const TIP = parseGwei('2')
export const MAX_FEE = parseGwei('20')
/** Room for thousands of 21000-gas txs in one block: the benchmarks measure speed, not the gas limit. */
export const BENCH_GAS_LIMIT = 1_000_000_000n

/** Deterministic, distinct accounts (not Anvil's dev accounts); `label` keeps sets apart. */
export function benchAccounts(count: number, label: string): PrivateKeyAccount[] {
  return Array.from({ length: count }, (_, i) => privateKeyToAccount(keccak256(toHex(`bundlesim bench ${label} ${i}`))))
}

export interface SignedTx {
  raw: Hex
  hash: Hash
  from: Address
  nonce: number
}

/** How a bench tx pays: its tip, and calldata bytes that make it use more gas than 21000. */
export interface TxShape {
  tip?: bigint
  dataBytes?: number
}

/** Signs an EIP-1559 transfer of `value` wei to the sink (21000 gas, plus 40 per calldata byte: EIP-7623's floor). */
export async function signTransfer(account: PrivateKeyAccount, nonce: number, value = 1n, chainId = 31337, shape: TxShape = {}): Promise<SignedTx> {
  const dataBytes = shape.dataBytes ?? 0
  const raw = await account.signTransaction({
    type: 'eip1559',
    chainId,
    nonce,
    to: SINK,
    value,
    data: dataBytes ? toHex(new Uint8Array(dataBytes).fill(0xab)) : undefined,
    gas: 21_000n + 40n * BigInt(dataBytes),
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: shape.tip ?? TIP,
  })
  return { raw, hash: keccak256(raw), from: account.address, nonce }
}

/**
 * `count` independent 2-tx bundles: bundle i is nonces `firstNonce` and `firstNonce + 1` of
 * its own account, so every bundle can go top-of-block on its own and all of them fit in one
 * block together. `shapeOf` varies tips and gas per bundle (so ordering algorithms disagree).
 */
export async function independentBundles(
  count: number,
  label: string,
  shapeOf: (i: number) => TxShape = () => ({}),
  firstNonce = 0,
): Promise<{ accounts: PrivateKeyAccount[]; bundles: SignedTx[][] }> {
  const accounts = benchAccounts(count, label)
  const bundles: SignedTx[][] = []
  for (const [i, account] of accounts.entries()) {
    const shape = shapeOf(i)
    bundles.push([await signTransfer(account, firstNonce, 1n, 31337, shape), await signTransfer(account, firstNonce + 1, 1n, 31337, shape)])
  }
  return { accounts, bundles }
}

/** One JSON-RPC call over loopback HTTP; throws a JsonRpcError on an error answer. */
export function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  return createJsonRpcTransport({ url }).request<T>(method, params)
}

/** One JSON-RPC batch; results in request order; throws on the first error answer. */
export function rpcBatch<T = unknown>(url: string, calls: readonly JsonRpcCall[]): Promise<T[]> {
  return createJsonRpcTransport({ url }).batch<T>(calls)
}

/** Calls in chunks of `size` per batch, one batch at a time. */
export async function inBatches<T>(url: string, calls: readonly JsonRpcCall[], size = 100): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < calls.length; i += size) out.push(...(await rpcBatch<T>(url, calls.slice(i, i + size))))
  return out
}

/** Gives each address 100 ETH straight on Anvil (a fixture set before the slot, like the tests' setCode). */
export async function fund(anvilUrl: string, addresses: readonly Address[]): Promise<void> {
  const wei = toHex(100n * 10n ** 18n)
  await inBatches(anvilUrl, addresses.map((a) => ({ method: 'anvil_setBalance', params: [a, wei] })), 200)
}

/** Submits bundles with `eth_sendBundle`, 100 per batch; returns their hashes. */
export async function submitBundles(rpcUrl: string, bundles: readonly SignedTx[][], extra: Record<string, unknown> = {}): Promise<Hash[]> {
  const calls = bundles.map((txs) => ({ method: 'eth_sendBundle', params: [{ txs: txs.map((t) => t.raw), ...extra }] }))
  const results = await inBatches<{ bundleHash: Hash }>(rpcUrl, calls, 100)
  return results.map((r) => r.bundleHash)
}

/** A harness for benchmarks: manual clock, free loopback ports, quiet, a roomy gas limit. */
export function benchHarness(overrides: Partial<BundlesimConfig> = {}): Promise<Harness> {
  return startHarness({
    clock: 'manual',
    host: '127.0.0.1',
    port: 0,
    statsPort: 0,
    anvilPort: 0,
    statsDelaySlots: 0,
    logLevel: 'silent',
    blockGasLimit: BENCH_GAS_LIMIT,
    ...overrides,
  })
}

/** A second, bare Anvil for a baseline (same flags as the harness's own). */
export function baselineAnvil(): Promise<LaunchedAnvil> {
  return launchAnvil({ host: '127.0.0.1', port: 0, gasLimit: BENCH_GAS_LIMIT })
}

export async function advanceSlot(harness: Harness): Promise<SlotReport> {
  const [report] = await createBundlesimClient({ rpcUrl: harness.rpcUrl }).advanceSlot({ slots: 1 })
  return report!
}

/** Runs `work` with a resource and always cleans up. */
export async function using<R extends { stop(): Promise<void> }, T>(resource: Promise<R>, work: (r: R) => Promise<T>): Promise<T> {
  const r = await resource
  try {
    return await work(r)
  } finally {
    await r.stop()
  }
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index]!
}

/** Batches in flight the `eth_simulateV1` baselines try; the best of them is the baseline. */
export const BASELINE_IN_FLIGHT = [1, 2, 4] as const

/**
 * Anvil's `eth_simulateV1` rate (requests a second) for `requests` (one request's params each),
 * sent in JSON-RPC batches of `perBatch` over a keep-alive connection (the builder's own
 * transport), `inFlight` batches at a time. Every answer is kept (a refused request counts:
 * Anvil did the work of refusing it); returns the rate and the answers.
 */
export async function simulateV1Rate(url: string, requests: readonly unknown[][], inFlight: number, perBatch = 100): Promise<{ rate: number; answers: BatchAnswer[] }> {
  const client = keepAliveRpc(url, 300_000)
  const answers: BatchAnswer[] = new Array(requests.length)
  let next = 0
  const started = performance.now()
  const lane = async () => {
    for (let start = next; start < requests.length; start = next) {
      next += perBatch
      const slice = requests.slice(start, start + perBatch)
      const got = await client.batch(slice.map((params) => ({ method: 'eth_simulateV1', params })))
      got.forEach((answer, i) => (answers[start + i] = answer))
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane))
  return { rate: (requests.length / (performance.now() - started)) * 1000, answers }
}

/** The best of `simulateV1Rate` over 1, 2 and 4 batches in flight; each tried in turn. */
export async function bestSimulateV1Rate(url: string, requests: readonly unknown[][]): Promise<{ best: number; rates: Record<number, number>; refused: number }> {
  const rates: Record<number, number> = {}
  let refused = 0
  for (const inFlight of BASELINE_IN_FLIGHT) {
    const run = await simulateV1Rate(url, requests, inFlight)
    rates[inFlight] = run.rate
    refused = run.answers.filter((a) => !a.ok).length
  }
  return { best: Math.max(...Object.values(rates)), rates, refused }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
