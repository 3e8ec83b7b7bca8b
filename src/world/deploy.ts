import {
  createPublicClient,
  createTestClient,
  encodeDeployData,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  getCreate2Address,
  http,
  keccak256,
  numberToHex,
  toHex,
  parseAbi,
  toBytes,
  encodeAbiParameters,
  type Address,
  type Hex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ARTIFACTS, permit2RuntimeCode, type Artifact } from './artifacts.js'
import { MAINNET, SUSHISWAP_PAIR_INIT_CODE_HASH, UNISWAP_V2_PAIR_INIT_CODE_HASH, UNISWAP_V3_POOL_INIT_CODE_HASH } from '../dex/mainnet.js'
import { fullRangeTicks, liquidityForAmounts, pairAmounts, rangeTicks, sortTokens, sqrtPriceAtTick, sqrtPriceX96, type WorldToken } from './pricing.js'
import { V3_TICK_SPACING, v4TickSpacing, type WorldSpec } from './worldFile.js'
import type { PoolVenue } from '../protocol/harnessStatus.js'
import { v4PoolId, v4PoolKey } from '../dex/universalRouter.js'
import { stateViewAbi } from '../dex/abis.js'
import { setTokenBalance } from './funding.js'
import { nodeClient } from '../chain/nodeRpc.js'
import { moveContract, repointStorage, SetupSender, type SetupStep } from './setupTxs.js'

/** A pool of the world, as `harness_status.world` lists it (a V4 pool's `address` is its PoolId). */
export interface WorldPool {
  dex: PoolVenue
  address: Address
  token0: Address
  token1: Address
  /** V3 and V4 fee (hundredths of a bp); 3000 for V2 and Sushi pairs (0.3 %). */
  fee: number
  /** V4 only. */
  tickSpacing?: number
}

/** What the world put on chain: its contracts, tokens and pools, at their mainnet addresses. */
export interface DeployedWorld {
  name: string
  contracts: typeof MAINNET
  tokens: WorldToken[]
  pools: WorldPool[]
  /** The world's owner: deployer of the scratch copies and the pools' liquidity provider. */
  owner: Address
  /** Blocks mined to set it up (0 when it was already on chain, e.g. a fork of mainnet). */
  setupBlocks: number
}

/**
 * The world as in-process code trades on it (users, rivals, the competition): addresses typed
 * as `Address`, contracts by name. `harness_status.world` is its loose JSON shape, at the wire.
 */
export type WorldOnChain = Pick<DeployedWorld, 'name' | 'contracts' | 'tokens' | 'pools'>

/** The owner key is fixed so the world is the same every run (same txs, same state). */
const OWNER = privateKeyToAccount(keccak256(toBytes('bundlesim DEX world owner')))
/** A deadline no setup block reaches. */
const FAR_FUTURE = 2n ** 48n

