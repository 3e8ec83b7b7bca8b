import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { concat, HttpRequestError, keccak256, parseGwei, toHex, type Address, type Hash, type Hex } from 'viem'
import { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0'
import { privateKeyToAccount } from 'viem/accounts'
import { bundleHash, txHash } from '../src/bundle/hash.js'
import { blobEnvelope } from '../src/protocol/blobEnvelope.js'
import { blobHashOf, signBlobTx } from './support/blobTx.js'
import { bundleObjectSchema } from '../src/protocol/bundleParams.js'
import { describeIssues } from '../src/protocol/paramsReading.js'
import { toSubmission } from '../src/bundle/submissions.js'
import { decodeBundle } from '../src/bundle/decode.js'
import { problemMessage } from '../src/bundle/failure.js'
import { BundleBook } from '../src/bundle/book.js'
import { type BundleTrace } from '../src/bundle/trace.js'
import type { Bundle, BundleSubmission } from '../src/bundle/types.js'
import type { BundleState } from '../src/protocol/bundleStates.js'
import { createApiKeyCheck } from '../src/rpc/auth.js'
import { refuseWhileAnvilDown } from '../src/rpc/anvilGuard.js'
import { jsonLength } from '../src/chain/jsonLength.js'
import type { RequestContext } from '../src/rpc/httpServer.js'

const H1 = `0x${'11'.repeat(32)}` as Hash
const H2 = `0x${'22'.repeat(32)}` as Hash
const H3 = `0x${'33'.repeat(32)}` as Hash

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')

function signTx(nonce: number, chainId = 31337): Promise<Hex> {
  return account.signTransaction({
    type: 'eip1559',
    chainId,
    nonce,
    to: '0x00000000000000000000000000000000000c0ffe',
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('2'),
  })
}

function submissionOf(txs: Hex[], extra: Partial<BundleSubmission> = {}): BundleSubmission {
  return { txs, revertingTxHashes: [], droppingTxHashes: [], refundTxHashes: [], ...extra }
}

const CONTEXT = { chainId: 31337, headBlock: 5n, boosted: false }


/** `decodeBundle` with its problems as the texts a trace shows. */
function decodeWithMessages(...args: Parameters<typeof decodeBundle>) {
  const decoded = decodeBundle(...args)
  return { ...decoded, problems: decoded.problems.map((problem) => problemMessage(problem)) }
}
describe('bundle hash (keccak256 of the concatenated tx hashes, in order)', () => {
  it('txHash is keccak256 of the raw bytes', async () => {
    const raw = await signTx(0)
    expect(txHash(raw)).toBe(keccak256(raw))
    expect(txHash('0x1234')).toBe(keccak256('0x1234'))
  })

  it('a blob tx in network form is hashed without its sidecar (as a node hashes it); the canonical form as it is', async () => {
    const network = await signBlobTx({ nonce: 0, blobs: 2 })
    const canonical = await signBlobTx({ nonce: 0, blobs: 2, sidecar: false })
    expect(txHash(network)).toBe(keccak256(canonical))
    expect(txHash(network)).toBe(blobHashOf(network))
    expect(txHash(canonical)).toBe(keccak256(canonical))
    expect(blobEnvelope(network)).toEqual({ canonical, hasSidecar: true })
    expect(blobEnvelope(canonical)).toEqual({ canonical, hasSidecar: false })
    expect(blobEnvelope(network.slice(0, -2) as Hex)).toBeUndefined()
  })

  it('txHash and bundleHash agree with viem on any bytes (sizes across keccak block edges, upper-case hex)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 6 }), (bytes, hashes) => {
        const raw = toHex(bytes)
        expect(txHash(raw)).toBe(keccak256(raw))
        expect(txHash(raw.toUpperCase().replace('0X', '0x') as Hex)).toBe(keccak256(raw))
        const parts = hashes.map((h) => toHex(h))
        expect(bundleHash(parts)).toBe(keccak256(parts.length === 0 ? '0x' : concat(parts)))
      }),
      { numRuns: 300 },
    )
  })

  it('one hash: keccak256 of that hash', () => {
    expect(bundleHash([H1])).toBe(keccak256(H1))
  })

  it('three hashes: keccak256 of their concatenation', () => {
    expect(bundleHash([H1, H2, H3])).toBe(keccak256(concat([H1, H2, H3])))
    expect(bundleHash([H1, H2, H3])).toBe(keccak256(`0x${'11'.repeat(32)}${'22'.repeat(32)}${'33'.repeat(32)}`))
  })

  it('order matters and identical input gives the identical hash', () => {
    expect(bundleHash([H1, H2, H3])).not.toBe(bundleHash([H3, H2, H1]))
    expect(bundleHash([H1, H2])).not.toBe(bundleHash([H2, H1]))
    expect(bundleHash([H1, H2, H3])).toBe(bundleHash([H1, H2, H3]))
  })

  it('matches the hashes of real signed txs', async () => {
    const raws = [await signTx(0), await signTx(1)]
    expect(bundleHash(raws.map(txHash))).toBe(keccak256(concat(raws.map((r) => keccak256(r)))))
  })
})

