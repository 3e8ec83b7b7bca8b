import { mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPublicClient, createWalletClient, defineChain, encodeAbiParameters, encodeFunctionData, encodePacked, formatUnits, getCreate2Address, http, keccak256, maxUint256, parseAbi, parseEther, toBytes, type Address, type Hex } from 'viem'
import { DEV_KEYS, accountOf, rpc, useTestHarness } from './support/harness.js'

// Uniswap's own SDKs encode the Universal Router's commands and V4's actions here (code
// nobody here wrote), against what a mainnet bot hardcodes: nothing below comes from bundlesim.
const require = createRequire(import.meta.url)
const { RoutePlanner, CommandType, UNIVERSAL_ROUTER_ADDRESS, UniversalRouterVersion } = require('@uniswap/universal-router-sdk') as typeof import('@uniswap/universal-router-sdk')
const { V4Planner, Actions } = require('@uniswap/v4-sdk') as typeof import('@uniswap/v4-sdk')

const WETH: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const USDC: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const UNIVERSAL_ROUTER: Address = '0x66a9893cC07D91D95644AEDD05D03f95e1dBA8Af'
const POOL_MANAGER: Address = '0x000000000004444c5dc75cB358380D2e3dE08A90'
const STATE_VIEW: Address = '0x7fFE42C4a5DEeA5b0feC41C94C136Cf115597227'
const V4_QUOTER: Address = '0x52F0E24D1c21C8A0cB1e5a5dD6198556BD9E1203'
const SWAP_ROUTER: Address = '0xE592427A0AEce92De3Edee1F18E0157C05861564'
const QUOTER_V2: Address = '0x61fFE014bA17989E743c5F6cB21bF9697530B21e'
const USDC_WETH_V3_005: Address = '0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640'
const SUSHI_FACTORY: Address = '0xC0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac'
const SUSHI_ROUTER: Address = '0xd9e1cE17f2641f24aE83637ab66a2cca9C378B9F'
const SUSHI_INIT_CODE_HASH = '0xe18a34eb0e04b04f7a0ac29a6e80748dca96319b42c54d679cb821dca90c6303'
/** Etherscan's SushiSwap WETH/USDC pair (SLP). */
const MAINNET_SUSHI_WETH_USDC: Address = '0x397FF1542f962076d0BFE58eA045FfA2d347ACa0'
/** The Universal Router's recipients (ActionConstants): the caller, the router itself. */
const MSG_SENDER: Address = '0x0000000000000000000000000000000000000001'
const ADDRESS_THIS: Address = '0x0000000000000000000000000000000000000002'

const erc20Abi = parseAbi(['function balanceOf(address) view returns (uint256)', 'function approve(address, uint256) returns (bool)'])
const executeAbi = parseAbi(['function execute(bytes commands, bytes[] inputs, uint256 deadline) payable'])
const permit2Abi = parseAbi(['function approve(address token, address spender, uint160 amount, uint48 expiration)', 'function DOMAIN_SEPARATOR() view returns (bytes32)'])
const stateViewAbi = parseAbi(['function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)'])
const v4QuoterAbi = parseAbi([
  'struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }',
  'struct QuoteExactSingleParams { PoolKey poolKey; bool zeroForOne; uint128 exactAmount; bytes hookData; }',
  'function quoteExactInputSingle(QuoteExactSingleParams params) returns (uint256 amountOut, uint256 gasEstimate)',
])
const quoterV2Abi = parseAbi([
  'struct QuoteExactInputSingleParams { address tokenIn; address tokenOut; uint256 amountIn; uint24 fee; uint160 sqrtPriceLimitX96; }',
  'function quoteExactInputSingle(QuoteExactInputSingleParams params) returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate)',
])
const v3PoolAbi = parseAbi(['function liquidity() view returns (uint128)', 'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)'])
const swapRouterAbi = parseAbi([
  'struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'function exactInputSingle(ExactInputSingleParams params) payable returns (uint256 amountOut)',
])
const sushiRouterAbi = parseAbi([
  'function swapExactETHForTokens(uint amountOutMin, address[] path, address to, uint deadline) payable returns (uint[] amounts)',
  'function getAmountsOut(uint amountIn, address[] path) view returns (uint[] amounts)',
])
const sushiPairAbi = parseAbi(['function factory() view returns (address)', 'function DOMAIN_SEPARATOR() view returns (bytes32)', 'function getReserves() view returns (uint112, uint112, uint32)'])
const factoryAbi = parseAbi(['function getPair(address, address) view returns (address)', 'function allPairs(uint) view returns (address)'])

