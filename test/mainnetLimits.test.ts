import { describe, expect, it } from 'vitest'
import { keccak256, parseGwei, type Hash, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { bundleSizeProblem, signedTxBytes } from '../src/bundle/sizeLimits.js'
import { decodeSignedTx } from '../src/bundle/decode.js'
import { anvilEnforcesTxGasCap, gethTxGasCapMessage, txGasCapFor, txGasCapProblem } from '../src/chain/txGasCap.js'
import { DEFAULT_CONFIG, resolveConfig } from '../src/config/config.js'
import { decodeShareBundle, SHARE_LIMITS, type SharedTarget } from '../src/mevshare/decodeShareBundle.js'
import { matchingHashOf } from '../src/protocol/mevShareHashes.js'
import { labelledSidecars } from '../src/scenario/blobSidecars.js'

// Anvil's dev keys 0–2 (the harness support module starts a harness: not needed here).
const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
] as const satisfies readonly Hex[]

function signTx(spec: { key?: Hex; nonce: number; gas?: bigint; data?: Hex }): Promise<Hex> {
  return privateKeyToAccount(spec.key ?? DEV_KEYS[0]).signTransaction({
    type: 'eip1559', chainId: 31337, nonce: spec.nonce, to: '0x00000000000000000000000000000000000c0ffe', value: 1n, data: spec.data,
    gas: spec.gas ?? 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('2'),
  })
}

async function signBlobTx(blobs: number): Promise<Hex> {
  const { sidecars, blobVersionedHashes } = await labelledSidecars('size limits', blobs)
  return privateKeyToAccount(DEV_KEYS[0]).signTransaction({
    type: 'eip4844', chainId: 31337, nonce: 0, to: '0x00000000000000000000000000000000000b10b5', value: 1n, gas: 21_000n,
    maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('2'), maxFeePerBlobGas: parseGwei('10'), blobVersionedHashes, sidecars,
  })
}

// Mainnet's limits as defaults (pure checks, no Anvil): EIP-7825's per-tx gas cap, Flashbots'
// 300,000 bytes per bundle, the 60M block gas limit, MEV-Share's one backrun tx.

const CAP = 16_777_216n

describe('EIP-7825: the per-tx gas cap', () => {
  it('is 2^24 from Osaka on (Bpo forks included), none before or when set to 0', () => {
    expect(DEFAULT_CONFIG.maxTxGas).toBe(2 ** 24)
    expect(txGasCapFor(DEFAULT_CONFIG.maxTxGas, 'Bpo1')).toBe(CAP)
    expect(txGasCapFor(DEFAULT_CONFIG.maxTxGas, 'Osaka')).toBe(CAP)
    expect(txGasCapFor(DEFAULT_CONFIG.maxTxGas, 'Prague')).toBeUndefined()
    expect(txGasCapFor(0, 'Bpo2')).toBeUndefined()
    expect(anvilEnforcesTxGasCap(2 ** 24)).toBe(true)
    expect(anvilEnforcesTxGasCap(30_000_000)).toBe(false) // Anvil's own check would refuse what bundlesim allows
  })

  it('exactly 2^24 is fine; one more is named with the tx and the cap', () => {
    expect(txGasCapProblem('txs[1]', CAP, CAP)).toBeUndefined()
    expect(txGasCapProblem('txs[1]', CAP + 1n, CAP)).toBe('txs[1]: gas 16777217 is over the per-tx cap of 16777216 (EIP-7825)')
    expect(gethTxGasCapMessage(CAP + 1n, CAP)).toBe('transaction gas limit too high (cap: 16777216, tx: 16777217)')
  })

  it('decoding a signed tx refuses it over the cap (private txs, blobs, MEV-Share bodies)', async () => {
    const over = await signTx({ nonce: 0, gas: CAP + 1n })
    expect(decodeSignedTx(over, 'tx', { chainId: 31337, maxTxGas: CAP })).toBe('tx: gas 16777217 is over the per-tx cap of 16777216 (EIP-7825)')
    expect(typeof decodeSignedTx(await signTx({ nonce: 0, gas: CAP }), 'tx', { chainId: 31337, maxTxGas: CAP })).toBe('object')
    expect(typeof decodeSignedTx(over, 'tx', { chainId: 31337 })).toBe('object')
  })
})

