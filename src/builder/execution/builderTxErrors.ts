import type { Address, Hash } from 'viem'

/**
 * A builder transfer (sponsorship or refund payout) that Anvil would not take or did not
 * mine: the builder's own tx failing means the execution cannot be trusted, so the slot aborts.
 */
export class BuilderTransferFailed extends Error {
  constructor(
    readonly problem: { kind: 'Refused'; to: Address; reason: string } | { kind: 'NotMined'; hash: Hash } | { kind: 'NoCoinbaseKey' },
  ) {
    super(
      problem.kind === 'Refused'
        ? `builder transfer to ${problem.to} refused by Anvil: ${problem.reason}`
        : problem.kind === 'NotMined'
          ? `builder transfer ${problem.hash} was not mined`
          : 'builder transfers need the coinbase key',
    )
  }
}

/** Sponsorship and refunds kept changing the block: the bound on re-executions was reached. */
export class EconomicsDidNotSettle extends Error {
  constructor(readonly executions: number) {
    super(`builder economics did not settle in ${executions} executions`)
  }
}
