import type { BlockItem, SimulatedBundle } from '../simulation/types.js'
import type { MempoolTx } from '../../mempool/publicMempool.js'
import { tipPerGas } from '../../mempool/tipPerGas.js'

/**
 * Orders a slot's simulated bundles and public-mempool txs (already in tip order, each
 * sender's nonces in order) into one candidate block; the assembler re-executes them.
 */
export interface OrderingAlgorithm {
  name: string
  order(bundles: readonly SimulatedBundle[], mempool: readonly MempoolTx[], baseFee: bigint): BlockItem[]
}

function descending(a: bigint, b: bigint): number {
  return a > b ? -1 : a < b ? 1 : 0
}

/** Ties fall back to arrival order, so a manual-clock run is deterministic. */
function byArrival(a: SimulatedBundle, b: SimulatedBundle): number {
  return a.trace.sequence - b.trace.sequence
}

const bundleItems = (bundles: SimulatedBundle[]): BlockItem[] => bundles.map((bundle) => ({ kind: 'bundle', bundle }))
const txItems = (txs: readonly MempoolTx[]): BlockItem[] => txs.map((tx) => ({ kind: 'tx', tx }))

/** Highest builder payment first, bundles at the top of the block, then the mempool. */
export const byBuilderPayment: OrderingAlgorithm = {
  name: 'builder-payment',
  order: (bundles, mempool) => [
    ...bundleItems([...bundles].sort((a, b) => descending(a.builderPayment, b.builderPayment) || byArrival(a, b))),
    ...txItems(mempool),
  ],
}

/**
 * Highest effective priority fee per gas first, bundles (payment ÷ gas used) and mempool txs
 * merged into one order, so a well-paying public tx can go ahead of a bundle.
 */
export const byPriorityFee: OrderingAlgorithm = {
  name: 'priority-fee',
  order: (bundles, mempool, baseFee) => {
    const perGas = (b: SimulatedBundle) => (b.gasUsed > 0n ? b.builderPayment / b.gasUsed : 0n)
    const sorted = [...bundles].sort((a, b) => descending(perGas(a), perGas(b)) || byArrival(a, b))
    const items: BlockItem[] = []
    let t = 0
    for (const bundle of sorted) {
      while (t < mempool.length && tipPerGas(mempool[t]!, baseFee) > perGas(bundle)) items.push({ kind: 'tx', tx: mempool[t++]! })
      items.push({ kind: 'bundle', bundle })
    }
    return [...items, ...txItems(mempool.slice(t))]
  },
}

/** First come, first served: bundles in arrival order, then the mempool. */
export const byArrivalOrder: OrderingAlgorithm = {
  name: 'arrival',
  order: (bundles, mempool) => [...bundleItems([...bundles].sort(byArrival)), ...txItems(mempool)],
}

/** A configured ordering algorithm name that does not exist; the message lists the known ones. */
export class UnknownAlgorithm extends Error {
  constructor(
    readonly algorithm: string,
    readonly known: readonly string[],
  ) {
    super(`unknown ordering algorithm "${algorithm}"; known: ${known.join(', ')}`)
  }
}

export const ALGORITHMS: readonly OrderingAlgorithm[] = [byBuilderPayment, byPriorityFee, byArrivalOrder]

/** Looks up algorithms by name; an unknown name is an error listing the known ones. */
export function algorithmsNamed(names: readonly string[]): OrderingAlgorithm[] {
  return names.map((name) => {
    const algorithm = ALGORITHMS.find((a) => a.name === name)
    if (!algorithm) throw new UnknownAlgorithm(name, ALGORITHMS.map((a) => a.name))
    return algorithm
  })
}
