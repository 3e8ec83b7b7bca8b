import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPublicClient, createWalletClient, defineChain, encodeAbiParameters, encodePacked, formatUnits, getCreate2Address, http, keccak256, parseAbi, parseEther, type Address } from 'viem'
import { DEV_KEYS, accountOf, rpc, useTestHarness } from './support/harness.js'
import { launchAnvil } from '../src/chain/launchAnvil.js'
import { deployDexWorld } from '../src/world/deploy.js'
import { loadWorldFile, WorldFileError } from '../src/world/worldFile.js'
import { pairAmounts, sqrtBigInt, sqrtPriceX96 } from '../src/world/pricing.js'

// What a mainnet bot hardcodes: nothing below comes from bundlesim.
const ROUTER02: Address = '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D'
const V2_FACTORY: Address = '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f'
const V3_FACTORY: Address = '0x1F98431c8aD98523631AE4a59f267346ea31F984'
const QUOTER_V2: Address = '0x61fFE014bA17989E743c5F6cB21bF9697530B21e'
const WETH: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const USDC: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const V2_INIT_CODE_HASH = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'
const V3_INIT_CODE_HASH = '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54'
/** Etherscan's addresses of mainnet's WETH/USDC pools. */
const MAINNET_WETH_USDC_V2 = '0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc'
const MAINNET_USDC_WETH_V3_005 = '0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640'

const pairAbi = parseAbi(['function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)', 'function token0() view returns (address)'])
const factoryAbi = parseAbi(['function getPair(address, address) view returns (address)'])
const v3FactoryAbi = parseAbi(['function getPool(address, address, uint24) view returns (address)'])
const routerAbi = parseAbi(['function swapExactETHForTokens(uint amountOutMin, address[] path, address to, uint deadline) payable returns (uint[] amounts)'])
const quoterAbi = parseAbi([
  'struct QuoteExactInputSingleParams { address tokenIn; address tokenOut; uint256 amountIn; uint24 fee; uint160 sqrtPriceLimitX96; }',
  'function quoteExactInputSingle(QuoteExactInputSingleParams params) returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate)',
])
const erc20Abi = parseAbi(['function balanceOf(address) view returns (uint256)', 'function decimals() view returns (uint8)', 'function symbol() view returns (string)', 'function totalSupply() view returns (uint256)'])

const devnet = defineChain({ id: 31337, name: 'bundlesim', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } })

