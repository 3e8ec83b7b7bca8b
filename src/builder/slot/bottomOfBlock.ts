import { numberToHex, type Address } from 'viem'
import type { SlotFailure } from '../../bundle/failure.js'
import { bottomOfBlockTermsOf } from '../../bundle/bottomOfBlockBundle.js'
import type { BundleTrace } from '../../bundle/trace.js'
import type { StateDiffAccount, StateDiffMessage } from '../../protocol/bobParams.js'
import { itemGroups, type CandidateBlock } from '../assembly/assemble.js'
import type { AccountChange } from '../execution/stateDiff.js'
import { routeBundle, type BundleRoute } from '../fleet/orderFlow.js'
import type { SimulatedBundle } from '../simulation/types.js'
import { placeEndOfBlock, type EndOfBlockBundle, type EndOfBlockVerdict } from './endOfBlock.js'
import type { BuilderBid, RelayBiddingDeps } from './relayBidding.js'
import { blockUuid } from './stateDiffStream.js'

/** The bottom-of-block window without `--bob-window-ms`: ms of wall time after a block is streamed. */
export const DEFAULT_BOB_WINDOW_MS = 200

/** The stream the stage publishes to and waits on (`StateDiffStream`; the WebSocket side subscribes to it). */
export interface BottomOfBlockFeed {
  subscriberCount(builder: string): number
  /** The block `builder` streamed with this uuid, if it did. */
  streamedBlock(builder: string, uuid: string): bigint | undefined
  /** Sends the message to `builder`'s subscribers; resolves when its window closes. */
  publish(builder: string, block: bigint, message: StateDiffMessage, windowMs: number): Promise<void>
}

export interface BottomOfBlockDeps {
  feed: BottomOfBlockFeed
  /** Longest wait for bottom-of-block bundles after a block is streamed (`--bob-window-ms`). */
  windowMs: number
  /** The run's seed (`auctionSeed`): the streamed blocks' uuids derive from it. */
  seed: number
  /** The bundles pending for a block (`BundleBook.pendingFor`), read once the window has closed. */
  pendingFor(block: bigint): readonly BundleTrace[]
}

/** One builder's bid after the stage, and the bottom-of-block bundles it decided about (the slot takes them, as it took the others at its start). */
export interface BottomOfBlockResult {
  bid: BuilderBid
  traces: BundleTrace[]
}

type TargetMiss = Extract<SlotFailure, { kind: 'BottomOfBlockTargetUnknown' | 'BottomOfBlockTargetPast' }>

/**
 * The bottom-of-block stage of one builder, right after it has built its block (end-of-block
 * bundles appended): with at least one subscriber to its `flashbots_stateDiffs` stream it
 * streams the block's state diff against the parent under a uuid derived from the run's seed,
 * and waits for the window to close (every subscribed connection answered, or `windowMs`);
 * without one it streams nothing and waits for nothing. Then each bottom-of-block bundle sent
 * to this builder for the block, in arrival order, is appended after everything else if its
 * uuid is the one streamed, run on the block's final state as end-of-block bundles are
 * (`placeEndOfBlock`: one that fails there, or pays the builder nothing, is not appended); one
 * naming another uuid is not tried and says which. The block with them is the builder's bid.
 * Their verdicts join the bid's end-of-block verdicts, recorded with them once every builder
 * has built.
 *
 * @example const { bid, traces } = await bottomOfBlock(deps, bidding, await bidAtRelay(bidding, builder, parent, orders))
 */
export async function bottomOfBlock(deps: BottomOfBlockDeps, bidding: RelayBiddingDeps, bid: BuilderBid): Promise<BottomOfBlockResult> {
  const name = bid.builder.name
  const block = bid.parent.number + 1n
  const streamed = deps.feed.subscriberCount(name) > 0 ? await streamBlock(deps, bidding.timestamp, bid) : undefined
  const traces = deps
    .pendingFor(block)
    .filter((trace) => trace.bundle.kind === 'bottomOfBlock' && trace.state === 'Received' && trace.live && trace.bundle.sentTo?.includes(name))
    .sort((a, b) => a.sequence - b.sequence)
  if (traces.length === 0) return { bid, traces }
  const verdicts: EndOfBlockVerdict[] = []
  const tried: EndOfBlockBundle[] = []
  for (const trace of traces) {
    const miss = targetMiss(trace, { builder: name, block, streamed }, deps.feed)
    // The window is its cutoff: one that made it is on time (0 ms), whatever the build cutoff.
    if (miss) verdicts.push({ kind: 'NotSimulated', trace, failure: miss })
    else tried.push({ trace, msIntoSlot: 0 })
  }
  if (tried.length === 0) return { bid: { ...bid, endOfBlockVerdicts: [...bid.endOfBlockVerdicts, ...verdicts] }, traces }
  const placed = await placeEndOfBlock(bid.parent, bidding.timestamp, bid.best, tried, bidding.cutoffs)
  bidding.counts.byExecution += placed.verdicts.length
  return { bid: withBottom(bid, placed.best, placed.appended, [...verdicts, ...placed.verdicts]), traces }
}

