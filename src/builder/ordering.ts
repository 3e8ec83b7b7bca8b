import type { BundleTrace } from '../bundle/traceStore.js'

/** A bundle that passed top-of-block simulation, with what it paid there. */
export interface SimulatedBundle {
  trace: BundleTrace
  builderPayment: bigint
  gasUsed: bigint
}

/** Orders simulated bundles for one candidate block; the assembler re-executes them in that order. */
export interface OrderingAlgorithm {
  name: string
  order(bundles: readonly SimulatedBundle[]): SimulatedBundle[]
}

/** Ties fall back to arrival order, so a manual-clock run is deterministic. */
function byArrival(a: SimulatedBundle, b: SimulatedBundle): number {
  return a.trace.sequence - b.trace.sequence
}

function descending(a: bigint, b: bigint): number {
  return a > b ? -1 : a < b ? 1 : 0
}

export const byBuilderPayment: OrderingAlgorithm = {
  name: 'builder-payment',
  order: (bundles) => [...bundles].sort((a, b) => descending(a.builderPayment, b.builderPayment) || byArrival(a, b)),
}

export const DEFAULT_ALGORITHMS: readonly OrderingAlgorithm[] = [byBuilderPayment]