describe('the DEX world at mainnet addresses (--world dex)', () => {
  const harness = useTestHarness({ world: 'dex' })
  const client = () => createPublicClient({ chain: devnet, transport: http(harness.rpcUrl) })

  it('a bot with mainnet addresses hardcoded finds the WETH/USDC pair by CREATE2, reads its reserves and swaps through Router02', async () => {
    const publicClient = client()
    const [token0, token1] = BigInt(WETH) < BigInt(USDC) ? [WETH, USDC] : [USDC, WETH]
    const pair = getCreate2Address({ from: V2_FACTORY, salt: keccak256(encodePacked(['address', 'address'], [token0, token1])), bytecodeHash: V2_INIT_CODE_HASH })
    expect(pair).toBe(MAINNET_WETH_USDC_V2)
    expect(await publicClient.readContract({ address: V2_FACTORY, abi: factoryAbi, functionName: 'getPair', args: [WETH, USDC] })).toBe(pair)
    const [reserve0, reserve1] = await publicClient.readContract({ address: pair, abi: pairAbi, functionName: 'getReserves' })
    const [usdc, weth] = token0 === USDC ? [reserve0, reserve1] : [reserve1, reserve0]
    const price = Number(formatUnits(usdc, 6)) / Number(formatUnits(weth, 18))
    expect(price).toBeCloseTo(3000, 0)

    const bot = accountOf(DEV_KEYS[3])
    const wallet = createWalletClient({ account: bot, chain: devnet, transport: http(harness.rpcUrl) })
    const before = await publicClient.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [bot.address] })
    const hash = await wallet.writeContract({ address: ROUTER02, abi: routerAbi, functionName: 'swapExactETHForTokens', args: [0n, [WETH, USDC], bot.address, 2n ** 40n], value: parseEther('1') })
    const [report] = await harness.advanceSlot()
    expect(report!.mempoolTxs).toContain(hash)
    expect((await publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    const received = (await publicClient.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [bot.address] })) - before
    // 1 ETH at ~3,000 less the 0.3 % fee and the pair's move (2,000 ETH deep: ~0.05 %).
    expect(Number(formatUnits(received, 6))).toBeGreaterThan(2980)
    expect(Number(formatUnits(received, 6))).toBeLessThan(3000)
  })

  it('QuoterV2 quotes on the 0.05 % WETH/USDC pool, which sits at its mainnet address', async () => {
    const publicClient = client()
    const [token0, token1] = BigInt(WETH) < BigInt(USDC) ? [WETH, USDC] : [USDC, WETH]
    const salt = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }], [token0, token1, 500]))
    const pool = getCreate2Address({ from: V3_FACTORY, salt, bytecodeHash: V3_INIT_CODE_HASH })
    expect(pool).toBe(MAINNET_USDC_WETH_V3_005)
    expect(await publicClient.readContract({ address: V3_FACTORY, abi: v3FactoryAbi, functionName: 'getPool', args: [USDC, WETH, 500] })).toBe(pool)
    const { result } = await publicClient.simulateContract({ address: QUOTER_V2, abi: quoterAbi, functionName: 'quoteExactInputSingle', args: [{ tokenIn: WETH, tokenOut: USDC, amountIn: parseEther('1'), fee: 500, sqrtPriceLimitX96: 0n }] })
    const out = Number(formatUnits(result[0], 6))
    expect(out).toBeGreaterThan(2995)
    expect(out).toBeLessThan(3000)
  })

  it('the tokens have their mainnet symbols and decimals; harness_setTokenBalance funds any account', async () => {
    const publicClient = client()
    const status = (await rpc(harness.rpcUrl, 'harness_status')).body.result
    expect(status.world.pools).toHaveLength(19)
    expect(status.world.tokens.map((t: { symbol: string; decimals: number }) => `${t.symbol}:${t.decimals}`)).toEqual(['WETH:18', 'USDC:6', 'USDT:6', 'DAI:18', 'WBTC:8'])
    for (const token of status.world.tokens) {
      expect(await publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: 'decimals' })).toBe(token.decimals)
      expect(await publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: 'symbol' })).toBe(token.symbol)
    }
    const alice = accountOf(DEV_KEYS[4]).address
    const supplyBefore = await publicClient.readContract({ address: USDC, abi: erc20Abi, functionName: 'totalSupply' })
    const funded = await rpc(harness.rpcUrl, 'harness_setTokenBalance', [{ address: alice, token: 'USDC', amount: '1234.5' }])
    expect(funded.body.result).toMatchObject({ symbol: 'USDC', raw: '1234500000' })
    expect(await publicClient.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [alice] })).toBe(1_234_500_000n)
    expect(await publicClient.readContract({ address: USDC, abi: erc20Abi, functionName: 'totalSupply' })).toBe(supplyBefore + 1_234_500_000n)
    // WETH stays redeemable: its ether follows the balance.
    await rpc(harness.rpcUrl, 'harness_setTokenBalance', [{ address: alice, token: WETH, amount: 2 }])
    expect(await publicClient.readContract({ address: WETH, abi: erc20Abi, functionName: 'balanceOf', args: [alice] })).toBe(parseEther('2'))
    expect(await publicClient.readContract({ address: WETH, abi: erc20Abi, functionName: 'totalSupply' })).toBe(await publicClient.getBalance({ address: WETH }))

    const unknown = await rpc(harness.rpcUrl, 'harness_setTokenBalance', [{ address: alice, token: 'USDX', amount: '1' }])
    expect(unknown.body.error).toMatchObject({ code: -32602 })
    expect(unknown.body.error!.message).toMatch(/^token: unknown token "USDX"; the world has WETH, USDC, USDT, DAI, WBTC/)
    const tooFine = await rpc(harness.rpcUrl, 'harness_setTokenBalance', [{ address: alice, token: 'USDC', amount: '0.0000001' }])
    expect(tooFine.body.error!.message).toBe('amount: USDC has 6 decimals, "0.0000001" has 7')
  })
})