const devnet = defineChain({ id: 31337, name: 'bundlesim', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } })
const FAR = 2n ** 40n

/** The WETH/USDC V4 pool of the built-in world: 0.05 %, spacing 10, no hooks (USDC sorts first). */
const V4_KEY = { currency0: USDC, currency1: WETH, fee: 500, tickSpacing: 10, hooks: '0x0000000000000000000000000000000000000000' as Address }
const V4_POOL_ID = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }], [V4_KEY.currency0, V4_KEY.currency1, V4_KEY.fee, V4_KEY.tickSpacing, V4_KEY.hooks]))

describe('the venues of 2026 at their mainnet addresses: Uniswap V4 and the Universal Router with Permit2, V3 positions around the price, SushiSwap', () => {
  const harness = useTestHarness({ world: 'dex' })
  const client = () => createPublicClient({ chain: devnet, transport: http(harness.rpcUrl) })
  const walletOf = (key: Hex) => createWalletClient({ account: accountOf(key), chain: devnet, transport: http(harness.rpcUrl) })
  const balanceOf = (token: Address, holder: Address) => client().readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] })

  it('Uniswap\'s SDK knows the Universal Router at the address the world put it', () => {
    expect(UNIVERSAL_ROUTER_ADDRESS(UniversalRouterVersion.V2_0, 1).toLowerCase()).toBe(UNIVERSAL_ROUTER.toLowerCase())
  })

  it('a swap through the Universal Router on the V4 pool (ether in, V4_SWAP built by Uniswap\'s planners) lands, and the PoolManager logs it under the pool\'s id', async () => {
    const publicClient = client()
    const amountIn = parseEther('1')
    const { result: quote } = await publicClient.simulateContract({ address: V4_QUOTER, abi: v4QuoterAbi, functionName: 'quoteExactInputSingle', args: [{ poolKey: V4_KEY, zeroForOne: false, exactAmount: amountIn, hookData: '0x' }] })
    // 1 ETH on a 1,500-ETH-deep pool at 3,000 less 0.05 %.
    expect(Number(formatUnits(quote[0], 6))).toBeGreaterThan(2990)
    const minOut = (quote[0] * 995n) / 1000n
    const v4 = new V4Planner()
    v4.addAction(Actions.SWAP_EXACT_IN_SINGLE, [{ poolKey: V4_KEY, zeroForOne: false, amountIn: amountIn.toString(), amountOutMinimum: minOut.toString(), hookData: '0x' }])
    // The router pays the pool from the WETH it just wrapped (payerIsUser false, 0: the whole debt).
    v4.addAction(Actions.SETTLE, [WETH, 0, false])
    v4.addAction(Actions.TAKE_ALL, [USDC, minOut.toString()])
    const planner = new RoutePlanner()
    planner.addCommand(CommandType.WRAP_ETH, [ADDRESS_THIS, amountIn.toString()])
    planner.addCommand(CommandType.V4_SWAP, [v4.finalize()])
    const slot0Before = await publicClient.readContract({ address: STATE_VIEW, abi: stateViewAbi, functionName: 'getSlot0', args: [V4_POOL_ID] })

    const wallet = walletOf(DEV_KEYS[4])
    const before = await balanceOf(USDC, wallet.account.address)
    const hash = await wallet.sendTransaction({ to: UNIVERSAL_ROUTER, data: encodeFunctionData({ abi: executeAbi, args: [planner.commands as Hex, planner.inputs as Hex[], FAR] }), value: amountIn, gas: 400_000n })
    const [report] = await harness.advanceSlot()
    expect(report!.mempoolTxs).toContain(hash)
    const receipt = await publicClient.getTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect((await balanceOf(USDC, wallet.account.address)) - before).toBe(quote[0])
    const swap = receipt.logs.find((l) => l.address.toLowerCase() === POOL_MANAGER.toLowerCase() && l.topics[1] === V4_POOL_ID)
    expect(swap, 'the PoolManager\'s Swap log for the pool').toBeDefined()
    const after = await publicClient.readContract({ address: STATE_VIEW, abi: stateViewAbi, functionName: 'getSlot0', args: [V4_POOL_ID] })
    // WETH (currency1) in: the price of currency0 in currency1 rises.
    expect(after[0]).toBeGreaterThan(slot0Before[0])
    expect(swap!.topics[0]).toBe(keccak256(toBytes('Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)')))
  })

  it('USDC sold for ether through the Universal Router\'s V3 and V2 commands, paid through Permit2 after the wallet approves it as Uniswap\'s interface does', async () => {
    const publicClient = client()
    const wallet = walletOf(DEV_KEYS[3])
    const me = wallet.account.address
    await rpc(harness.rpcUrl, 'harness_setTokenBalance', [{ address: me, token: 'USDC', amount: '10000' }])
    const approve = await wallet.writeContract({ address: USDC, abi: erc20Abi, functionName: 'approve', args: [PERMIT2, maxUint256], gas: 100_000n })
    const allow = await wallet.writeContract({ address: PERMIT2, abi: permit2Abi, functionName: 'approve', args: [USDC, UNIVERSAL_ROUTER, 2n ** 160n - 1n, 2 ** 47], gas: 100_000n })
    const amountIn = 3_000n * 10n ** 6n
    const planner = new RoutePlanner()
    // V3: USDC → WETH at 0.05 % into the router, then V2: the same again, then every WETH unwrapped to the caller.
    planner.addCommand(CommandType.V3_SWAP_EXACT_IN, [ADDRESS_THIS, amountIn.toString(), '0', encodePacked(['address', 'uint24', 'address'], [USDC, 500, WETH]), true])
    planner.addCommand(CommandType.V2_SWAP_EXACT_IN, [ADDRESS_THIS, amountIn.toString(), '0', [USDC, WETH], true])
    planner.addCommand(CommandType.UNWRAP_WETH, [MSG_SENDER, parseEther('1.9').toString()])
    const etherBefore = await publicClient.getBalance({ address: me })
    const swap = await wallet.sendTransaction({ to: UNIVERSAL_ROUTER, data: encodeFunctionData({ abi: executeAbi, args: [planner.commands as Hex, planner.inputs as Hex[], FAR] }), gas: 500_000n })
    await harness.advanceSlot()
    for (const hash of [approve, allow, swap]) expect((await publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    expect(await balanceOf(USDC, me)).toBe(4_000n * 10n ** 6n)
    const receipt = await publicClient.getTransactionReceipt({ hash: swap })
    const gas = receipt.gasUsed * receipt.effectiveGasPrice
    const receipts = await Promise.all([approve, allow].map((hash) => publicClient.getTransactionReceipt({ hash })))
    const otherGas = receipts.reduce((sum, r) => sum + r.gasUsed * r.effectiveGasPrice, 0n)
    const gained = (await publicClient.getBalance({ address: me })) - etherBefore + gas + otherGas
    // 6,000 USDC at ~3,000 less the fees: a bit under 2 ETH.
    expect(Number(formatUnits(gained, 18))).toBeGreaterThan(1.98)
    expect(Number(formatUnits(gained, 18))).toBeLessThan(2)
  })

  it('a V3 swap that crosses a tick: past the edge of the ±1 % position, the pool\'s in-range liquidity drops to what the wider ones hold', async () => {
    const publicClient = client()
    // ~77,000 WETH of virtual depth at the price (docs/market.md, "Depth and sizes"): 1,000 WETH takes it past -1 %.
    const amountIn = parseEther('1000')
    const { result } = await publicClient.simulateContract({ address: QUOTER_V2, abi: quoterV2Abi, functionName: 'quoteExactInputSingle', args: [{ tokenIn: WETH, tokenOut: USDC, amountIn, fee: 500, sqrtPriceLimitX96: 0n }] })
    expect(result[2], 'initialized ticks crossed').toBeGreaterThanOrEqual(1)
    const liquidityBefore = await publicClient.readContract({ address: USDC_WETH_V3_005, abi: v3PoolAbi, functionName: 'liquidity' })
    const wallet = walletOf(DEV_KEYS[2])
    const before = await balanceOf(USDC, wallet.account.address)
    const hash = await wallet.writeContract({ address: SWAP_ROUTER, abi: swapRouterAbi, functionName: 'exactInputSingle', args: [{ tokenIn: WETH, tokenOut: USDC, fee: 500, recipient: wallet.account.address, deadline: FAR, amountIn, amountOutMinimum: result[0], sqrtPriceLimitX96: 0n }], value: amountIn, gas: 600_000n })
    await harness.advanceSlot()
    expect((await publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    expect((await balanceOf(USDC, wallet.account.address)) - before).toBe(result[0])
    const liquidityAfter = await publicClient.readContract({ address: USDC_WETH_V3_005, abi: v3PoolAbi, functionName: 'liquidity' })
    expect(liquidityAfter).toBeLessThan(liquidityBefore)
    expect(liquidityAfter).toBeGreaterThan(0n)
  })

  it('SushiSwap: the WETH/USDC pair at its mainnet CREATE2 address, known to Sushi\'s factory, traded through Sushi\'s router', async () => {
    const publicClient = client()
    const [token0, token1] = BigInt(WETH) < BigInt(USDC) ? [WETH, USDC] : [USDC, WETH]
    const pair = getCreate2Address({ from: SUSHI_FACTORY, salt: keccak256(encodePacked(['address', 'address'], [token0, token1])), bytecodeHash: SUSHI_INIT_CODE_HASH })
    expect(pair).toBe(MAINNET_SUSHI_WETH_USDC)
    expect(await publicClient.readContract({ address: SUSHI_FACTORY, abi: factoryAbi, functionName: 'getPair', args: [USDC, WETH] })).toBe(pair)
    expect(await publicClient.readContract({ address: SUSHI_FACTORY, abi: factoryAbi, functionName: 'allPairs', args: [0n] })).toBe(pair)
    expect(await publicClient.readContract({ address: pair, abi: sushiPairAbi, functionName: 'factory' })).toBe(SUSHI_FACTORY)
    // Its LP token's permit domain is the pair's own (name, version 1, chain, address).
    const domain = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }], [keccak256(toBytes('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)')), keccak256(toBytes('SushiSwap LP Token')), keccak256(toBytes('1')), 31337n, pair]))
    expect(await publicClient.readContract({ address: pair, abi: sushiPairAbi, functionName: 'DOMAIN_SEPARATOR' })).toBe(domain)

    const wallet = walletOf(DEV_KEYS[1])
    const amounts = await publicClient.readContract({ address: SUSHI_ROUTER, abi: sushiRouterAbi, functionName: 'getAmountsOut', args: [parseEther('1'), [WETH, USDC]] })
    const before = await balanceOf(USDC, wallet.account.address)
    const hash = await wallet.writeContract({ address: SUSHI_ROUTER, abi: sushiRouterAbi, functionName: 'swapExactETHForTokens', args: [amounts[1]!, [WETH, USDC], wallet.account.address, FAR], value: parseEther('1'), gas: 300_000n })
    await harness.advanceSlot()
    expect((await publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    const received = (await balanceOf(USDC, wallet.account.address)) - before
    expect(received).toBe(amounts[1])
    // 1 ETH on a 500-ETH-deep pair at 3,000: less the 0.3 % fee and a 0.2 % move.
    expect(Number(formatUnits(received, 6))).toBeGreaterThan(2975)
    expect(Number(formatUnits(received, 6))).toBeLessThan(2995)
  })

  it('Permit2\'s EIP-712 domain is its own on this chain (the etched code\'s cached one is rewritten)', async () => {
    const domain = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }], [keccak256(toBytes('EIP712Domain(string name,uint256 chainId,address verifyingContract)')), keccak256(toBytes('Permit2')), 31337n, PERMIT2]))
    expect(await client().readContract({ address: PERMIT2, abi: permit2Abi, functionName: 'DOMAIN_SEPARATOR' })).toBe(domain)
  })

  it('harness_status lists the V4 pool by its PoolId and the Sushi pair by its address', async () => {
    const status = (await rpc(harness.rpcUrl, 'harness_status')).body.result
    const pools = status.world.pools as Array<{ dex: string; address: string; fee: number; tickSpacing?: number }>
    expect(pools.find((p) => p.dex === 'uniswap-v4' && p.address.toLowerCase() === V4_POOL_ID)).toMatchObject({ fee: 500, tickSpacing: 10 })
    expect(pools.some((p) => p.dex === 'sushiswap' && p.address === MAINNET_SUSHI_WETH_USDC)).toBe(true)
    expect(status.world.contracts.universalRouter).toBe(UNIVERSAL_ROUTER)
  })
})

