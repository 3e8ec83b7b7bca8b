import type { Hash } from 'viem'
import { decodeSignedTx, type TxRules } from '../bundle/decode.js'
import type { Bundle, BundleTx, ShareBody, ShareElement } from '../bundle/types.js'
import { mevShareBundleHash } from '../protocol/mevShareHashes.js'
import type { ShareBundleObject } from '../protocol/mevShareParams.js'

/** The MEV-Share node's limits (mev-share-node `mevshare.go`). */
export const SHARE_LIMITS = {
  /** A bundle may hold bundles, which may not hold bundles themselves. */
  maxNestingLevel: 1,
  /** Txs in a bundle, nested ones included. */
  maxBodySize: 50,
  /** `maxBlock - block` at most. */
  maxBlockRange: 30n,
  /** `block` at most this far past the head. */
  maxBlockOffset: 5n,
  /** The user's refund of a backrun, when the user asked for none other: 90% of what the backrun pays. */
  defaultRefundPercent: 90,
  /**
   * Signed txs after a backrun's `{ hash }`, nested ones counted: Flashbots' rule "as of October
   * 20, 2025, a bundle can now only contain one backrun transaction"
   * (https://github.com/flashbots/flashbots-docs/pull/635). Its error text is not documented.
   */
  maxBackrunTxs: 1,
} as const

/** A pending private tx shared with MEV-Share, as a backrun's `{ hash }` finds it. */
export interface SharedTarget {
  tx: BundleTx
  /** The blocks it is still tried for. */
  targetBlock: bigint
  maxBlock: bigint
  /** Where the user's refund goes (`preferences.validity.refund`); empty: to the tx's sender. */
  refundConfig: ShareBody['refundConfig']
  /** The builders the user allowed (`preferences.privacy.builders`); absent: any. */
  builders?: readonly string[]
  /** The block it landed in, when it has: a backrun of it is answered, and fails at once (`BackrunTargetGone`). */
  landedIn?: bigint
}

export interface ShareBundleRules extends TxRules {
  headBlock: bigint
  /** Most signed txs a backrun may add after its `{ hash }` (`mev_sendBundle`: `SHARE_LIMITS.maxBackrunTxs`); absent: no rule. */
  maxBackrunTxs?: number
  /** The pending shared private tx whose event hash (`matchingHashOf` its tx hash) this is. */
  findShared(matchingHash: Hash): SharedTarget | undefined
}

export type DecodedShareBundle = { ok: true; bundle: Bundle } | { ok: false; problem: string }

/** A rule of the node's the bundle breaks; `message` names the field (`body[1].tx: …`). */
class ShareBundleProblem extends Error {}

interface Level {
  hash: Hash
  body: ShareBody
  txs: BundleTx[]
  reverting: Hash[]
  dropping: Hash[]
  block: bigint
  maxBlock: bigint
  backrunOf?: Hash
  /** A backrun: the builders its user tx allows. */
  targetBuilders?: readonly string[]
  /** The builders every level that names some allows (the node's `MergePrivacyBuilders`); absent: no level names any. */
  builders?: readonly string[]
}

/**
 * Applies the MEV-Share node's rules (`validateBundleInner`) to a schema-valid bundle and
 * builds the bundle the builder executes: every tx in body order, nested bundles flattened,
 * the body's structure kept for refunds. A `{ hash }` (only `body[0]` of the top level)
 * names a pending shared private tx by its event hash; that tx becomes element 0, a nested
 * bundle refunded `defaultRefundPercent` of what the rest pays (`validity.refund` must then
 * be empty, as on the node). The bundle hash is the node's: keccak256 of the body hashes,
 * a `{ hash }` counting as the hash it names.
 *
 * @example decodeShareBundle(object, { chainId: 31337, headBlock: 5n, findShared: () => undefined })
 */
