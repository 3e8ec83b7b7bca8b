import type { Logger } from 'pino'
import type { EmulatedBuilder } from '../builder/fleet/emulatedBuilder.js'
import { DelayedRefundLedger } from '../refunds/delayedRefunds.js'
import { RefundPayer } from '../refunds/refundPayer.js'
import type { ChainSubsystem } from './chain.js'
import type { BuilderSubsystem } from './builder.js'
import type { OrderFlow } from './orderFlow.js'
import type { SlotState } from '../clock/slotState.js'
import type { Shutdown } from './shutdown.js'

/** Public txs remembered for the flat-tax rule: many blocks' worth of mainnet's mempool flow. */
const PUBLIC_TXS_KEPT = 65_536

export interface RefundsSubsystem {
  /** Delayed refunds owed and paid (`buildernet_getDelayedRefunds` reads it). */
  ledger: DelayedRefundLedger
}

/**
 * Refunds paid after the block (docs/several-builders.md): BuilderNet's delayed refunds and
 * bloXroute's priority-fee refunds. The ledger, and the payer taking part in every slot (once
 * mined); its refunds account is funded like the builders' coinbases.
 */
export async function createRefunds({ chain, slot, builders, builder, orders, coinbaseFunding, shutdown, log }: {
  shutdown: Shutdown
  slot: SlotState
  chain: ChainSubsystem
  builders: readonly EmulatedBuilder[]
  builder: BuilderSubsystem
  orders: OrderFlow
  coinbaseFunding: bigint
  log: Logger
}): Promise<RefundsSubsystem> {
  const ledger = new DelayedRefundLedger()
  // The public txs seen lately: BuilderNet pays no refund to a bundle made of them only.
  const publicTxs = new Set<string>()
  orders.mempool.onAdded((tx) => {
    publicTxs.add(tx.hash)
    if (publicTxs.size > PUBLIC_TXS_KEPT) publicTxs.delete(publicTxs.values().next().value!)
  })
  const payer = new RefundPayer({
    chain: chain.chain,
    chainId: chain.chainId,
    builders,
    ledger,
    wasPublic: (hash) => publicTxs.has(hash),
    sendPublic: (raw) => orders.mempool.add(raw, (sender) => chain.chain.nonce(sender, slot.head.number)),
    onError: (error) => log.warn({ err: error }, 'delayed refunds: a block\'s refunds could not be worked out or paid'),
  })
  if (!chain.resumed) await chain.chain.setBalance(payer.account.address, coinbaseFunding)
  builder.addParticipant({ onMined: (report, considered) => payer.onMined(report, considered) })
  const removeRecovery = chain.supervisor.onRecover(async () => {
    await payer.recovered()
    // A new chain (a restart without its state) has the account unfunded.
    if ((await chain.chain.balance(payer.account.address)) < coinbaseFunding / 2n) await chain.chain.setBalance(payer.account.address, coinbaseFunding)
  })
  shutdown.add(async () => removeRecovery())
  return { ledger }
}