describe('the world file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bundlesim-world-'))
  const write = (name: string, text: string) => {
    const file = path.join(dir, name)
    writeFileSync(file, text)
    return file
  }
  const problem = (text: string) => {
    try {
      loadWorldFile(write('w.yaml', text))
    } catch (error) {
      expect(error).toBeInstanceOf(WorldFileError)
      return `${(error as WorldFileError).field}: ${(error as WorldFileError).problem}`
    }
    throw new Error('the world file was accepted')
  }

  it('names the field of every mistake', () => {
    expect(problem('pools:\n  - pair: [WETH, USDX]\n    price: 1\n    uniswapV2: { depth: 1 }\n')).toBe('pools[0].pair[1]: unknown token "USDX" (did you mean USDC?); the world has WETH, USDC, USDT, DAI, WBTC (declare others under tokens: { symbol, address, decimals })')
    expect(problem('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapV2: { depth: 0 }\n')).toMatch(/^pools\[0\]\.uniswapV2\.depth: .*must be above 0 \(a pool with no liquidity/)
    expect(problem('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapv2: { depth: 1 }\n')).toBe('pools[0]: unknown field uniswapv2 (known: pair, price, uniswapV2, sushiswap, uniswapV3, uniswapV4)')
    expect(problem('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapV3: [{ fee: 250, depth: 1 }]\n')).toBe('pools[0].uniswapV3[0].fee: fee tier 250 is not enabled on Uniswap V3 (100, 500, 3000 or 10000)')
    expect(problem('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n')).toBe('pools[0]: none of uniswapV2, sushiswap, uniswapV3, uniswapV4: no pool to seed')
    expect(() => loadWorldFile(path.join(dir, 'missing.yaml'))).toThrow(/world: cannot read the world file \(ENOENT\)/)
  })

  it('a token of the file’s own: declared by mainnet address, symbol and decimals, pools on it; mistakes named', () => {
    const pepe = 'tokens:\n  - { symbol: PEPE, address: "0x6982508145454ce325ddbe47a25d4ec3d2311933", decimals: 18 }\n'
    const world = loadWorldFile(write('pepe.yaml', `${pepe}pools:\n  - pair: [WETH, PEPE]\n    price: 300000000\n    uniswapV2: { depth: 100 }\n`))
    expect(world.tokens.at(-1)).toEqual({ symbol: 'PEPE', address: '0x6982508145454Ce325dDbE47a25d4ec3d2311933', decimals: 18 })
    expect(problem('pools:\n  - pair: [WETH, PEPE]\n    price: 1\n    uniswapV2: { depth: 1 }\n')).toBe('pools[0].pair[1]: unknown token "PEPE"; the world has WETH, USDC, USDT, DAI, WBTC (declare others under tokens: { symbol, address, decimals })')
    expect(problem(`${pepe.replace('PEPE', 'USDC')}pools:\n  - pair: [WETH, USDC]\n    price: 1\n    uniswapV2: { depth: 1 }\n`)).toBe('tokens[0].symbol: USDC is built in (at 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48); declare only other tokens')
    expect(problem(`${pepe.replace('0x6982508145454ce325ddbe47a25d4ec3d2311933', '0x7a250d5630b4cf539739df2c5dacb4c659f2488d')}pools:\n  - pair: [WETH, PEPE]\n    price: 1\n    uniswapV2: { depth: 1 }\n`)).toBe('tokens[0].address: 0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D is already one of the world\'s contracts or tokens')
    expect(problem(`${pepe.replace('decimals: 18', 'decimals: 40')}pools:\n  - pair: [WETH, PEPE]\n    price: 1\n    uniswapV2: { depth: 1 }\n`)).toBe('tokens[0].decimals: expected decimals from 0 to 36')
  })

  it('the built-in world has the four WETH pairs on V2 and on V3 at 0.05 % and 0.3 %, three on SushiSwap, two on V4, and two stablecoin pools at 0.01 %', () => {
    const world = loadWorldFile('dex')
    expect(world.pairs.map((p) => p.pair.join('/'))).toEqual(['WETH/USDC', 'WETH/USDT', 'WETH/DAI', 'WBTC/WETH', 'USDC/USDT', 'DAI/USDC'])
    for (const pair of world.pairs.slice(0, 4)) expect([pair.uniswapV2 !== undefined, ...(pair.uniswapV3 ?? []).map((p) => p.fee)]).toEqual([true, 500, 3000])
    expect(world.pairs.filter((p) => p.sushiswap).map((p) => p.pair.join('/'))).toEqual(['WETH/USDC', 'WETH/DAI', 'WBTC/WETH'])
    expect(world.pairs.flatMap((p) => (p.uniswapV4 ?? []).map((v4) => `${p.pair.join('/')} ${v4.fee}`))).toEqual(['WETH/USDC 500', 'WETH/USDT 3000'])
  })

  it('names the field of a mistake in the new venues', () => {
    expect(problem('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapV4: [{ fee: 1234, depth: 1 }]\n')).toBe('pools[0].uniswapV4[0].tickSpacing: fee 1234 has no usual tick spacing: give tickSpacing')
    expect(problem('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapV4: [{ fee: 500, depth: 1 }, { fee: 500, tickSpacing: 10, depth: 2 }]\n')).toBe('pools[0].uniswapV4[1].fee: fee 500 with tick spacing 10 twice for USDC/WETH (one V4 pool)')
    expect(problem('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    uniswapV3: [{ fee: 500, depth: 1, ranges: [{ pct: 0, depth: 1 }] }]\n')).toBe('pools[0].uniswapV3[0].ranges[0].pct: expected pct above 0 and below 100 (±pct % around the price)')
    expect(problem('pools:\n  - pair: [WETH, USDC]\n    price: 3000\n    sushiswap: { depth: 1, fee: 3000 }\n')).toBe('pools[0].sushiswap: unknown field fee (known: depth)')
  })
})

