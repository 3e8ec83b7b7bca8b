import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { keccak256, parseGwei, serializeTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ERROR_KIND_NAMES, type ErrorKind } from '../src/protocol/errorKinds.js'
import { DEV_KEYS, addressOf, call, rpc, sendBundle, stats, useTestHarness } from './support/harness.js'

/**
 * Kinds no test builds on demand, each with why (docs/reference/errors.md lists them all).
 * Every other kind is asserted, by kind, in a test that builds its situation on a real harness
 * or in a scenario of the library.
 */
const NOT_BUILT_ON_DEMAND: Partial<Record<ErrorKind, string>> = {
  NotConsidered: 'a bundle that arrives for a block while that block is being built: a race a realtime run produces, not a step a test can place',
  NotEveryTxLanded: 'a guard: the builder mines the very block it executed, so a submitted bundle with a tx missing from the mined block means the node changed the block',
  TransactionNotIncluded: "a guard: the node left out a tx it had admitted for no reason bundlesim can tell (a nonce gap is NonceTooHigh, too little gas IntrinsicGasTooLow: scenarios/error-kinds.yaml)",
  LackOfFundForGasLimit:
    'not yet built by a fixed test: it needs an earlier order of the block to spend what the sender held at the top, and a sender can spend only by its own nonces, which then conflict first (NonceTooLow); at the top of the block the builder sponsors instead (SponsorshipNotCovered)',
}

/** Where a test asserts a kind: `errorKind: 'X'`, `errorKind).toBe('X')`, a scenario's `errorKind: X` or `expectErrorKind: X`. */
function assertedKinds(): Set<string> {
  const found = new Set<string>()
  const files = [
    ...readdirSync('test').filter((f) => f.endsWith('.test.ts') && f !== 'errorKinds.test.ts' && f !== 'slotRules.test.ts' && f !== 'unit.test.ts').map((f) => `test/${f}`),
    ...readdirSync('scenarios').filter((f) => f.endsWith('.yaml')).map((f) => `scenarios/${f}`),
  ]
  const patterns = [/errorKind\W{1,12}['"]?(\w+)/g, /expectErrorKind:\s*(\w+)/g, /errorKind\)\.toBe\('(\w+)'\)/g, /expectInvalidTrace\(\w+, '(\w+)'\)/g]
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.add(match[1]!)
  }
  return found
}

describe('every errorKind against the situation that produces it', () => {
  it('each kind is built and asserted by kind in a harness test or a scenario, or is a guard listed with why', () => {
    const asserted = assertedKinds()
    const missing = ERROR_KIND_NAMES.filter((kind) => !asserted.has(kind) && !(kind in NOT_BUILT_ON_DEMAND))
    expect(missing).toEqual([])
    // A guard that a test now builds leaves the list.
    expect(Object.keys(NOT_BUILT_ON_DEMAND).filter((kind) => asserted.has(kind))).toEqual([])
  })

  describe('BadSignature', () => {
    const harness = useTestHarness()
    // A signature whose r is 0 recovers no sender (secp256k1 needs 1 ≤ r < n).
    const unsigned = { type: 'eip1559' as const, chainId: 31337, nonce: 0, to: '0x0000000000000000000000000000000000000001' as const, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }
    const badlySigned = serializeTransaction(unsigned, { r: `0x${'00'.repeat(32)}`, s: `0x${'11'.repeat(32)}`, yParity: 0 })

    it('a creation whose init code is over EIP-3860’s limit is refused by the node for a reason of its own: TransactionRejected, in its words', async () => {
      const key = DEV_KEYS[2]
      const nonce = Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
      const oversized = await privateKeyToAccount(key).signTransaction({ type: 'eip1559', chainId: 31337, nonce, data: `0x${'00'.repeat(49_153)}`, gas: 1_000_000n, maxFeePerGas: parseGwei('20'), maxPriorityFeePerGas: parseGwei('2') })
      const bundleHash = await sendBundle(harness, { txs: [oversized] })
      await harness.advanceSlot()
      const traced = await stats(harness, bundleHash)
      expect(traced).toMatchObject({ status: 'simulationfail', errorKind: 'TransactionRejected' })
      expect(traced.error).toContain(`txs[0] ${keccak256(oversized)} cannot be included: `)
    })

    it('a bundle whose tx recovers no sender is invalid, BadSignature; the public mempool refuses it with that kind', async () => {
      const bundleHash = await sendBundle(harness, { txs: [badlySigned] })
      await harness.advanceSlot()
      expect(await stats(harness, bundleHash)).toMatchObject({ status: 'invalid', errorKind: 'BadSignature', error: expect.stringMatching(/^txs\[0\]: bad signature \(/) })
      const refused = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [badlySigned])
      expect(refused.body.error).toMatchObject({ data: { errorKind: 'BadSignature' } })
    })
  })
})