/** A world file written for one describe block. */
function worldFile(yaml: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bundlesim-venues-')), 'world.yaml')
  writeFileSync(file, yaml)
  return file
}

/** One emulated searcher and users who send nothing: the test's own swap is the only thing to backrun. */
const LONE_SEARCHER = { seed: 1, users: { count: 1, swapsPerSlot: 0, size: { median: 1, sigma: 0 }, slippageBps: 50, channels: { public: 1 }, pairs: { 'WETH/USDC': 1 } }, searchers: [{ name: 'alpha', bidShare: 0.5, reactionDelayMs: 0, minProfitEth: 0 }] }

/** The txs right after `hash` in its block, and their receipts. */
async function backrunAfter(client: ReturnType<typeof createPublicClient>, hash: Hex) {
  const receipt = await client.getTransactionReceipt({ hash })
  const block = await client.getBlock({ blockNumber: receipt.blockNumber })
  const next = block.transactions[block.transactions.indexOf(hash) + 1]
  expect(next, 'a tx right after the swap').toBeDefined()
  return client.getTransactionReceipt({ hash: next! })
}

const V2_USDC_WETH: Address = '0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc'
const STABLE_POOL_LOG = keccak256(toBytes('Swap(address,address,int256,int256,uint160,uint128,int24)'))
const router02Abi = parseAbi(['function swapExactETHForTokens(uint amountOutMin, address[] path, address to, uint deadline) payable returns (uint[] amounts)'])

