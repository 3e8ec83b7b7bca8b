/**
 * A broadcaster as a mainnet bot writes it: ONE bundle (a transfer from its key, for the next
 * block) sent to Titan, BuilderNet and Quasar, each the way that builder's docs want it, then,
 * once the block is on chain, what each builder says about it, each its own way. Every endpoint
 * is a public host, hard-coded; run it under bundlesim's host map and they reach bundlesim:
 *
 *   bundlesim serve --builder titan,buildernet,quasar           # then, in another shell:
 *   bundlesim exec -- npx tsx examples/broadcaster/broadcaster.ts   # (or see README.md)
 *
 * It prints one JSON line per fact (`ready`, `sent`, `answer`, `waiting`, `missed`, `landed`,
 * `stats`, `done`) and exits 0 once its tx is in its target block (a missed block: sent again for
 * the next, up to TRIES blocks), else prints `failed` and exits 1.
 * PRIVATE_KEY (or BOT_KEY): a funded key; AUTH_KEY: the key that signs requests (default: random).
 */
import { createPublicClient, http, keccak256, parseGwei, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

// The public hosts, as on mainnet (docs.titanbuilder.xyz, buildernet.org/docs, docs.quasar.win).
const NODE = 'https://ethereum-rpc.publicnode.com'
const TITAN_RPC = 'https://rpc.titanbuilder.xyz'
const BUILDERNET_RPC = 'https://rpc.buildernet.org'
const QUASAR_RPC = 'https://rpc.quasar.win'
const TITAN_STATS = 'https://stats.titanbuilder.xyz'
const QUASAR_STATS = 'https://stats.quasar.win'
const TO: Address = '0x00000000000000000000000000000000000c0ffe'
const TRIES = Number(process.env.TRIES || '3')

const say = (event: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
const fail = (message: string, fields: Record<string, unknown> = {}): never => {
  say('failed', { message, ...fields })
  process.exit(1)
}

const key = (process.env.PRIVATE_KEY || process.env.BOT_KEY) as Hex | undefined
if (!key) fail('PRIVATE_KEY (or BOT_KEY) is not set: a funded key signs the bundle’s tx')
const bot = privateKeyToAccount(key!)
// The searcher identity: signs every request (X-Flashbots-Signature); BuilderNet pays its refunds to it.
const auth = privateKeyToAccount((process.env.AUTH_KEY as Hex | undefined) || generatePrivateKey())

/** Flashbots-style request signature: personal_sign over the hex string of keccak256(body), as `<address>:<signature>`. */
const signatureOf = async (body: string) => `${auth.address}:${await auth.signMessage({ message: keccak256(toHex(body)) })}`

interface RpcAnswer {
  status: number
  result?: any
  error?: { code: number; message: string; data?: unknown }
}

/** One JSON-RPC request over fetch, signed when `signed`; answers the HTTP status and the body's result or error. */
async function rpc(url: string, method: string, params: unknown[], signed: boolean): Promise<RpcAnswer> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (signed) headers['X-Flashbots-Signature'] = await signatureOf(body)
  const response = await fetch(url, { method: 'POST', headers, body })
  const answer = (await response.json()) as Omit<RpcAnswer, 'status'>
  return { status: response.status, ...answer }
}

// The chain: a public node (reads only).
const chain = createPublicClient({ transport: http(NODE, { retryCount: 0 }), cacheTime: 0 })
const chainId = await chain.getChainId()
say('ready', { address: bot.address, searcher: auth.address, chainId })

// One tx: 1 wei to TO, paying the builder 3 gwei a gas, signed once; the bundle is for the next block.
const head = await chain.getBlock()
const nonce = await chain.getTransactionCount({ address: bot.address })
const tip = parseGwei('3')
const tx = await bot.signTransaction({ chainId, to: TO, value: 1n, nonce, gas: 21_000n, maxPriorityFeePerGas: tip, maxFeePerGas: head.baseFeePerGas! * 4n + tip })
const txHash = keccak256(tx)
const replacementUuids = { titan: `broadcaster-${bot.address}-${nonce}`, buildernet: crypto.randomUUID(), quasar: crypto.randomUUID() }

/** Each builder's request for `blockNumber`, as its docs show it (`attempt` orders replacements). */
const requestsFor = (blockNumber: Hex, attempt: number) =>
  [
    // docs.titanbuilder.xyz/api/eth_sendbundle: replacementUuid is any string, replacementSeqNumber orders replacements; the signature is optional.
    { builder: 'titan', url: TITAN_RPC, signed: false, params: { txs: [tx], blockNumber, replacementUuid: replacementUuids.titan, replacementSeqNumber: attempt } },
    // buildernet.org/docs/api: every request signed; replacement by (replacementUuid, signer) and a strictly higher replacementNonce; answers receivedTimestampMs.
    { builder: 'buildernet', url: BUILDERNET_RPC, signed: true, params: { txs: [tx], blockNumber, replacementUuid: replacementUuids.buildernet, replacementNonce: attempt } },
    // docs.quasar.win/api/eth_sendbundle: a UUID and replacementSeqNumber, as Titan's; the signature is optional (a bad one is a 401).
    { builder: 'quasar', url: QUASAR_RPC, signed: true, params: { txs: [tx], blockNumber, replacementUuid: replacementUuids.quasar, replacementSeqNumber: attempt } },
  ] as const

// A bundle lands only in its target block: on the realtime clock, one sent late in a slot may miss it, and is sent again for the next.
let answers: Array<{ builder: string; answer: RpcAnswer }> = []
let targetBlock = 0n
let receipt: Awaited<ReturnType<typeof chain.getTransactionReceipt>> | null = null
for (let attempt = 1; attempt <= TRIES && !receipt; attempt++) {
  targetBlock = (await chain.getBlockNumber({ cacheTime: 0 })) + 1n
  // Sent to the three at once, as a broadcaster does.
  answers = await Promise.all(
    requestsFor(toHex(targetBlock), attempt).map(async ({ builder, url, signed, params }) => {
      say('sent', { builder, url, method: 'eth_sendBundle', signed, params })
      const answer = await rpc(url, 'eth_sendBundle', [params], signed)
      say('answer', { builder, status: answer.status, ...(answer.error ? { error: answer.error } : { answer: answer.result }) })
      return { builder, answer }
    }),
  )
  const refused = answers.filter(({ answer }) => answer.error || answer.status !== 200)
  if (refused.length > 0) fail(`refused by ${refused.map((r) => r.builder).join(', ')}`, { refused })
  say('waiting', { for: 'block', targetBlock, txHash })
  // Wait for the target block, then the receipt: in it, landed; not there, missed.
  while ((await chain.getBlockNumber({ cacheTime: 0 })) < targetBlock) await new Promise((resolve) => setTimeout(resolve, 100))
  receipt = await chain.getTransactionReceipt({ hash: txHash }).catch(() => null)
  if (receipt && receipt.blockNumber !== targetBlock) fail('the tx landed outside its target block', { targetBlock, blockNumber: receipt.blockNumber })
  if (!receipt) say('missed', { targetBlock })
}
if (!receipt) fail(`the tx is not on chain after ${TRIES} blocks`, { txHash })
const bundleHashOf = (builder: string) => answers.find((a) => a.builder === builder)!.answer.result.bundleHash as Hex
const block = await chain.getBlock({ blockNumber: targetBlock })
say('landed', { txHash, blockNumber: receipt!.blockNumber, index: receipt!.transactionIndex, status: receipt!.status, miner: block.miner.toLowerCase() })

/** A stats call that waits out `-32010 trace not yet available` (until its `availableAtBlock` is on chain). */
async function statsOf(url: string, method: string, params: unknown[]): Promise<RpcAnswer> {
  for (;;) {
    const answer = await rpc(url, method, params, false)
    const availableAtBlock = (answer.error?.data as { availableAtBlock?: number } | undefined)?.availableAtBlock
    if (answer.error?.code !== -32010 || availableAtBlock === undefined) return answer
    say('waiting', { for: method, availableAtBlock })
    while ((await chain.getBlockNumber({ cacheTime: 0 })) < BigInt(availableAtBlock)) await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

// Titan: titan_getBundleStats { bundleHash } at stats.titanbuilder.xyz (Titan's statuses: no Landed, a landed bundle is Submitted).
const titan = await statsOf(TITAN_STATS, 'titan_getBundleStats', [{ bundleHash: bundleHashOf('titan') }])
say('stats', { builder: 'titan', url: TITAN_STATS, method: 'titan_getBundleStats', status: titan.status, ...(titan.error ? { error: titan.error } : { answer: titan.result }) })
// Quasar: quasar_getBundleStats { bundle_hash } at stats.quasar.win.
const quasar = await statsOf(QUASAR_STATS, 'quasar_getBundleStats', [{ bundle_hash: bundleHashOf('quasar') }])
say('stats', { builder: 'quasar', url: QUASAR_STATS, method: 'quasar_getBundleStats', status: quasar.status, ...(quasar.error ? { error: quasar.error } : { answer: quasar.result }) })
// BuilderNet: no stats since Flashbots retired them (403); the chain says whether it landed (above), its refunds API what it owes the identity.
const refunds = await rpc(BUILDERNET_RPC, 'buildernet_getDelayedRefunds', [{ recipient: auth.address }], true)
say('stats', { builder: 'buildernet', url: BUILDERNET_RPC, method: 'buildernet_getDelayedRefunds', status: refunds.status, ...(refunds.error ? { error: refunds.error } : { answer: refunds.result }) })

say('done', { txHash, blockNumber: targetBlock, miner: block.miner.toLowerCase() })
