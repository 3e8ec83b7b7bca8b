import type { Address, Hash } from 'viem'
import type { TraceFrame } from '../../chain/chainClient.js'
import { effectiveFrames } from '../execution/effectiveFrames.js'
import type { SlotCutoffs } from '../../config/config.js'
import type { BuilderPayments } from '../../bundle/builderPayments.js'
import { expectedPlan } from '../execution/economicsPlan.js'
import { failureFields, type ExecutionFailure, type SlotFailure } from '../../bundle/failure.js'
import type { BuilderView, BundleTrace } from '../../bundle/trace.js'
import { itemGroups, type CandidateBlock } from '../assembly/assemble.js'
import { bundleGroup } from '../execution/groups.js'
import type { GroupOutcome } from '../execution/execution.js'
import type { ParentState } from '../execution/parentState.js'
import type { SimulatedBundle } from '../simulation/types.js'
import { buildDecision, type NotBuilt } from './buildDecision.js'
import type { Lateness } from './eligibility.js'
import { normalizeAddress } from '../../protocol/normalize.js'
import { targetPoolsOf } from '../../bundle/endOfBlockBundle.js'

/** An eligible end-of-block bundle, in arrival order. */
export interface EndOfBlockBundle {
  trace: BundleTrace
  msIntoSlot: Lateness
}

/** What became of one end-of-block bundle before the auction, for the bundle book. */
export type EndOfBlockVerdict =
  /** Not tried: no target pool touched (end of block), or a bottom-of-block bundle's uuid names another block (`bottomOfBlock.ts`). */
  | { kind: 'NotSimulated'; trace: BundleTrace; failure: Extract<SlotFailure, { kind: 'NoTargetPoolTouched' | 'BottomOfBlockTargetUnknown' | 'BottomOfBlockTargetPast' }> }
  | { kind: 'SimulationFailed'; trace: BundleTrace; failure: ExecutionFailure }
  /** Simulated at the end of the block; `notBuilt` says why it was not appended, if it was not. */
  | { kind: 'Passed'; trace: BundleTrace; builderPayment: bigint; builderPayments: BuilderPayments; gasUsed: bigint; notBuilt: NotBuilt | null }

/** How far a verdict took its bundle: appended > passed but not built > failed > not simulated. */
function reach(verdict: EndOfBlockVerdict): number {
  if (verdict.kind === 'Passed') return verdict.notBuilt ? 2 : 3
  return verdict.kind === 'SimulationFailed' ? 1 : 0
}

/** The end-of-block verdicts of one builder's last block. */
export interface BuilderVerdicts {
  builder: string
  verdicts: readonly EndOfBlockVerdict[]
}

/** The verdict recorded for one end-of-block bundle, and the builder whose block it came from. */
export interface ChosenVerdict {
  builder: string
  verdict: EndOfBlockVerdict
}

/**
 * The verdict to record for each end-of-block bundle of a slot from every block that tried
 * it (several builders, or one builder's bids through the slot): the one that took it
 * furthest; among equals the winner's (the block mined: a bundle that failed in every block
 * says why it failed in the one on chain, not why it failed in a block that was not mined: a
 * NonceTooLow for a nonce only that block had spent), then the first builder's. The trace is
 * one: what one builder appended (and may land) is not undone by another that left it out;
 * each builder's own view is in `builders` (`verdictView`).
 *
 * @example for (const { verdict } of furthestVerdicts(bids.map((b) => ({ builder: b.name, verdicts: b.endOfBlockVerdicts })), 'beta')) record(verdict)
 */
export function furthestVerdicts(byBuilder: readonly BuilderVerdicts[], winner: string | null): ChosenVerdict[] {
  const furthest = new Map<BundleTrace, ChosenVerdict>()
  for (const { builder, verdicts } of byBuilder) {
    for (const verdict of verdicts) {
      const kept = furthest.get(verdict.trace)
      const further = !kept || reach(verdict) > reach(kept.verdict) || (reach(verdict) === reach(kept.verdict) && builder === winner && kept.builder !== winner)
      if (further) furthest.set(verdict.trace, { builder, verdict })
    }
  }
  return [...furthest.values()]
}

/**
 * What one builder's verdict on an end-of-block bundle shows in its view of the trace (as the
 * bundle book records the same verdict); `null` for one it appended, whose block outcome says.
 *
 * @example verdictView('beta', { kind: 'SimulationFailed', trace, failure }) // { name: 'beta', state: 'SimulationFail', … }
 */
export function verdictView(builder: string, verdict: EndOfBlockVerdict): BuilderView | null {
  switch (verdict.kind) {
    case 'NotSimulated':
      return { name: builder, state: 'Received', ...failureFields(verdict.failure) }
    case 'SimulationFailed':
      return { name: builder, state: 'SimulationFail', ...failureFields(verdict.failure) }
    case 'Passed':
      if (!verdict.notBuilt) return null
      return { name: builder, state: verdict.notBuilt.kind === 'ArrivedAfterBuildCutoff' ? 'SimulationPass' : 'ExcludedFromBlock', ...failureFields(verdict.notBuilt) }
  }
}

/**
 * Whether an end-of-block bundle is tried on this block: with no `targetPools` always, else
 * when an earlier order changed the storage of one of them; returns why not, or null.
 */
export function untouchedPools(trace: BundleTrace, touched: ReadonlySet<Address>, block: bigint): Extract<SlotFailure, { kind: 'NoTargetPoolTouched' }> | null {
  const targetPools = targetPoolsOf(trace.bundle)
  if (targetPools.length === 0 || targetPools.some((pool) => touched.has(pool))) return null
  return { kind: 'NoTargetPoolTouched', block, targetPools }
}

