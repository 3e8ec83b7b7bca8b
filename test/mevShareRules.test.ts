import { describe, expect, it } from 'vitest'
import { concat, keccak256, type Address, type Hash } from 'viem'
import { newTrace, type BundleTrace } from '../src/bundle/trace.js'
import type { Bundle, BundleTx, PrivateTxOrder, PrivateTxTerms, ShareBody, ShareBundle } from '../src/bundle/types.js'
import { shareRefunds } from '../src/builder/execution/shareRefunds.js'
import { settleBackruns } from '../src/builder/slot/backruns.js'
import { backrunTargetGone } from '../src/bundle/backrunTarget.js'
import { inBackrunTerms } from '../src/bundle/failure.js'
import { decodeShareBundle, type SharedTarget } from '../src/mevshare/decodeShareBundle.js'
import { matchingHashOf } from '../src/protocol/mevShareHashes.js'
import { isShared } from '../src/mevshare/sharing.js'
import { decodeTrace, encodeTrace } from '../src/persist/traceCodec.js'
import { DEV_KEYS, signTx } from './support/harness.js'

// MEV-Share's pure rules without Anvil: refunds of a body, backrun settlement, the node's bundle rules.

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address
const tx = (n: number) => ({ kind: 'tx' as const, hash: hash(n) })

describe('shareRefunds: as rbuilder settles an sbundle', () => {
  const senders = new Map([[hash(1), address(0xa)], [hash(2), address(0xb)], [hash(3), address(0xc)]])
  const senderOf = (h: Hash) => senders.get(h)

  it('a backrun: the user element gets its percent of what the other elements paid, to its sender', () => {
    const body: ShareBody = { elements: [{ kind: 'bundle', body: { elements: [tx(1)], refund: [], refundConfig: [] } }, tx(2)], refund: [{ bodyIdx: 0, percent: 90 }], refundConfig: [] }
    const gains = new Map([[hash(1), 50n], [hash(2), 1_001n]])
    const { byRecipient, refundableWei } = shareRefunds(body, { gainOf: (h) => gains.get(h), senderOf })
    expect(refundableWei).toBe(1_001n) // the user's own tip is not refundable
    expect([...byRecipient]).toEqual([[address(0xa), 900n]]) // 90% rounded down
  })

  it("refundConfig splits the user's refund; negative gains and txs not in the block count nothing", () => {
    const user = { kind: 'bundle' as const, body: { elements: [tx(1)], refund: [], refundConfig: [{ address: address(0xd), percent: 70 }, { address: address(0xe), percent: 30 }] } }
    const body: ShareBody = { elements: [user, tx(2), tx(3)], refund: [{ bodyIdx: 0, percent: 50 }], refundConfig: [] }
    const gains = new Map([[hash(1), 7n], [hash(2), -5n], [hash(3), 1_000n]])
    const { byRecipient } = shareRefunds(body, { gainOf: (h) => gains.get(h), senderOf })
    expect([...byRecipient]).toEqual([[address(0xd), 350n], [address(0xe), 150n]])
    expect([...shareRefunds(body, { gainOf: (h) => (h === hash(3) ? undefined : gains.get(h)), senderOf }).byRecipient]).toEqual([[address(0xd), 0n], [address(0xe), 0n]])
  })

  it("a nested bundle's own refunds are paid first and only its remainder is refundable above", () => {
    const inner: ShareBody = { elements: [tx(2), tx(3)], refund: [{ bodyIdx: 0, percent: 10 }], refundConfig: [] }
    const body: ShareBody = { elements: [tx(1), { kind: 'bundle', body: inner }], refund: [{ bodyIdx: 0, percent: 50 }], refundConfig: [] }
    const gains = new Map([[hash(1), 0n], [hash(2), 0n], [hash(3), 1_000n]])
    const { byRecipient, refundableWei } = shareRefunds(body, { gainOf: (h) => gains.get(h), senderOf })
    // Inner: the sender of tx 2 gets 10% of 1000; outer: tx 1's sender gets 50% of the 900 left.
    expect(refundableWei).toBe(900n)
    expect(Object.fromEntries(byRecipient)).toEqual({ [address(0xb)]: 100n, [address(0xa)]: 450n })
  })

  it('no refund entries: nothing is owed', () => {
    const body: ShareBody = { elements: [tx(1), tx(2)], refund: [], refundConfig: [] }
    expect(shareRefunds(body, { gainOf: () => 10n, senderOf }).byRecipient.size).toBe(0)
  })
})

