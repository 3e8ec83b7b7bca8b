import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { failureFields, failureKind } from '../src/bundle/failure.js'
import { ERROR_KINDS, ERROR_KIND_NAMES } from '../src/protocol/errorKinds.js'

const hash = `0x${'ab'.repeat(32)}` as const

describe('errorKind', () => {
  it('docs/reference/errors.md lists every kind with the meaning ERROR_KINDS gives it, and no other', () => {
    const reference = readFileSync('docs/reference/errors.md', 'utf8')
    const start = reference.indexOf('| `errorKind` | meaning |')
    expect(start).toBeGreaterThan(0)
    const table = reference.slice(start, reference.indexOf('\n\n', start))
    const rows = [...table.matchAll(/^\| `(\w+)` \| (.*) \|$/gm)].slice(1).map((m) => [m[1], m[2]])
    expect(rows).toHaveLength(ERROR_KIND_NAMES.length)
    expect(Object.fromEntries(rows)).toEqual(ERROR_KINDS)
  })

  it('names the reason a client decides on: a revert, the node refusal, what failed in place, the first problem', () => {
    expect(failureFields({ kind: 'TransactionReverted', index: 0, hash })).toEqual({ error: expect.stringContaining('BundleRevert'), errorKind: 'BundleReverted' })
    expect(failureKind({ kind: 'TransactionRejected', index: 0, hash, reason: 'nonce too low', refusal: 'NonceTooLow' })).toBe('NonceTooLow')
    expect(failureKind({ kind: 'TransactionRejected', index: 0, hash, reason: 'odd', refusal: 'Other' })).toBe('TransactionRejected')
    expect(failureKind({ kind: 'FailedInPlace', failure: { kind: 'LackOfFundForGasLimit', index: 1, hash, reason: 'x' } })).toBe('LackOfFundForGasLimit')
    expect(failureKind({ kind: 'Invalid', problems: [{ kind: 'TargetBlockMined', targetBlock: 1n, head: 2n }, { kind: 'DuplicateTx', index: 1, hash }] })).toBe('TargetBlockMined')
    expect(failureKind({ kind: 'AuctionLost', competitorBid: 2n, ourValue: 1n, block: 3n })).toBe('AuctionLost')
  })
})
