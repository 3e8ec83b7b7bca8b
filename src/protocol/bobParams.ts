import { z } from 'zod'
import type { Address, Hex } from 'viem'
import { bundleFieldRules } from './bundleParams.js'
import { describeIssuesUnder, describeObjectValue, positionalParams } from './paramsReading.js'
import { strictFields } from './strictFields.js'
import { address, uuid } from './wireRules.js'

/**
 * `eth_sendBobBundle`'s bundle object (params[0]): "regular eth_sendBundle fields", of which
 * the TEE-searcher docs name `txs` and `blockNumber`; bundlesim also takes
 * `revertingTxHashes`, `replacementUuid` and `replacementSeqNumber` by eth_sendBundle's rules
 * (docs/bottom-of-block.md). Any other field is refused, naming the closest known one.
 */
export const bobBundleSchema = strictFields({
  txs: bundleFieldRules.txs.min(1, 'must hold at least one signed transaction'),
  blockNumber: bundleFieldRules.blockNumber.optional(),
  revertingTxHashes: bundleFieldRules.hashList.optional(),
  replacementUuid: bundleFieldRules.replacementUuid.optional(),
  replacementSeqNumber: bundleFieldRules.sequenceNumber.optional(),
})

export type BobBundleObject = z.infer<typeof bobBundleSchema>

/** params[1]: the `blockUuid` of a `flashbots_stateDiffs` message. */
const targetUuid = uuid({ type: 'expected the blockUuid of a flashbots_stateDiffs message (a UUID string)' })
/** params[2]: "A list of pool addresses that this bundle is targeting". */
const targetPools = z.array(address({ type: 'expected a 20-byte 0x pool address' }), { error: 'expected an array of 20-byte 0x pool addresses' })

const BOB_SHAPE = '[bundle, targetUuid, targetPools?]'

/** `eth_sendBobBundle [bundle, targetUuid, targetPools]`, as Flashbots' TEE-searcher docs show it; `targetPools` may be left out (BuilderNet ignores it). */
export const bobBundleParams = positionalParams({
  schemas: [bobBundleSchema, targetUuid, targetPools],
  required: 2,
  shape: BOB_SHAPE,
  message: (params) => `params: expected ${BOB_SHAPE}, got ${JSON.stringify(params)?.slice(0, 80)}`,
  describe: (index, error, value) =>
    index === 0 ? describeObjectValue(index, error, value) : describeIssuesUnder(index === 1 ? 'params[1] (targetUuid)' : 'params[2] (targetPools)', error),
})

/** One account's changes in a streamed block, as `stateOverrides` carries them (hex quantities; `code` only when deployed in the block). */
export interface StateDiffAccount {
  balance?: Hex
  nonce?: Hex
  code?: Hex
  /** Each storage slot the block changed, with its value at the end of the block. */
  stateDiff: Record<Hex, Hex>
}

/**
 * One `flashbots_stateDiffs` notification's `result`: the block a builder built, as its state
 * diff against the parent (docs/bottom-of-block.md). `gasRemaining` is rbuilder's field.
 */
export interface StateDiffMessage {
  blockNumber: Hex
  blockTimestamp: Hex
  /** A UUID v4: what `eth_sendBobBundle`'s `targetUuid` names. */
  blockUuid: string
  stateOverrides: Record<Address, StateDiffAccount>
  gasRemaining: Hex
}
