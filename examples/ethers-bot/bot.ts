/**
 * A Flashbots bundle with ethers v6 and `@flashbots/ethers-provider-bundle`, pointed at
 * bundlesim instead of the relay: sign two txs (a transfer and a tip to the builder's
 * coinbase), simulate them (`eth_callBundle`), send them for the next block
 * (`eth_sendBundle`), wait for the block with the library's `wait()`, then read the
 * Flashbots stats (`flashbots_getBundleStatsV2`) and bundlesim's trace (`svc_getBundleStats`).
 *
 *   RPC_URL=http://127.0.0.1:8645 STATS_URL=http://127.0.0.1:8646 BOT_KEY=0x… npx tsx examples/ethers-bot/bot.ts
 *
 * With `npm start -- --clock manual`, add ADVANCE=1: the bot then runs the slots itself
 * (`harness_advanceSlot`). It prints one JSON line per event and exits 0 once its bundle landed.
 */
import { createRequire } from 'node:module'
import type * as Ethers from 'ethers' with { 'resolution-mode': 'require' }
import flashbots from '@flashbots/ethers-provider-bundle'

// The library is CommonJS: its exports come as the default import under native ESM, and it
// requires ethers' CommonJS build. Take that same build here (an ES `import` would load
// ethers' ESM build: other classes, other types), so providers and signers are the library's.
// In a CommonJS project: `const { Wallet, … } = require('ethers')`.
const { FlashbotsBundleProvider, FlashbotsBundleResolution } = flashbots
const { Wallet, WebSocketProvider, parseEther, parseUnits } = createRequire(import.meta.url)('ethers') as typeof Ethers

const rpcUrl = process.env.RPC_URL || 'http://127.0.0.1:8645'
const statsUrl = process.env.STATS_URL || 'http://127.0.0.1:8646'
const advance = process.env.ADVANCE === '1'
const tries = Number(process.env.TRIES || '3')
const to = process.env.TO || '0x00000000000000000000000000000000000c0ffe'

const say = (event: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
const fail = (message: string, fields: Record<string, unknown> = {}): never => {
  say('failed', { message, ...fields })
  process.exit(1)
}

/** A plain JSON-RPC call: bundlesim's own methods (`harness_*`, `svc_*`) have no ethers wrapper. */
async function call<T>(url: string, method: string, params: unknown[] = []): Promise<{ result?: T; error?: { code: number; message: string; data?: any } }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return (await response.json()) as { result?: T; error?: { code: number; message: string; data?: any } }
}
/** Manual clock only (ADVANCE=1): build `slots` blocks now. */
async function advanceSlots(slots = 1) {
  const { error } = await call(rpcUrl, 'harness_advanceSlot', [{ slots }])
  if (error) fail(`harness_advanceSlot: ${error.message} (ADVANCE=1 needs bundlesim's manual clock: npm start -- --clock manual)`)
}

// Blocks arrive as `newHeads` over the WebSocket on the same port: the library's wait() hears of each at once.
const provider = new WebSocketProvider(rpcUrl.replace(/^http/, 'ws'))
// Subscribe to blocks before anything is sent, so no block built meanwhile goes unseen (the
// library's wait() then joins this live subscription). A read on the same socket answers after
// the server took the eth_subscribe sent before it: from then on every block is heard.
let head = -1
const headWaiters: Array<() => void> = []
await provider.on('block', (blockNumber: number) => {
  head = Math.max(head, blockNumber)
  say('block', { blockNumber })
  headWaiters.splice(0).forEach((wake) => wake())
})
head = Math.max(head, Number(await provider.send('eth_blockNumber', [])))
const untilHead = async (blockNumber: number) => {
  while (head < blockNumber) await new Promise<void>((resolve) => headWaiters.push(resolve))
}
const { chainId } = await provider.getNetwork()
const bot = new Wallet(process.env.BOT_KEY || '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d', provider) // Anvil dev key 1
// The key that signs requests (X-Flashbots-Signature): your searcher identity, not a funded account.
const authSigner = process.env.AUTH_KEY ? new Wallet(process.env.AUTH_KEY) : Wallet.createRandom()
const fb = await FlashbotsBundleProvider.create(provider, authSigner, rpcUrl, Number(chainId))

