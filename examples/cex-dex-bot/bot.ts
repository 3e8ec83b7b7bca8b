/**
 * A CEX-DEX arbitrage bot, small enough to read in one sitting and start from: it reads the
 * ETH price from Binance through the `binance` npm package (its REST book ticker), the Uniswap
 * V3 WETH/USDC 0.05 % pool at its mainnet address through viem, and at each new block, when
 * the pool is away from the exchange's price by more than its fee, sends the trade that takes
 * it back as a one-tx bundle for the next block — its first tx, at the top of the block —
 * paying the builder `BID_SHARE` of the markout it expects by a coinbase transfer. Its other
 * leg (selling or buying ETH on the exchange) is not sent: the markout stands for it.
 *
 *   bundlesim exec --world dex --flow default -- npx tsx examples/cex-dex-bot/bot.ts
 *
 * Under `bundlesim exec` (or a scenario's `bots:`) the host map sends api.binance.com to the
 * market's exchange and `RPC_URL` / `BOT_KEY` come from bundlesim. It deploys its executor
 * (`Executor.sol`) holding `INVENTORY_ETH` ether as WETH, and the same worth of USDC — which on
 * a devnet it gets with `harness_setTokenBalance` (on mainnet, from its exchange account): with
 * `harness_nameSearcher` (`SEARCHER_NAME`) the two calls a mainnet node would not answer.
 *
 * One JSON line per event: `ready`, `quote` (each block), `sent`, `skipped`.
 */
import { MainClient } from 'binance'
import { createPublicClient, createWalletClient, encodeFunctionData, http, keccak256, parseAbi, parseEther, toHex, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { readFileSync } from 'node:fs'

const WETH: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const USDC: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
/** Uniswap V3's WETH/USDC 0.05 % pool (token0 USDC, token1 WETH), SwapRouter and QuoterV2. */
const POOL: Address = '0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640'
const SWAP_ROUTER: Address = '0xE592427A0AEce92De3Edee1F18E0157C05861564'
const QUOTER_V2: Address = '0x61fFE014bA17989E743c5F6cB21bF9697530B21e'
const FEE = 500

const abi = parseAbi([
  'function slot0() view returns (uint160 sqrtPriceX96, int24, uint16, uint16, uint16, uint8, bool)',
  'function liquidity() view returns (uint128)',
  'function balanceOf(address) view returns (uint256)',
  'struct QuoteParams { address tokenIn; address tokenOut; uint256 amountIn; uint24 fee; uint160 sqrtPriceLimitX96; }',
  'function quoteExactInputSingle(QuoteParams params) returns (uint256 amountOut, uint160, uint32, uint256)',
  'struct SwapParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'function exactInputSingle(SwapParams params) payable returns (uint256)',
  'function approve(address token, address spender)',
  'function trade(address target, bytes call, uint256 payment)',
])

const rpcUrl = process.env.RPC_URL ?? 'http://127.0.0.1:8645'
const account = privateKeyToAccount((process.env.BOT_KEY ?? '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') as Hex)
const bidShare = Number(process.env.BID_SHARE ?? '0.9')
const minProfit = parseEther(process.env.MIN_PROFIT_ETH ?? '0.0001')
const inventoryEth = process.env.INVENTORY_ETH ?? '500'
const say = (event: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
const rpc = async (method: string, params: unknown[]) => {
  const answer = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const { result, error } = (await answer.json()) as { result?: unknown; error?: { message: string } }
  if (error) throw new Error(`${method}: ${error.message}`)
  return result
}

const client = createPublicClient({ transport: http(rpcUrl) })
const chainId = await client.getChainId()
const chain = { id: chainId, name: 'bundlesim', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } } as const
const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) })
const exchange = new MainClient()

/** Compiles `Executor.sol` (solc from npm) and deploys it with the inventory's WETH; then its USDC and the router's approvals. */
async function deployExecutor(): Promise<Address> {
  const { default: solc } = (await import('solc')) as unknown as { default: { compile(input: string): string } }
  const content = readFileSync(new URL('./Executor.sol', import.meta.url), 'utf8')
  const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { CexDexExecutor: ['abi', 'evm.bytecode.object'] } } }
  const { abi: deployAbi, evm } = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources: { 'Executor.sol': { content } }, settings }))).contracts['Executor.sol'].CexDexExecutor
  const hash = await wallet.deployContract({ abi: deployAbi, bytecode: `0x${evm.bytecode.object}`, args: [WETH, []], value: parseEther(inventoryEth), gas: 1_000_000n })
  const receipt = await client.waitForTransactionReceipt({ hash })
  const executor = receipt.contractAddress!
  for (const token of [WETH, USDC]) await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: executor, abi, functionName: 'approve', args: [token, SWAP_ROUTER], gas: 100_000n }) })
  return executor
}

/** The exchange's book now: ETH's bid and ask in USDC. */
async function ethBook(): Promise<{ bid: number; ask: number }> {
  const book = await exchange.getSymbolOrderBookTicker({ symbol: 'ETHUSDC' })
  const one = Array.isArray(book) ? book[0]! : book
  return { bid: Number(one.bidPrice), ask: Number(one.askPrice) }
}