describe('rivals route across venues and pairs', () => {
  // WETH is dearer against USDT (3,060) than against USDC (3,000): a three-hop cycle through the
  // USDC/USDT pool earns where no two pools of one pair do.
  const harness = useTestHarness({
    world: worldFile('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapV2: { depth: 2000 }\n  - pair: [WETH, USDT]\n    price: 3060\n    uniswapV3: [{ fee: 500, depth: 2000 }]\n  - pair: [USDC, USDT]\n    price: 1\n    uniswapV3: [{ fee: 100, depth: 5000000 }]\n'),
    flow: LONE_SEARCHER,
  })
  const client = () => createPublicClient({ chain: devnet, transport: http(harness.rpcUrl) })

  it('a backrun of a V2 swap through three pools: WETH → USDT on V3, USDT → USDC on the stable pool, USDC → WETH on the V2 pair, in one executor tx that pays the builder', async () => {
    const publicClient = client()
    const wallet = createWalletClient({ account: accountOf(DEV_KEYS[1]), chain: devnet, transport: http(harness.rpcUrl) })
    const hash = await wallet.writeContract({ address: '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D', abi: router02Abi, functionName: 'swapExactETHForTokens', args: [0n, [WETH, USDC], wallet.account.address, FAR], value: parseEther('1'), gas: 300_000n })
    await harness.advanceSlot()
    const backrun = await backrunAfter(publicClient, hash)
    expect(backrun.status).toBe('success')
    const status = (await rpc(harness.rpcUrl, 'harness_status')).body.result
    const pools = status.world.pools as Array<{ dex: string; address: Address; token0: Address; token1: Address; fee: number }>
    const stable = pools.find((p) => p.fee === 100)!.address
    const usdtPool = pools.find((p) => p.dex === 'uniswap-v3' && p.fee === 500)!.address
    const touched = new Set(backrun.logs.map((l) => l.address.toLowerCase()))
    for (const pool of [stable, usdtPool, V2_USDC_WETH]) expect(touched.has(pool.toLowerCase()), pool).toBe(true)
    expect(backrun.logs.some((l) => l.address.toLowerCase() === stable.toLowerCase() && l.topics[0] === STABLE_POOL_LOG)).toBe(true)
    // It paid the builder by a coinbase transfer from its executor (the block's fee recipient gained more than the tips).
    const block = await publicClient.getBlock({ blockNumber: backrun.blockNumber })
    const coinbaseGain = (await publicClient.getBalance({ address: block.miner, blockNumber: block.number })) - (await publicClient.getBalance({ address: block.miner, blockNumber: block.number - 1n }))
    expect(coinbaseGain).toBeGreaterThan(0n)
  })
})

