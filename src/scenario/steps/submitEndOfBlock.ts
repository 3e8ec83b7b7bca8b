import { z } from 'zod'
import { addressRef, bundleFields, strict } from '../core/fields.js'
import { defineStep } from './definition.js'
import { SCENARIO_SEARCHER, bundleReferences, submitBundle } from './shared.js'

const { txs, blockNumber, revertingTxHashes, replacementUuid, replacementSeqNumber, as, expectError } = bundleFields

/**
 * `submitEndOfBlock`: Titan's eth_sendEndOfBlockBundle, its fields (txs and hashes may name
 * templates; `targetPools` names or addresses), signed by the scenario's searcher key.
 */
export const submitEndOfBlockStep = defineStep({
  kind: 'submitEndOfBlock',
  schema: strict(
    { txs, blockNumber, revertingTxHashes, targetPools: z.array(addressRef).optional(), replacementUuid, replacementSeqNumber, as, expectError },
    'an end-of-block bundle { txs, targetPools?, … }',
  ),
  references(bundle, check, at) {
    bundleReferences(bundle, check, at)
    bundle.targetPools?.forEach((ref, j) => check.address(ref, [...at, 'targetPools', j]))
    check.newBundleId(bundle.as, [...at, 'as'])
  },
  execute: (context, bundle, at) =>
    submitBundle(context, bundle, at, 'submitEndOfBlock', (params) => {
      const targetPools = bundle.targetPools?.map((ref) => context.book.resolve(ref))
      return context.client.sendEndOfBlockBundle({ ...params, ...(targetPools && { targetPools }) }, SCENARIO_SEARCHER)
    }),
})