type OrderTerms = Pick<ShareBundle, 'kind' | 'mevShare'> | Pick<PrivateTxOrder, 'kind' | 'privateTx'> | { kind: 'bundle' }
function traceOf(n: number, terms: OrderTerms = { kind: 'bundle' }): BundleTrace {
  const bundle: Bundle = { hash: hash(n), txs: [], targetBlock: 5n, revertingTxHashes: new Set(), droppingTxHashes: new Set(), refundTxHashes: [], boosted: false, ...terms }
  return newTrace(bundle, { receivedAt: 0, sequence: n, receivedForBlock: 5n, receivedMsIntoSlot: 0, searcher: null })
}
const backrunOf = (n: number, target: number, eventHash?: Hash) =>
  traceOf(n, { kind: 'mevShare', mevShare: { body: { elements: [], refund: [], refundConfig: [] }, maxBlock: 9n, backrunOf: hash(target), ...(eventHash && { backrunEventHash: eventHash }) } })
const privateTx = (n: number, terms: PrivateTxTerms = { maxBlockNumber: 9 }) => traceOf(n, { kind: 'privateTx', privateTx: terms })

describe('backruns in the slot', () => {
  it('a backrun is tried only while its user tx is: landed, cancelled, expired, invalid or unknown targets fail it', () => {
    const target = privateTx(1)
    const backrun = backrunOf(2, 1)
    expect(backrunTargetGone(backrun, target)).toBeUndefined()
    expect(backrunTargetGone(traceOf(3), undefined)).toBeUndefined() // not a backrun
    expect(backrunTargetGone(backrun, undefined)).toMatchObject({ kind: 'BackrunTargetGone', why: expect.stringMatching(/no longer known/) })
    expect(backrunTargetGone(backrun, { ...target, state: 'Landed', blockNumber: 4n })).toMatchObject({ why: 'landed in block 4 without this backrun' })
    expect(backrunTargetGone(backrun, { ...privateTx(1), cancelled: true, live: false })).toMatchObject({ why: expect.stringMatching(/cancelled/) })
    const expired = { ...target, bundle: { ...target.bundle, targetBlock: 9n }, live: false, error: 'not included by maxBlockNumber 9 (block 9: simulationfail (BundleRevert. Reverting Hash: 0x…))' }
    expect(backrunTargetGone(backrun, expired)).toMatchObject({ why: 'expired: not included by its maxBlockNumber 9' })
    expect(backrunTargetGone(backrun, { ...target, live: false })).toMatchObject({ why: 'is no longer tried' })
    // Nothing of the user's own trace (its sender, its revert) is repeated in the searcher's.
    expect(backrunTargetGone(backrun, { ...target, state: 'Invalid', error: 'txs[0]: nonce 3 of 0xabc already used' })).toMatchObject({ why: 'is invalid (the builder refused it)' })
  })

  it('a backrun names its user tx by the event hash it was sent with, never by the raw tx hash', () => {
    const backrun = backrunOf(2, 1, hash(77))
    expect(backrunTargetGone(backrun, undefined)).toMatchObject({ target: hash(77) })
    expect(settleBackruns([backrun], { number: 5n, txs: new Map([[hash(1), {}]]) }).orphaned[0]!.failure).toMatchObject({ target: hash(77), by: null })
  })

  it("a failure of the user's tx inside a backrun names it by the event hash; other failures are as they are", () => {
    const backrun = backrunOf(2, 1, hash(77))
    expect(inBackrunTerms(backrun, { kind: 'TransactionReverted', index: 0, hash: hash(1) })).toEqual({ kind: 'TransactionReverted', index: 0, hash: hash(77) })
    expect(inBackrunTerms(backrun, { kind: 'TransactionReverted', index: 1, hash: hash(3) })).toEqual({ kind: 'TransactionReverted', index: 1, hash: hash(3) })
    expect(inBackrunTerms(traceOf(5), { kind: 'TransactionReverted', index: 0, hash: hash(1) })).toEqual({ kind: 'TransactionReverted', index: 0, hash: hash(1) })
  })

  it('settles the mined block: the landed backrun wins, the others lose naming it, the user tx is landed', () => {
    const user = privateTx(1)
    const winner = { ...backrunOf(2, 1), state: 'Landed' as const, blockNumber: 5n }
    const loser = backrunOf(3, 1)
    const unrelated = backrunOf(4, 9)
    const { landedInBackrun, orphaned } = settleBackruns([user, winner, loser, unrelated], { number: 5n, txs: new Map([[hash(1), {}]]) })
    expect(landedInBackrun).toEqual([user])
    expect(orphaned).toEqual([{ trace: loser, failure: { kind: 'BackrunTargetLandedWithout', target: hash(1), block: 5n, by: hash(2) } }])
  })

  it('a user tx that landed alone orphans its backruns with by: null; a block without it settles nothing', () => {
    const user = { ...privateTx(1), state: 'Landed' as const, blockNumber: 5n }
    const loser = backrunOf(3, 1)
    expect(settleBackruns([user, loser], { number: 5n, txs: new Map([[hash(1), {}]]) }).orphaned).toEqual([
      { trace: loser, failure: { kind: 'BackrunTargetLandedWithout', target: hash(1), block: 5n, by: null } },
    ])
    expect(settleBackruns([privateTx(1), loser], { number: 5n, txs: new Map() })).toEqual({ landedInBackrun: [], orphaned: [] })
  })
})

