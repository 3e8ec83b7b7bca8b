/**
 * EIP-1559 base fee of the block after a parent (elasticity 2, change denominator 8).
 * The builder sets it explicitly before every mine: Anvil derives the next base fee from the
 * last block it mined, even one later undone with evm_revert, so simulations would shift it.
 *
 * @example nextBaseFee({ baseFeePerGas: 1_000_000_000n, gasUsed: 0n, gasLimit: 30_000_000n }) // 875000000n
 */
export function nextBaseFee(parent: { baseFeePerGas: bigint; gasUsed: bigint; gasLimit: bigint }): bigint {
  const target = parent.gasLimit / 2n
  const { baseFeePerGas: base, gasUsed } = parent
  if (target === 0n || gasUsed === target) return base
  if (gasUsed > target) {
    const delta = (base * (gasUsed - target)) / target / 8n
    return base + (delta > 1n ? delta : 1n)
  }
  return base - (base * (target - gasUsed)) / target / 8n
}
