import type { Address } from 'viem'

/** What one identity's bundles paid the builder in a landed block (the signing key, or its `refundIdentity`). */
export interface IdentityPayment {
  identity: Address
  paymentWei: bigint
}

/**
 * BuilderNet's flat-tax rule (https://buildernet.org/docs/refunds): the block's remainder — its
 * value `v` less what the builder had to pay to win, `c` — is shared among identities in
 * proportion to each one's capped contribution μᵢ = min(bᵢ, v − v(T∖{i})), at most Σμ:
 * φᵢ = μᵢ / Σμ · min(v − c, Σμ). bundlesim takes an identity's marginal contribution as what its
 * bundles paid (exact when its bundles conflict with no other order; a rebuild without each
 * identity per block would multiply the slot's cost), capped by the block's value. Bundles of
 * one identity count as one (BuilderNet: "treated as non-competitive"). Amounts round down.
 *
 * @example flatTaxRefunds({ blockValueWei: 10n, winningBidFloorWei: 6n, payments: [{ identity: a, paymentWei: 3n }, { identity: b, paymentWei: 1n }] }) // a: 3n, b: 1n
 */
export function flatTaxRefunds({ blockValueWei, winningBidFloorWei, payments }: { blockValueWei: bigint; winningBidFloorWei: bigint; payments: readonly IdentityPayment[] }): Map<Address, bigint> {
  const byIdentity = new Map<Address, bigint>()
  for (const { identity, paymentWei } of payments) if (paymentWei > 0n) byIdentity.set(identity, (byIdentity.get(identity) ?? 0n) + paymentWei)
  const capped = new Map([...byIdentity].map(([identity, paid]) => [identity, paid < blockValueWei ? paid : blockValueWei]))
  const total = [...capped.values()].reduce((a, b) => a + b, 0n)
  const remainder = blockValueWei - winningBidFloorWei
  const refunds = new Map<Address, bigint>()
  if (total === 0n || remainder <= 0n) return refunds
  const shared = remainder < total ? remainder : total
  for (const [identity, contribution] of capped) refunds.set(identity, (contribution * shared) / total)
  return refunds
}
