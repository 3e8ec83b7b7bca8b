/**
 * A backrun bot written against mainnet, and nothing else: Uniswap's and WETH/USDC's mainnet
 * addresses are hardcoded, the pair is found by CREATE2, prices come from the pair's reserves
 * and from QuoterV2. Pointed at `bundlesim serve --world dex --flow default`, it watches the
 * public mempool over WebSocket, backruns users' swaps on the V2 WETH/USDC pair (through Router02
 * or the Universal Router) with a round
 * trip through the V3 0.05 % pool, and bids a share of the profit it expects.
 *
 *   RPC_URL=http://127.0.0.1:8645 BOT_KEY=0x… BID_SHARE=0.9 npx tsx examples/backrun-bot/bot.ts
 *
 * With `EXECUTOR=1` it works as most searchers do: it deploys its own executor contract
 * (`Executor.sol`, funded with `EXECUTOR_ETH` ether as WETH), trades through it in one tx, and
 * pays the builder `BID_SHARE` of the WETH gained by a direct transfer to `block.coinbase`
 * instead of a priority fee. `KEEP_BPS` keeps that many basis points of the USDC bought in the
 * first leg as inventory instead of selling it back. Keys, as many searchers split them:
 * `OWNER_KEY` deploys the executor (with `FACTORY=1` through a factory it deploys first, by
 * CREATE2) and never trades, `SENDER_KEYS` (comma-separated) send the backruns (each user tx's from the key its hash picks),
 * `SIGNER_KEY` signs `X-Flashbots-Signature`; each defaults to `BOT_KEY`. `EXECUTOR_ADDRESS` trades
 * through an executor deployed before (its operator one of the sender keys) instead of deploying one. With `SEARCHER_NAME`
 * it names its keys so with bundlesim's `harness_nameSearcher` (the one call it makes that a
 * mainnet node would not answer).
 *
 * It prints one JSON line per event (`ready`, `saw`, `sent`, `skipped`) for people and tests.
 */
import {
  createPublicClient,
  createWalletClient,
  decodeAbiParameters,
  decodeFunctionData,
  hexToBytes,
  encodeDeployData,
  encodeFunctionData,
  encodePacked,
  formatTransaction,
  getContractAddress,
  getCreate2Address,
  http,
  keccak256,
  maxUint256,
  parseAbi,
  parseEther,
  serializeTransaction,
  toHex,
  webSocket,
  type Address,
  type Hex,
  type RpcTransaction,
  type Transaction,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { readFileSync } from 'node:fs'

const ROUTER02: Address = '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D'
const UNIVERSAL_ROUTER: Address = '0x66a9893cC07D91D95644AEDD05D03f95e1dBA8Af'
const SWAP_ROUTER: Address = '0xE592427A0AEce92De3Edee1F18E0157C05861564'
const V2_FACTORY: Address = '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f'
const QUOTER_V2: Address = '0x61fFE014bA17989E743c5F6cB21bF9697530B21e'
const WETH: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const USDC: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const V2_INIT_CODE_HASH: Hex = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'
const V3_FEE = 500

const abi = parseAbi([
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function swapExactETHForTokens(uint amountOutMin, address[] path, address to, uint deadline) payable returns (uint[])',
  'function swapExactTokensForETH(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[])',
  'function swapExactTokensForTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[])',
  'function approve(address, uint256) returns (bool)',
  'function allowance(address, address) view returns (uint256)',
  'struct QuoteParams { address tokenIn; address tokenOut; uint256 amountIn; uint24 fee; uint160 sqrtPriceLimitX96; }',
  'function quoteExactInputSingle(QuoteParams params) returns (uint256 amountOut, uint160, uint32, uint256)',
  'struct SwapParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'function exactInputSingle(SwapParams params) payable returns (uint256)',
  'function execute(bytes commands, bytes[] inputs, uint256 deadline) payable',
])
/** The Universal Router's V2_SWAP_EXACT_IN command and its input (Dispatcher.sol): recipient, amountIn, amountOutMin, path, payerIsUser. */
const V2_SWAP_EXACT_IN = 0x08
const v2SwapInput = [{ type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'address[]' }, { type: 'bool' }] as const

const rpcUrl = process.env.RPC_URL ?? 'http://127.0.0.1:8645'
const account = privateKeyToAccount((process.env.BOT_KEY ?? '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') as Hex)
const bidShare = Number(process.env.BID_SHARE ?? '0.9')
const useExecutor = process.env.EXECUTOR === '1'
const keyAccount = (key: string | undefined) => (key ? privateKeyToAccount(key as Hex) : account)
const owner = keyAccount(process.env.OWNER_KEY)
const signer = keyAccount(process.env.SIGNER_KEY)
const senders = process.env.SENDER_KEYS ? process.env.SENDER_KEYS.split(',').map((key) => keyAccount(key.trim())) : [account]
/** Basis points of the round trip's middle token (USDC) kept as inventory rather than swapped back (default none). */
const keepBps = BigInt(process.env.KEEP_BPS ?? '0')
const say = (event: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))