describe('bundle schema (zod) and toSubmission', () => {
  const problemsOf = (input: unknown): string => {
    const parsed = bundleObjectSchema.safeParse(input)
    expect(parsed.success).toBe(false)
    return describeIssues(parsed.error!)
  }

  it('accepts a minimal bundle', () => {
    expect(bundleObjectSchema.safeParse({ txs: ['0x02f8'] }).success).toBe(true)
  })

  it('refuses an unknown field, naming it (issue 14: unknown fields are no longer ignored)', () => {
    expect(problemsOf({ txs: ['0x02f8'], unknownField: 'ignored' })).toBe('unknown field unknownField')
    expect(problemsOf({ txs: ['0x02f8'], blokNumber: '0x1' })).toBe('unknown field blokNumber (did you mean blockNumber?)')
  })

  it('names the failing array element: txs[1]', () => {
    const message = problemsOf({ txs: ['0x01', 'not hex'] })
    expect(message).toMatch(/^txs\[1\]: /)
    expect(message).not.toContain('txs[0]')
  })

  it('names txs when it is missing or not an array', () => {
    expect(problemsOf({})).toMatch(/^txs: /)
    expect(problemsOf({ txs: '0x01' })).toMatch(/^txs: /)
  })

  it('odd-length hex in txs names its index', () => {
    expect(problemsOf({ txs: ['0x01', '0x02', '0x123'] })).toMatch(/^txs\[2\]: /)
  })

  it('more than one refundTxHashes names refundTxHashes', () => {
    const message = problemsOf({ txs: ['0x01'], refundTxHashes: [H1, H2] })
    expect(message).toContain('refundTxHashes')
    expect(message).toMatch(/^refundTxHashes: .*at most one/)
  })

  it('a refund hash that is not 32-byte hex names refundTxHashes[0]', () => {
    expect(problemsOf({ txs: ['0x01'], refundTxHashes: ['0x12'] })).toMatch(/^refundTxHashes\[0\]: /)
  })

  it('a bad reverting hash names revertingTxHashes[1]', () => {
    expect(problemsOf({ txs: ['0x01'], revertingTxHashes: [H1, '0xzz'] })).toMatch(/^revertingTxHashes\[1\]: /)
  })

  it('refundPercent must be an integer 0–99', () => {
    expect(problemsOf({ txs: ['0x01'], refundPercent: 100 })).toMatch(/^refundPercent: /)
    expect(problemsOf({ txs: ['0x01'], refundPercent: 1.5 })).toMatch(/^refundPercent: /)
    expect(problemsOf({ txs: ['0x01'], refundPercent: -1 })).toMatch(/^refundPercent: /)
    expect(bundleObjectSchema.safeParse({ txs: ['0x01'], refundPercent: 99 }).success).toBe(true)
    expect(bundleObjectSchema.safeParse({ txs: ['0x01'], refundPercent: 0 }).success).toBe(true)
  })

  it('minTimestamp > maxTimestamp is refused and names minTimestamp', () => {
    expect(problemsOf({ txs: ['0x01'], minTimestamp: 20, maxTimestamp: 10 })).toMatch(/^minTimestamp: /)
    expect(bundleObjectSchema.safeParse({ txs: ['0x01'], minTimestamp: 10, maxTimestamp: 20 }).success).toBe(true)
  })

  it('known fields with the wrong type are refused with their name', () => {
    expect(problemsOf({ txs: ['0x01'], blockNumber: 5 })).toMatch(/^blockNumber: /)
    expect(problemsOf({ txs: ['0x01'], replacementUuid: 'nope' })).toMatch(/^replacementUuid: /)
    expect(problemsOf({ txs: ['0x01'], refundRecipient: '0x12' })).toMatch(/^refundRecipient: /)
  })

  it('lists every problem, not just the first', () => {
    const message = problemsOf({ txs: ['zz'], refundTxHashes: ['0x1'] })
    expect(message).toContain('txs[0]')
    expect(message).toContain('refundTxHashes[0]')
  })

  it('toSubmission: blockNumber 0x0 and absent mean the default target', () => {
    expect(toSubmission(bundleObjectSchema.parse({ txs: ['0x01'], blockNumber: '0x0' })).blockNumber).toBeUndefined()
    expect(toSubmission(bundleObjectSchema.parse({ txs: ['0x01'] })).blockNumber).toBeUndefined()
    expect(toSubmission(bundleObjectSchema.parse({ txs: ['0x01'], blockNumber: '0x1b4' })).blockNumber).toBe(436n)
  })

  it('toSubmission: timestamps 0 mean no bound', () => {
    const zero = toSubmission(bundleObjectSchema.parse({ txs: ['0x01'], minTimestamp: 0, maxTimestamp: 0 }))
    expect(zero.minTimestamp).toBeUndefined()
    expect(zero.maxTimestamp).toBeUndefined()
    const set = toSubmission(bundleObjectSchema.parse({ txs: ['0x01'], minTimestamp: 100, maxTimestamp: 200 }))
    expect(set.minTimestamp).toBe(100)
    expect(set.maxTimestamp).toBe(200)
  })

  it('toSubmission: hashes and refundRecipient are lowercased; absent lists are empty', () => {
    const upper = `0x${'AB'.repeat(32)}`
    const sub = toSubmission(
      bundleObjectSchema.parse({
        txs: ['0x01'],
        revertingTxHashes: [upper],
        droppingTxHashes: [upper],
        refundTxHashes: [upper],
        refundRecipient: '0xABCDEFABCDEFABCDEFABCDEFABCDEFABCDEFABCD',
      }),
    )
    expect(sub.revertingTxHashes).toEqual([upper.toLowerCase()])
    expect(sub.droppingTxHashes).toEqual([upper.toLowerCase()])
    expect(sub.refundTxHashes).toEqual([upper.toLowerCase()])
    expect(sub.refundRecipient).toBe('0xabcdefabcdefabcdefabcdefabcdefabcdefabcd')

    const bare = toSubmission(bundleObjectSchema.parse({ txs: ['0x01'] }))
    expect(bare.revertingTxHashes).toEqual([])
    expect(bare.droppingTxHashes).toEqual([])
    expect(bare.refundTxHashes).toEqual([])
  })
})

