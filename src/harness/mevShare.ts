import express from 'express'
import type { Logger } from 'pino'
import type { ReadinessGate } from '../rpc/readinessGate.js'
import type { BundlesimConfig } from '../config/config.js'
import type { SlotState } from '../clock/slotState.js'
import { simulateWithLogs } from '../builder/simulation/index.js'
import { mevShareApp } from '../mevshare/app.js'
import { HintHistory } from '../mevshare/hintHistory.js'
import { HintPublisher } from '../mevshare/hintPublisher.js'
import { HintStream } from '../mevshare/hintStream.js'
import { shareableOrder } from '../mevshare/shareableOrder.js'
import { listen } from '../rpc/httpServer.js'
import type { ChainSubsystem } from './chain.js'
import type { HarnessEvents } from './events.js'
import type { OrderFlow } from './orderFlow.js'
import type { Shutdown } from './shutdown.js'

export interface MevShareWiring {
  config: BundlesimConfig
  chain: ChainSubsystem
  slot: SlotState
  orders: OrderFlow
  events: HarnessEvents
  /** Holds the stream's requests until the whole harness is up. */
  gate: ReadinessGate
  shutdown: Shutdown
  log: Logger
}

export interface MevShareSurface {
  /** The hint stream (`streamUrl` of the official client). */
  url: string
  /** Announces shared orders (a shared `mev_sendBundle` goes through it too). */
  publisher: HintPublisher
}

/**
 * The MEV-Share hint stream on its own port: every shared private tx, simulated on the head
 * under the chain lock's read side, announced with its hinted fields and kept in the history.
 */
export async function startMevShare({ config, chain, slot, orders, events, gate, shutdown, log }: MevShareWiring): Promise<MevShareSurface> {
  const stream = new HintStream({ pingIntervalMs: config.mevSharePingMs, maxBufferedBytes: config.mevShareMaxBufferedBytes })
  const history = new HintHistory(config.mevShareHistorySize)
  const publisher = new HintPublisher({
    simulate: (txs) => chain.lock.read(() => simulateWithLogs(chain.chain, { coinbase: chain.coinbase, slotSeconds: config.slotTimeSeconds }, txs)),
    recover: orders.recover,
    stream,
    history,
    nowSeconds: () => slot.clock.nowSeconds(),
    policy: { shareGasUsed: config.mevShareGasUsed, shareMevGasPrice: config.mevShareMevGasPrice },
    onPublished: (hint) => events.emit('hint', hint),
    log,
  })
  events.on('privateOrder', (trace) => {
    const order = shareableOrder(trace, (senders) => orders.ingest.keepSenders(trace, senders))
    if (order) publisher.publish(order)
  })
  const app = express()
  app.disable('x-powered-by')
  app.use(gate.middleware)
  app.use(mevShareApp(stream, history))
  const server = await listen(app, config.host, config.mevSharePort, '--mev-share-port')
  shutdown.add(() => server.close())
  // Before the server closes (steps run last-added first): open streams would hold it until its drain deadline.
  shutdown.add(async () => stream.close())
  return { url: server.url, publisher }
}
