import type { Hash } from 'viem'
import { describe, expect, it } from 'vitest'
import { ORDER_KINDS, ORDER_RULES, rulesOf, sameOrderTerms } from '../src/bundle/orderRules.js'
import type { Order, OrderKind, OrderRules, OrderBase } from '../src/bundle/types.js'

/**
 * The Order union (src/bundle/types.ts) and each kind's rules (one module per kind, paired with
 * its kind in `ORDER_RULES`): pure, no Anvil. The type-level checks below are compiled by
 * `npm run typecheck` (CI): each `@ts-expect-error` fails the typecheck if the line it marks
 * compiles, so a table or a switch that misses a kind cannot go unnoticed.
 */

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
const base = (n: number): OrderBase => ({ hash: hash(n), txs: [], targetBlock: 5n, revertingTxHashes: new Set(), droppingTxHashes: new Set(), refundTxHashes: [], boosted: false })
const plain: Order = { ...base(1), kind: 'bundle' }
const endOfBlock: Order = { ...base(2), kind: 'endOfBlock', endOfBlock: { targetPools: [`0x${'a'.repeat(40)}`] } }
const backrun: Order = { ...base(3), kind: 'mevShare', mevShare: { body: { elements: [], refund: [], refundConfig: [] }, maxBlock: 9n, backrunOf: hash(99) } }
const privateTx: Order = { ...base(4), kind: 'privateTx', privateTx: { maxBlockNumber: 30 } }
const bottomOfBlock: Order = { ...base(5), kind: 'bottomOfBlock', bottomOfBlock: { targetUuid: '123e4567-e89b-42d3-a456-426614174000', targetPools: [] } }

describe('order kinds', () => {
  it('every kind has its rules, and nothing else does', () => {
    expect([...ORDER_KINDS].sort()).toEqual(['bottomOfBlock', 'bundle', 'endOfBlock', 'mevShare', 'privateTx'])
    for (const order of [plain, endOfBlock, bottomOfBlock, backrun, privateTx]) expect(rulesOf(order)).toBe(ORDER_RULES[order.kind])
  })

  it('each kind says where the slot places it, how far it is carried, what it backruns and whether calls can value it', () => {
    const facts = (order: Order) => {
      const rules = rulesOf(order)
      return { placement: rules.placement, resent: rules.resentForLaterBlocks, carry: rules.carry(order), backrunOf: rules.backrunOf(order), asCalls: rules.valuedAsCalls(order) }
    }
    expect(facts(plain)).toEqual({ placement: 'ordered', resent: true, carry: undefined, backrunOf: undefined, asCalls: true })
    expect(facts({ ...plain, refundPercent: 90 })).toMatchObject({ asCalls: false }) // the refund is paid by receipts
    expect(facts(endOfBlock)).toEqual({ placement: 'endOfBlock', resent: true, carry: undefined, backrunOf: undefined, asCalls: true })
    expect(facts(backrun)).toEqual({ placement: 'ordered', resent: false, carry: { maxBlockNumber: 9, limit: 'inclusion.maxBlock' }, backrunOf: hash(99), asCalls: false })
    expect(facts(privateTx)).toEqual({ placement: 'ordered', resent: false, carry: { maxBlockNumber: 30 }, backrunOf: undefined, asCalls: true })
    // A uuid names one streamed block: never resent for later blocks, never carried.
    expect(facts(bottomOfBlock)).toEqual({ placement: 'bottomOfBlock', resent: false, carry: undefined, backrunOf: undefined, asCalls: true })
  })

  it("a copy sent to another builder is the same order only with the same kind and the kind's own terms", () => {
    expect(sameOrderTerms(plain, { ...plain })).toBe(true)
    expect(sameOrderTerms(plain, { ...plain, refundPercent: 10 })).toBe(false)
    expect(sameOrderTerms(plain, { ...endOfBlock, hash: plain.hash })).toBe(false)
    expect(sameOrderTerms(endOfBlock, { ...endOfBlock, endOfBlock: { targetPools: [] } })).toBe(false)
    expect(sameOrderTerms(privateTx, { ...privateTx })).toBe(true)
    expect(sameOrderTerms(privateTx, { ...privateTx, privateTx: { maxBlockNumber: 31 } })).toBe(false)
    expect(sameOrderTerms(privateTx, { ...privateTx, privateTx: { maxBlockNumber: 30, permutations: [hash(5)] } })).toBe(false)
    expect(sameOrderTerms(bottomOfBlock, { ...bottomOfBlock })).toBe(true)
    expect(sameOrderTerms(bottomOfBlock, { ...bottomOfBlock, bottomOfBlock: { targetUuid: '00000000-0000-4000-8000-000000000000', targetPools: [] } })).toBe(false)
    expect(sameOrderTerms(backrun, { ...backrun })).toBe(false) // MEV-Share has no builder URLs to broadcast to
  })

  it('the compiler refuses a rules table or a switch that misses a kind (type-level)', () => {
    // @ts-expect-error: privateTx has no rules here
    const missing: { readonly [K in OrderKind]: OrderRules<Extract<Order, { kind: K }>> } = { bundle: ORDER_RULES.bundle, endOfBlock: ORDER_RULES.endOfBlock, mevShare: ORDER_RULES.mevShare }
    // @ts-expect-error: a switch over the kinds without privateTx does not return on every path
    const placeOf = (order: Order): string => {
      switch (order.kind) {
        case 'bundle':
        case 'mevShare':
          return 'ordered'
        case 'endOfBlock':
          return 'end'
      }
    }
    expect(missing).toBeDefined()
    expect(placeOf(plain)).toBe('ordered')
  })
})
