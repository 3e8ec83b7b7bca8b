import type { Address, Hash, Hex, LocalAccount } from 'viem'
import { txHash } from '../../bundle/hash.js'

/** Gas of a builder transfer (sponsorship or refund payout): a plain ETH transfer. */
export const BUILDER_TRANSFER_GAS = 21_000n

export interface BuilderSigner {
  account: LocalAccount
  chainId: number
  /**
   * How its `refundPercent` payout is worked out (`economicsPlan.ts`): `percentThenGas`
   * (Flashbots', BuilderNet's: reward × p/100 − the payout's gas) or `gasThenPercent` (Titan's
   * worked example: (reward − the payout's gas) × p/100). Absent: `percentThenGas`.
   */
  refundRule?: RefundRule
}

/** The two ways builders net a refund payout's own gas (docs/several-builders.md). */
export type RefundRule = 'percentThenGas' | 'gasThenPercent'

/**
 * Signs a transfer from the builder coinbase. It pays exactly the base fee and no tip, so
 * its cost to the builder is `21000 × baseFee` and nothing flows back to the coinbase.
 */
export async function signBuilderTransfer(
  signer: BuilderSigner,
  to: Address,
  value: bigint,
  nonce: number,
  baseFee: bigint,
): Promise<{ raw: Hex; hash: Hash }> {
  const raw = await signer.account.signTransaction({
    type: 'eip1559',
    chainId: signer.chainId,
    nonce,
    to,
    value,
    gas: BUILDER_TRANSFER_GAS,
    maxFeePerGas: baseFee,
    maxPriorityFeePerGas: 0n,
  })
  return { raw, hash: txHash(raw) }
}