describe("a bundle's size limits (eth_sendBundle's -32602)", () => {
  const limits = { maxBundleTxs: 100, maxBundleBytes: 300_000, maxTxGas: CAP }

  it('Flashbots caps: 100 txs, 300,000 bytes of signed txs, by default', () => {
    expect([DEFAULT_CONFIG.maxBundleTxs, DEFAULT_CONFIG.maxBundleBytes]).toEqual([100, 300_000])
  })

  it('counts the bytes of the signed txs and names the limit', async () => {
    // Each tx: 52,000 bytes of calldata and ~110 of the rest; six are over 300,000.
    const txs = await Promise.all([0, 1, 2, 3, 4, 5].map((nonce) => signTx({ nonce, data: `0x${'ab'.repeat(52_000)}`, gas: 1_000_000n })))
    const bytes = txs.reduce((sum, tx) => sum + (tx.length - 2) / 2, 0)
    expect(bundleSizeProblem(txs.slice(0, 5), limits)).toBeUndefined()
    expect(bundleSizeProblem(txs, limits)).toBe(`txs: ${bytes.toLocaleString('en-US')} bytes of signed transactions, over the limit of 300,000 bytes per bundle`)
    expect(bundleSizeProblem(txs, { ...limits, maxBundleBytes: 0 })).toBeUndefined()
  })

  it('the tx count first, then bytes, then each tx’s gas, naming txs[i]', async () => {
    expect(bundleSizeProblem(Array(101).fill('0x00'), limits)).toBe('txs: 101 transactions, over the limit of 100 per bundle')
    const txs = [await signTx({ nonce: 0 }), await signTx({ nonce: 1, gas: CAP + 1n })]
    expect(bundleSizeProblem(txs, limits)).toBe('txs[1]: gas 16777217 is over the per-tx cap of 16777216 (EIP-7825)')
    expect(bundleSizeProblem(txs, { ...limits, maxTxGas: undefined })).toBeUndefined()
    expect(bundleSizeProblem(['0xzz', 7], limits)).toBeUndefined() // left to the schema and decoding
  })

  it("a blob tx counts without its sidecar (Flashbots' cap predates blobs)", async () => {
    const blobTx = await signBlobTx(3)
    expect((blobTx.length - 2) / 2).toBeGreaterThan(300_000)
    expect(signedTxBytes(blobTx)).toBeLessThan(300)
    expect(bundleSizeProblem([blobTx], limits)).toBeUndefined()
  })
})

describe('the block gas limit', () => {
  it("is 60M (EIP-7935) on a fresh chain; a fork keeps the forked chain's unless given", () => {
    expect(resolveConfig({}).blockGasLimit).toBe(60_000_000n)
    expect(resolveConfig({ forkUrl: 'http://127.0.0.1:1' }).blockGasLimit).toBeUndefined()
    expect(resolveConfig({ forkUrl: 'http://127.0.0.1:1', blockGasLimit: 45_000_000n }).blockGasLimit).toBe(45_000_000n)
    expect(resolveConfig({ blockGasLimit: 30_000_000n }).blockGasLimit).toBe(30_000_000n)
  })
})

describe("MEV-Share: one backrun tx per mev_sendBundle (Flashbots, since 2025-10-20)", async () => {
  const userTx = await signTx({ key: DEV_KEYS[1], nonce: 0 })
  const userHash = keccak256(userTx)
  const target: SharedTarget = { tx: { raw: userTx, hash: userHash, nonce: 0, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, value: 1n, to: null, index: 0 }, targetBlock: 6n, maxBlock: 30n, refundConfig: [] }
  const eventHash = matchingHashOf(userHash) as Hash
  const rules = { chainId: 31337, headBlock: 5n, maxBackrunTxs: SHARE_LIMITS.maxBackrunTxs, findShared: (h: Hash) => (h === eventHash ? target : undefined) }
  const a = await signTx({ key: DEV_KEYS[2], nonce: 0 })
  const b = await signTx({ key: DEV_KEYS[2], nonce: 1 })
  const send = (body: unknown[]) => decodeShareBundle({ version: 'v0.1', inclusion: { block: 6n }, body } as never, rules)

  it('the { hash } and one signed tx: accepted; a nested bundle of one tx too', () => {
    expect(send([{ hash: eventHash }, { tx: a }]).ok).toBe(true)
    expect(send([{ hash: eventHash }, { bundle: { version: 'v0.1', inclusion: { block: 6n }, body: [{ tx: a }] } }]).ok).toBe(true)
  })

  it('two signed txs after the { hash }, side by side or nested: -32602 naming body and the rule', () => {
    const message = 'body: 2 signed txs after the { hash }, over the limit of 1: a backrun holds the shared tx\'s { hash } and one signed backrun tx (Flashbots\' rule since 2025-10-20)'
    expect(send([{ hash: eventHash }, { tx: a }, { tx: b }])).toEqual({ ok: false, problem: message })
    expect(send([{ hash: eventHash }, { bundle: { version: 'v0.1', inclusion: { block: 6n }, body: [{ tx: a }, { tx: b }] } }])).toEqual({ ok: false, problem: message })
  })

  it('a bundle of txs only (no { hash }) is no backrun: up to the node’s 50 txs, as before', () => {
    expect(send([{ tx: a }, { tx: b }]).ok).toBe(true)
  })
})