const v2FactoryAbi = parseAbi(['function createPair(address tokenA, address tokenB) returns (address pair)', 'function getPair(address tokenA, address tokenB) view returns (address pair)'])
const v3FactoryAbi = parseAbi(['function createPool(address tokenA, address tokenB, uint24 fee) returns (address pool)', 'function enableFeeAmount(uint24 fee, int24 tickSpacing)', 'function feeAmountTickSpacing(uint24 fee) view returns (int24)'])
const pairSyncAbi = parseAbi(['function sync()'])
const v3PoolAbi = parseAbi(['function initialize(uint160 sqrtPriceX96)'])
const poolManagerAbi = parseAbi(['struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }', 'function initialize(PoolKey key, uint160 sqrtPriceX96) returns (int24 tick)'])
const v4PositionManagerAbi = parseAbi(['function modifyLiquidities(bytes unlockData, uint256 deadline) payable'])
const permit2Abi = parseAbi(['function approve(address token, address spender, uint160 amount, uint48 expiration)'])
/** v4-periphery's Actions.sol. */
const V4_MINT_POSITION = 0x02
const V4_SETTLE_PAIR = 0x0d
/** MINT_POSITION's params (PositionManager's decodeMintParams): key, ticks, liquidity, caps, owner, hook data. */
const MINT_POSITION_PARAMS = [
  { type: 'tuple', components: [{ name: 'currency0', type: 'address' }, { name: 'currency1', type: 'address' }, { name: 'fee', type: 'uint24' }, { name: 'tickSpacing', type: 'int24' }, { name: 'hooks', type: 'address' }] },
  { type: 'int24' },
  { type: 'int24' },
  { type: 'uint256' },
  { type: 'uint128' },
  { type: 'uint128' },
  { type: 'address' },
  { type: 'bytes' },
] as const
const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000'
const MAX_UINT256 = 2n ** 256n - 1n
const MAX_UINT160 = 2n ** 160n - 1n
const MAX_UINT48 = 2 ** 48 - 1
/** The etched Permit2 (DeployPermit2.sol) caches chain 31337 and this domain, made for another address. */
const PERMIT2_CACHED_CHAIN_ID = 31337
const PERMIT2_CACHED_DOMAIN: Hex = '0xd5a17abc3865df5c1400c0299bd4ce2eefc8114aec5f9d3dded1745783e57b98'
const erc20Abi = parseAbi(['function approve(address spender, uint256 amount) returns (bool)'])
const routerAbi = parseAbi(['function addLiquidity(address tokenA, address tokenB, uint amountADesired, uint amountBDesired, uint amountAMin, uint amountBMin, address to, uint deadline) returns (uint amountA, uint amountB, uint liquidity)'])
const positionManagerAbi = parseAbi([
  'struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }',
  'function mint(MintParams params) payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)',
])

/** A token of the spec by its symbol (the world file was checked: every pair's symbols are there). */
function tokenOf(spec: WorldSpec, symbol: string): WorldToken {
  return spec.tokens.find((t) => t.symbol === symbol)!
}

/** The CREATE2 address of a Uniswap V2 pair, as mainnet's factory derives it. */
export function uniswapV2PairAddress(a: Address, b: Address): Address {
  const [t0, t1] = sortTokens({ address: a }, { address: b })
  return getCreate2Address({ from: MAINNET.uniswapV2Factory, salt: keccak256(encodePacked(['address', 'address'], [t0.address, t1.address])), bytecodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH })
}

/** The CREATE2 address of a SushiSwap pair, as mainnet's Sushi factory derives it. */
export function sushiswapPairAddress(a: Address, b: Address): Address {
  const [t0, t1] = sortTokens({ address: a }, { address: b })
  return getCreate2Address({ from: MAINNET.sushiswapFactory, salt: keccak256(encodePacked(['address', 'address'], [t0.address, t1.address])), bytecodeHash: SUSHISWAP_PAIR_INIT_CODE_HASH })
}

/** The CREATE2 address of a Uniswap V3 pool, as mainnet's factory derives it. */
export function uniswapV3PoolAddress(a: Address, b: Address, fee: number): Address {
  const [t0, t1] = sortTokens({ address: a }, { address: b })
  const salt = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }], [t0.address, t1.address, fee]))
  return getCreate2Address({ from: MAINNET.uniswapV3Factory, salt, bytecodeHash: UNISWAP_V3_POOL_INIT_CODE_HASH })
}

/** The pools a world spec asks for, with their mainnet addresses. */
export function plannedPools(spec: WorldSpec): WorldPool[] {
  return spec.pairs.flatMap((entry) => {
    const [base, quote] = entry.pair.map((s) => tokenOf(spec, s).address) as [Address, Address]
    const [t0, t1] = sortTokens({ address: base }, { address: quote })
    const v2: WorldPool[] = entry.uniswapV2 ? [{ dex: 'uniswap-v2', address: uniswapV2PairAddress(base, quote), token0: t0.address, token1: t1.address, fee: 3000 }] : []
    const sushi: WorldPool[] = entry.sushiswap ? [{ dex: 'sushiswap', address: sushiswapPairAddress(base, quote), token0: t0.address, token1: t1.address, fee: 3000 }] : []
    const v3: WorldPool[] = (entry.uniswapV3 ?? []).map((p) => ({ dex: 'uniswap-v3', address: uniswapV3PoolAddress(base, quote, p.fee), token0: t0.address, token1: t1.address, fee: p.fee }))
    const v4: WorldPool[] = (entry.uniswapV4 ?? []).map((p) => ({ dex: 'uniswap-v4', address: v4PoolId(v4PoolKey(base, quote, p.fee, v4TickSpacing(p))) as Address, token0: t0.address, token1: t1.address, fee: p.fee, tickSpacing: v4TickSpacing(p) }))
    return [...v2, ...sushi, ...v3, ...v4]
  })
}