export function decodeShareBundle(object: ShareBundleObject, rules: ShareBundleRules): DecodedShareBundle {
  let top: Level
  try {
    top = readLevel(object, 0, '', rules)
  } catch (error) {
    if (error instanceof ShareBundleProblem) return { ok: false, problem: error.message }
    throw error
  }
  const builders = buildersFor(top.builders, top.targetBuilders)
  if (typeof builders === 'string') return { ok: false, problem: builders }
  const txs = top.txs.map((tx, index) => ({ ...tx, index }))
  const next = rules.headBlock + 1n
  return {
    ok: true,
    bundle: {
      kind: 'mevShare',
      hash: top.hash,
      txs,
      targetBlock: top.block > next ? top.block : next,
      revertingTxHashes: new Set(top.reverting),
      droppingTxHashes: new Set(top.dropping),
      refundTxHashes: [],
      boosted: false,
      ...(builders && { builders }),
      mevShare: {
        body: top.body,
        maxBlock: top.maxBlock,
        ...(top.backrunOf && { backrunOf: top.backrunOf, backrunEventHash: object.body[0]!.hash! }),
        ...(object.privacy?.hints && { hints: object.privacy.hints }),
      },
    },
  }
}

/**
 * The builders a MEV-Share bundle may reach (Flashbots' `builders`, as the fleet routes them):
 * its own `privacy.builders`, narrowed for a backrun to those its user tx allows, since the
 * user's tx travels inside it; a problem (naming the field) when none is left.
 */
function buildersFor(own: readonly string[] | undefined, allowedByUser: readonly string[] | undefined): string[] | undefined | string {
  const both = commonBuilders(own, allowedByUser)
  if (!both || both.length > 0) return both
  return `privacy.builders: none of ${JSON.stringify(own)} is among the builders the backrun's user tx allows (${JSON.stringify(allowedByUser)}), so no builder could land both`
}

/** The builders both lists allow (names compared case-insensitively, as the node lowercases them); a list absent allows any. */
function commonBuilders(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (!a || !b) return (a ?? b) && [...(a ?? b)!]
  return a.filter((name) => b.some((other) => other.toLowerCase() === name.toLowerCase()))
}

