import type { JSONRPCServer } from 'json-rpc-2.0'
import type { BundleIngest } from '../bundle/ingest.js'
import { sendBlobsSchema, toSendBlobsSubmission } from '../bundle/sendBlobsSchema.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { singleObjectParam } from './params.js'

/**
 * Titan's `eth_sendBlobs [{ txs, maxBlockNumber? }]`: permutations of one sender's blob tx at
 * one nonce, of which the builder includes the one that fits the block's blobs and pays
 * best. Answers the tx hashes, in order; each is traced as a private tx.
 */
export function registerBlobMethods(rpc: JSONRPCServer<RequestContext>, deps: { ingest: BundleIngest }): void {
  rpc.addMethod('eth_sendBlobs', async (params, context) => {
    const submission = toSendBlobsSubmission(singleObjectParam(params, sendBlobsSchema))
    const result = await deps.ingest.submitBlobs(submission, { searcher: context.searcher ?? undefined })
    if (!result.ok) throw invalidParams(result.problem)
    return result.hashes
  })
}
