import type { Hash } from 'viem'
import type { BundleTrace } from '../../bundle/trace.js'
import { normalizeHash } from '../../protocol/normalize.js'
import { rulesOf } from '../../bundle/orderRules.js'

/** A bundle of the slot that did not land, and the landed order that took its place. */
export interface PlaceTaken {
  trace: BundleTrace
  by: BundleTrace
  /** The tx both went for: one the losing bundle carried, or its backrun's user tx. */
  taken: Hash
}

/**
 * Who took each losing bundle's place in the mined block: the landed order holding a tx the
 * bundle also carried (the user swap two backruns both wrapped), or the MEV-Share backrun's
 * user tx. A bundle that failed by itself at the top of the block (its simulation failed: a
 * revert, a refused tx) lost to nobody and is left out, as is any bundle sharing nothing with
 * a landed one (what else it lost to is the slot's own failure: cutoff, auction, value).
 *
 * @example for (const { trace, by } of placesTaken(taken, minedBlockNumber)) book.lostTo(trace, …)
 */
export function placesTaken(taken: readonly BundleTrace[], minedBlock: bigint): PlaceTaken[] {
  const landedWith = new Map<Hash, BundleTrace>()
  for (const trace of taken) {
    if (trace.state !== 'Landed' || trace.blockNumber !== minedBlock) continue
    for (const tx of trace.bundle.txs) landedWith.set(normalizeHash(tx.hash), trace)
  }
  if (landedWith.size === 0) return []
  const out: PlaceTaken[] = []
  for (const trace of taken) {
    if (trace.state === 'Landed' || trace.state === 'SimulationFail' || trace.state === 'Invalid') continue
    const backrunOf = rulesOf(trace.bundle).backrunOf(trace.bundle)
    const wanted = [...trace.bundle.txs.map((tx) => tx.hash), ...(backrunOf ? [backrunOf] : [])]
    for (const taken of wanted) {
      const by = landedWith.get(normalizeHash(taken))
      if (by === undefined || by === trace) continue
      out.push({ trace, by, taken })
      break
    }
  }
  return out
}