function readLevel(object: ShareBundleObject, level: number, at: string, rules: ShareBundleRules): Level {
  if (level > SHARE_LIMITS.maxNestingLevel) {
    throw new ShareBundleProblem(`${at.slice(0, -1)}: nesting too deep: a bundle may hold bundles, but those may not hold bundles (the node's limit: ${SHARE_LIMITS.maxNestingLevel} level)`)
  }
  let { block, maxBlock } = readInclusion(object.inclusion, at, rules.headBlock)
  if (object.body.length === 0) throw new ShareBundleProblem(`${at}body: must hold at least one element`)

  const elements: ShareElement[] = []
  const body: ShareBody = { elements, refund: [], refundConfig: object.validity?.refundConfig ?? [], ...(object.privacy?.hints?.length && { hints: object.privacy.hints }) }
  const out: Level = { hash: '0x', body, txs: [], reverting: [], dropping: [], block, maxBlock, ...(object.privacy?.builders && { builders: object.privacy.builders }) }
  const bodyHashes: Hash[] = []
  for (const [i, element] of object.body.entries()) {
    const where = `${at}body[${i}]`
    if (element.hash !== undefined) {
      if (level > 0 || i !== 0) throw new ShareBundleProblem(`${where}.hash: only body[0] of the top-level bundle may name a pending transaction by hash`)
      if (object.body.length === 1) throw new ShareBundleProblem(`${at}body: a backrun needs at least one { tx } or { bundle } after the { hash } it backruns`)
      const target = rules.findShared(element.hash)
      if (!target) {
        throw new ShareBundleProblem(
          `${where}.hash: unknown hash ${element.hash}: no pending private transaction shared with MEV-Share has this event hash (the hash its hint event carries, keccak256 of the tx hash)`,
        )
      }
      const merged = overlap({ block, maxBlock }, { block: target.targetBlock, maxBlock: target.maxBlock })
      if (!merged) {
        const targetBlocks = target.landedIn === undefined ? `the blocks the backrun tx is still tried for (${target.targetBlock} to ${target.maxBlock})` : `the blocks the backrun tx was sent for (to ${target.maxBlock}; it landed in block ${target.landedIn})`
        throw new ShareBundleProblem(`${at}inclusion: blocks ${block} to ${maxBlock} do not overlap ${targetBlocks}`)
      }
      block = merged.block
      maxBlock = merged.maxBlock
      out.backrunOf = target.tx.hash
      if (target.builders) out.targetBuilders = target.builders
      out.txs.push(target.tx)
      elements.push({ kind: 'bundle', body: { elements: [{ kind: 'tx', hash: target.tx.hash }], refund: [], refundConfig: target.refundConfig } })
      bodyHashes.push(element.hash)
    } else if (element.tx !== undefined) {
      const decoded = decodeSignedTx(element.tx, `${where}.tx`, rules)
      if (typeof decoded === 'string') throw new ShareBundleProblem(decoded)
      out.txs.push({ ...decoded, index: out.txs.length })
      const mode = element.revertMode ?? (element.canRevert ? 'allow' : 'fail')
      if (mode !== 'fail') out.reverting.push(decoded.hash)
      // A reverted tx cannot be taken back out of a mined block here: "drop" lets it revert, or be left out if refused.
      if (mode === 'drop') out.dropping.push(decoded.hash)
      elements.push({ kind: 'tx', hash: decoded.hash })
      bodyHashes.push(decoded.hash)
    } else {
      const inner = readLevel(element.bundle!, level + 1, `${where}.bundle.`, rules)
      const merged = overlap({ block, maxBlock }, inner)
      if (!merged) {
        throw new ShareBundleProblem(`${where}.bundle.inclusion: blocks ${inner.block} to ${inner.maxBlock} do not overlap the outer bundle's ${block} to ${maxBlock}`)
      }
      block = merged.block
      maxBlock = merged.maxBlock
      const builders = commonBuilders(out.builders, inner.builders)
      if (builders?.length === 0) {
        throw new ShareBundleProblem(
          `${where}.bundle.privacy.builders: none of ${JSON.stringify(inner.builders)} is among the outer bundle's privacy.builders (${JSON.stringify(out.builders)}), so no builder could land both`,
        )
      }
      if (builders) out.builders = builders
      out.txs.push(...inner.txs)
      out.reverting.push(...inner.reverting)
      out.dropping.push(...inner.dropping)
      elements.push({ kind: 'bundle', body: inner.body } satisfies ShareElement)
      bodyHashes.push(inner.hash)
    }
  }
  out.block = block
  out.maxBlock = maxBlock

  const backrunTxs = out.txs.length - 1
  if (out.backrunOf && rules.maxBackrunTxs !== undefined && backrunTxs > rules.maxBackrunTxs) {
    throw new ShareBundleProblem(
      `${at}body: ${backrunTxs} signed txs after the { hash }, over the limit of ${rules.maxBackrunTxs}: a backrun holds the shared tx's { hash } and one signed backrun tx (Flashbots' rule since 2025-10-20)`,
    )
  }
  if (out.txs.length > SHARE_LIMITS.maxBodySize) throw new ShareBundleProblem(`${at}body: ${out.txs.length} txs, more than the ${SHARE_LIMITS.maxBodySize} a MEV-Share bundle may hold`)
  const seen = new Map<Hash, number>()
  for (const [i, tx] of out.txs.entries()) {
    if (seen.has(tx.hash)) throw new ShareBundleProblem(`${at}body: tx ${tx.hash} appears twice (txs ${seen.get(tx.hash)} and ${i} of the flattened body)`)
    seen.set(tx.hash, i)
  }
  const refund = readRefunds(object, at, out.backrunOf !== undefined)
  // As the node: a backrun's user element gets the default refund (its own refunds must be empty).
  out.body = { ...out.body, refund: out.backrunOf ? [{ bodyIdx: 0, percent: SHARE_LIMITS.defaultRefundPercent }] : refund }
  readPrivacy(object, at, out.backrunOf !== undefined)
  out.hash = mevShareBundleHash(bodyHashes)
  return out
}