const client = createPublicClient({ transport: http(rpcUrl) })
const chainId = await client.getChainId()
const chain = { id: chainId, name: 'bundlesim', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } } as const
const wallet = createWalletClient({ account: owner, chain, transport: http(rpcUrl) })
if (process.env.SEARCHER_NAME) {
  const answer = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'harness_nameSearcher', params: [{ name: process.env.SEARCHER_NAME, addresses: [signer.address, owner.address, ...senders.map((s) => s.address)] }] }) })
  const { error } = (await answer.json()) as { error?: { message: string } }
  if (error) say('error', { message: `harness_nameSearcher: ${error.message}` })
}

// The pair, as any mainnet bot finds it: CREATE2 from the factory and the init code hash.
const [token0, token1] = BigInt(WETH) < BigInt(USDC) ? [WETH, USDC] : [USDC, WETH]
const PAIR = getCreate2Address({ from: V2_FACTORY, salt: keccak256(encodePacked(['address', 'address'], [token0, token1])), bytecodeHash: V2_INIT_CODE_HASH })
const reserves = async () => {
  const [r0, r1] = await client.readContract({ address: PAIR, abi, functionName: 'getReserves' })
  return token0 === WETH ? { weth: r0, usdc: r1 } : { weth: r1, usdc: r0 }
}
const v2Out = (amountIn: bigint, reserveIn: bigint, reserveOut: bigint) => (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n)
const quoteV3 = async (tokenIn: Address, tokenOut: Address, amountIn: bigint) =>
  (await client.simulateContract({ address: QUOTER_V2, abi, functionName: 'quoteExactInputSingle', args: [{ tokenIn, tokenOut, amountIn, fee: V3_FEE, sqrtPriceLimitX96: 0n }] })).result[0]

const executorAbi = parseAbi(['function approve(address token, address spender)', 'function run(address[] targets, bytes[] calls, uint256 builderShareBps)'])

const factoryAbi = parseAbi(['function deploy(bytes32 salt, address weth, address[] operators) payable returns (address)'])

/**
 * Compiles `Executor.sol` (solc from npm) and deploys the executor from the owner key, funded
 * with WETH, its senders its operators: directly, or (`FACTORY=1`) through a factory the owner
 * deploys first, at the CREATE2 address the factory gives it.
 */
async function deployExecutor(): Promise<Address> {
  const { default: solc } = (await import('solc')) as unknown as { default: { compile(input: string): string } }
  const content = readFileSync(new URL('./Executor.sol', import.meta.url), 'utf8')
  const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { Executor: ['abi', 'evm.bytecode.object'], ExecutorFactory: ['abi', 'evm.bytecode.object'] } } }
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources: { 'Executor.sol': { content } }, settings })))
  const { abi: deployAbi, evm } = output.contracts['Executor.sol'].Executor
  const args = [WETH, owner.address, senders.map((s) => s.address)] as const
  const value = parseEther(process.env.EXECUTOR_ETH ?? '1000')
  // Sent, not waited for (a block may be a slot away): each address follows from the owner's nonce (or the factory's salt), and the approvals queue behind.
  const nonce = await client.getTransactionCount({ address: owner.address, blockTag: 'pending' })
  if (process.env.FACTORY !== '1') {
    await wallet.deployContract({ abi: deployAbi, bytecode: `0x${evm.bytecode.object}`, args, value, gas: 1_500_000n, nonce })
    return getContractAddress({ from: owner.address, nonce: BigInt(nonce) })
  }
  const factory = output.contracts['Executor.sol'].ExecutorFactory
  await wallet.deployContract({ abi: factory.abi, bytecode: `0x${factory.evm.bytecode.object}`, gas: 2_500_000n, nonce })
  const factoryAddress = getContractAddress({ from: owner.address, nonce: BigInt(nonce) })
  const salt = keccak256(toHex('backrun-bot executor'))
  await wallet.writeContract({ address: factoryAddress, abi: factoryAbi, functionName: 'deploy', args: [salt, WETH, args[2]], value, gas: 1_800_000n, nonce: nonce + 1 })
  return getContractAddress({ opcode: 'CREATE2', from: factoryAddress, salt, bytecode: encodeDeployData({ abi: deployAbi, bytecode: `0x${evm.bytecode.object}`, args }) })
}

