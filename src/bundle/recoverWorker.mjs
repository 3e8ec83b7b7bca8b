// Worker thread of SenderRecovery (senderRecovery.ts): recovers the senders of signed txs, for
// every harness of the process. Plain JavaScript so it loads the same way under tsx, vitest and
// node.
//
// Each message is a batch of jobs with the Anvil to ask ({ batch, anvilUrl, timeoutMs, jobs }),
// answered with one message ({ batch, answers }); batches are answered as they come, each
// waiting only on its own Anvil. With an Anvil URL, senders
// come from Anvil's ecrecover precompile; whatever it does not recover (an invalid
// signature, or Anvil not answering) is recovered here in JS, which gives the same sender
// or the error message the JS recovery always gave.
import { parentPort } from 'node:worker_threads'
import { recoverTransactionAddress } from 'viem'
import { ecrecoverInput, recoverOnAnvil } from './ecrecoverOnAnvil.mjs'

/** Most txs in one JSON-RPC batch to Anvil (a few ms of its time). */
const ANVIL_BATCH_TXS = 1_000

// The thread keeps the process's CPU priority: a public tx's eth_sendRawTransaction waits for
// its sender, and at a lower priority (nice 19 gets ~1 % of a core on a loaded machine) the
// answer comes after clients' timeouts (viem's is 10 s).

parentPort.on('message', async ({ batch, anvilUrl, timeoutMs, jobs }) => {
  const raws = jobs.flatMap((job) => job.raws)
  const results = []
  for (let i = 0; i < raws.length; i += ANVIL_BATCH_TXS) results.push(...(await recoverAll(raws.slice(i, i + ANVIL_BATCH_TXS), anvilUrl, timeoutMs)))
  let offset = 0
  const answers = jobs.map((job) => {
    offset += job.raws.length
    return { id: job.id, results: results.slice(offset - job.raws.length, offset) }
  })
  parentPort.postMessage({ batch, answers })
})

async function recoverAll(raws, anvilUrl, timeoutMs) {
  let senders = raws.map(() => null)
  if (anvilUrl !== null) {
    try {
      senders = await recoverOnAnvil(anvilUrl, raws.map(ecrecoverInput), timeoutMs)
    } catch {
      // Anvil is down or slow: the JS recovery below does it all.
    }
  }
  const results = []
  for (let i = 0; i < raws.length; i++) results.push(senders[i] !== null ? { sender: senders[i] } : await recoverInJs(raws[i]))
  return results
}

async function recoverInJs(raw) {
  try {
    return { sender: (await recoverTransactionAddress({ serializedTransaction: raw })).toLowerCase() }
  } catch (error) {
    return { error: String(error?.message ?? error).split('\n')[0] }
  }
}
