import { afterAll, beforeAll } from 'vitest'
import { parseGwei, type Address, type Hash, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createBundlesimClient, createJsonRpcTransport, flashbotsSignature, startHarness, type Harness, type SendBundleParams } from '../../src/index.js'
import type { BundlesimConfig } from '../../src/config/config.js'
import { TEST_HARNESS_DEFAULTS } from '../../src/vitest/testDefaults.js'

/** Anvil's funded dev keys (mnemonic `test test … junk`). */
export const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
] as const satisfies readonly Hex[]

export const accountOf = (key: Hex) => privateKeyToAccount(key)
export const addressOf = (key: Hex): Address => privateKeyToAccount(key).address.toLowerCase() as Address

/**
 * A harness for the tests of the enclosing `describe` (or file): started in `beforeAll`
 * (then `setup` runs on it), stopped in `afterAll`. The returned object forwards to that
 * harness, so tests write `harness.rpcUrl` as with their own.
 */
export function useTestHarness(overrides: Partial<BundlesimConfig> = {}, setup?: (harness: Harness) => Promise<void>): Harness {
  let started: Harness | undefined
  beforeAll(async () => {
    started = await startTestHarness(overrides)
    await setup?.(started)
  })
  afterAll(() => started?.stop())
  return new Proxy({} as Harness, {
    get: (_target, property) => {
      if (!started) throw new Error(`the test harness is not started yet (read .${String(property)} inside a test or hook)`)
      const value = Reflect.get(started, property)
      return typeof value === 'function' ? value.bind(started) : value
    },
  })
}

/** A harness as tests want it: manual clock, free ports, stats served at once, quiet logs. */
export function startTestHarness(overrides: Partial<BundlesimConfig> = {}): Promise<Harness> {
  return startHarness({ ...TEST_HARNESS_DEFAULTS, ...overrides })
}

export interface RpcReply<T = unknown> {
  status: number
  body: { jsonrpc: string; id: unknown; result?: T; error?: { code: number; message: string; data?: any } }
}

/** One JSON-RPC call over real HTTP, answered with its HTTP status (so plain fetch, not the client). */
export function rpc<T = any>(url: string, method: string, params: unknown = [], headers: Record<string, string> = {}): Promise<RpcReply<T>> {
  return post<T>(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), headers)
}

/** `rpc` signed with X-Flashbots-Signature by `key`, as Flashbots clients sign every request. */
export async function signedRpc<T = any>(url: string, method: string, params: unknown, key: Hex): Promise<RpcReply<T>> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
  return post<T>(url, body, await flashbotsSignature(accountOf(key))(body))
}

async function post<T>(url: string, body: string, headers: Record<string, string>): Promise<RpcReply<T>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  return { status: res.status, body: (await res.json()) as RpcReply<T>['body'] }
}

/** Calls a method that must succeed and returns its result (else throws a JsonRpcError). */
export function call<T = any>(url: string, method: string, params: unknown[] = [], headers: Record<string, string> = {}): Promise<T> {
  return createJsonRpcTransport({ url }).request<T>(method, params, headers)
}

const clientOf = (harness: Harness) => createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })

export interface TxSpec {
  key?: Hex
  to?: Address
  value?: bigint
  nonce: number
  data?: Hex
  gas?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  chainId?: number
}

/** Signs an EIP-1559 tx (defaults: dev key 0, 1 wei to a fixed address, 21000 gas, 2 gwei tip). */
export function signTx(spec: TxSpec): Promise<Hex> {
  return accountOf(spec.key ?? DEV_KEYS[0]).signTransaction({
    type: 'eip1559',
    chainId: spec.chainId ?? 31337,
    nonce: spec.nonce,
    to: spec.to ?? '0x00000000000000000000000000000000000c0ffe',
    value: spec.value ?? 1n,
    data: spec.data,
    gas: spec.gas ?? (spec.data ? 200_000n : 21_000n),
    maxFeePerGas: spec.maxFeePerGas ?? parseGwei('10'),
    maxPriorityFeePerGas: spec.maxPriorityFeePerGas ?? parseGwei('2'),
  })
}

/** Sends the bundle object as the test wrote it (deliberately odd ones included). */
export async function sendBundle(harness: Harness, bundle: Record<string, unknown>): Promise<Hash> {
  const result = await clientOf(harness).sendBundle(bundle as unknown as SendBundleParams)
  return result!.bundleHash
}

/** The bundle's trace, read loosely (`any`) as the tests' assertions expect. */
export function stats(harness: Harness, bundleHash: Hash): Promise<any> {
  return clientOf(harness).getBundleStats(bundleHash)
}

/** Runtime code that always reverts: PUSH1 0 PUSH1 0 REVERT. */
export const REVERTER_CODE: Hex = '0x60006000fd'

/** Installs code at an address on the head state (a test fixture, done before the slot). */
export async function setCode(harness: Harness, address: Address, code: Hex): Promise<void> {
  await call(harness.rpcUrl, 'anvil_setCode', [address, code])
}