describe('decodeBundle', () => {
  it('a good bundle: no problems, default target = head + 1, hash as documented', async () => {
    const raws = [await signTx(0), await signTx(1)]
    const { bundle, problems } = decodeWithMessages(submissionOf(raws), CONTEXT)
    expect(problems).toEqual([])
    expect(bundle.targetBlock).toBe(6n)
    expect(bundle.hash).toBe(bundleHash(raws.map(txHash)))
    expect(bundle.txs.map((tx) => tx.hash)).toEqual(raws.map(txHash))
    expect(bundle.txs.map((tx) => tx.nonce)).toEqual([0, 1])
    expect(bundle.txs[0]!.maxPriorityFeePerGas).toBe(parseGwei('2'))
    expect(bundle.boosted).toBe(false)
  })

  it('an explicit future target is kept', async () => {
    const { bundle, problems } = decodeWithMessages(submissionOf([await signTx(0)], { blockNumber: 9n }), CONTEXT)
    expect(problems).toEqual([])
    expect(bundle.targetBlock).toBe(9n)
  })

  it('wrong chain id names the tx and both ids', async () => {
    const { problems, bundle } = decodeWithMessages(submissionOf([await signTx(0, 1)]), CONTEXT)
    expect(problems).toContain('txs[0]: wrong chain id 1, expected 31337')
    // Still gets a hash (traced as Invalid).
    expect(bundle.hash).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('a target block that is already mined is a problem (head and earlier)', async () => {
    const raw = await signTx(0)
    for (const target of [5n, 3n]) {
      const { problems } = decodeWithMessages(submissionOf([raw], { blockNumber: target }), CONTEXT)
      expect(problems).toHaveLength(1)
      expect(problems[0]).toMatch(/^blockNumber: /)
      expect(problems[0]).toContain(String(target))
    }
  })

  it('a reverting hash that is not in the bundle names revertingTxHashes[0]', async () => {
    const raw = await signTx(0)
    const { problems } = decodeWithMessages(submissionOf([raw], { revertingTxHashes: [H1] }), CONTEXT)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^revertingTxHashes\[0\]: /)
    expect(problems[0]).toContain(H1)
  })

  it('dropping and refund hashes not in the bundle are named too; member hashes are fine', async () => {
    const raw = await signTx(0)
    const own = txHash(raw)
    const { problems } = decodeWithMessages(
      submissionOf([raw], { revertingTxHashes: [own], droppingTxHashes: [own, H2], refundTxHashes: [H3] }),
      CONTEXT,
    )
    expect(problems).toHaveLength(2)
    expect(problems.some((p) => p.startsWith('droppingTxHashes[1]: '))).toBe(true)
    expect(problems.some((p) => p.startsWith('refundTxHashes[0]: '))).toBe(true)
  })

  it('an undecodable tx names its index', async () => {
    const good = await signTx(0)
    const { problems, bundle } = decodeWithMessages(submissionOf([good, '0x1234']), CONTEXT)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^txs\[1\]: /)
    // The hash still covers every submitted tx.
    expect(bundle.hash).toBe(bundleHash([txHash(good), txHash('0x1234')]))
  })
})

