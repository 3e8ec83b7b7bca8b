import type { BundleBook } from '../bundle/book.js'
import type { SlotState } from '../clock/slotState.js'
import type { BundlesimConfig } from '../config/config.js'
import { createDashboard, type Dashboard } from '../dashboard/router.js'
import type { HarnessEvents } from './events.js'
import type { PublicView } from './publicView.js'

export interface DashboardWiring {
  config: BundlesimConfig
  traces: BundleBook
  slot: SlotState
  view: PublicView
  events: HarnessEvents
}

/** The dashboard on the stats port, fed by the slot events, the book and the public view's reads. */
export function createHarnessDashboard({ config, traces, slot, view, events }: DashboardWiring): Dashboard {
  return createDashboard({
    book: traces,
    now: { headBlock: () => slot.head.number, nowSeconds: () => slot.clock.nowSeconds() },
    read: view.read,
    statusCase: config.statusCase,
    statsDelaySlots: config.statsDelaySlots,
    slotMs: config.slotTimeSeconds * 1000,
    onSlot: (listener) => events.on('slot', listener),
  })
}
