import { beforeAll, describe, expect, it } from 'vitest'
import { keccak256, parseEther, parseGwei, type Address, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { useBareChain } from './support/bareChain.js'
import type { ChainClient } from '../src/chain/chainClient.js'
import { ParentState } from '../src/builder/execution/parentState.js'
import { simulateByCalls } from '../src/builder/simulation/byCalls.js'
import { blockValueByCalls } from '../src/builder/simulation/blockValueByCalls.js'
import { assembleBlock } from '../src/builder/assembly/assemble.js'
import { minerChanges, minerChangesAsCalled } from '../src/builder/execution/blockLedger.js'
import { byArrivalOrder } from '../src/builder/assembly/ordering.js'
import type { BlockItem } from '../src/builder/simulation/types.js'
import { decodeSignedTx } from '../src/bundle/decode.js'
import type { BundleTrace } from '../src/bundle/trace.js'
import type { MempoolTx } from '../src/mempool/publicMempool.js'
import { simulateManyTopOfBlock, simulateTopOfBlock } from '../src/builder/simulation/topOfBlock.js'
import { decodeBundle } from '../src/bundle/decode.js'
import { withRecoveredSenders } from '../src/bundle/verifySenders.js'
import type { Bundle, BundleSubmission } from '../src/bundle/types.js'
import { DEV_KEYS, REVERTER_CODE, accountOf, signTx } from './support/harness.js'

/** The builder's key: its coinbase signs sponsorships and refund payouts. */
const BUILDER = { account: accountOf('0x2222222222222222222222222222222222222222222222222222222222222222'), chainId: 31337 }
const COINBASE: Address = BUILDER.account.address
const REVERTER: Address = '0x0000000000000000000000000000000000000bad'
/** Forwards msg.value to block.coinbase: CALL(GAS, COINBASE, CALLVALUE, 0, 0, 0, 0). */
const TIPPER: Address = '0x00000000000000000000000000000000000071b0'
const TIPPER_CODE: Hex = '0x600060006000600034415af100'
const BROKE_KEY: Hex = '0x1111111111111111111111111111111111111111111111111111111111111111'
/** Keys that hold nothing either: their txs need the builder's sponsorship. */
const EMPTY_KEYS: [Hex, Hex] = ['0x3333333333333333333333333333333333333333333333333333333333333333', '0x4444444444444444444444444444444444444444444444444444444444444444']

const bare = useBareChain(COINBASE)
let chain: ChainClient

beforeAll(async () => {
  chain = bare.chain
  await chain.setBalance(COINBASE, parseEther('10'))
  await chain.test.setCode({ address: REVERTER, bytecode: REVERTER_CODE })
  await chain.test.setCode({ address: TIPPER, bytecode: TIPPER_CODE })
  // Dev key 0 has used nonce 0 on chain, so a bundle can carry a stale tx.
  expect(await chain.sendRawTransaction(await signTx({ key: DEV_KEYS[0], nonce: 0 }))).toEqual({ accepted: true })
  await chain.test.mine({ blocks: 1 })
})

async function bundleOf(txs: Hex[], extra: Partial<BundleSubmission> = {}): Promise<Bundle> {
  const decoded = decodeBundle(
    { txs, revertingTxHashes: [], droppingTxHashes: [], refundTxHashes: [], ...extra },
    { chainId: 31337, headBlock: await chain.blockNumber(), boosted: false },
  )
  if (!('bundle' in decoded)) throw new Error(JSON.stringify(decoded))
  return (await withRecoveredSenders(decoded.bundle)).bundle
}

const legacyTx = (key: Hex, nonce: number) =>
  accountOf(key).signTransaction({ type: 'legacy', chainId: 31337, nonce, to: TIPPER, value: parseGwei('50000'), gas: 60_000n, gasPrice: parseGwei('5') })
const accessListTx = (key: Hex, nonce: number) =>
  accountOf(key).signTransaction({
    type: 'eip2930',
    chainId: 31337,
    nonce,
    to: TIPPER,
    value: 7n,
    gas: 80_000n,
    gasPrice: parseGwei('4'),
    accessList: [{ address: TIPPER, storageKeys: [] }],
  })

describe('top-of-block simulation as eth_simulateV1 calls', () => {
  it('decides exactly what real execution decides, and leaves to it what calls cannot tell', async () => {
    const [k0, k1, k2, k3, k4] = DEV_KEYS
    const nonce0 = await chain.nonce(accountOf(k0).address, await chain.blockNumber())
    const cases: Array<{ name: string; bundle: Bundle; byCalls: boolean }> = [
      { name: 'two transfers', byCalls: true, bundle: await bundleOf([await signTx({ key: k0, nonce: nonce0 }), await signTx({ key: k0, nonce: nonce0 + 1 })]) },
      { name: 'coinbase tip from a contract', byCalls: true, bundle: await bundleOf([await signTx({ key: k1, nonce: 0, to: TIPPER, value: parseEther('0.01'), data: '0x' })]) },
      { name: 'reverting tx not allowed', byCalls: true, bundle: await bundleOf([await signTx({ key: k2, nonce: 0 }), await signTx({ key: k2, nonce: 1, to: REVERTER, gas: 50_000n })]) },
      {
        name: 'reverting tx allowed',
        byCalls: true,
        bundle: await (async () => {
          const revert = await signTx({ key: k3, nonce: 0, to: REVERTER, gas: 50_000n })
          return bundleOf([revert, await signTx({ key: k3, nonce: 1, to: TIPPER, value: 5n, data: '0x' })], { revertingTxHashes: [keccak256(revert)] })
        })(),
      },
      { name: 'legacy and access-list txs', byCalls: true, bundle: await bundleOf([await legacyTx(k4, 0), await accessListTx(k4, 1)]) },
      { name: 'nonce ahead of the chain', byCalls: false, bundle: await bundleOf([await signTx({ key: k1, nonce: 5 })]) },
      { name: 'used nonce, droppable', byCalls: false, bundle: await droppable(k0, nonce0 - 1) },
      { name: 'sender without funds', byCalls: false, bundle: await bundleOf([await signTx({ key: BROKE_KEY, nonce: 0 })]) },
      { name: 'fee cap under the base fee', byCalls: false, bundle: await bundleOf([await signTx({ key: k2, nonce: 0, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })]) },
      {
        name: 'sponsored: an empty sender, then a tx that pays the builder',
        byCalls: true,
        bundle: await bundleOf([await signTx({ key: EMPTY_KEYS[0], nonce: 0 }), await signTx({ key: k3, nonce: 0, to: TIPPER, value: parseEther('0.01'), data: '0x' })]),
      },
      {
        name: 'sponsored where an earlier tx of the bundle gives the sender part of it',
        byCalls: false,
        bundle: await bundleOf([
          await signTx({ key: k4, nonce: 0, to: accountOf(EMPTY_KEYS[1]).address, value: 1_000n }),
          await signTx({ key: EMPTY_KEYS[1], nonce: 0 }),
          await signTx({ key: k3, nonce: 0, to: TIPPER, value: parseEther('0.01'), data: '0x' }),
        ]),
      },
      { name: 'refund terms', byCalls: false, bundle: await bundleOf([await signTx({ key: k3, nonce: 0, to: TIPPER, value: parseEther('0.01'), data: '0x' })], { refundPercent: 50 }) },
    ]

    const parent = await ParentState.capture(chain, COINBASE, BUILDER)
    const timestamp = parent.timestamp + 12n
    const byCalls = await simulateByCalls({ parent, timestamp }, cases.map((c) => c.bundle))
    const exact = []
    for (const { bundle } of cases) exact.push(await simulateTopOfBlock(parent, timestamp, bundle))
    await parent.release()

    expect(cases.map((c, i) => [c.name, byCalls[i] !== undefined])).toEqual(cases.map((c) => [c.name, c.byCalls]))
    for (const [i, result] of byCalls.entries()) {
      if (result) expect([cases[i]!.name, result]).toEqual([cases[i]!.name, exact[i]])
    }
    // The cases really differ: payments, failures and gas are not all alike.
    expect(exact[1]).toMatchObject({ ok: true })
    expect(exact[1]!.ok && exact[1]!.builderPayment > parseEther('0.01')).toBe(true)
    expect(exact[2]).toMatchObject({ ok: false, failure: { kind: 'TransactionReverted', index: 1 } })
    expect(exact[3]).toMatchObject({ ok: true })
    const sponsored = cases.findIndex((c) => c.name.startsWith('sponsored: '))
    expect(exact[sponsored]).toMatchObject({ ok: true, sponsorships: [{ txHash: cases[sponsored]!.bundle.txs[0]!.hash }] })
    const partly = cases.findIndex((c) => c.name.startsWith('sponsored where'))
    expect(exact[partly]).toMatchObject({ ok: true, sponsorships: [{ txHash: cases[partly]!.bundle.txs[1]!.hash }] })
  })

  it('a slot simulates ordinary bundles as calls and the rest by real execution, with the same outcome', async () => {
    const [k0] = DEV_KEYS
    const nonce = await chain.nonce(accountOf(k0).address, await chain.blockNumber())
    const bundles = [await bundleOf([await signTx({ key: k0, nonce })]), await bundleOf([await signTx({ key: BROKE_KEY, nonce: 0 })])]
    const parent = await ParentState.capture(chain, COINBASE)
    const { results, counts } = await simulateManyTopOfBlock(parent, parent.timestamp + 12n, bundles)
    await parent.release()
    expect(counts).toEqual({ byCalls: 1, byExecution: 1, beforeCutoff: 0 })
    expect(results[0]).toMatchObject({ ok: true, gasUsed: 21_000n })
    expect(results[1]).toMatchObject({ ok: false, failure: { kind: 'LackOfFundForGasLimit' } })
    expect(await chain.blockNumber()).toBe(parent.number)
  })

  it('bundles whose requests together exceed Anvil\'s 2 MiB body are still simulated as calls, each with its own answer', async () => {
    // 24 bundles of one ~60 KB-calldata tx: ~120 KB of hex a request, ~2.9 MB for all of them.
    const keys = Array.from({ length: 24 }, () => generatePrivateKey())
    await Promise.all(keys.map((key) => chain.setBalance(accountOf(key).address, parseEther('1'))))
    const bundles = await Promise.all(keys.map(async (key, i) => bundleOf([await signTx({ key, nonce: 0, data: `0x${'ab'.repeat(60_000 + i)}`, gas: 2_500_000n })])))
    const parent = await ParentState.capture(chain, COINBASE)
    const { results, counts } = await simulateManyTopOfBlock(parent, parent.timestamp + 12n, bundles)
    await parent.release()
    expect(counts).toEqual({ byCalls: 24, byExecution: 0, beforeCutoff: 0 })
    for (const result of results) expect(result).toMatchObject({ ok: true })
    // Each calldata length costs its own gas: each bundle got its own answer, in order.
    const gas = results.map((r) => (r.ok ? r.gasUsed : 0n))
    expect(gas.every((g, i) => i === 0 || g > gas[i - 1]!)).toBe(true)
  })

  it('a candidate block valued as calls is worth what the mined block is worth; a bundle failing in place is left to execution', async () => {
    const [k0, k1, k2] = DEV_KEYS
    const head = await chain.blockNumber()
    const nonceOf = (key: Hex) => chain.nonce(accountOf(key).address, head)
    const n0 = await nonceOf(k0)
    const n2 = await nonceOf(k2)
    const tip = await bundleOf([await signTx({ key: k1, nonce: await nonceOf(k1), to: TIPPER, value: parseEther('0.02'), data: '0x' })])
    const pair = await bundleOf([await signTx({ key: k0, nonce: n0 }), await signTx({ key: k0, nonce: n0 + 1, maxPriorityFeePerGas: parseGwei('3') })])
    const publicTx = await mempoolTx(await signTx({ key: k2, nonce: n2, maxPriorityFeePerGas: parseGwei('4') }))
    const staleTx = await mempoolTx(await signTx({ key: k2, nonce: n2 + 5 }))
    const items: BlockItem[] = [bundleItem(tip), { kind: 'tx', tx: publicTx }, bundleItem(pair), { kind: 'tx', tx: staleTx }]
    // The same nonce of k0 again, after `pair` spent it: this bundle fails in place.
    const clash = await bundleOf([await signTx({ key: k0, nonce: n0, value: 2n })])

    const parent = await ParentState.capture(chain, COINBASE, BUILDER)
    const timestamp = parent.timestamp + 12n
    const value = (await blockValueByCalls({ parent, timestamp }, items))?.value
    const clashing = await blockValueByCalls({ parent, timestamp }, [...items, bundleItem(clash)])
    const mined = await assembleBlock(parent, timestamp, byArrivalOrder, [...items])
    await parent.release()

    expect(mined.leftOut).toEqual([])
    expect(mined.execution.groups[3]!.dropped).toHaveLength(1)
    expect(value).toBe(mined.value)
    expect(value! > parseEther('0.02')).toBe(true)
    expect(clashing).toBeUndefined()
  })
})

describe('coinbase changes counted from the txs as calls', () => {
  it('give, for every tx of the executed block, what its receipts give; a block that ran otherwise is refused', async () => {
    const [k0, k1, k2, k3] = DEV_KEYS
    const head = await chain.blockNumber()
    const nonceOf = (key: Hex) => chain.nonce(accountOf(key).address, head)
    const tip = await bundleOf([await signTx({ key: k1, nonce: await nonceOf(k1), to: TIPPER, value: parseEther('0.01'), data: '0x', maxPriorityFeePerGas: parseGwei('1') })])
    const parent = await ParentState.capture(chain, COINBASE, BUILDER)
    // Its fee cap leaves room for 1 gwei of its tip (as high as the cap).
    const cap = parent.nextBaseFee + parseGwei('1')
    const capped = await signTx({ key: k3, nonce: await nonceOf(k3), maxFeePerGas: cap, maxPriorityFeePerGas: cap })
    const pair = await bundleOf([capped, await signTx({ key: k3, nonce: (await nonceOf(k3)) + 1, maxPriorityFeePerGas: parseGwei('3') })])
    const publicTx = await mempoolTx(await signTx({ key: k2, nonce: await nonceOf(k2), maxPriorityFeePerGas: parseGwei('4') }))
    // A funded account pays the builder, then an empty one sends: the builder's transfer (signed
    // only when the block is executed) goes before the empty account's tx.
    const payer = await signTx({ key: k0, nonce: await nonceOf(k0), to: TIPPER, value: parseEther('0.01'), data: '0x' })
    const sponsored = await bundleOf([payer, await signTx({ key: EMPTY_KEYS[1], nonce: 0, maxPriorityFeePerGas: parseGwei('5') })])
    const { gas, maxFeePerGas, value: sent, hash } = sponsored.txs[1]!
    const sponsoredItem: BlockItem = { kind: 'bundle', bundle: { trace: { bundle: sponsored } as BundleTrace, builderPayment: 0n, gasUsed: 0n, sponsorships: new Map([[hash, gas * maxFeePerGas + sent]]) } }
    const items: BlockItem[] = [bundleItem(tip), { kind: 'tx', tx: publicTx }, sponsoredItem, bundleItem(pair)]

    const timestamp = parent.timestamp + 12n
    const valued = await blockValueByCalls({ parent, timestamp }, items)
    const mined = await assembleBlock(parent, timestamp, byArrivalOrder, [...items])
    const { block } = mined.execution
    const fromReceipts = await minerChanges(chain, block, [...block.txs.keys()])
    await parent.release()

    expect(mined.leftOut).toEqual([])
    expect(valued!.txsAsCalls.map((call) => call.hash)).toEqual([tip.txs[0]!.hash, publicTx.hash, sponsored.txs[0]!.hash, undefined, hash, ...pair.txs.map((tx) => tx.hash)])
    expect(block.txs.size).toBe(7)
    expect(minerChangesAsCalled(block, valued!.txsAsCalls, mined.value)).toEqual(fromReceipts)
    // 1,000 gas moved from the public tx (4 gwei tip) to pair's second (3 gwei): the header's gas still adds up, the coinbase's gain does not.
    const calls = valued!.txsAsCalls
    const shifted = calls.map((call, i) => (i === 1 ? { ...call, gasUsed: call.gasUsed - 1000n } : i === 6 ? { ...call, gasUsed: call.gasUsed + 1000n } : call))
    expect(minerChangesAsCalled(block, shifted, mined.value)).toBeUndefined()
    // Another order, another block, or a gain the block did not make: refused.
    expect(minerChangesAsCalled(block, [calls[1]!, calls[0]!, ...calls.slice(2)], mined.value)).toBeUndefined()
    expect(minerChangesAsCalled(block, calls.slice(0, 6), mined.value)).toBeUndefined()
    expect(minerChangesAsCalled(block, calls, mined.value + 1n)).toBeUndefined()
    // The builder's transfer has no hash to compare: its sender is.
    expect(minerChangesAsCalled(block, calls.map((call, i) => (i === 3 ? { ...call, from: accountOf(k0).address } : call)), mined.value)).toBeUndefined()
  })
})

/** A simulated bundle as the ordering algorithms see it (only its bundle matters for valuing a block). */
function bundleItem(bundle: Bundle): BlockItem {
  return { kind: 'bundle', bundle: { trace: { bundle } as BundleTrace, builderPayment: 0n, gasUsed: 0n } }
}

async function mempoolTx(raw: Hex): Promise<MempoolTx> {
  const decoded = decodeSignedTx(raw, 'tx', { chainId: 31337 })
  if (typeof decoded === 'string') throw new Error(decoded)
  const { txs } = await bundleOf([raw]) // recovers the sender
  return { ...decoded, sender: txs[0]!.sender!, sequence: 0 }
}

async function droppable(key: Hex, usedNonce: number): Promise<Bundle> {
  const stale = await signTx({ key, nonce: usedNonce, value: 3n })
  return bundleOf([stale], { droppingTxHashes: [keccak256(stale)] })
}