describe('BundleBook', () => {
  let nextSequence = 0

  function makeBundle(hash: Hash, targetBlock: bigint): Bundle {
    return {
      kind: 'bundle',
      hash,
      txs: [],
      targetBlock,
      revertingTxHashes: new Set(),
      droppingTxHashes: new Set(),
      refundTxHashes: [],
      boosted: false,
    }
  }

  function makeTrace(hash: Hash, targetBlock: bigint, opts: { state?: BundleState; receivedAt?: number; live?: boolean } = {}): BundleTrace {
    return {
      bundle: makeBundle(hash, targetBlock),
      state: opts.state ?? 'Received',
      error: null,
      errorKind: null,
      revertingHash: null,
      builderPayment: 0n,
      receivedAt: opts.receivedAt ?? 1_000,
      sequence: nextSequence++,
      receivedForBlock: targetBlock,
      receivedMsIntoSlot: 0,
      simulatedAt: null,
      submittedAt: null,
      blockNumber: null,
      live: opts.live ?? true,
      searcher: null as Address | null,
      builderPayments: { sponsorships: [], refund: null },
    }
  }

  const PASSED = { simulatedAt: 1_000, builderPayment: 1n, builderPayments: { sponsorships: [], refund: null }, gasUsed: 21_000n }
  const NO_PAYMENTS = { sponsorships: [], refund: null }
  const ELSEWHERE = { kind: 'MoreValuableBlockWithout', includedBy: ['arrival'], submitted: 'builder-payment', submittedValue: 2n } as const
  const REVERTED = { kind: 'TransactionReverted', index: 0, hash: `0x${'ab'.repeat(32)}` } as const
  const hashN = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash

  it('states only move forward: Landed does not go back to Submitted', () => {
    const store = new BundleBook({ statsDelaySlots: 0, retentionSeconds: 86_400 })
    const trace = store.add(makeTrace(hashN(1), 10n))
    store.simulationPassed(trace, PASSED)
    store.includedElsewhere(trace, 10n, ELSEWHERE)
    store.submitted(trace, 1_000, 10n)
    store.landed(trace, 10n, PASSED.builderPayment, NO_PAYMENTS)
    expect(trace.state).toBe('Landed')
    store.submitted(trace, 1_000, 99n)
    expect(trace.state).toBe('Landed')
    expect(trace.blockNumber).toBe(10n)
    store.simulationPassed(trace, PASSED)
    expect(trace.state).toBe('Landed')
  })

  it('SimulationFail is final (no later state applies, fields untouched)', () => {
    const store = new BundleBook({ statsDelaySlots: 0, retentionSeconds: 86_400 })
    const trace = store.add(makeTrace(hashN(2), 10n))
    store.simulationFailed(trace, REVERTED, 1_000)
    const reverted = trace.error
    const later = [
      () => store.simulationPassed(trace, PASSED),
      () => store.excluded(trace, { kind: 'NotChosenByAnyAlgorithm' }),
      () => store.includedElsewhere(trace, 10n, ELSEWHERE),
      () => store.submitted(trace, 1_000, 10n),
      () => store.landed(trace, 10n, PASSED.builderPayment, NO_PAYMENTS),
      () => store.invalid(trace, [{ kind: 'BadSignature', index: 0, error: 'bad' }]),
    ]
    for (const move of later) {
      move()
      expect(trace.state).toBe('SimulationFail')
    }
    expect(trace.error).toBe(reverted)
  })

  it('Invalid is final too', () => {
    const store = new BundleBook({ statsDelaySlots: 0, retentionSeconds: 86_400 })
    const trace = store.add(makeTrace(hashN(3), 10n))
    store.invalid(trace, [{ kind: 'BadSignature', index: 0, error: 'bad' }])
    store.simulationPassed(trace, PASSED)
    store.landed(trace, 10n, PASSED.builderPayment, NO_PAYMENTS)
    expect(trace.state).toBe('Invalid')
  })

  it('pendingFor(block) lists only live Received bundles targeting that block', () => {
    const store = new BundleBook({ statsDelaySlots: 0, retentionSeconds: 86_400 })
    const a = store.add(makeTrace(hashN(10), 10n))
    const notLive = store.add(makeTrace(hashN(11), 10n, { live: false }))
    const otherBlock = store.add(makeTrace(hashN(12), 11n))
    const moved = store.add(makeTrace(hashN(13), 10n))
    const invalid = store.add(makeTrace(hashN(14), 10n, { state: 'Invalid' }))
    store.simulationPassed(moved, PASSED)

    expect(store.pendingFor(10n).map((t) => t.bundle.hash)).toEqual([a.bundle.hash])
    expect(store.pendingFor(11n).map((t) => t.bundle.hash)).toEqual([otherBlock.bundle.hash])
    expect(store.pendingFor(12n)).toEqual([])
    expect(store.pendingFor(10n)).not.toContain(notLive)
    expect(store.pendingFor(10n)).not.toContain(invalid)

    // Withdrawing a live one removes it from the pending list.
    store.withdraw(a, { kind: 'Cancelled' })
    expect(store.pendingFor(10n)).toEqual([])
  })

  it('lookup: delayed until target + statsDelaySlots, then found; unknown hash is unknown', () => {
    const store = new BundleBook({ statsDelaySlots: 2, retentionSeconds: 86_400 })
    const trace = store.add(makeTrace(hashN(20), 10n, { receivedAt: 1_000 }))
    expect(store.lookup(trace.bundle.hash, 10n, 1_010)).toEqual({ found: false, reason: 'delayed', availableAtBlock: 12n })
    expect(store.lookup(trace.bundle.hash, 11n, 1_020)).toEqual({ found: false, reason: 'delayed', availableAtBlock: 12n })
    expect(store.lookup(trace.bundle.hash, 12n, 1_030)).toEqual({ found: true, trace })
    expect(store.lookup(trace.bundle.hash, 50n, 1_030)).toEqual({ found: true, trace })
    // Lookup is case-insensitive on the hash.
    expect(store.lookup(trace.bundle.hash.toUpperCase().replace('0X', '0x') as Hash, 12n, 1_030).found).toBe(true)
    expect(store.lookup(hashN(999), 50n, 1_030)).toEqual({ found: false, reason: 'unknown' })
  })

  it('lookup: also served the delay after maxTimestamp, even before the target block', () => {
    const store = new BundleBook({ statsDelaySlots: 2, retentionSeconds: 86_400, slotSeconds: 12 })
    const made = makeTrace(hashN(21), 100n, { receivedAt: 1_000 })
    const trace = store.add({ ...made, bundle: { ...made.bundle, maxTimestamp: 1_100 } })
    expect(store.lookup(trace.bundle.hash, 10n, 1_123)).toMatchObject({ found: false, reason: 'delayed', availableAtBlock: 102n })
    expect(store.lookup(trace.bundle.hash, 10n, 1_124)).toEqual({ found: true, trace })
  })

  it('expire(now) forgets traces older than the retention; lookup after the retention is unknown', () => {
    const store = new BundleBook({ statsDelaySlots: 0, retentionSeconds: 100 })
    const old = store.add(makeTrace(hashN(30), 10n, { receivedAt: 1_000 }))
    const young = store.add(makeTrace(hashN(31), 10n, { receivedAt: 1_050 }))
    expect(store.size).toBe(2)

    // Within retention: both served.
    expect(store.lookup(old.bundle.hash, 20n, 1_099).found).toBe(true)
    // Past the retention, even before expire runs, the old one is unknown.
    expect(store.lookup(old.bundle.hash, 20n, 1_100)).toEqual({ found: false, reason: 'unknown' })
    expect(store.lookup(young.bundle.hash, 20n, 1_100).found).toBe(true)

    expect(store.expire(1_099)).toBe(0)
    expect(store.size).toBe(2)
    expect(store.expire(1_100)).toBe(1)
    expect(store.size).toBe(1)
    expect(store.get(old.bundle.hash)).toBeUndefined()
    expect(store.get(young.bundle.hash)).toBe(young)
    // Forgotten traces also leave the pending index.
    expect(store.pendingFor(10n)).toEqual([young])

    expect(store.expire(1_150)).toBe(1)
    expect(store.size).toBe(0)
    expect(store.lookup(young.bundle.hash, 20n, 1_150)).toEqual({ found: false, reason: 'unknown' })
    expect(store.pendingFor(10n)).toEqual([])
  })
})