function readInclusion(inclusion: ShareBundleObject['inclusion'], at: string, head: bigint): { block: bigint; maxBlock: bigint } {
  const block = inclusion.block
  const maxBlock = inclusion.maxBlock || block
  if (maxBlock < block) throw new ShareBundleProblem(`${at}inclusion.maxBlock: ${maxBlock} is before inclusion.block ${block}`)
  if (maxBlock - block > SHARE_LIMITS.maxBlockRange) {
    throw new ShareBundleProblem(`${at}inclusion.maxBlock: ${maxBlock - block} blocks after inclusion.block, more than the ${SHARE_LIMITS.maxBlockRange} MEV-Share allows`)
  }
  if (maxBlock <= head) throw new ShareBundleProblem(`${at}inclusion: blocks ${block} to ${maxBlock} are already mined (the head is ${head}; the next block is ${head + 1n})`)
  if (block > head + SHARE_LIMITS.maxBlockOffset) {
    throw new ShareBundleProblem(`${at}inclusion.block: ${block} is more than ${SHARE_LIMITS.maxBlockOffset} blocks past the head ${head}, the furthest MEV-Share accepts`)
  }
  return { block, maxBlock }
}

function readRefunds(object: ShareBundleObject, at: string, backrun: boolean): ShareBody['refund'] {
  const refund = object.validity?.refund ?? []
  const refundConfig = object.validity?.refundConfig ?? []
  const configTotal = refundConfig.reduce((sum, c) => sum + c.percent, 0)
  if (configTotal > 100) throw new ShareBundleProblem(`${at}validity.refundConfig: the percents add up to ${configTotal}, over 100`)
  if (backrun && refund.length > 0) {
    throw new ShareBundleProblem(
      `${at}validity.refund: must be empty in a backrun of { hash }: MEV-Share sets the user's refund itself (${SHARE_LIMITS.defaultRefundPercent}% of what the backrun pays the builder, split as the user's preferences.validity.refund says)`,
    )
  }
  const used = new Map<number, number>()
  let total = 0
  for (const [j, { bodyIdx, percent }] of refund.entries()) {
    if (bodyIdx >= object.body.length) {
      throw new ShareBundleProblem(`${at}validity.refund[${j}].bodyIdx: ${bodyIdx} names no element (the body has ${object.body.length}, indexes 0 to ${object.body.length - 1})`)
    }
    if (used.has(bodyIdx)) throw new ShareBundleProblem(`${at}validity.refund[${j}].bodyIdx: element ${bodyIdx} is already refunded by validity.refund[${used.get(bodyIdx)}]`)
    used.set(bodyIdx, j)
    total += percent
  }
  if (total > 100) throw new ShareBundleProblem(`${at}validity.refund: the percents add up to ${total}, over 100`)
  return refund.map(({ bodyIdx, percent }) => ({ bodyIdx, percent }))
}

function readPrivacy(object: ShareBundleObject, at: string, backrun: boolean): void {
  if (backrun && (object.privacy?.hints?.length ?? 0) > 0) {
    throw new ShareBundleProblem(`${at}privacy.hints: a backrun of { hash } cannot share hints (the MEV-Share node refuses it); leave privacy.hints out`)
  }
}

function overlap(a: { block: bigint; maxBlock: bigint }, b: { block: bigint; maxBlock: bigint }): { block: bigint; maxBlock: bigint } | undefined {
  if (a.maxBlock < b.block || b.maxBlock < a.block) return undefined
  return { block: a.block > b.block ? a.block : b.block, maxBlock: a.maxBlock < b.maxBlock ? a.maxBlock : b.maxBlock }
}