/**
 * Deploys the DEX world on a fresh Anvil: WETH9, the tokens and Uniswap V2/V3 from their npm
 * artifacts, moved to their mainnet addresses, then every pool of `spec` created through the
 * factories (so at its mainnet address) and seeded with liquidity by the world's owner. Anvil
 * must not automine: the setup's blocks are mined here, each 1 s after its parent, so the same
 * spec on the same genesis gives the same chain.
 *
 * Where mainnet's contracts already have code (a fork of mainnet, or of a chain that has the
 * world), nothing is deployed: the pools of `spec` that exist there are listed.
 *
 * @example
 * const world = await deployDexWorld(anvilUrl, loadWorldFile('dex'))
 * world.pools[0].address // 0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc (WETH/USDC on V2)
 */
export async function deployDexWorld(anvilUrl: string, spec: WorldSpec): Promise<DeployedWorld> {
  const transport = http(anvilUrl, { timeout: 60_000 })
  const publicClient = createPublicClient({ transport })
  const test = createTestClient({ mode: 'anvil', transport })
  const node = nodeClient(transport)
  const owner = OWNER.address
  const planned = plannedPools(spec)

  if ((await publicClient.getCode({ address: MAINNET.uniswapV2Factory })) !== undefined) {
    const present = []
    const v4 = (await publicClient.getCode({ address: MAINNET.v4StateView })) !== undefined
    for (const pool of planned) {
      // A V4 pool is a record in the PoolManager: there when it has a price.
      if (pool.dex === 'uniswap-v4') {
        if (v4 && (await publicClient.readContract({ address: MAINNET.v4StateView, abi: stateViewAbi, functionName: 'getSlot0', args: [pool.address] }))[0] !== 0n) present.push(pool)
      } else if ((await publicClient.getCode({ address: pool.address })) !== undefined) present.push(pool)
    }
    return { name: spec.name, contracts: MAINNET, tokens: spec.tokens, pools: present, owner, setupBlocks: 0 }
  }

  const setup = await SetupSender.start(anvilUrl, OWNER.address, 'DEX world setup')
  const run = (steps: SetupStep[]) => setup.run(steps)

  // 1. Every contract at a scratch address, constructed with the mainnet addresses it points at.
  const deploys: Array<{ what: string; artifact: Artifact; args: readonly unknown[]; target: Address; decimals?: number; eip712Name?: string }> = [
    { what: 'WETH9', artifact: ARTIFACTS.weth9(), args: [], target: MAINNET.weth },
    ...spec.tokens.filter((t) => t.address !== MAINNET.weth).map((t) => ({ what: t.symbol, artifact: ARTIFACTS.erc20(), args: [t.name ?? tokenName(t.symbol), t.symbol], target: t.address, decimals: t.decimals })),
    { what: 'UniswapV2Factory', artifact: ARTIFACTS.uniswapV2Factory(), args: [owner], target: MAINNET.uniswapV2Factory },
    { what: 'UniswapV2Router02', artifact: ARTIFACTS.uniswapV2Router02(), args: [MAINNET.uniswapV2Factory, MAINNET.weth], target: MAINNET.uniswapV2Router02 },
    { what: 'UniswapV3Factory', artifact: ARTIFACTS.uniswapV3Factory(), args: [], target: MAINNET.uniswapV3Factory },
    { what: 'SwapRouter', artifact: ARTIFACTS.swapRouter(), args: [MAINNET.uniswapV3Factory, MAINNET.weth], target: MAINNET.swapRouter },
    { what: 'QuoterV2', artifact: ARTIFACTS.quoterV2(), args: [MAINNET.uniswapV3Factory, MAINNET.weth], target: MAINNET.quoterV2 },
    // No token descriptor: tokenURI reverts (mainnet's renders an SVG); positions work.
    { what: 'NonfungiblePositionManager', artifact: ARTIFACTS.nonfungiblePositionManager(), args: [MAINNET.uniswapV3Factory, MAINNET.weth, ZERO_ADDRESS], target: MAINNET.nonfungiblePositionManager },
    { what: 'SushiSwap UniswapV2Factory', artifact: ARTIFACTS.sushiswapFactory(), args: [owner], target: MAINNET.sushiswapFactory },
    { what: 'SushiSwap UniswapV2Router02', artifact: ARTIFACTS.sushiswapRouter(), args: [MAINNET.sushiswapFactory, MAINNET.weth], target: MAINNET.sushiswapRouter },
    { what: 'PoolManager', artifact: ARTIFACTS.v4PoolManager(), args: [owner], target: MAINNET.v4PoolManager },
    // No token descriptor here either. 300,000 gas for a subscriber's unsubscribe: mainnet's
    // figure is not in the package (its deploy script takes it as a parameter).
    { what: 'PositionManager', artifact: ARTIFACTS.v4PositionManager(), args: [MAINNET.v4PoolManager, MAINNET.permit2, 300_000n, ZERO_ADDRESS, MAINNET.weth], target: MAINNET.v4PositionManager, eip712Name: 'Uniswap v4 Positions NFT' },
    { what: 'StateView', artifact: ARTIFACTS.v4StateView(), args: [MAINNET.v4PoolManager], target: MAINNET.v4StateView },
    { what: 'V4Quoter', artifact: ARTIFACTS.v4Quoter(), args: [MAINNET.v4PoolManager], target: MAINNET.v4Quoter },
    {
      what: 'UniversalRouter',
      artifact: ARTIFACTS.universalRouter(),
      args: [{ permit2: MAINNET.permit2, weth9: MAINNET.weth, v2Factory: MAINNET.uniswapV2Factory, v3Factory: MAINNET.uniswapV3Factory, pairInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH, poolInitCodeHash: UNISWAP_V3_POOL_INIT_CODE_HASH, v4PoolManager: MAINNET.v4PoolManager, v3NFTPositionManager: MAINNET.nonfungiblePositionManager, v4PositionManager: MAINNET.v4PositionManager }],
      target: MAINNET.universalRouter,
    },
  ]
  const chainId = await publicClient.getChainId()
  const firstNonce = setup.nonce
  const deployHashes = await run(deploys.map((d) => ({ what: `deploying ${d.what}`, gas: 7_000_000n, data: encodeDeployData({ abi: d.artifact.abi, bytecode: d.artifact.bytecode, args: d.args }) })))

  // 2. Moved to the mainnet addresses: code (with its own scratch address, kept by immutables
  // such as V3's NoDelegateCall, rewritten) and the storage its constructor wrote.
  for (const [i, d] of deploys.entries()) {
    const scratch = getContractAddress({ from: owner, nonce: BigInt(firstNonce + i) })
    let code = (await publicClient.getCode({ address: scratch }))!
    // An EIP-712 domain cached at construction hashes the scratch address: rehashed for the target.
    if (d.eip712Name) code = replaceWord(code, eip712Domain(d.eip712Name, chainId, scratch), eip712Domain(d.eip712Name, chainId, d.target), d.what)
    await moveContract(test, node, { code, scratch, target: d.target, deployTx: deployHashes[i]! })
    // OpenZeppelin 3.4's ERC20 keeps `decimals` in slot 5 (18 by its constructor).
    if (d.decimals !== undefined) await test.setStorageAt({ address: d.target, index: numberToHex(5, { size: 32 }), value: numberToHex(d.decimals, { size: 32 }) })
  }
  // Permit2 has no creation code on npm: its runtime is placed, as Uniswap's tests do. Its
  // domain is cached for chain 31337 (and another address); elsewhere it computes it live.
  let permit2 = permit2RuntimeCode()
  if (chainId === PERMIT2_CACHED_CHAIN_ID) permit2 = replaceWord(permit2, PERMIT2_CACHED_DOMAIN, eip712Domain('Permit2', chainId, MAINNET.permit2), 'Permit2')
  await test.setCode({ address: MAINNET.permit2, bytecode: permit2 })

  // 3. Pools through the factories (mainnet enabled the 0.01 % V3 tier in 2021); V4's pools
  // are initialised in the PoolManager, priced.
  const sushiPairs: Array<{ pair: string; a: Address; b: Address }> = []
  const creation = await run([
    { what: 'enabling the 0.01 % V3 fee tier', gas: 100_000n, to: MAINNET.uniswapV3Factory, data: encodeFunctionData({ abi: v3FactoryAbi, functionName: 'enableFeeAmount', args: [100, 1] }) },
    ...spec.pairs.flatMap((entry) => {
      const [a, b] = entry.pair.map((s) => tokenOf(spec, s).address) as [Address, Address]
      if (entry.sushiswap) sushiPairs.push({ pair: entry.pair.join('/'), a, b })
      return [
        ...(entry.uniswapV2 ? [{ what: `creating the V2 pair ${entry.pair.join('/')}`, gas: 3_000_000n, to: MAINNET.uniswapV2Factory, data: encodeFunctionData({ abi: v2FactoryAbi, functionName: 'createPair', args: [a, b] }) }] : []),
        ...(entry.uniswapV3 ?? []).map((p) => ({ what: `creating the V3 pool ${entry.pair.join('/')} ${p.fee}`, gas: 6_000_000n, to: MAINNET.uniswapV3Factory as Address, data: encodeFunctionData({ abi: v3FactoryAbi, functionName: 'createPool', args: [a, b, p.fee] }) })),
      ]
    }),
    // Last, so their hashes are the last ones: each is moved below.
    ...sushiPairs.map(({ pair, a, b }) => ({ what: `creating the SushiSwap pair ${pair}`, gas: 3_000_000n, to: MAINNET.sushiswapFactory as Address, data: encodeFunctionData({ abi: v2FactoryAbi, functionName: 'createPair', args: [a, b] }) })),
  ])
  // No npm package ships the pair code whose hash mainnet's Sushi factory uses (its metadata
  // differs), so each pair lands elsewhere and is moved to its mainnet CREATE2 address; the
  // factory's `getPair` and `allPairs` follow, and the pair's LP-token permit domain is rehashed.
  for (const [i, { a, b }] of sushiPairs.entries()) {
    const tx = creation[creation.length - sushiPairs.length + i]!
    const scratch = await publicClient.readContract({ address: MAINNET.sushiswapFactory, abi: v2FactoryAbi, functionName: 'getPair', args: [a, b] })
    const target = sushiswapPairAddress(a, b)
    await moveContract(test, node, { code: (await publicClient.getCode({ address: scratch }))!, scratch, target, deployTx: tx, rewrite: [[sushiDomain(chainId, scratch), sushiDomain(chainId, target)]] })
    await repointStorage(test, node, { contract: MAINNET.sushiswapFactory, tx, from: scratch, to: target })
  }

  // 4. Prices, approvals, and the owner's tokens (written to storage: no mint in a standard ERC-20).
  const needed = new Map<Address, bigint>()
  const initialize: SetupStep[] = []
  const liquidity: SetupStep[] = []
  for (const entry of spec.pairs) {
    const [base, quote] = entry.pair.map((s) => tokenOf(spec, s)) as [WorldToken, WorldToken]
    const add = (amounts: { base: bigint; quote: bigint }) => {
      needed.set(base.address, (needed.get(base.address) ?? 0n) + amounts.base)
      needed.set(quote.address, (needed.get(quote.address) ?? 0n) + amounts.quote)
    }
    const [token0, token1] = sortTokens(base, quote)
    /** A side's amounts as the pool orders its tokens. */
    const ordered = (amounts: { base: bigint; quote: bigint }): [bigint, bigint] => (token0 === base ? [amounts.base, amounts.quote] : [amounts.quote, amounts.base])
    for (const [dex, v2] of [['uniswap-v2', entry.uniswapV2], ['sushiswap', entry.sushiswap]] as const) {
      if (!v2) continue
      const amounts = pairAmounts(base, quote, entry.price, v2.depth)
      add(amounts)
      liquidity.push({
        what: `seeding the ${dex === 'sushiswap' ? 'SushiSwap' : 'V2'} pair ${entry.pair.join('/')}`,
        gas: 500_000n,
        to: dex === 'sushiswap' ? MAINNET.sushiswapRouter : MAINNET.uniswapV2Router02,
        data: encodeFunctionData({ abi: routerAbi, functionName: 'addLiquidity', args: [base.address, quote.address, amounts.base, amounts.quote, 0n, 0n, owner, FAR_FUTURE] }),
      })
    }
    const spot = ordered(pairAmounts(base, quote, entry.price, '1'))
    for (const pool of entry.uniswapV3 ?? []) {
      const spacing = V3_TICK_SPACING[pool.fee]!
      initialize.push({
        what: `pricing the V3 pool ${entry.pair.join('/')} ${pool.fee}`,
        gas: 300_000n,
        to: uniswapV3PoolAddress(base.address, quote.address, pool.fee),
        data: encodeFunctionData({ abi: v3PoolAbi, functionName: 'initialize', args: [sqrtPriceX96(...spot)] }),
      })
      for (const position of positionsOf(pool, spot, spacing)) {
        const amounts = pairAmounts(base, quote, entry.price, position.depth)
        const [amount0, amount1] = ordered(amounts)
        add(amounts)
        liquidity.push({
          what: `seeding the V3 pool ${entry.pair.join('/')} ${pool.fee} (${position.what})`,
          gas: 1_000_000n,
          to: MAINNET.nonfungiblePositionManager,
          data: encodeFunctionData({
            abi: positionManagerAbi,
            functionName: 'mint',
            args: [{ token0: token0.address, token1: token1.address, fee: pool.fee, tickLower: position.tickLower, tickUpper: position.tickUpper, amount0Desired: amount0, amount1Desired: amount1, amount0Min: 0n, amount1Min: 0n, recipient: owner, deadline: FAR_FUTURE }],
          }),
        })
      }
    }
    for (const pool of entry.uniswapV4 ?? []) {
      const spacing = v4TickSpacing(pool)
      const key = v4PoolKey(base.address, quote.address, pool.fee, spacing)
      const sqrtPrice = sqrtPriceX96(...spot)
      initialize.push({ what: `pricing the V4 pool ${entry.pair.join('/')} ${pool.fee}/${spacing}`, gas: 300_000n, to: MAINNET.v4PoolManager, data: encodeFunctionData({ abi: poolManagerAbi, functionName: 'initialize', args: [key, sqrtPrice] }) })
      const actions: number[] = []
      const params: Hex[] = []
      for (const position of positionsOf(pool, spot, spacing)) {
        const amounts = pairAmounts(base, quote, entry.price, position.depth)
        const [amount0, amount1] = ordered(amounts)
        add(amounts)
        // The position's liquidity from its amounts, a hair under so the pool's exact amounts fit the caps.
        const liquidityOf = liquidityForAmounts(sqrtPrice, sqrtPriceAtTick(position.tickLower), sqrtPriceAtTick(position.tickUpper), amount0, amount1)
        actions.push(V4_MINT_POSITION)
        params.push(encodeAbiParameters(MINT_POSITION_PARAMS, [key, position.tickLower, position.tickUpper, liquidityOf - liquidityOf / 1000n, amount0, amount1, owner, '0x']))
      }
      actions.push(V4_SETTLE_PAIR)
      params.push(encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [key.currency0, key.currency1]))
      liquidity.push({
        what: `seeding the V4 pool ${entry.pair.join('/')} ${pool.fee}/${spacing}`,
        gas: 2_000_000n,
        to: MAINNET.v4PositionManager,
        data: encodeFunctionData({ abi: v4PositionManagerAbi, functionName: 'modifyLiquidities', args: [encodeAbiParameters([{ type: 'bytes' }, { type: 'bytes[]' }], [toHex(new Uint8Array(actions)), params]), FAR_FUTURE] }),
      })
    }
  }
  for (const [token, amount] of needed) await setTokenBalance(anvilUrl, token, owner, amount)
  // V4's PositionManager takes tokens through Permit2, the others by allowance.
  const approvals: SetupStep[] = spec.tokens.flatMap((t) => [
    ...[MAINNET.uniswapV2Router02, MAINNET.sushiswapRouter, MAINNET.nonfungiblePositionManager, MAINNET.permit2].map((spender) => ({ what: `approving ${t.symbol}`, gas: 100_000n, to: t.address, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, MAX_UINT256] }) })),
    { what: `approving ${t.symbol} on Permit2`, gas: 100_000n, to: MAINNET.permit2, data: encodeFunctionData({ abi: permit2Abi, functionName: 'approve', args: [t.address, MAINNET.v4PositionManager, MAX_UINT160, MAX_UINT48] }) },
  ])
  await run([...initialize, ...approvals])
  // 5. Liquidity.
  await run(liquidity)
  // 6. As on mainnet, every pool has been touched before the head: V2's price accumulators are
  // non-zero (sync) and no pool was last written in the head block. Otherwise a bot's
  // eth_estimateGas on the head (whose timestamp the pool's last update shares) leaves out the
  // accumulator and oracle writes its swap makes in the next block: ~45k gas short, out of gas.
  const pairs = planned.filter((p) => p.dex === 'uniswap-v2' || p.dex === 'sushiswap')
  if (pairs.length > 0) await run(pairs.map((p) => ({ what: `syncing the ${p.dex} pair ${p.address}`, gas: 200_000n, to: p.address, data: encodeFunctionData({ abi: pairSyncAbi, functionName: 'sync' }) })))
  await setup.mine()
  await setup.finish()
  return { name: spec.name, contracts: MAINNET, tokens: spec.tokens, pools: planned, owner, setupBlocks: setup.blocks }
}