// Who trades: the bot's own account, or its executor contract; both routers may spend its WETH and USDC (one-off approvals, landed like any tx).
const executor = process.env.EXECUTOR_ADDRESS ? (process.env.EXECUTOR_ADDRESS as Address) : useExecutor ? await deployExecutor() : null
const trader = executor ?? account.address
for (const token of [WETH, USDC]) {
  for (const spender of [ROUTER02, SWAP_ROUTER]) {
    if ((await client.readContract({ address: token, abi, functionName: 'allowance', args: [trader, spender] })) !== 0n) continue
    if (executor) await wallet.writeContract({ address: executor, abi: executorAbi, functionName: 'approve', args: [token, spender], gas: 100_000n })
    else await wallet.writeContract({ account, address: token, abi, functionName: 'approve', args: [spender, maxUint256], gas: 100_000n })
  }
}
const start = await reserves()
say('ready', { pair: PAIR, executor, priceUsdc: Number(start.usdc * 10n ** 12n * 1000n / start.weth) / 1000, quote1Eth: await quoteV3(WETH, USDC, parseEther('1')) })

/** The raw signed tx a bundle carries, rebuilt from the node's tx object (and checked against its hash). */
function rawOf(tx: Transaction): Hex {
  const raw = serializeTransaction(
    { type: 'eip1559', chainId, nonce: tx.nonce, to: tx.to!, value: tx.value, data: tx.input, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas!, accessList: tx.accessList ?? [] },
    { r: tx.r, s: tx.s, yParity: tx.yParity ?? Number(tx.v) },
  )
  if (keccak256(raw) !== tx.hash) throw new Error(`could not rebuild ${tx.hash}`)
  return raw
}

/** A user's swap on the V2 pair, through Router02 or the Universal Router: WETH in (it sells WETH) or USDC in, and how much. */
function swapOnPair(tx: Transaction): { wethIn: boolean; amountIn: bigint } | null {
  if (tx.to?.toLowerCase() === UNIVERSAL_ROUTER.toLowerCase()) return universalRouterSwap(tx)
  if (tx.to?.toLowerCase() !== ROUTER02.toLowerCase()) return null
  try {
    const call = decodeFunctionData({ abi, data: tx.input })
    if (call.functionName === 'swapExactETHForTokens' && (call.args[1] as Address[]).join() === [WETH, USDC].join()) return { wethIn: true, amountIn: tx.value }
    if (call.functionName === 'swapExactTokensForETH' && (call.args[2] as Address[]).join() === [USDC, WETH].join()) return { wethIn: false, amountIn: call.args[0] as bigint }
  } catch {
    // not a swap this bot trades
  }
  return null
}

/** The Universal Router's one V2 swap of the call (wrapping ether first, or unwrapping after), when it trades the pair. */
function universalRouterSwap(tx: Transaction): { wethIn: boolean; amountIn: bigint } | null {
  try {
    const call = decodeFunctionData({ abi, data: tx.input })
    if (call.functionName !== 'execute') return null
    const [commands, inputs] = call.args as readonly [Hex, readonly Hex[], bigint]
    const swaps = [...hexToBytes(commands)].flatMap((command, i) => ((command & 0x3f) === V2_SWAP_EXACT_IN ? [inputs[i]!] : []))
    if (swaps.length !== 1) return null
    const [, amountIn, , path] = decodeAbiParameters(v2SwapInput, swaps[0]!)
    if (path.join() === [WETH, USDC].join()) return { wethIn: true, amountIn }
    if (path.join() === [USDC, WETH].join()) return { wethIn: false, amountIn }
  } catch {
    // not a swap this bot trades
  }
  return null
}

