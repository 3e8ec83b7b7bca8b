/**
 * A bundle with viem only: sign two txs (a transfer and a tip to the builder's coinbase) with a
 * wallet client, simulate them (`eth_callBundle`), send them for the next block
 * (`eth_sendBundle`, signed with X-Flashbots-Signature), wait for that block and the receipts,
 * then read bundlesim's trace (`svc_getBundleStats` on the stats port).
 *
 *   RPC_URL=http://127.0.0.1:8645 STATS_URL=http://127.0.0.1:8646 BOT_KEY=0x… npx tsx examples/viem-bot/bot.ts
 *
 * With `npm start -- --clock manual`, add ADVANCE=1: the bot then runs the slots itself
 * (`harness_advanceSlot`). It prints one JSON line per event and exits 0 once its bundle landed.
 */
import {
  RpcRequestError,
  createPublicClient,
  createWalletClient,
  http,
  keccak256,
  parseEther,
  parseGwei,
  rpcSchema,
  toHex,
  type Address,
  type BaseError,
  type Hex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const rpcUrl = process.env.RPC_URL || 'http://127.0.0.1:8645'
const statsUrl = process.env.STATS_URL || 'http://127.0.0.1:8646'
const advance = process.env.ADVANCE === '1'
const tries = Number(process.env.TRIES || '3')
const to = (process.env.TO || '0x00000000000000000000000000000000000c0ffe') as Address

const say = (event: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
const fail = (message: string, fields: Record<string, unknown> = {}): never => {
  say('failed', { message, ...fields })
  process.exit(1)
}

/** The builder's methods, typed for `client.request` (viem knows only the standard ones). */
type BuilderSchema = [
  { Method: 'eth_sendBundle'; Parameters: [{ txs: Hex[]; blockNumber: Hex }]; ReturnType: { bundleHash: Hex } },
  {
    Method: 'eth_callBundle'
    Parameters: [{ txs: Hex[]; blockNumber: Hex; stateBlockNumber: Hex | 'latest' }]
    ReturnType: { totalGasUsed: number; coinbaseDiff: string; bundleHash: Hex; results: Array<{ txHash: Hex; gasUsed: number; error?: string; revert?: string }> }
  },
  { Method: 'harness_status'; Parameters: []; ReturnType: { coinbase: Address; clock: string } },
  { Method: 'harness_advanceSlot'; Parameters: [{ slots: number }]; ReturnType: unknown },
  {
    Method: 'svc_getBundleStats'
    Parameters: [{ bundle_hash: Hex }]
    ReturnType: { status: string; blockNumber: number | null; builderPayment: string; error: string | null; errorKind: string | null; searcher: Address | null }
  },
]

const bot = privateKeyToAccount((process.env.BOT_KEY || '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a') as Hex) // Anvil dev key 2
// The key that signs requests (X-Flashbots-Signature): your searcher identity, not a funded account.
const auth = privateKeyToAccount((process.env.AUTH_KEY as Hex | undefined) || generatePrivateKey())

// Reads poll every 200 ms (viem's default is 4 s, a third of a slot).
const client = createPublicClient({ transport: http(rpcUrl), pollingInterval: 200, rpcSchema: rpcSchema<BuilderSchema>() })
const chainId = await client.getChainId()
const chain = { id: chainId, name: 'bundlesim', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } } as const
const wallet = createWalletClient({ account: bot, chain, transport: http(rpcUrl) })
// Bundles go through a client whose every request carries X-Flashbots-Signature: the auth key's
// signature of keccak256(body), as Flashbots' relays (and bundlesim) check it.
const relay = createPublicClient({
  transport: http(rpcUrl, {
    retryCount: 0,
    onFetchRequest: async (_request, init) => ({
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'X-Flashbots-Signature': `${auth.address}:${await auth.signMessage({ message: keccak256(toHex(init.body as string)) })}` },
    }),
  }),
  rpcSchema: rpcSchema<BuilderSchema>(),
})
const stats = createPublicClient({ transport: http(statsUrl, { retryCount: 0 }), rpcSchema: rpcSchema<BuilderSchema>() })

