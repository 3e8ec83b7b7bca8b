import { describe, expect, it } from 'vitest'
import { classifyNodeRefusal } from '../src/chain/nodeRefusal.js'
import { rejectionFailure } from '../src/bundle/failure.js'
import { usedEarlierReason } from '../src/builder/execution/execution.js'

/** The texts Anvil (@foundry-rs/anvil 1.7) answers eth_sendRawTransaction with, captured from a running node. */
const ANVIL_TEXTS = {
  'Insufficient funds for gas * price + value': 'LackOfFundForGasLimit',
  'nonce too low': 'NonceTooLow',
  'nonce too high': 'NonceTooHigh',
  'max fee per gas less than block base fee': 'FeeCapBelowBaseFee',
  'intrinsic gas too low': 'IntrinsicGasTooLow',
  'intrinsic gas too high -- tx.gas_limit > env.block.gas_limit': 'GasLimitAboveBlockLimit',
  'replacement transaction underpriced': 'ReplacementUnderpriced',
  'transaction already imported': 'AlreadyKnown',
} as const

describe('classifyNodeRefusal', () => {
  it.each(Object.entries(ANVIL_TEXTS))('%s → %s', (text, kind) => {
    expect(classifyNodeRefusal(text)).toBe(kind)
  })

  it('classifies our own used-nonce refusal as NonceTooLow, and any unknown text as Other', () => {
    expect(classifyNodeRefusal(usedEarlierReason(3, '0x00000000000000000000000000000000000000aa'))).toBe('NonceTooLow')
    expect(classifyNodeRefusal('execution reverted')).toBe('Other')
  })
})

describe('rejectionFailure', () => {
  const hash = `0x${'11'.repeat(32)}` as const
  it('turns a funds refusal into LackOfFundForGasLimit and keeps the kind of any other refusal', () => {
    expect(rejectionFailure(0, hash, 'Insufficient funds for gas * price + value').kind).toBe('LackOfFundForGasLimit')
    expect(rejectionFailure(1, hash, 'nonce too low')).toEqual({ kind: 'TransactionRejected', index: 1, hash, reason: 'nonce too low', refusal: 'NonceTooLow' })
  })
})