// Who to tip: the builder's fee recipient (on mainnet: the `miner` of the builder's blocks; bundlesim says it in harness_status).
const status = await call<{ coinbase: string; clock: string }>(rpcUrl, 'harness_status')
if (!status.result) fail(`harness_status: ${status.error?.message}`)
const coinbase = status.result!.coinbase
say('ready', { bot: bot.address, searcher: authSigner.address, chainId, coinbase, clock: status.result!.clock })

const fees = { type: 2, chainId, maxFeePerGas: parseUnits('20', 'gwei'), maxPriorityFeePerGas: parseUnits('1', 'gwei'), gasLimit: 21_000n }
// signBundle fills the nonces (the chain's, counting up within the bundle) and signs with each tx's signer.
const signed = await fb.signBundle([
  { signer: bot, transaction: { ...fees, to, value: parseEther('0.01') } },
  { signer: bot, transaction: { ...fees, to: coinbase, value: parseEther(process.env.TIP_ETH || '0.001') } },
])

let landedIn: number | undefined
let bundleHash = ''
for (let attempt = 1; attempt <= tries && landedIn === undefined; attempt++) {
  const targetBlock = head + 1
  const simulation = await fb.simulate(signed, targetBlock)
  if ('error' in simulation) fail(`simulate: ${simulation.error.message}`)
  else {
    if (simulation.firstRevert) fail('simulate: a tx reverts', { firstRevert: simulation.firstRevert })
    say('simulated', { targetBlock, totalGasUsed: simulation.totalGasUsed, coinbaseDiff: simulation.coinbaseDiff, bundleGasPrice: simulation.bundleGasPrice })
  }
  const sent = await fb.sendRawBundle(signed, targetBlock)
  if ('error' in sent) fail(`sendRawBundle: ${sent.error.message}`)
  else {
    bundleHash = sent.bundleHash
    // wait() resolves at the first block ≥ the target: included, passed without it, or a nonce used meanwhile.
    const waiting = sent.wait()
    await new Promise((resolve) => setImmediate(resolve)) // wait()'s block listener is on
    say('sent', { bundleHash, targetBlock, txs: sent.bundleTransactions.map((tx) => tx.hash) })
    if (advance) await advanceSlots()
    const resolution = await waiting
    say('resolved', { targetBlock, resolution: FlashbotsBundleResolution[resolution] })
    if (resolution === FlashbotsBundleResolution.BundleIncluded) {
      const receipts = await sent.receipts()
      landedIn = targetBlock
      say('landed', { blockNumber: targetBlock, txs: receipts.map((r) => ({ hash: r.hash, index: r.index, status: r.status })) })
    } else if (resolution === FlashbotsBundleResolution.AccountNonceTooHigh) fail('a nonce of the bundle was used by another tx')
  }
}
if (landedIn === undefined) fail(`the bundle did not land in ${tries} blocks`, { bundleHash })

// Flashbots' stats, on the submission port, signed by the auth key: live, no delay.
const v2 = await fb.getBundleStatsV2(bundleHash, landedIn!)
if ('error' in v2) fail(`getBundleStatsV2: ${v2.error.message}`)
say('bundleStatsV2', { stats: v2 })

// bundlesim's trace, on the stats port: served --stats-delay-slots (2 by default) after the target block.
for (;;) {
  const trace = await call<{ status: string; blockNumber: number | null; builderPayment: string; searcher: string | null; error: string | null }>(statsUrl, 'svc_getBundleStats', [{ bundle_hash: bundleHash }])
  if (trace.result) {
    say('trace', { bundleHash, status: trace.result.status, blockNumber: trace.result.blockNumber, builderPayment: trace.result.builderPayment, searcher: trace.result.searcher, error: trace.result.error })
    if (trace.result.status.toLowerCase() !== 'landed') fail(`the trace says ${trace.result.status}`)
    break
  }
  if (trace.error?.code !== -32010) fail(`svc_getBundleStats: ${trace.error?.message}`)
  const availableAtBlock = Number(trace.error!.data?.availableAtBlock)
  say('waiting', { for: 'trace', availableAtBlock })
  if (advance) await advanceSlots(Math.max(1, availableAtBlock - head))
  await untilHead(availableAtBlock)
}
say('done', { bundleHash, blockNumber: landedIn })
process.exit(0) // the WebSocket would keep the process alive
