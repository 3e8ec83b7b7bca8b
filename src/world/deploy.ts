import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  getCreate2Address,
  http,
  keccak256,
  numberToHex,
  parseAbi,
  toBytes,
  encodeAbiParameters,
  type Address,
  type Hash,
  type Hex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ARTIFACTS, type Artifact } from './artifacts.js'
import { MAINNET, UNISWAP_V2_PAIR_INIT_CODE_HASH, UNISWAP_V3_POOL_INIT_CODE_HASH } from './mainnet.js'
import { fullRangeTicks, pairAmounts, sortTokens, sqrtPriceX96, type WorldToken } from './pricing.js'
import { V3_TICK_SPACING, type WorldSpec } from './worldFile.js'
import { setTokenBalance } from './funding.js'
import { nodeClient, PRESTATE_DIFF } from '../chain/nodeRpc.js'

/** A pool of the world, as `harness_status.world` lists it. */
export interface WorldPool {
  dex: 'uniswap-v2' | 'uniswap-v3'
  address: Address
  token0: Address
  token1: Address
  /** V3 fee tier (hundredths of a bp); 3000 for V2 pairs (0.3 %). */
  fee: number
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

/** The owner key is fixed so the world is the same every run (same txs, same state). */
const OWNER = privateKeyToAccount(keccak256(toBytes('bundlesim DEX world owner')))
/** A deadline no setup block reaches. */
const FAR_FUTURE = 2n ** 48n

const v2FactoryAbi = parseAbi(['function createPair(address tokenA, address tokenB) returns (address pair)'])
const v3FactoryAbi = parseAbi(['function createPool(address tokenA, address tokenB, uint24 fee) returns (address pool)', 'function enableFeeAmount(uint24 fee, int24 tickSpacing)', 'function feeAmountTickSpacing(uint24 fee) view returns (int24)'])
const pairSyncAbi = parseAbi(['function sync()'])
const v3PoolAbi = parseAbi(['function initialize(uint160 sqrtPriceX96)'])
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
    const v3: WorldPool[] = (entry.uniswapV3 ?? []).map((p) => ({ dex: 'uniswap-v3', address: uniswapV3PoolAddress(base, quote, p.fee), token0: t0.address, token1: t1.address, fee: p.fee }))
    return [...v2, ...v3]
  })
}

interface Step {
  what: string
  to?: Address
  data: Hex
  /** Generous for its kind (measured: V3's factory deploys in 5.1M, a pool in 4.9M). */
  gas: bigint
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
  const wallet = createWalletClient({ account: OWNER.address, transport })
  const owner = OWNER.address
  const planned = plannedPools(spec)

  if ((await publicClient.getCode({ address: MAINNET.uniswapV2Factory })) !== undefined) {
    const present = []
    for (const pool of planned) if ((await publicClient.getCode({ address: pool.address })) !== undefined) present.push(pool)
    return { name: spec.name, contracts: MAINNET, tokens: spec.tokens, pools: present, owner, setupBlocks: 0 }
  }

  let setupBlocks = 0
  let nonce = await publicClient.getTransactionCount({ address: owner })
  await test.impersonateAccount({ address: owner })
  await test.setBalance({ address: owner, value: 10n ** 24n })