describe('rivals trade Uniswap V4 through the Universal Router', () => {
  const harness = useTestHarness({
    world: worldFile('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapV2: { depth: 2000 }\n    uniswapV4: [{ fee: 500, depth: 2000 }]\n'),
    flow: LONE_SEARCHER,
  })

  it('a backrun of a V2 swap whose other leg is the V4 pool, through the Universal Router from the executor (approved on Permit2)', async () => {
    const publicClient = createPublicClient({ chain: devnet, transport: http(harness.rpcUrl) })
    const wallet = createWalletClient({ account: accountOf(DEV_KEYS[1]), chain: devnet, transport: http(harness.rpcUrl) })
    // 20 ETH sold on the V2 pair leaves WETH ~2 % cheaper there than on V4.
    const hash = await wallet.writeContract({ address: '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D', abi: router02Abi, functionName: 'swapExactETHForTokens', args: [0n, [WETH, USDC], wallet.account.address, FAR], value: parseEther('20'), gas: 300_000n })
    await harness.advanceSlot()
    const backrun = await backrunAfter(publicClient, hash)
    expect(backrun.status).toBe('success')
    expect(backrun.logs.some((l) => l.address.toLowerCase() === POOL_MANAGER.toLowerCase() && l.topics[1] === V4_POOL_ID)).toBe(true)
    expect(backrun.logs.some((l) => l.address.toLowerCase() === V2_USDC_WETH.toLowerCase())).toBe(true)
  })
})