describe('a token declared by address is tradable: users of the market swap it, a bot buys it through Router02', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bundlesim-pepe-'))
  const PEPE: Address = '0x6982508145454Ce325dDbE47a25d4ec3d2311933'
  const worldFile = path.join(dir, 'pepe.yaml')
  writeFileSync(
    worldFile,
    'tokens:\n  - { symbol: PEPE, address: "0x6982508145454Ce325dDbE47a25d4ec3d2311933", decimals: 18, name: Pepe }\npools:\n  - pair: [WETH, PEPE]\n    price: 300000000\n    uniswapV2: { depth: 1000 }\n    uniswapV3: [{ fee: 3000, depth: 1000 }]\n',
  )
  const flow = { seed: 3, users: { count: 4, swapsPerSlot: 3, size: { median: 1, sigma: 0.3 }, slippageBps: 100, channels: { public: 1 }, pairs: { 'WETH/PEPE': 1 } } }
  const harness = useTestHarness({ world: worldFile, flow })

  it('PEPE is an ERC-20 at its mainnet address with its decimals; users’ swaps on its pools land; a bot’s swap gets PEPE', async () => {
    const client = createPublicClient({ transport: http(harness.rpcUrl) })
    expect(await client.readContract({ address: PEPE, abi: erc20Abi, functionName: 'symbol' })).toBe('PEPE')
    expect(await client.readContract({ address: PEPE, abi: erc20Abi, functionName: 'decimals' })).toBe(18)
    const pair = (await client.readContract({ address: V2_FACTORY, abi: factoryAbi, functionName: 'getPair', args: [WETH, PEPE] })) as Address
    expect(harness.status().world!.pools.map((p) => p.address)).toContain(pair)
    const [reports] = [await harness.advanceSlot(2)]
    // Users' swaps on the PEPE pools landed and traded (a later one in a block may hit its slippage limit, as on mainnet).
    const swaps = reports.flatMap((r) => r.mempoolTxs)
    const receipts = await Promise.all(swaps.map((hash) => client.getTransactionReceipt({ hash })))
    const traded = receipts.filter((r) => r.status === 'success' && r.logs.some((log) => log.address.toLowerCase() === PEPE.toLowerCase()))
    expect(traded.length).toBeGreaterThan(0)
    // A bot hardcoding PEPE's address buys it through Router02.
    const bot = accountOf(DEV_KEYS[1])
    const wallet = createWalletClient({ account: bot, chain: devnet, transport: http(harness.rpcUrl) })
    const before = await client.readContract({ address: PEPE, abi: erc20Abi, functionName: 'balanceOf', args: [bot.address] })
    const head = await client.getBlock()
    const hash = await wallet.writeContract({ address: ROUTER02, abi: routerAbi, functionName: 'swapExactETHForTokens', args: [1n, [WETH, PEPE], bot.address, head.timestamp + 600n], value: parseEther('1'), gas: 200_000n })
    await harness.advanceSlot()
    expect((await client.getTransactionReceipt({ hash })).status).toBe('success')
    const bought = (await client.readContract({ address: PEPE, abi: erc20Abi, functionName: 'balanceOf', args: [bot.address] })) - before
    // About 300M PEPE for 1 ETH, less the fee and the users' moves.
    expect(Number(formatUnits(bought, 18))).toBeGreaterThan(250_000_000)
  })
})