  /** Sends `steps` in order (each estimated against the last mined state), a block's gas limit of them per block, and checks every receipt. */
  const run = async (steps: Step[]): Promise<Hash[]> => {
    const gasLimit = (await publicClient.getBlock()).gasLimit
    const hashes: Hash[] = []
    let blockGas = 0n
    const mine = async () => {
      const head = await publicClient.getBlock()
      await node.request({ method: 'evm_mine', params: [numberToHex(head.timestamp + 1n)] })
      setupBlocks++
      blockGas = 0n
    }
    for (const step of steps) {
      // A fixed gas limit per kind of step, not an estimate: Anvil estimates against its
      // wall clock, so estimates (and so the txs and the chain) would differ between runs.
      const gas = step.gas
      // Anvil drops, rather than carries over, pool txs that do not fit the block it mines.
      if (blockGas + gas > gasLimit) await mine()
      blockGas += gas
      hashes.push(await wallet.sendTransaction({ chain: null, to: step.to ?? null, data: step.data, gas, nonce: nonce++ }))
    }
    await mine()
    for (const [i, hash] of hashes.entries()) {
      const receipt = await publicClient.getTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`DEX world setup: ${steps[i]!.what} reverted (tx ${hash})`)
    }
    return hashes
  }

  // 1. Every contract at a scratch address, constructed with the mainnet addresses it points at.
  const deploys: Array<{ what: string; artifact: Artifact; args: readonly unknown[]; target: Address; decimals?: number }> = [
    { what: 'WETH9', artifact: ARTIFACTS.weth9(), args: [], target: MAINNET.weth },
    ...spec.tokens.filter((t) => t.address !== MAINNET.weth).map((t) => ({ what: t.symbol, artifact: ARTIFACTS.erc20(), args: [t.name ?? tokenName(t.symbol), t.symbol], target: t.address, decimals: t.decimals })),
    { what: 'UniswapV2Factory', artifact: ARTIFACTS.uniswapV2Factory(), args: [owner], target: MAINNET.uniswapV2Factory },
    { what: 'UniswapV2Router02', artifact: ARTIFACTS.uniswapV2Router02(), args: [MAINNET.uniswapV2Factory, MAINNET.weth], target: MAINNET.uniswapV2Router02 },
    { what: 'UniswapV3Factory', artifact: ARTIFACTS.uniswapV3Factory(), args: [], target: MAINNET.uniswapV3Factory },
    { what: 'SwapRouter', artifact: ARTIFACTS.swapRouter(), args: [MAINNET.uniswapV3Factory, MAINNET.weth], target: MAINNET.swapRouter },
    { what: 'QuoterV2', artifact: ARTIFACTS.quoterV2(), args: [MAINNET.uniswapV3Factory, MAINNET.weth], target: MAINNET.quoterV2 },
    // No token descriptor: tokenURI reverts (mainnet's renders an SVG); positions work.
    { what: 'NonfungiblePositionManager', artifact: ARTIFACTS.nonfungiblePositionManager(), args: [MAINNET.uniswapV3Factory, MAINNET.weth, '0x0000000000000000000000000000000000000000'], target: MAINNET.nonfungiblePositionManager },
  ]
  const firstNonce = nonce
  const deployHashes = await run(deploys.map((d) => ({ what: `deploying ${d.what}`, gas: 7_000_000n, data: encodeDeployData({ abi: d.artifact.abi, bytecode: d.artifact.bytecode, args: d.args }) })))

  // 2. Moved to the mainnet addresses: code (with its own scratch address, kept by immutables
  // such as V3's NoDelegateCall, rewritten) and the storage its constructor wrote.
  for (const [i, d] of deploys.entries()) {
    const scratch = getContractAddress({ from: owner, nonce: BigInt(firstNonce + i) })
    const code = (await publicClient.getCode({ address: scratch }))!
    const moved = code.toLowerCase().replaceAll(scratch.slice(2).toLowerCase(), d.target.slice(2).toLowerCase()) as Hex
    await test.setCode({ address: d.target, bytecode: moved })
    const diff = await node.request({ method: 'debug_traceTransaction', params: [deployHashes[i]!, PRESTATE_DIFF] })
    const storage = Object.entries(diff.post).find(([address]) => address.toLowerCase() === scratch.toLowerCase())?.[1].storage ?? {}
    for (const [slot, value] of Object.entries(storage)) await test.setStorageAt({ address: d.target, index: slot as Hex, value })
    // OpenZeppelin 3.4's ERC20 keeps `decimals` in slot 5 (18 by its constructor).
    if (d.decimals !== undefined) await test.setStorageAt({ address: d.target, index: numberToHex(5, { size: 32 }), value: numberToHex(d.decimals, { size: 32 }) })
    await test.setCode({ address: scratch, bytecode: '0x' })
  }

  // 3. Pools through the factories (mainnet enabled the 0.01 % tier in 2021).
  await run([
    { what: 'enabling the 0.01 % V3 fee tier', gas: 100_000n, to: MAINNET.uniswapV3Factory, data: encodeFunctionData({ abi: v3FactoryAbi, functionName: 'enableFeeAmount', args: [100, 1] }) },
    ...spec.pairs.flatMap((entry) => {
      const [a, b] = entry.pair.map((s) => tokenOf(spec, s).address) as [Address, Address]
      return [
        ...(entry.uniswapV2 ? [{ what: `creating the V2 pair ${entry.pair.join('/')}`, gas: 3_000_000n, to: MAINNET.uniswapV2Factory, data: encodeFunctionData({ abi: v2FactoryAbi, functionName: 'createPair', args: [a, b] }) }] : []),
        ...(entry.uniswapV3 ?? []).map((p) => ({ what: `creating the V3 pool ${entry.pair.join('/')} ${p.fee}`, gas: 6_000_000n, to: MAINNET.uniswapV3Factory as Address, data: encodeFunctionData({ abi: v3FactoryAbi, functionName: 'createPool', args: [a, b, p.fee] }) })),
      ]
    }),
  ])

  // 4. Prices, approvals, and the owner's tokens (written to storage: no mint in a standard ERC-20).
  const needed = new Map<Address, bigint>()
  const initialize: Step[] = []
  const liquidity: Step[] = []
  for (const entry of spec.pairs) {
    const [base, quote] = entry.pair.map((s) => tokenOf(spec, s)) as [WorldToken, WorldToken]
    const add = (token: WorldToken, amount: bigint) => needed.set(token.address, (needed.get(token.address) ?? 0n) + amount)
    if (entry.uniswapV2) {
      const amounts = pairAmounts(base, quote, entry.price, entry.uniswapV2.depth)
      add(base, amounts.base)
      add(quote, amounts.quote)
      liquidity.push({
        what: `seeding the V2 pair ${entry.pair.join('/')}`,
        gas: 500_000n,
        to: MAINNET.uniswapV2Router02,
        data: encodeFunctionData({ abi: routerAbi, functionName: 'addLiquidity', args: [base.address, quote.address, amounts.base, amounts.quote, 0n, 0n, owner, FAR_FUTURE] }),
      })
    }
    for (const pool of entry.uniswapV3 ?? []) {
      const amounts = pairAmounts(base, quote, entry.price, pool.depth)
      const [t0] = sortTokens(base, quote)
      const [amount0, amount1] = t0 === base ? [amounts.base, amounts.quote] : [amounts.quote, amounts.base]
      add(base, amounts.base)
      add(quote, amounts.quote)
      const [token0, token1] = sortTokens(base, quote)
      initialize.push({
        what: `pricing the V3 pool ${entry.pair.join('/')} ${pool.fee}`,
        gas: 300_000n,
        to: uniswapV3PoolAddress(base.address, quote.address, pool.fee),
        data: encodeFunctionData({ abi: v3PoolAbi, functionName: 'initialize', args: [sqrtPriceX96(amount0, amount1)] }),
      })
      const { tickLower, tickUpper } = fullRangeTicks(V3_TICK_SPACING[pool.fee]!)
      liquidity.push({
        what: `seeding the V3 pool ${entry.pair.join('/')} ${pool.fee}`,
        gas: 1_000_000n,
        to: MAINNET.nonfungiblePositionManager,
        data: encodeFunctionData({
          abi: positionManagerAbi,
          functionName: 'mint',
          args: [{ token0: token0.address, token1: token1.address, fee: pool.fee, tickLower, tickUpper, amount0Desired: amount0, amount1Desired: amount1, amount0Min: 0n, amount1Min: 0n, recipient: owner, deadline: FAR_FUTURE }],
        }),
      })
    }
  }
  for (const [token, amount] of needed) await setTokenBalance(anvilUrl, token, owner, amount)
  const approvals: Step[] = spec.tokens.flatMap((t) =>
    [MAINNET.uniswapV2Router02, MAINNET.nonfungiblePositionManager].map((spender) => ({ what: `approving ${t.symbol}`, gas: 100_000n, to: t.address, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, 2n ** 256n - 1n] }) })),
  )
  await run([...initialize, ...approvals])
  // 5. Liquidity.
  await run(liquidity)
  // 6. As on mainnet, every pool has been touched before the head: V2's price accumulators are
  // non-zero (sync) and no pool was last written in the head block. Otherwise a bot's
  // eth_estimateGas on the head (whose timestamp the pool's last update shares) leaves out the
  // accumulator and oracle writes its swap makes in the next block: ~45k gas short, out of gas.
  const pairs = planned.filter((p) => p.dex === 'uniswap-v2')
  if (pairs.length > 0) await run(pairs.map((p) => ({ what: `syncing the V2 pair ${p.address}`, gas: 200_000n, to: p.address, data: encodeFunctionData({ abi: pairSyncAbi, functionName: 'sync' }) })))
  await node.request({ method: 'evm_mine', params: [numberToHex((await publicClient.getBlock()).timestamp + 1n)] })
  setupBlocks++
  await test.stopImpersonatingAccount({ address: owner })
  return { name: spec.name, contracts: MAINNET, tokens: spec.tokens, pools: planned, owner, setupBlocks }
}

function tokenName(symbol: string): string {
  return ({ USDC: 'USD Coin', USDT: 'Tether USD', DAI: 'Dai Stablecoin', WBTC: 'Wrapped BTC' } as Record<string, string>)[symbol] ?? symbol
}
