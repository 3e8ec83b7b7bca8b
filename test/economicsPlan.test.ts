import { describe, expect, it } from 'vitest'
import { parseEther, parseGwei, type Address, type Hash } from 'viem'
import { expectedPlan, missingAt, payoutsWanted, settleGroup, sponsorshipNeeded, type GroupSettlement } from '../src/builder/execution/economicsPlan.js'
import type { GroupPlan, TxGroup } from '../src/builder/execution/execution.js'

// Hand-computed cases of the builder's economics, no Anvil: the amounts are worked out in the comments.
const baseFee = parseGwei('10')
const gas = 21_000n * baseFee // one builder transfer's gas: 0.00021 ETH
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address
const [userTx, refundTx, backrunTx, sponsorTransfer, payoutTransfer] = [1, 2, 3, 4, 5].map(hash) as [Hash, Hash, Hash, Hash, Hash]
const [user, recipient, searcher] = [0xa1, 0xa2, 0xa3].map(address) as [Address, Address, Address]

function group(bundle: TxGroup['bundle'], txs: Array<[Hash, Address]>): TxGroup {
  return { txs: txs.map(([h, sender], index) => ({ index, raw: '0x', hash: h, sender })), mayDrop: () => false, mayRevert: () => false, bundle }
}
function plan(sponsorships: Array<[Hash, bigint]> = [], payouts: GroupPlan['payouts'] = []): GroupPlan {
  return { sponsorships: new Map(sponsorships), payouts }
}
function settling(g: TxGroup, p: GroupPlan, changes: Array<[Hash, bigint]>, builderTxs: Hash[] = []): GroupSettlement {
  const included = g.txs.map((tx) => tx.hash)
  return { group: g, plan: p, outcome: { included, builderTxs }, coinbaseChanges: new Map(changes) }
}

describe('refund payouts', () => {
  const refundBundle = group({ refund: { percent: 50, recipient, txHash: refundTx } }, [[refundTx, searcher]])

  it('first execution: plans 50% of the refund tx reward less the payout gas', () => {
    // reward 0.001 ETH → 50% = 0.0005, less 0.00021 gas = 0.00029 ETH
    const verdict = settleGroup(settling(refundBundle, plan(), [[refundTx, parseEther('0.001')]]), gas)
    expect(verdict).toEqual({ kind: 'PayoutsChanged', payouts: [{ to: recipient, value: parseEther('0.00029') }] })
  })

  it('with that payout in place it settles: the builder nets the other half', () => {
    // the payout tx costs the coinbase 0.00029 + 0.00021 gas = 0.0005; net 0.001 − 0.0005 = 0.0005 ≥ 0
    const p = plan([], [{ to: recipient, value: parseEther('0.00029') }])
    const verdict = settleGroup(settling(refundBundle, p, [[refundTx, parseEther('0.001')], [payoutTransfer, -parseEther('0.0005')]], [payoutTransfer]), gas)
    expect(verdict).toEqual({ kind: 'Settled' })
  })

  it('fails RefundNotPositive when the payout would not exceed its own gas', () => {
    // 10% of 0.001 ETH = 0.0001 < 0.00021 gas
    const small = group({ refund: { percent: 10, recipient, txHash: refundTx } }, [[refundTx, searcher]])
    expect(settleGroup(settling(small, plan(), [[refundTx, parseEther('0.001')]]), gas)).toEqual({
      kind: 'Failed',
      failure: { kind: 'RefundNotPositive', rewardWei: parseEther('0.001'), percent: 10, payoutGasWei: gas },
    })
  })

  it('fails RefundNotCovered when sponsorship and payout leave the builder at a loss', () => {
    // reward 0.001, 90% → payout 0.0009 − 0.00021 = 0.00069 (costs 0.0009 with gas);
    // a sponsorship of 0.00021 costs 0.00042 with gas: net 0.001 − 0.0009 − 0.00042 = −0.00032;
    // before the payout 0.00058 > 0, so the sponsorship alone was covered.
    const generous = group({ refund: { percent: 90, recipient, txHash: refundTx } }, [[refundTx, searcher]])
    const p = plan([[refundTx, gas]], [{ to: recipient, value: parseEther('0.00069') }])
    const changes: Array<[Hash, bigint]> = [[refundTx, parseEther('0.001')], [sponsorTransfer, -parseEther('0.00042')], [payoutTransfer, -parseEther('0.0009')]]
    expect(settleGroup(settling(generous, p, changes, [sponsorTransfer, payoutTransfer]), gas)).toEqual({
      kind: 'Failed',
      failure: { kind: 'RefundNotCovered', rewardWei: parseEther('0.001'), payoutWei: parseEther('0.0009'), bundleValueWei: parseEther('0.00058') },
    })
  })
})

