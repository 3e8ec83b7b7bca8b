import { describe, expect, it } from 'vitest'
import type { Address, Hash } from 'viem'
import { creationsOf, Ownership } from '../src/competition/ownership.js'
import { searcherRecords, type CompetitionOpportunity, type CompetitionContender } from '../src/protocol/competition.js'
import type { TraceFrame } from '../src/chain/nodeRpc.js'

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address
const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
const OWNER = a(1)
const OPERATOR = a(2)
const SIGNER = a(3)
const FACTORY = a(10)
const EXECUTOR = a(11)
const ROUTER = a(20)
const POOL_FACTORY = a(21)
const NEW_POOL = a(22)
const STRANGER = a(30)

describe('whose money it is (src/competition/ownership.ts)', () => {
  const frames: TraceFrame[] = [
    // The owner key deploys a factory (a top-level create)…
    { type: 'create', traceAddress: [], transactionHash: h(1), action: { from: OWNER }, result: { address: FACTORY } },
    // …which makes the executor with CREATE2 inside a call.
    { type: 'call', traceAddress: [], transactionHash: h(2), action: { from: OWNER, to: FACTORY, callType: 'call' }, result: {} },
    { type: 'create', traceAddress: [0], transactionHash: h(2), action: { from: FACTORY }, result: { address: EXECUTOR } },
    // A create under a failed frame made nothing.
    { type: 'call', traceAddress: [], transactionHash: h(3), action: { from: OWNER, to: FACTORY, callType: 'call' }, error: 'Reverted' },
    { type: 'create', traceAddress: [0], transactionHash: h(3), action: { from: FACTORY }, result: { address: a(99) } },
    // A venue's factory makes a pool for a stranger: nobody's.
    { type: 'call', traceAddress: [], transactionHash: h(4), action: { from: STRANGER, to: POOL_FACTORY, callType: 'call' }, result: {} },
    { type: 'create', traceAddress: [0], transactionHash: h(4), action: { from: POOL_FACTORY }, result: { address: NEW_POOL } },
  ]

  it('reads every creation from trace frames: top-level, by a factory, none under a failed frame', () => {
    expect(creationsOf(frames)).toEqual([
      { created: FACTORY, creator: OWNER, sender: OWNER, txHash: h(1) },
      { created: EXECUTOR, creator: FACTORY, sender: OWNER, txHash: h(2) },
      { created: NEW_POOL, creator: POOL_FACTORY, sender: STRANGER, txHash: h(4) },
    ])
  })

  const names = new Map<Address, string>([[SIGNER, 'bot'], [OWNER, 'bot']])
  const ownership = new Ownership({
    addressesWith: (address) => {
      const name = names.get(address)
      return name === undefined ? [address] : [...names].filter(([, n]) => n === name).map(([x]) => x)
    },
    isPublic: (address) => [ROUTER, POOL_FACTORY].includes(address),
  })
  ownership.learn(creationsOf(frames))

  it('a named signer owns what its owner key deployed, through a factory, though neither sent the backrun', () => {
    // The backrun was sent by an unnamed operator key to the router (public): the executor is the signer's by its name's owner key.
    expect(ownership.controlledBy(SIGNER, { senders: [OPERATOR], called: [ROUTER] })).toEqual(new Set([SIGNER, OWNER, FACTORY, EXECUTOR, OPERATOR]))
  })

  it('an unnamed searcher owns the contract its txs call, and what that created; never a public contract or what one created', () => {
    expect(ownership.controlledBy(STRANGER, { senders: [STRANGER], called: [FACTORY, ROUTER] })).toEqual(new Set([STRANGER, FACTORY, EXECUTOR]))
    expect(ownership.controlledBy(STRANGER, { senders: [STRANGER], called: [POOL_FACTORY] })).toEqual(new Set([STRANGER]))
  })
})

describe('one record per searcher (searcherRecords): lost is another searcher’s capture; its own failure counts apart', () => {
  const contender = (searcher: Address, name: string | null, captured: boolean, errorKind: CompetitionContender['errorKind'] = null): CompetitionContender => ({
    bundleHash: h(Number(BigInt(searcher)) + (captured ? 100 : 0)),
    searcher,
    name,
    builderPaymentWei: '1',
    status: captured ? 'landed' : 'simulationfail',
    errorKind,
    captured,
  })
  const opportunity = (captor: { searcher: Address; name: string } | null, contenders: CompetitionContender[]): CompetitionOpportunity => ({
    kind: 'backrun',
    blockNumber: 1,
    victim: h(7),
    pool: a(40),
    position: null,
    gapWei: '1000',
    searcher: captor?.searcher ?? null,
    name: captor?.name ?? null,
    bundleHash: null,
    backrunTxs: [],
    frontrunTxs: [],
    userLossWei: null,
    profitWei: captor ? '500' : null,
    refundWei: captor ? '0' : null,
    builderPaymentWei: captor ? '300' : null,
    grossPaymentWei: captor ? '400' : null,
    gasWei: captor ? '10' : null,
    marginWei: null,
    contenders,
  })

  it('a searcher whose only bundle reverted, with nobody capturing, has lost 0 and one failure of its kind', () => {
    const [row] = searcherRecords([opportunity(null, [contender(SIGNER, 'bot', false, 'BundleReverted')])], [{ searcher: SIGNER, name: 'bot' }])
    expect(row).toMatchObject({ name: 'bot', captured: 0, lost: 0, failed: 1, failedKinds: { BundleReverted: 1 } })
  })

  it('one another searcher captured is a loss, whatever its own bundle did; the winner’s payments both ways', () => {
    const rows = searcherRecords([opportunity({ searcher: STRANGER, name: 'rival' }, [contender(STRANGER, 'rival', true), contender(SIGNER, 'bot', false, 'BundleReverted'), contender(SIGNER, 'bot', false)])])
    expect(rows.find((r) => r.name === 'bot')).toMatchObject({ captured: 0, lost: 1, failed: 0 })
    expect(rows.find((r) => r.name === 'rival')).toMatchObject({ captured: 1, lost: 0, profitWei: '500', builderPaymentWei: '300', grossPaymentWei: '400' })
  })
})