/** Manual clock only (ADVANCE=1): build `slots` blocks now. */
async function advanceSlots(slots = 1) {
  await client.request({ method: 'harness_advanceSlot', params: [{ slots }] }).catch((error: Error) => fail(`harness_advanceSlot: ${error.message} (ADVANCE=1 needs bundlesim's manual clock: npm start -- --clock manual)`))
}
/** Resolves once the head is at `blockNumber` or past it (polling; already there: at once). */
function untilBlock(blockNumber: bigint): Promise<bigint> {
  return new Promise((resolve) => {
    const stop = client.watchBlockNumber({
      emitOnBegin: true,
      onBlockNumber: (head) => {
        if (head < blockNumber) return
        stop()
        resolve(head)
      },
    })
  })
}

// Who to tip: the builder's fee recipient (on mainnet: the `miner` of the builder's blocks; bundlesim says it in harness_status).
const { coinbase, clock } = await client.request({ method: 'harness_status', params: [] })
say('ready', { bot: bot.address, searcher: auth.address, chainId, coinbase, clock })

// Two txs from the bot, signed by the wallet client with the chain's next nonces.
const nonce = await client.getTransactionCount({ address: bot.address })
const fees = { gas: 21_000n, maxFeePerGas: parseGwei('20'), maxPriorityFeePerGas: parseGwei('1') }
const txs = [
  await wallet.signTransaction({ ...fees, nonce, to, value: parseEther('0.01') }),
  await wallet.signTransaction({ ...fees, nonce: nonce + 1, to: coinbase, value: parseEther(process.env.TIP_ETH || '0.001') }),
]
const hashes = txs.map((tx) => keccak256(tx))

let landedIn: bigint | undefined
let bundleHash: Hex = '0x'
for (let attempt = 1; attempt <= tries && landedIn === undefined; attempt++) {
  const targetBlock = (await client.getBlockNumber({ cacheTime: 0 })) + 1n
  const simulation = await client.request({ method: 'eth_callBundle', params: [{ txs, blockNumber: toHex(targetBlock), stateBlockNumber: 'latest' }] })
  const reverted = simulation.results.find((r) => r.error)
  if (reverted) fail('eth_callBundle: a tx reverts', { reverted })
  say('simulated', { targetBlock: Number(targetBlock), totalGasUsed: simulation.totalGasUsed, coinbaseDiff: simulation.coinbaseDiff })

  ;({ bundleHash } = await relay.request({ method: 'eth_sendBundle', params: [{ txs, blockNumber: toHex(targetBlock) }] }))
  say('sent', { bundleHash, targetBlock: Number(targetBlock), txs: hashes })
  if (advance) await advanceSlots()
  await untilBlock(targetBlock)
  const receipts = await Promise.all(hashes.map((hash) => client.getTransactionReceipt({ hash }).catch(() => null)))
  if (receipts.every((r) => r?.blockNumber === targetBlock)) {
    landedIn = targetBlock
    say('landed', { blockNumber: Number(targetBlock), txs: receipts.map((r) => ({ hash: r!.transactionHash, index: r!.transactionIndex, status: r!.status })) })
  } else if (receipts.some((r) => r !== null)) fail('a tx of the bundle landed without the others', { receipts: receipts.map((r) => r && { hash: r.transactionHash, blockNumber: r.blockNumber }) })
  else say('missed', { targetBlock: Number(targetBlock) })
}
if (landedIn === undefined) fail(`the bundle did not land in ${tries} blocks`, { bundleHash })

// bundlesim's trace, on the stats port: served --stats-delay-slots (2 by default) after the target block.
for (;;) {
  try {
    const trace = await stats.request({ method: 'svc_getBundleStats', params: [{ bundle_hash: bundleHash }] })
    say('trace', { bundleHash, status: trace.status, blockNumber: trace.blockNumber, builderPayment: trace.builderPayment, searcher: trace.searcher, error: trace.error })
    if (trace.status.toLowerCase() !== 'landed') fail(`the trace says ${trace.status}`, { errorKind: trace.errorKind })
    break
  } catch (error) {
    // -32010 "trace not yet available", with data.availableAtBlock; anything else is a failure.
    const rpcError = (error as BaseError).walk?.((e) => e instanceof RpcRequestError) as RpcRequestError | null
    if (rpcError?.code !== -32010) fail(`svc_getBundleStats: ${(error as Error).message}`)
    const availableAtBlock = BigInt((rpcError!.data as { availableAtBlock: number }).availableAtBlock)
    say('waiting', { for: 'trace', availableAtBlock: Number(availableAtBlock) })
    if (advance) await advanceSlots(Math.max(1, Number(availableAtBlock - (await client.getBlockNumber({ cacheTime: 0 })))))
    await untilBlock(availableAtBlock)
  }
}
say('done', { bundleHash, blockNumber: Number(landedIn) })