describe('sponsorship coverage', () => {
  const sponsored = group({}, [[userTx, user]])

  it('fails SponsorshipNotCovered when the bundle pays less than its sponsorship and gas', () => {
    // the tx pays 0.0001 in tips; the sponsorship of 0.00021 costs 0.00042 with gas: net −0.00032
    const verdict = settleGroup(settling(sponsored, plan([[userTx, gas]]), [[userTx, parseEther('0.0001')], [sponsorTransfer, -parseEther('0.00042')]], [sponsorTransfer]), gas)
    expect(verdict).toEqual({ kind: 'Failed', failure: { kind: 'SponsorshipNotCovered', sponsoredWei: gas, gasWei: gas, grossPaymentWei: parseEther('0.0001') } })
  })

  it('settles when the bundle pays more than its sponsorship costs', () => {
    const verdict = settleGroup(settling(sponsored, plan([[userTx, gas]]), [[userTx, parseEther('0.01')], [sponsorTransfer, -parseEther('0.00042')]], [sponsorTransfer]), gas)
    expect(verdict).toEqual({ kind: 'Settled' })
  })

  it('sponsors exactly what the sender misses at its position', () => {
    // max cost 21000 × 10 gwei = 0.00021; the sender holds 0.00005 there → 0.00016
    expect(missingAt({ maxCost: gas, balance: parseEther('0.00005') })).toBe(parseEther('0.00016'))
    expect(missingAt({ maxCost: gas, balance: gas })).toBe(0n)
  })

  it('corrects a sponsorship to leave the sender exactly its max cost', () => {
    // planned 0.0001 but the sender held 0.00015 after it: it missed 0.00006 more → 0.00016
    expect(sponsorshipNeeded({ amount: parseEther('0.0001'), maxCost: gas, held: parseEther('0.00015') })).toBe(parseEther('0.00016'))
    // an earlier tx funded it meanwhile: held 0.0005 after a 0.0001 transfer → none needed
    expect(sponsorshipNeeded({ amount: parseEther('0.0001'), maxCost: gas, held: parseEther('0.0005') })).toBe(0n)
  })
})

describe("refundPercent payouts by each builder's rule", () => {
  // Titan's worked example (https://docs.titanbuilder.xyz/api/eth_sendbundle), which counts in
  // thousands: the backrun pays 150k gas × 100 gwei = "15,000" (k gwei), base fee 50 gwei, 90% →
  // (15,000 − 21k × 50 gwei) × 0.9 = "12,555" (k gwei).
  const refundBundle = group({ refund: { percent: 90, recipient: user, txHash: backrunTx } }, [[userTx, user], [backrunTx, searcher]])
  const gains = new Map<Hash, bigint>([[userTx, 0n], [backrunTx, 150_000n * parseGwei('100')]])
  const payoutGas = 21_000n * parseGwei('50')

  it("Titan's: the payout's gas first, then the percent — its example's 12,555k gwei", () => {
    expect(payoutsWanted(refundBundle, (h) => gains.get(h), payoutGas, 'gasThenPercent')).toEqual({ payouts: [{ to: user, value: parseGwei('12555000') }], rewardWei: parseGwei('15000000') })
  })

  it("Flashbots' and BuilderNet's: the percent first, then the payout's gas", () => {
    // 15,000k × 0.9 − 1,050k = 12,450k gwei (BuilderNet's example: 50% of 1.2 ETH less 0.01 ETH of fees).
    expect(payoutsWanted(refundBundle, (h) => gains.get(h), payoutGas)).toEqual({ payouts: [{ to: user, value: parseGwei('12450000') }], rewardWei: parseGwei('15000000') })
  })
})

describe('MEV-Share refunds', () => {
  // The user's tx is element 0 and gets 90% of what the backrun pays the builder.
  const share = { elements: [{ kind: 'tx' as const, hash: userTx }, { kind: 'tx' as const, hash: backrunTx }], refund: [{ bodyIdx: 0, percent: 90 }], refundConfig: [] }
  const backrun = group({ share }, [[userTx, user], [backrunTx, searcher]])

  it("pays the user's sender 90% of the backrun's payment, less the payout gas", () => {
    // backrun pays 0.01 → 0.009 to the user, less 0.00021 = 0.00879
    const gains = new Map<Hash, bigint>([[userTx, 0n], [backrunTx, parseEther('0.01')]])
    expect(payoutsWanted(backrun, (h) => gains.get(h), gas)).toEqual({ payouts: [{ to: user, value: parseEther('0.00879') }], rewardWei: parseEther('0.01') })
  })

  it('fails RefundBelowPayoutGas when the refund cannot pay for its own transfer', () => {
    // backrun pays 0.0002 → 90% = 0.00018 < 0.00021
    const verdict = settleGroup(settling(backrun, plan(), [[userTx, 0n], [backrunTx, parseEther('0.0002')]]), gas)
    expect(verdict).toEqual({ kind: 'Failed', failure: { kind: 'RefundBelowPayoutGas', to: user, refundWei: parseEther('0.00018'), payoutGasWei: gas } })
  })
})

describe('the first plan of a block', () => {
  it("is what the bundle's top-of-block execution paid: sponsorships by tx, then every payout in order", () => {
    const payout = (to: Address, amountWei: bigint, n: number) => ({ recipient: to, amountWei, payoutHash: hash(0x100 + n) })
    const paid = {
      sponsorships: [{ txHash: userTx, amountWei: gas, transferHash: sponsorTransfer }],
      refund: payout(user, parseEther('0.001'), 1),
      refunds: [payout(user, parseEther('0.001'), 1), payout(recipient, parseEther('0.002'), 2)],
    }
    expect(expectedPlan(paid)).toEqual({
      sponsorships: new Map([[userTx, gas]]),
      payouts: [{ to: user, value: parseEther('0.001') }, { to: recipient, value: parseEther('0.002') }],
    })
    // A plain refund bundle has one payout; a bundle the builder paid nothing for has no plan.
    expect(expectedPlan({ sponsorships: [], refund: payout(recipient, 7n, 3) })).toEqual({ payouts: [{ to: recipient, value: 7n }] })
    expect(expectedPlan({ sponsorships: [], refund: null })).toEqual({})
  })
})
