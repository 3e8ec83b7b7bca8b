import type { Hex } from 'viem'
import { decodeSignedTx, type TxRules } from './decode.js'
import { sameBaseTerms } from './sameTerms.js'
import type { OrderRules, PrivateTxOrder, PrivateTxPreferences } from './types.js'

/**
 * How many blocks after the head a private tx is tried at most, as Flashbots: the default
 * `maxBlockNumber` is head + 25, and a later one is clamped to it.
 */
export const PRIVATE_TX_MAX_BLOCKS = 25n

/** eth_sendPrivateTransaction / eth_sendPrivateRawTransaction after schema validation. */
export interface PrivateTxSubmission {
  tx: Hex
  maxBlockNumber?: bigint
  preferences?: PrivateTxPreferences
}

export type DecodedPrivateTx = { ok: true; bundle: PrivateTxOrder } | { ok: false; problem: string }

/**
 * A private tx as the builder sees it: a one-tx bundle for the next block whose hash is the
 * tx's own hash (what the methods return and the stats methods take), with its last block.
 * A tx that cannot be decoded, or a maxBlockNumber already mined, is refused (`problem`
 * names the field): unlike a bundle, a private tx is answered with its hash, so it must be
 * one.
 *
 * @example decodePrivateTx({ tx: raw }, { chainId: 31337, headBlock: 5n }) // targets block 6, maxBlockNumber 30
 */
export function decodePrivateTx(submission: PrivateTxSubmission, { headBlock, ...rules }: TxRules & { headBlock: bigint }): DecodedPrivateTx {
  const decoded = decodeSignedTx(submission.tx, 'tx', rules)
  if (typeof decoded === 'string') return { ok: false, problem: decoded }
  const nextBlock = headBlock + 1n
  const requested = submission.maxBlockNumber
  if (requested !== undefined && requested < nextBlock) {
    return { ok: false, problem: `maxBlockNumber: block ${requested} is already mined (head is ${headBlock}; the next block is ${nextBlock})` }
  }
  const last = headBlock + PRIVATE_TX_MAX_BLOCKS
  const maxBlockNumber = requested === undefined || requested > last ? last : requested
  return {
    ok: true,
    bundle: {
      kind: 'privateTx',
      privateTx: { maxBlockNumber: Number(maxBlockNumber), ...(submission.preferences && { preferences: submission.preferences }) },
      hash: decoded.hash,
      txs: [{ ...decoded, index: 0 }],
      targetBlock: nextBlock,
      revertingTxHashes: new Set(),
      droppingTxHashes: new Set(),
      refundTxHashes: [],
      boosted: false,
      ...(submission.preferences?.privacy?.builders && { builders: submission.preferences.privacy.builders }),
    },
  }
}

/**
 * A private tx: ordered with the others, carried to the next block after each slot it did not
 * land in, until its `maxBlockNumber` (or its cancel, or another permutation landing); valued as
 * calls. A copy sent to another builder's URL is the same order when it asks for the same last
 * block and is not one of eth_sendBlobs' permutations.
 */
export const PRIVATE_TX_RULES: OrderRules<PrivateTxOrder> = {
  placement: 'ordered',
  resentForLaterBlocks: false,
  carry: (order) => order.privateTx,
  backrunOf: () => undefined,
  valuedAsCalls: () => true,
  sameTerms: (a, b) => sameBaseTerms(a, b) && a.privateTx.maxBlockNumber === b.privateTx.maxBlockNumber && !a.privateTx.permutations && !b.privateTx.permutations,
}
