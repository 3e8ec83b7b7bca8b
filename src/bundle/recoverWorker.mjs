// Worker thread of SenderRecovery (senderRecovery.ts): recovers the senders of signed txs.
// Plain JavaScript so it loads the same way under tsx, vitest and node.
import { parentPort } from 'node:worker_threads'
import { recoverTransactionAddress } from 'viem'

parentPort.on('message', async ({ id, raws }) => {
  const results = []
  for (const raw of raws) {
    try {
      results.push({ sender: (await recoverTransactionAddress({ serializedTransaction: raw })).toLowerCase() })
    } catch (error) {
      results.push({ error: String(error?.message ?? error).split('\n')[0] })
    }
  }
  parentPort.postMessage({ id, results })
})