async function backrun(tx: Transaction): Promise<void> {
  const swap = swapOnPair(tx)
  if (!swap) return say('skipped', { hash: tx.hash, why: 'not a swap on the V2 WETH/USDC pair' })
  say('saw', { hash: tx.hash, wethIn: swap.wethIn, amountIn: swap.amountIn })
  // The pair after the user's swap.
  const r = await reserves()
  const after = swap.wethIn
    ? { weth: r.weth + swap.amountIn, usdc: r.usdc - v2Out(swap.amountIn, r.weth, r.usdc) }
    : { weth: r.weth - v2Out(swap.amountIn, r.usdc, r.weth), usdc: r.usdc + swap.amountIn }
  // WETH got cheap on V2 (the user sold it): sell WETH on V3, buy it back on V2; else the other way.
  const trip = async (x: bigint) => {
    if (swap.wethIn) {
      const usdc = await quoteV3(WETH, USDC, x)
      return { x, middle: usdc, back: v2Out(usdc, after.usdc, after.weth) }
    }
    const usdc = v2Out(x, after.weth, after.usdc)
    return { x, middle: usdc, back: await quoteV3(USDC, WETH, usdc) }
  }
  // Every size at once (the quotes are independent calls): the backrun is sent while the swap is pending.
  const sizes: bigint[] = []
  for (let eth = 0.05; eth <= 200; eth *= 1.4) sizes.push(parseEther(eth.toFixed(6)))
  let best = { x: 0n, middle: 0n, back: 0n }
  for (const t of await Promise.all(sizes.map(trip))) if (t.back - t.x > best.back - best.x) best = t
  const profit = best.back - best.x
  const head = await client.getBlock()
  const gas = 230_000n
  // The bid: as priority fee from the bot's account, or as the executor's coinbase transfer.
  const bid = (profit * BigInt(Math.round(bidShare * 1000))) / 1000n
  const tip = executor ? 0n : bid / gas
  if (profit <= head.baseFeePerGas! * gas + (executor ? bid : tip * gas)) return say('skipped', { hash: tx.hash, why: 'no profit after gas', profit })
  const deadline = head.timestamp + 600n
  // What the second leg sells back: all the first leg bought, less what is kept as inventory.
  const back = best.middle - (best.middle * keepBps) / 10_000n
  const [sell, buy] = swap.wethIn
    ? [
        { to: SWAP_ROUTER, data: encodeFunctionData({ abi, functionName: 'exactInputSingle', args: [{ tokenIn: WETH, tokenOut: USDC, fee: V3_FEE, recipient: trader, deadline, amountIn: best.x, amountOutMinimum: best.middle, sqrtPriceLimitX96: 0n }] }) },
        { to: ROUTER02, data: encodeFunctionData({ abi, functionName: 'swapExactTokensForTokens', args: [back, best.x + 1n, [USDC, WETH], trader, deadline] }) },
      ]
    : [
        { to: ROUTER02, data: encodeFunctionData({ abi, functionName: 'swapExactTokensForTokens', args: [best.x, best.middle, [WETH, USDC], trader, deadline] }) },
        { to: SWAP_ROUTER, data: encodeFunctionData({ abi, functionName: 'exactInputSingle', args: [{ tokenIn: USDC, tokenOut: WETH, fee: V3_FEE, recipient: trader, deadline, amountIn: back, amountOutMinimum: best.x + 1n, sqrtPriceLimitX96: 0n }] }) },
      ]
  // Through the executor, its senders share the work, each user tx's backrun from the key its hash picks (the same tx every run); without one, the bot's key trades.
  const sender = executor ? senders[Number(BigInt(tx.hash) % BigInt(senders.length))]! : account
  const nonce = await client.getTransactionCount({ address: sender.address })
  // Through the executor: one tx running both legs and paying the coinbase; else one tx per leg.
  const calls = executor
    ? [{ to: executor, data: encodeFunctionData({ abi: executorAbi, functionName: 'run', args: [[sell.to, buy.to], [sell.data, buy.data], BigInt(Math.round(bidShare * 10_000))] }), gas: 500_000n }]
    : [sell, buy].map((leg) => ({ ...leg, gas: 300_000n }))
  const legs = await Promise.all(
    calls.map((call, i) => sender.signTransaction({ type: 'eip1559', chainId, nonce: nonce + i, ...call, maxPriorityFeePerGas: tip, maxFeePerGas: head.baseFeePerGas! * 2n + tip })),
  )
  // eth_sendBundle, signed as Flashbots' clients sign: X-Flashbots-Signature over the body's hash.
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendBundle', params: [{ txs: [rawOf(tx), ...legs], blockNumber: toHex(head.number + 1n) }] })
  const signature = await signer.signMessage({ message: keccak256(toHex(body)) })
  const answer = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Flashbots-Signature': `${signer.address}:${signature}` }, body })
  const { result, error } = (await answer.json()) as { result?: { bundleHash: Hex }; error?: { message: string } }
  say('sent', { hash: tx.hash, bundleHash: result?.bundleHash, error: error?.message, profit, tip })
}

// Whole pending txs over WebSocket (geth's `newPendingTransactions` with `true`; viem's types
// know only the hashes form, hence the casts), handled one at a time.
const ws = createPublicClient({ transport: webSocket(rpcUrl.replace(/^http/, 'ws')) })
let queue = Promise.resolve()
await ws.transport.subscribe({
  params: ['newPendingTransactions', true] as unknown as ['newPendingTransactions'],
  onData: (data) => {
    const tx = formatTransaction((data as unknown as { result: RpcTransaction }).result)
    queue = queue.then(() => backrun(tx)).catch((error: Error) => say('error', { hash: tx.hash, message: error.message }))
  },
  onError: (error: Error) => say('error', { message: error.message }),
})
say('watching', { ws: rpcUrl.replace(/^http/, 'ws') })