describe('a rival\'s backrun through V4 as the competition accounts it', () => {
  // Users swap WETH/USDC on the V2 pair and the V4 pool; one searcher backruns them across the two.
  const harness = useTestHarness({
    world: worldFile('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapV2: { depth: 2000 }\n    uniswapV4: [{ fee: 500, depth: 2000 }]\n'),
    flow: { ...LONE_SEARCHER, users: { ...LONE_SEARCHER.users, count: 6, swapsPerSlot: 3, size: { median: 20, sigma: 0.4 } } },
  })

  it('its profit and builder payment are the chain\'s, to the wei: the executor\'s WETH and the operator\'s ether over the block, the WETH it unwrapped for the coinbase', async () => {
    const client = createPublicClient({ chain: devnet, transport: http(harness.rpcUrl) })
    const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)'])
    const withdrawal = keccak256(toBytes('Withdrawal(address,uint256)'))
    type Opportunity = { blockNumber: number; searcher: string | null; backrunTxs: Hex[]; profitWei: string; builderPaymentWei: string; refundWei: string }
    const throughV4 = async (o: Opportunity) => {
      const receipts = await Promise.all(o.backrunTxs.map((hash) => client.getTransactionReceipt({ hash })))
      return receipts.some((r) => r.logs.some((l) => l.address.toLowerCase() === POOL_MANAGER.toLowerCase() && l.topics[1] === V4_POOL_ID))
    }
    let found: Opportunity | undefined
    for (let slot = 0; slot < 12 && !found; slot++) {
      await harness.advanceSlot()
      const competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
      const captured = (competition.list as Opportunity[]).filter((o) => o.searcher)
      // A block where the searcher did one thing: its money over the block is that backrun's.
      for (const o of captured) if (captured.filter((x) => x.blockNumber === o.blockNumber).length === 1 && (await throughV4(o))) found ??= o
    }
    expect(found, 'a captured backrun through the V4 pool within 12 slots').toBeDefined()
    const o = found!
    const first = await client.getTransaction({ hash: o.backrunTxs[0]! })
    const [executor, operator] = [first.to!, first.from]
    const n = BigInt(o.blockNumber)
    const at = async (blockNumber: bigint) =>
      (await client.readContract({ address: WETH, abi: erc20, functionName: 'balanceOf', args: [executor], blockNumber })) + (await client.getBalance({ address: executor, blockNumber })) + (await client.getBalance({ address: operator, blockNumber }))
    expect(BigInt(o.profitWei) - BigInt(o.refundWei)).toBe((await at(n)) - (await at(n - 1n)))
    expect(BigInt(o.profitWei)).toBeGreaterThan(0n)
    const receipts = await Promise.all(o.backrunTxs.map((hash) => client.getTransactionReceipt({ hash })))
    const paid = receipts.flatMap((r) => r.logs).filter((l) => l.topics[0] === withdrawal && l.address.toLowerCase() === WETH.toLowerCase()).reduce((sum, l) => sum + BigInt(l.data), 0n)
    expect(BigInt(o.builderPaymentWei)).toBe(paid)
    expect(paid).toBeGreaterThan(0n)
  })
})