/**
 * The slot's bundles with the stage's (in the order they came), and with several builders
 * their routes (`sentTo`: the builders whose URL took them), as if taken at the slot's start.
 *
 * @example takeBottomOfBlock(result.traces, this.taken, eligible.routes, builders)
 */
export function takeBottomOfBlock(traces: readonly BundleTrace[], taken: BundleTrace[], routes: Map<BundleTrace, BundleRoute> | undefined, builders: readonly { name: string; share: number }[], seed: number): void {
  for (const trace of traces) {
    if (!taken.includes(trace)) taken.push(trace)
    if (routes && !routes.has(trace)) routes.set(trace, routeBundle(trace.bundle, builders, seed))
  }
}

/** Why a bottom-of-block bundle is not tried on the block this builder streamed (`streamed`: its uuid; none when nothing was), or null. */
function targetMiss(trace: BundleTrace, { builder, block, streamed }: { builder: string; block: bigint; streamed: string | undefined }, feed: Pick<BottomOfBlockFeed, 'streamedBlock'>): TargetMiss | null {
  const targetUuid = bottomOfBlockTermsOf(trace.bundle)?.targetUuid ?? ''
  if (streamed !== undefined && targetUuid.toLowerCase() === streamed) return null
  const streamedBlock = feed.streamedBlock(builder, targetUuid)
  if (streamedBlock === undefined) return { kind: 'BottomOfBlockTargetUnknown', builder, targetUuid, block }
  return { kind: 'BottomOfBlockTargetPast', builder, targetUuid, streamedBlock, block }
}

/** Streams the bid's block (its state diff against the parent) and waits for the window; returns its uuid. */
async function streamBlock(deps: BottomOfBlockDeps, timestamp: bigint, { builder, parent, best }: BuilderBid): Promise<string> {
  const block = parent.number + 1n
  let { execution } = best
  if (!parent.holds(execution)) {
    const again = await parent.execute(timestamp, itemGroups(best.items))
    if (!again.ok) throw new Error(`the chosen block did not execute again as before (${again.failure.kind}): cannot stream its state diff`)
    execution = again
  }
  const changes = await parent.executor.accountChanges([...execution.block.txs.keys()])
  const uuid = blockUuid(deps.seed, builder.name, block)
  const message: StateDiffMessage = {
    blockNumber: numberToHex(block),
    blockTimestamp: numberToHex(timestamp),
    blockUuid: uuid,
    stateOverrides: Object.fromEntries([...changes].map(([account, change]) => [account, onWire(change)])) as Record<Address, StateDiffAccount>,
    gasRemaining: numberToHex(parent.gasLimit - execution.block.gasUsed),
  }
  await deps.feed.publish(builder.name, block, message, deps.windowMs)
  return uuid
}

/** One account's change as the stream writes it: hex quantities, `stateDiff` for its slots. */
function onWire({ balance, nonce, code, storage }: AccountChange): StateDiffAccount {
  return { ...(balance !== undefined && { balance: numberToHex(BigInt(balance)) }), ...(nonce !== undefined && { nonce: numberToHex(nonce) }), ...(code !== undefined && { code }), stateDiff: storage }
}

/** The bid with its bottom-of-block bundles appended: its best block (the deliverable bid), everywhere it stands. */
function withBottom(bid: BuilderBid, best: CandidateBlock, appended: readonly SimulatedBundle[], verdicts: readonly EndOfBlockVerdict[]): BuilderBid {
  const before = bid.best
  const swap = <C>(candidate: C | CandidateBlock) => (candidate === before ? best : candidate)
  return {
    ...bid,
    best,
    value: best.value,
    simulated: [...bid.simulated, ...appended],
    candidates: bid.candidates.map(swap),
    ...(bid.reported && { reported: bid.reported.map(swap) }),
    history: bid.history.map((sent) => (sent.best === before ? { ...sent, best } : sent)),
    endOfBlockVerdicts: [...bid.endOfBlockVerdicts, ...verdicts],
  }
}
