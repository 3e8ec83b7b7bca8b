/**
 * A MEV-Share backrunner with `@flashbots/mev-share-client`, pointed at bundlesim: it listens
 * on the hint stream and, for each pending tx announced there, sends a backrun bundle
 * (`mev_sendBundle` of the hint's `{ hash }` followed by its own signed tx, a tip to the
 * builder's coinbase), then watches the chain to report whether the backrun landed right
 * after the user's tx.
 *
 *   RPC_URL=http://127.0.0.1:8645 MEV_SHARE_URL=http://127.0.0.1:8647 BOT_KEY=0x… npx tsx examples/mev-share-backrunner/backrunner.ts
 *
 * With `npm start -- --clock manual`, add ADVANCE=1: the bot then runs a slot itself after each
 * backrun it sends (`harness_advanceSlot`). It prints one JSON line per event; after BACKRUNS
 * backruns (default 1) it exits, 0 if every one landed, else 1.
 */
import { createRequire } from 'node:module'
import type * as Ethers from 'ethers' with { 'resolution-mode': 'require' }
import MevShareClientModule, { type IPendingTransaction } from '@flashbots/mev-share-client'

// The client is CommonJS: its class is the default export (or that export's `default` under
// native ESM). It requires ethers' CommonJS build: take that same build here (see
// examples/ethers-bot/bot.ts); in a CommonJS project, `require('ethers')`.
const MevShareClient = ('default' in MevShareClientModule ? MevShareClientModule.default : MevShareClientModule) as typeof MevShareClientModule.default
const { Wallet, WebSocketProvider, keccak256, parseEther, parseUnits } = createRequire(import.meta.url)('ethers') as typeof Ethers

const rpcUrl = process.env.RPC_URL || 'http://127.0.0.1:8645'
const streamUrl = process.env.MEV_SHARE_URL || 'http://127.0.0.1:8647'
const advance = process.env.ADVANCE === '1'
const backruns = Number(process.env.BACKRUNS || '1')
/** How many blocks a backrun may land in: the next one and the ones after (MEV-Share allows 30). */
const blocks = Number(process.env.BLOCKS || '3')

const say = (event: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
const fail = (message: string, fields: Record<string, unknown> = {}): never => {
  say('failed', { message, ...fields })
  process.exit(1)
}

async function call<T>(method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const { result, error } = (await response.json()) as { result?: T; error?: { message: string } }
  if (error) fail(`${method}: ${error.message}${method.startsWith('harness_') ? ' (ADVANCE=1 needs bundlesim: npm start -- --clock manual)' : ''}`)
  return result as T
}

// Blocks as `newHeads` over the WebSocket on the submission port; the head is followed from the
// start (a read on the same socket answers after the server took the eth_subscribe sent before it).
const provider = new WebSocketProvider(rpcUrl.replace(/^http/, 'ws'))
let head = -1
const headWaiters: Array<() => void> = []
await provider.on('block', (blockNumber: number) => {
  head = Math.max(head, blockNumber)
  headWaiters.splice(0).forEach((wake) => wake())
})
head = Math.max(head, Number(await provider.send('eth_blockNumber', [])))
const untilHead = async (blockNumber: number) => {
  while (head < blockNumber) await new Promise<void>((resolve) => headWaiters.push(resolve))
}

const { chainId } = await provider.getNetwork()
const bot = new Wallet(process.env.BOT_KEY || '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6', provider) // Anvil dev key 3
// The key that signs mev_sendBundle (X-Flashbots-Signature): your searcher identity, not a funded account.
const authSigner = new Wallet(process.env.AUTH_KEY || Wallet.createRandom().privateKey)
// A custom network: the stream and the API (mev_sendBundle) are bundlesim's.
const mevShare = new MevShareClient(authSigner, { streamUrl, apiUrl: rpcUrl })
// Who to tip: the builder's fee recipient (bundlesim says it in harness_status).
const { coinbase } = await call<{ coinbase: string }>('harness_status')

/** Backruns one hint; answers whether the backrun landed right after the user's tx. */
async function backrun(hint: IPendingTransaction): Promise<boolean> {
  say('hint', { hash: hint.hash, to: hint.to, functionSelector: hint.functionSelector, logs: hint.logs?.length ?? 0, mevGasPrice: hint.mevGasPrice })
  const tx = await bot.signTransaction({
    type: 2,
    chainId,
    nonce: await provider.getTransactionCount(bot.address, 'latest'),
    to: coinbase,
    value: parseEther(process.env.TIP_ETH || '0.001'),
    gasLimit: 21_000n,
    maxFeePerGas: parseUnits('20', 'gwei'),
    maxPriorityFeePerGas: parseUnits('1', 'gwei'),
  })
  const inclusion = { block: head + 1, maxBlock: head + blocks }
  const { bundleHash } = await mevShare.sendBundle({ inclusion, body: [{ hash: hint.hash }, { tx, canRevert: false }] })
  const hash = keccak256(tx)
  say('sent', { hint: hint.hash, bundleHash, tx: hash, inclusion })
  if (advance) await call('harness_advanceSlot', [{ slots: 1 }])
  // Each new block: is the backrun on chain? (Taken as `seen` before the read, so no block goes unchecked.)
  for (;;) {
    const seen = head
    const receipt = await provider.getTransactionReceipt(hash)
    if (receipt) {
      const block = await provider.getBlock(receipt.blockNumber)
      const before = block?.transactions[receipt.index - 1] ?? null
      say('landed', { hint: hint.hash, bundleHash, blockNumber: receipt.blockNumber, index: receipt.index, after: before, status: receipt.status })
      return receipt.status === 1
    }
    if (seen >= inclusion.maxBlock) {
      say('missed', { hint: hint.hash, bundleHash, maxBlock: inclusion.maxBlock, why: `not on chain by block ${inclusion.maxBlock}: read svc_getBundleStats of ${bundleHash} for the reason` })
      return false
    }
    if (advance) await call('harness_advanceSlot', [{ slots: 1 }])
    await untilHead(seen + 1)
  }
}

let sent = 0
let landed = 0
let queue = Promise.resolve()
const stream = mevShare.on('transaction', (hint: IPendingTransaction) => {
  if (sent >= backruns) return
  sent++
  // One backrun at a time: each takes the bot's next nonce.
  queue = queue
    .then(() => backrun(hint))
    .then((ok) => {
      if (ok) landed++
    })
    .catch((error: Error) => say('error', { hint: hint.hash, message: error.message }))
    .then(() => {
      if (sent < backruns) return
      stream.close()
      if (landed < backruns) fail(`${backruns - landed} of ${backruns} backruns did not land`)
      say('done', { landed })
      process.exit(0)
    })
})
stream.onopen = () => say('listening', { stream: streamUrl, bot: bot.address, searcher: authSigner.address, coinbase })
stream.onerror = () => say('error', { message: `the hint stream ${streamUrl} failed (reconnecting)` })
