import type { Address } from 'viem'

/**
 * Pending nonces per account, as a bot keeps them: the first tx signed for an account after
 * a slot takes the chain's nonce, later ones count up from it. Every slot forgets them, so a
 * tx that never landed does not leave a gap for the next slot's txs.
 */
export class NonceTracker {
  private readonly pending = new Map<Address, number>()

  constructor(private readonly chainNonce: (address: Address) => Promise<number>) {}

  async next(address: Address): Promise<number> {
    const nonce = Math.max(this.pending.get(address) ?? 0, await this.chainNonce(address))
    this.pending.set(address, nonce + 1)
    return nonce
  }

  /** A slot was mined: what landed is on chain now, what did not is forgotten. */
  reset(): void {
    this.pending.clear()
  }
}
