import { z } from 'zod'
import { numberToHex } from 'viem'
import { JsonRpcError } from '../../protocol/jsonRpcError.js'
import type { CallBundleParams, CallBundleResponse } from '../../protocol/methods.js'
import { headStatus, locate } from '../core/context.js'
import { StepFailed, nameList } from '../core/errors.js'
import { callBundleExpectations } from '../core/expectationSchema.js'
import { checkCallBundle } from '../core/expectations.js'
import { addressRef, blockRef, expecting, int, nonNegative, strict, txRefs } from '../core/fields.js'
import { defineStep } from './definition.js'
import { rawTxs, resolveRef } from './shared.js'

/**
 * `callBundle`: eth_callBundle (block: head + 1, state: `latest`, unless given) with its own
 * expectations; without any, a refusal fails the step.
 */
export const callBundleStep = defineStep({
  kind: 'callBundle',
  schema: strict(
    {
      txs: txRefs,
      blockNumber: blockRef('a block number').optional(),
      stateBlockNumber: z.union([z.literal('latest'), int('a block number')], { error: expecting('"latest" or a block number') }).optional(),
      timestamp: blockRef('a timestamp').optional(),
      coinbase: addressRef.optional(),
      baseFee: nonNegative.optional(),
      expect: callBundleExpectations.optional(),
    },
    '{ txs, blockNumber?, stateBlockNumber?, timestamp?, coinbase?, baseFee?, expect? }',
  ),
  references(c, check, at) {
    c.txs.forEach((ref, j) => check.txOrRaw(ref, [...at, 'txs', j]))
    check.address(c.coinbase, [...at, 'coinbase'])
    for (const name of Object.keys(c.expect?.results ?? {})) {
      if (!c.txs.includes(name)) check.issue([...at, 'expect', 'results', name], `"${name}" is not one of this call's txs (expected one of: ${nameList(c.txs)})`)
    }
  },
  async execute(context, c, at) {
    const head = await headStatus(context)
    const params: CallBundleParams = {
      txs: await rawTxs(context, c.txs),
      blockNumber: numberToHex(c.blockNumber ? resolveRef(c.blockNumber, head.blockNumber) : BigInt(head.blockNumber + 1)),
      stateBlockNumber: c.stateBlockNumber === undefined || c.stateBlockNumber === 'latest' ? 'latest' : numberToHex(c.stateBlockNumber),
    }
    if (c.timestamp) params.timestamp = Number(resolveRef(c.timestamp, head.timestamp))
    if (c.coinbase !== undefined) params.coinbase = context.book.resolve(c.coinbase)
    if (c.baseFee !== undefined) params.baseFee = numberToHex(c.baseFee)
    let outcome: { result: CallBundleResponse } | { error: JsonRpcError }
    try {
      outcome = { result: await context.client.callBundle(params) }
    } catch (error) {
      if (!(error instanceof JsonRpcError)) throw error
      outcome = { error }
    }
    if (!c.expect) {
      if ('error' in outcome) throw new StepFailed(locate(context, at), 'callBundle', `eth_callBundle refused: ${outcome.error.code} ${outcome.error.rpcMessage}`, outcome.error.data)
      return []
    }
    return checkCallBundle(context, c.expect, outcome, [...at, 'expect'])
  },
})