/**
 * Places end-of-block bundles (Titan's `eth_sendEndOfBlockBundle`) after every other order of
 * the chosen block: reads which contracts the block's orders changed (prestateTracer diff),
 * then, in arrival order, executes the block with each bundle whose target pools were
 * touched appended after everything kept so far. A bundle that fails there is
 * `SimulationFail`; one that passes and pays the builder is kept at the end, and the next
 * one is tried after it. Runs only when such a bundle is eligible, so slots without one
 * cost nothing more.
 */
export async function placeEndOfBlock(
  parent: ParentState,
  timestamp: bigint,
  chosen: CandidateBlock,
  bundles: readonly EndOfBlockBundle[],
  cutoffs: SlotCutoffs,
): Promise<{ best: CandidateBlock; verdicts: EndOfBlockVerdict[]; appended: SimulatedBundle[] }> {
  const block = parent.number + 1n
  let { items, execution } = chosen
  const pools = new Set(bundles.flatMap(({ trace }) => targetPoolsOf(trace.bundle)).map((pool) => normalizeAddress(pool)))
  const touched = pools.size > 0 ? await storageChangedBy(parent, timestamp, chosen, pools) : new Set<Address>()
  const verdicts: EndOfBlockVerdict[] = []
  const appended: SimulatedBundle[] = []
  for (const { trace, msIntoSlot } of bundles) {
    const untouched = untouchedPools(trace, touched, block)
    if (untouched) {
      verdicts.push({ kind: 'NotSimulated', trace, failure: untouched })
      continue
    }
    const result = await parent.execute(timestamp, [...itemGroups(items), bundleGroup(trace.bundle)])
    if (!result.ok) {
      verdicts.push({ kind: 'SimulationFailed', trace, failure: result.failure })
      continue
    }
    const changed = firstChangedOrder(execution.groups, result.groups)
    if (changed !== undefined) {
      verdicts.push({ kind: 'SimulationFailed', trace, failure: { kind: 'ChangesOrdersBefore', position: changed } })
      continue
    }
    const builderPayment = result.coinbaseBalance - execution.coinbaseBalance
    const { sponsorships, refund, refunds } = result.groups.at(-1)!
    const notBuilt = buildDecision({ msIntoSlot, boosted: trace.bundle.boosted, builderPayment }, block, cutoffs)
    const gasUsed = result.block.gasUsed - execution.block.gasUsed
    verdicts.push({ kind: 'Passed', trace, builderPayment, builderPayments: { sponsorships, refund, ...(refunds && { refunds }) }, gasUsed, notBuilt })
    if (notBuilt) continue
    const bundle: SimulatedBundle = { trace, builderPayment, gasUsed, ...expectedPlan({ sponsorships, refund, refunds }) }
    appended.push(bundle)
    items = [...items, { kind: 'bundle', bundle }]
    execution = result
  }
  const best: CandidateBlock = {
    ...chosen,
    items,
    bundles: [...chosen.bundles, ...appended],
    // Each appended bundle's payment is the coinbase change its appending made: measured in this block.
    paidInBlock: new Map([...chosen.paidInBlock, ...appended.map((bundle) => [bundle.trace, bundle.builderPayment] as const)]),
    value: execution.coinbaseBalance - parent.coinbaseBalance,
    execution,
  }
  return { best, verdicts, appended }
}

/**
 * The first order of the block whose outcome differs once a bundle is appended after it (its
 * included and dropped txs, the builder's txs for it, their amounts), if any. Appending runs
 * the whole block again and plans it anew (sponsorships are planned per tx hash), so a
 * bundle carrying an earlier order's tx could take that order's sponsorship and change it:
 * the earlier order would then land without its sponsored tx while its trace kept the payment
 * it had with it.
 */
function firstChangedOrder(before: readonly GroupOutcome[], after: readonly GroupOutcome[]): number | undefined {
  // Outcomes are plain data (hashes, amounts): equal when their JSON is.
  const canonical = (outcome: GroupOutcome | undefined) => JSON.stringify(outcome, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value))
  const changed = before.findIndex((outcome, i) => canonical(outcome) !== canonical(after[i]))
  return changed === -1 ? undefined : changed
}

/**
 * The target pools whose storage the chosen block's orders changed (the block is executed
 * again if it is no longer on top). Only code running as a pool can change its storage: a
 * call into it, a delegatecall or callcode made by it, or its creation. So only the txs with
 * such a frame that took effect are traced (prestate diffs, one `debug_traceTransaction`
 * each): a whole block's trace costs Anvil time growing with the square of its txs.
 */
async function storageChangedBy(parent: ParentState, timestamp: bigint, chosen: CandidateBlock, pools: ReadonlySet<Address>): Promise<Set<Address>> {
  let { execution } = chosen
  if (!parent.holds(execution)) {
    const again = await parent.execute(timestamp, itemGroups(chosen.items))
    if (!again.ok) throw new Error(`the chosen block did not execute again as before (${again.failure.kind}): cannot read which pools it touched`)
    execution = again
  }
  const runsAsPool = (frame: TraceFrame) => {
    const { callType, from, to } = frame.action
    const context = frame.type === 'create' ? frame.result?.address : callType === 'delegatecall' || callType === 'callcode' ? from : callType === 'staticcall' ? undefined : to
    return context !== undefined && pools.has(normalizeAddress(context))
  }
  const candidates = new Set<Hash>()
  for (const frame of effectiveFrames(execution.block.frames)) if (runsAsPool(frame)) candidates.add(frame.transactionHash)
  return parent.executor.storageChanged([...execution.block.txs.keys()].filter((hash) => candidates.has(hash)))
}
