import type { Logger } from 'pino'
import type { SlotState } from '../clock/slotState.js'
import type { BundleBook } from '../bundle/book.js'
import { BundleIngest } from '../bundle/ingest.js'
import type { SenderRecovery } from '../bundle/senderRecovery.js'
import { IdleGate } from '../bundle/idleGate.js'
import { BatchedNonceReads } from '../bundle/batchedNonceReads.js'
import { PublicMempool } from '../mempool/publicMempool.js'
import { RequestActivity } from '../rpc/requestActivity.js'
import type { ChainSubsystem } from './chain.js'
import type { HarnessEvents } from './events.js'

/** Orders coming in: bundles (checked off the request path) and the public mempool. */
export interface OrderFlow {
  ingest: BundleIngest
  mempool: PublicMempool
  /** Requests being answered by the RPC servers: deferred checks wait while they are busy. */
  activity: RequestActivity
  /** Holds deferred sender checks during a burst of requests; a slot opens it. */
  checksGate: IdleGate
  /** Signature recovery off the ingest thread. */
  recover: SenderRecovery['recover']
}

export interface OrderFlowOptions {
  chain: ChainSubsystem
  slot: SlotState
  traces: BundleBook
  events: HarnessEvents
  log: Logger
}

/**
 * Bundle ingest and the public mempool, with the sender checks they defer: signature
 * recovery on a worker thread (through Anvil's ecrecover precompile) and nonce reads batched
 * per turn, run once the servers are quiet.
 */
export function createOrderFlow({ chain, slot, traces, events, log }: OrderFlowOptions): OrderFlow {
  // The chain's: it outlives this harness on a warm Anvil.
  const recovery = chain.senderRecovery
  const activity = new RequestActivity()
  const checksGate = new IdleGate({
    quietForMs: () => activity.quietForMs(),
    onHeldChange: (held) => events.emit('heldChecks', held),
  })
  const nonceReads = new BatchedNonceReads((reads) => chain.chain.noncesAt(reads))
  const ingest = new BundleIngest({
    chainId: chain.chainId,
    blobLimits: chain.blobLimits,
    maxTxGas: chain.txGasCap,
    traces,
    headBlock: () => slot.sealedBlock,
    bottomOfBlockHead: () => slot.head.number,
    chainHead: () => slot.head.number,
    nowSeconds: () => slot.clock.nowSeconds(),
    msIntoSlot: () => slot.arrivalMsIntoSlot(),
    // Mid-build, the sealed block does not exist on Anvil yet: its nonces are the head's.
    readNonce: (address, blockNumber) => nonceReads.read(address, blockNumber < slot.head.number ? blockNumber : slot.head.number),
    recover: recovery.recover,
    idle: () => checksGate.passed(),
    onPrivateOrder: (trace) => events.emit('privateOrder', trace),
    onChecked: (trace) => events.emit('orderChecked', trace),
    log,
  })
  const mempool = new PublicMempool({ chainId: chain.chainId, blobLimits: chain.blobLimits, maxTxGas: chain.txGasCap }, recovery.recover)
  return { ingest, mempool, activity, checksGate, recover: recovery.recover }
}