describe("decodeShareBundle: the node's bundle rules", () => {
  const rules = (targets: Record<string, SharedTarget> = {}) => ({ chainId: 31337, headBlock: 10n, findShared: (h: Hash) => targets[h] })
  const inclusion = { block: 11n }

  it('hashes as the node does, a { hash } counting as the event hash it names; the user tx goes first, refunded 90%', async () => {
    const [userRaw, a, b] = await Promise.all([signTx({ key: DEV_KEYS[0], nonce: 0 }), signTx({ key: DEV_KEYS[0], nonce: 1 }), signTx({ key: DEV_KEYS[0], nonce: 2 })])
    const user = { raw: userRaw, hash: keccak256(userRaw), nonce: 0, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, value: 1n, to: null, index: 0 } satisfies BundleTx
    const eventHash = matchingHashOf(user.hash)
    const target: SharedTarget = { tx: user, targetBlock: 11n, maxBlock: 13n, refundConfig: [] }
    const decoded = decodeShareBundle(
      { version: 'v0.1', inclusion: { block: 11n, maxBlock: 20n }, body: [{ hash: eventHash }, { bundle: { version: 'v0.1', inclusion, body: [{ tx: a }, { tx: b, canRevert: true }] } }] },
      rules({ [eventHash]: target }),
    )
    if (!decoded.ok) throw new Error(decoded.problem)
    const inner = keccak256(concat([keccak256(a), keccak256(b)]))
    expect(decoded.bundle.hash).toBe(keccak256(concat([eventHash, inner])))
    expect(decoded.bundle.txs.map((t) => [t.index, t.hash])).toEqual([[0, user.hash], [1, keccak256(a)], [2, keccak256(b)]])
    expect([...decoded.bundle.revertingTxHashes]).toEqual([keccak256(b)])
    // The inclusion is merged with the user tx's and the inner bundle's: block 11 only.
    expect(decoded.bundle).toMatchObject({ kind: 'mevShare' })
    expect(decoded.bundle.kind === 'mevShare' && decoded.bundle.mevShare).toMatchObject({ maxBlock: 11n, backrunOf: user.hash, body: { refund: [{ bodyIdx: 0, percent: 90 }] } })
  })

  it('a bundle without { hash } keeps its refunds, refundConfig and privacy hints (for the stream) on its terms, its privacy.builders as its builders', async () => {
    const [a, b] = await Promise.all([signTx({ key: DEV_KEYS[0], nonce: 0 }), signTx({ key: DEV_KEYS[1], nonce: 0 })])
    const decoded = decodeShareBundle(
      {
        version: 'v0.1',
        inclusion,
        body: [{ tx: a }, { tx: b }],
        validity: { refund: [{ bodyIdx: 0, percent: 40 }], refundConfig: [{ address: address(0xf), percent: 100 }] },
        privacy: { hints: ['hash', 'calldata'], builders: ['Flashbots'] },
      },
      rules(),
    )
    expect(decoded).toMatchObject({
      ok: true,
      bundle: { builders: ['Flashbots'], mevShare: { hints: ['hash', 'calldata'], maxBlock: 11n, body: { refund: [{ bodyIdx: 0, percent: 40 }], refundConfig: [{ address: address(0xf), percent: 100 }] } } },
    })
    const { bundle } = decoded as { bundle: Bundle }
    expect(bundle.kind === 'mevShare' && bundle.mevShare.backrunOf).toBeUndefined()
  })

  it("a nested bundle's privacy.builders narrow the outer ones (the node's MergePrivacyBuilders); none in common is refused naming the field", async () => {
    const [a, b] = await Promise.all([signTx({ key: DEV_KEYS[0], nonce: 0 }), signTx({ key: DEV_KEYS[1], nonce: 0 })])
    const nested = (outer: string[] | undefined, inner: string[] | undefined) =>
      decodeShareBundle(
        {
          version: 'v0.1',
          inclusion,
          body: [{ tx: a }, { bundle: { version: 'v0.1', inclusion, body: [{ tx: b }], ...(inner && { privacy: { builders: inner } }) } }],
          ...(outer && { privacy: { builders: outer } }),
        },
        rules(),
      )
    expect(nested(['alpha', 'Beta'], ['beta', 'gamma'])).toMatchObject({ ok: true, bundle: { builders: ['Beta'] } })
    expect(nested(undefined, ['gamma'])).toMatchObject({ ok: true, bundle: { builders: ['gamma'] } })
    expect(nested(['alpha'], undefined)).toMatchObject({ ok: true, bundle: { builders: ['alpha'] } })
    expect((nested(undefined, undefined) as { bundle: Bundle }).bundle.builders).toBeUndefined()
    expect(nested(['alpha'], ['gamma'])).toEqual({
      ok: false,
      problem: `body[1].bundle.privacy.builders: none of ["gamma"] is among the outer bundle's privacy.builders (["alpha"]), so no builder could land both`,
    })
  })

  it('a MEV-Share trace survives --data-dir: its terms and every refund payout come back', async () => {
    const raw = await signTx({ key: DEV_KEYS[0], nonce: 0 })
    const decoded = decodeShareBundle({ version: 'v0.1', inclusion, body: [{ tx: raw }], validity: { refund: [{ bodyIdx: 0, percent: 10 }] } }, rules())
    if (!decoded.ok) throw new Error(decoded.problem)
    const payouts = [1, 2].map((n) => ({ recipient: address(n), amountWei: 10n ** 18n + BigInt(n), payoutHash: hash(n) }))
    const trace = { ...traceOf(1), bundle: decoded.bundle, builderPayments: { sponsorships: [], refund: payouts[0]!, refunds: payouts } }
    expect(decodeTrace(JSON.parse(JSON.stringify(encodeTrace(trace))))).toEqual(trace)
  })

  it('a bundle of one tx is hashed as that tx', async () => {
    const raw = await signTx({ key: DEV_KEYS[0], nonce: 0 })
    const decoded = decodeShareBundle({ version: 'beta-1', inclusion, body: [{ tx: raw }] }, rules())
    expect(decoded).toMatchObject({ ok: true, bundle: { hash: keccak256(raw), targetBlock: 11n } })
  })
})

describe('isShared: a private tx is shared iff it hinted something', () => {
  it.each([
    [undefined, false],
    [{}, false],
    [{ privacy: { hints: [] } }, false],
    [{ privacy: { builders: ['flashbots'] } }, false],
    [{ privacy: { hints: ['hash'] } }, true],
  ])('%j → %s', (preferences, shared) => expect(isShared(preferences)).toBe(shared))
})