if (process.env.SEARCHER_NAME) await rpc('harness_nameSearcher', [{ name: process.env.SEARCHER_NAME, addresses: [account.address] }])
// Watching from the next block on: the set-up's blocks are not traded.
const executor = await deployExecutor()
const startBook = await ethBook()
// The same worth of USDC as of WETH, at the exchange's price (bundlesim's cheat: on mainnet, withdrawn from the exchange).
await rpc('harness_setTokenBalance', [{ address: executor, token: 'USDC', amount: String(Math.round(Number(inventoryEth) * startBook.bid)) }])
say('ready', { executor, ethUsdc: startBook })

/**
 * The trade that takes the pool to the exchange's price, net of its fee, on the pool's virtual
 * reserves (L/√P, L·√P): selling x of the token it has too little of moves its marginal price,
 * less the fee, to the exchange's — where the markout is largest. `price` is raw WETH per raw USDC.
 */
function tradeToPrice(sqrtPriceX96: bigint, liquidity: bigint, price: number): { usdcIn: boolean; amountIn: bigint } | null {
  const sqrtP = Number(sqrtPriceX96) / 2 ** 96
  const [r0, r1] = [Number(liquidity) / sqrtP, Number(liquidity) * sqrtP]
  const gamma = 1 - FEE / 1e6
  const poolPrice = r1 / r0
  if (poolPrice * gamma > price) return { usdcIn: true, amountIn: BigInt(Math.floor((Math.sqrt((r0 * r1 * gamma) / price) - r0) / gamma)) }
  if (poolPrice / gamma < price) return { usdcIn: false, amountIn: BigInt(Math.floor((Math.sqrt(r0 * r1 * gamma * price) - r1) / gamma)) }
  return null
}

async function onBlock(number: bigint): Promise<void> {
  const block = await client.getBlock({ blockNumber: number })
  const [[sqrtPriceX96], liquidity, book, wethHeld, usdcHeld] = await Promise.all([
    client.readContract({ address: POOL, abi, functionName: 'slot0', blockNumber: number }),
    client.readContract({ address: POOL, abi, functionName: 'liquidity', blockNumber: number }),
    ethBook(),
    client.readContract({ address: WETH, abi, functionName: 'balanceOf', args: [executor], blockNumber: number }),
    client.readContract({ address: USDC, abi, functionName: 'balanceOf', args: [executor], blockNumber: number }),
  ])
  const mid = (book.bid + book.ask) / 2
  const trade = tradeToPrice(sqrtPriceX96, liquidity, 1e12 / mid)
  if (!trade || trade.amountIn <= 0n) return say('skipped', { block: number, why: 'the pool is within its fee of the price', mid })
  // Within what it holds (and keeping the WETH the payment needs).
  const held = trade.usdcIn ? usdcHeld : wethHeld - parseEther('1')
  const amountIn = trade.amountIn < held ? trade.amountIn : held
  const [tokenIn, tokenOut] = trade.usdcIn ? [USDC, WETH] : [WETH, USDC]
  const { result } = await client.simulateContract({ address: QUOTER_V2, abi, functionName: 'quoteExactInputSingle', args: [{ tokenIn, tokenOut, amountIn, fee: FEE, sqrtPriceLimitX96: 0n }], blockNumber: number })
  const amountOut = result[0]
  // The markout at the price its other leg would get: WETH bought here is sold at the bid there; WETH sold here is bought back at the ask.
  const markout = trade.usdcIn ? amountOut - BigInt(Math.round((Number(amountIn) / book.bid) * 1e12)) : BigInt(Math.round((Number(amountOut) / book.ask) * 1e12)) - amountIn
  const payment = (markout * BigInt(Math.round(bidShare * 1000))) / 1000n
  const gas = 200_000n * block.baseFeePerGas!
  say('quote', { block: number, mid, usdcIn: trade.usdcIn, amountIn, amountOut, markout, payment })
  if (markout - payment - gas < minProfit) return say('skipped', { block: number, why: 'no profit after the bid and gas', markout })
  const swap = encodeFunctionData({ abi, functionName: 'exactInputSingle', args: [{ tokenIn, tokenOut, fee: FEE, recipient: executor, deadline: block.timestamp + 600n, amountIn, amountOutMinimum: amountOut - amountOut / 10_000n, sqrtPriceLimitX96: 0n }] })
  const tx = await account.signTransaction({
    type: 'eip1559',
    chainId,
    nonce: await client.getTransactionCount({ address: account.address, blockNumber: number }),
    to: executor,
    data: encodeFunctionData({ abi, functionName: 'trade', args: [SWAP_ROUTER, swap, payment] }),
    gas: 300_000n,
    maxPriorityFeePerGas: 0n,
    maxFeePerGas: block.baseFeePerGas! * 2n,
  })
  // eth_sendBundle for the next block, signed as Flashbots' clients sign (X-Flashbots-Signature over the body's hash).
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendBundle', params: [{ txs: [tx], blockNumber: toHex(number + 1n) }] })
  const signature = await account.signMessage({ message: keccak256(toHex(body)) })
  const answer = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Flashbots-Signature': `${account.address}:${signature}` }, body })
  const { result: sent, error } = (await answer.json()) as { result?: { bundleHash: Hex }; error?: { message: string } }
  say('sent', { block: number, bundleHash: sent?.bundleHash, error: error?.message, markout, payment })
}

// Each new head, one at a time.
let queue = Promise.resolve()
client.watchBlockNumber({
  pollingInterval: 100,
  onBlockNumber: (number) => {
    queue = queue.then(() => onBlock(number)).catch((error: Error) => say('error', { block: number, message: error.message }))
  },
})
say('watching', { pool: POOL })
