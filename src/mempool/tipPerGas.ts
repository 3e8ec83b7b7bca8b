/** Effective tip per gas a tx pays at this base fee: its priority fee, capped by what its fee cap leaves above the base fee. */
export function tipPerGas(tx: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }, baseFee: bigint): bigint {
  const headroom = tx.maxFeePerGas - baseFee
  return headroom < tx.maxPriorityFeePerGas ? headroom : tx.maxPriorityFeePerGas
}