describe('world pricing (pure)', () => {
  it('seeds a pair at its price in each token’s decimals', () => {
    const weth = { symbol: 'WETH', address: WETH, decimals: 18 }
    const usdc = { symbol: 'USDC', address: USDC, decimals: 6 }
    expect(pairAmounts(weth, usdc, '3000', '2')).toEqual({ base: 2n * 10n ** 18n, quote: 6000n * 10n ** 6n })
    expect(pairAmounts(weth, usdc, '2999.5', '0.5')).toEqual({ base: 5n * 10n ** 17n, quote: 1_499_750_000n })
  })

  it('prices a V3 pool as √(token1/token0) in Q64.96', () => {
    // USDC (token0) against WETH (token1) at 3,000: 1 USDC-unit buys 1e12/3000 WETH-units.
    const sqrt = sqrtPriceX96(3000n * 10n ** 6n, 10n ** 18n)
    const price = (Number(sqrt) / 2 ** 96) ** 2
    expect(price).toBeCloseTo(1e12 / 3000, -3)
    expect(sqrtBigInt(10n ** 36n)).toBe(10n ** 18n)
    expect(sqrtBigInt(99n)).toBe(9n)
  })
})

describe('the same world every run', () => {
  it('two deployments on the same genesis give the same chain', async () => {
    const hashes = []
    for (let run = 0; run < 2; run++) {
      const anvil = await launchAnvil({ host: '127.0.0.1', port: 0, chainId: 31337, timestamp: 1_700_000_000 })
      try {
        const world = await deployDexWorld(anvil.url, loadWorldFile('dex'))
        const head = await createPublicClient({ transport: http(anvil.url) }).getBlock()
        hashes.push({ hash: head.hash, setupBlocks: world.setupBlocks })
      } finally {
        await anvil.stop()
      }
    }
    expect(hashes[0]!.setupBlocks).toBeGreaterThan(0)
    expect(hashes[1]).toEqual(hashes[0])
  })
})