/** A pool's positions: the full range of `depth`, then each of `ranges` around the price. */
function positionsOf(pool: { depth: string; ranges?: ReadonlyArray<{ pct: number; depth: string }> }, spot: [bigint, bigint], spacing: number) {
  return [
    { what: 'full range', depth: pool.depth, ...fullRangeTicks(spacing) },
    ...(pool.ranges ?? []).map((r) => ({ what: `±${r.pct} %`, depth: r.depth, ...rangeTicks(spot[0], spot[1], r.pct, spacing) })),
  ]
}

/** `code` with its one occurrence of the 32-byte `from` replaced by `to` (more or none is a different build: refused). */
function replaceWord(code: Hex, from: Hex, to: Hex, what: string): Hex {
  const parts = code.toLowerCase().split(from.slice(2).toLowerCase())
  if (parts.length !== 2) throw new Error(`DEX world setup: ${what}'s cached EIP-712 domain found ${parts.length - 1} times in its code, expected once`)
  return parts.join(to.slice(2).toLowerCase()) as Hex
}

/** EIP-712's domain separator as Uniswap's EIP712_v4 and Permit2 build it: name, chain id, contract. */
function eip712Domain(name: string, chainId: number, contract: Address): Hex {
  const typeHash = keccak256(toBytes('EIP712Domain(string name,uint256 chainId,address verifyingContract)'))
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }], [typeHash, keccak256(toBytes(name)), BigInt(chainId), contract]))
}

/** A SushiSwap pair's LP-token permit domain (its UniswapV2ERC20 constructor: name, version 1, chain id, the pair). */
function sushiDomain(chainId: number, pair: Address): Hex {
  const typeHash = keccak256(toBytes('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'))
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }], [typeHash, keccak256(toBytes('SushiSwap LP Token')), keccak256(toBytes('1')), BigInt(chainId), pair]))
}

function tokenName(symbol: string): string {
  return ({ USDC: 'USD Coin', USDT: 'Tether USD', DAI: 'Dai Stablecoin', WBTC: 'Wrapped BTC' } as Record<string, string>)[symbol] ?? symbol
}
