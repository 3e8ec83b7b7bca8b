import type { JSONRPCServer } from 'json-rpc-2.0'
import type { BundleIngest } from '../bundle/ingest.js'
import { toSendBlobsSubmission } from '../bundle/submissions.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

/**
 * Titan's `eth_sendBlobs [{ txs, maxBlockNumber? }]`: permutations of one sender's blob tx at
 * one nonce, of which the builder includes the one that fits the block's blobs and pays
 * best. Answers the tx hashes, in order; each is traced as a private tx.
 */
export function registerBlobMethods(rpc: JSONRPCServer<RequestContext>, deps: { ingest: BundleIngest; sentTo?: readonly string[] }): void {
  registerMethod(rpc, 'eth_sendBlobs', async (object, context) => {
    const submission = toSendBlobsSubmission(object)
    const result = await deps.ingest.submitBlobs(submission, { searcher: context.searcher ?? undefined, ...(deps.sentTo && { sentTo: deps.sentTo }) })
    if (!result.ok) throw invalidParams(result.problem)
    return result.hashes
  })
}
