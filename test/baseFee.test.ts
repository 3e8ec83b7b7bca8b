import { describe, expect, it } from 'vitest'
import { nextBaseFee } from '../src/chain/baseFee.js'

describe('nextBaseFee (EIP-1559)', () => {
  const gasLimit = 30_000_000n
  const base = 1_000_000_000n
  it('falls by 1/8 after an empty block', () => expect(nextBaseFee({ baseFeePerGas: base, gasUsed: 0n, gasLimit })).toBe(875_000_000n))
  it('stays at the target', () => expect(nextBaseFee({ baseFeePerGas: base, gasUsed: gasLimit / 2n, gasLimit })).toBe(base))
  it('rises by 1/8 after a full block', () => expect(nextBaseFee({ baseFeePerGas: base, gasUsed: gasLimit, gasLimit })).toBe(1_125_000_000n))
  it('rises by at least 1 wei above the target', () => expect(nextBaseFee({ baseFeePerGas: 7n, gasUsed: gasLimit / 2n + 1n, gasLimit })).toBe(8n))
})