describe('createApiKeyCheck', () => {
  it('accepts configured keys and rejects others and a missing key', () => {
    const check = createApiKeyCheck(['k1', 'k2', 'a-much-longer-key-value'])
    expect(check('k1')).toBe(true)
    expect(check('k2')).toBe(true)
    expect(check('a-much-longer-key-value')).toBe(true)
    expect(check('k3')).toBe(false)
    expect(check('K1')).toBe(false)
    expect(check('k1 ')).toBe(false)
    expect(check('')).toBe(false)
    expect(check(undefined)).toBe(false)
  })

  it('rejects everything when no key is configured', () => {
    const check = createApiKeyCheck([])
    expect(check('k1')).toBe(false)
    expect(check('')).toBe(false)
    expect(check(undefined)).toBe(false)
  })
})

describe('refuseWhileAnvilDown', () => {
  const serverWith = (down: string | null, method: () => unknown, anvil = { downReason: down, faults: 0, lastFault: null as string | null }) => {
    const rpc = new JSONRPCServer<RequestContext>()
    refuseWhileAnvilDown(rpc, anvil)
    rpc.addMethod('eth_sendRawTransaction', method)
    return (params: unknown[] = []) => rpc.receive({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params }, {} as RequestContext)
  }

  it('a method whose Anvil connection breaks mid-call (a kill the supervisor has not seen yet) answers -32000 "Anvil did not answer", not an internal error', async () => {
    const call = serverWith(null, () => {
      throw new HttpRequestError({ url: 'http://127.0.0.1:1', body: {}, details: 'read ECONNRESET' })
    })
    expect((await call())?.error).toEqual({ code: -32000, message: 'Anvil did not answer eth_sendRawTransaction: read ECONNRESET', data: { retry: true } })
  })

  /** A call during which Anvil is killed and restarted (the supervisor counts a fault), failing with `error`. */
  const callSpanningFault = (error: Error) => {
    const anvil = { downReason: null as string | null, faults: 3, lastFault: 'Anvil exited (signal SIGKILL)' as string | null }
    return serverWith(null, () => {
      anvil.faults++
      throw error
    }, anvil)()
  }

  it('a call that spans an Anvil fault fails with -32000 "restarted while answering" whatever the new Anvil said (a read of a block the new chain lacks)', async () => {
    const answer = await callSpanningFault(new JSONRPCErrorException('BlockOutOfRangeError: block height is 0 but requested was 9', -32602))
    expect(answer?.error).toEqual({ code: -32000, message: 'Anvil restarted while answering eth_sendRawTransaction (Anvil exited (signal SIGKILL)); retry', data: { retry: true } })
  })

  it('an answer that already says Anvil is unavailable (a slot it aborted) passes through as it is', async () => {
    const answer = await callSpanningFault(new JSONRPCErrorException('slot for block 1 aborted: Anvil exited', -32000))
    expect(answer?.error).toMatchObject({ code: -32000, message: 'slot for block 1 aborted: Anvil exited' })
  })

  it('while Anvil is known down, answers -32000 at once; other errors pass through unchanged', async () => {
    expect((await serverWith('Anvil exited', () => 'never')())?.error).toMatchObject({ code: -32000, message: 'Anvil is down: restarting (Anvil exited)' })
    const other = await serverWith(null, () => {
      throw new JSONRPCErrorException('bad tx', -32602)
    })()
    expect(other?.error).toMatchObject({ code: -32602, message: 'bad tx' })
  })
})

describe('jsonLength (a request body\'s size against Anvil\'s limit, without serialising it)', () => {
  it('equals JSON.stringify(value).length for JSON-RPC params: objects, arrays, numbers, booleans, null, hex strings', () => {
    const hex = fc.constantFrom(...'0123456789abcdefx')
    fc.assert(fc.property(fc.jsonValue({ stringUnit: hex }), (value) => jsonLength(value) === JSON.stringify(value).length))
    expect(jsonLength([{ to: '0xab', value: undefined, n: 1 }, undefined, []])).toBe(JSON.stringify([{ to: '0xab', value: undefined, n: 1 }, undefined, []]).length)
  })
})
