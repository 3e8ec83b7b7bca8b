/**
 * A liquidator, the classic first bot, small enough to read in one sitting and start from. It
 * finds Aave V3's borrowers from the Pool's `Borrow` events, watches the public mempool for a
 * Chainlink oracle round (a `transmit` to one of the feeds' aggregators), reads the round's new
 * price from its calldata before it lands, and computes each borrower's health factor at that
 * price as Aave does. For each position the round puts under 1 it backruns the round with a
 * bundle `[the round, its liquidations…]`, one `liquidationCall` a position through its executor
 * (`Liquidator.sol`), paying the builder `BID_SHARE` of the bonus it expects by a coinbase transfer.
 *
 *   bundlesim exec --world dex --flow default -- npx tsx examples/liquidator-bot/bot.ts
 *
 * Under `bundlesim exec` (or a scenario's `bots:`) `RPC_URL` and `BOT_KEY` come from bundlesim.
 * It deploys its executor holding `INVENTORY_ETH` ether as WETH, and gets `INVENTORY_USDC` USDC
 * with `harness_setTokenBalance` (on mainnet: its own inventory, or a flash loan).
 *
 * One JSON line per event: `ready`, `watching`, `round` (a round seen, its price), `liquidatable`
 * (each position it would take, with its health factor at the round's price), `sent`, `skipped`.
 */
import { createPublicClient, createWalletClient, decodeAbiParameters, decodeFunctionData, encodeFunctionData, http, keccak256, parseAbi, parseAbiItem, parseEther, serializeTransaction, toHex, type Address, type Hash, type Hex, type Transaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { readFileSync } from 'node:fs'

/** Aave V3 Ethereum at its mainnet addresses, and WETH. */
const POOL: Address = '0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2'
const DATA_PROVIDER: Address = '0x0a16f2FCC0D44FaE41cc54e079281D84A363bECD'
const ORACLE: Address = '0x54586bE62E3c3580375aE3723C145253060Ca0C2'
const WETH: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const ONE = 10n ** 18n
/** A liquidation tx's gas, with room (Aave's liquidationCall uses ~250–350k). */
const LIQUIDATION_GAS = 500_000n

const abi = parseAbi([
  'struct TokenData { string symbol; address tokenAddress; }',
  'function getAllReservesTokens() view returns (TokenData[])',
  'function getReserveConfigurationData(address asset) view returns (uint256 decimals, uint256 ltv, uint256 liquidationThreshold, uint256 liquidationBonus, uint256 reserveFactor, bool usageAsCollateralEnabled, bool borrowingEnabled, bool stableBorrowRateEnabled, bool isActive, bool isFrozen)',
  'function getLiquidationProtocolFee(address asset) view returns (uint256)',
  'function getUserReserveData(address asset, address user) view returns (uint256 currentATokenBalance, uint256 currentStableDebt, uint256 currentVariableDebt, uint256 principalStableDebt, uint256 scaledVariableDebt, uint256 stableBorrowRate, uint256 liquidityRate, uint40 stableRateLastUpdated, bool usageAsCollateralEnabled)',
  'function getSourceOfAsset(address asset) view returns (address)',
  'function getAssetPrice(address asset) view returns (uint256)',
  'function aggregator() view returns (address)',
  'function transmit(bytes report, bytes32[] rs, bytes32[] ss, bytes32 rawVs)',
  'function liquidate(address collateral, address debt, address user, uint256 payment)',
])
const borrowEvent = parseAbiItem('event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode)')

const rpcUrl = process.env.RPC_URL ?? 'http://127.0.0.1:8645'
const account = privateKeyToAccount((process.env.BOT_KEY ?? '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') as Hex)
const bidShare = Number(process.env.BID_SHARE ?? '0.97')
const minProfit = parseEther(process.env.MIN_PROFIT_ETH ?? '0.0001')
const inventoryEth = process.env.INVENTORY_ETH ?? '200'
const inventoryUsdc = process.env.INVENTORY_USDC ?? '2000000'
const say = (event: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
const rpc = async (method: string, params: unknown[], headers: Record<string, string> = {}, body?: string) => {
  const answer = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body ?? JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const { result, error } = (await answer.json()) as { result?: unknown; error?: { message: string } }
  if (error) throw new Error(`${method}: ${error.message}`)
  return result
}

// Reads batched into one HTTP request where they can be: the round lands in the next block, the bot must answer before it.
const client = createPublicClient({ transport: http(rpcUrl, { batch: { batchSize: 500 } }) })
const chainId = await client.getChainId()
const chain = { id: chainId, name: 'bundlesim', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } } as const
const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) })

/** Each reserve: its token, decimals, liquidation threshold and bonus, the protocol's fee on the bonus (bp), and the price feed Aave reads for it. */
interface Reserve {
  symbol: string
  asset: Address
  decimals: bigint
  threshold: bigint
  bonus: bigint
  protocolFee: bigint
  feed: Address
}

async function readReserves(): Promise<Reserve[]> {
  const tokens = await client.readContract({ address: DATA_PROVIDER, abi, functionName: 'getAllReservesTokens' })
  return Promise.all(
    tokens.map(async ({ symbol, tokenAddress }) => {
      const [config, protocolFee, feed] = await Promise.all([
        client.readContract({ address: DATA_PROVIDER, abi, functionName: 'getReserveConfigurationData', args: [tokenAddress] }),
        client.readContract({ address: DATA_PROVIDER, abi, functionName: 'getLiquidationProtocolFee', args: [tokenAddress] }),
        client.readContract({ address: ORACLE, abi, functionName: 'getSourceOfAsset', args: [tokenAddress] }),
      ])
      return { symbol, asset: tokenAddress, decimals: config[0], threshold: config[2], bonus: config[3], protocolFee, feed }
    }),
  )
}

/** Compiles `Liquidator.sol` (solc from npm) and deploys it holding the inventory's WETH, the Pool approved for every reserve. */
async function deployExecutor(reserves: readonly Reserve[]): Promise<Address> {
  const { default: solc } = (await import('solc')) as unknown as { default: { compile(input: string): string } }
  const content = readFileSync(new URL('./Liquidator.sol', import.meta.url), 'utf8')
  const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { Liquidator: ['abi', 'evm.bytecode.object'] } } }
  const { abi: deployAbi, evm } = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources: { 'Liquidator.sol': { content } }, settings }))).contracts['Liquidator.sol'].Liquidator
  const hash = await wallet.deployContract({ abi: deployAbi, bytecode: `0x${evm.bytecode.object}`, args: [WETH, POOL, reserves.map((r) => r.asset)], value: parseEther(inventoryEth), gas: 2_000_000n })
  return (await client.waitForTransactionReceipt({ hash })).contractAddress!
}

const reserves = await readReserves()
// Each feed's aggregator: a pending tx to one of them is an oracle round.
const feedOfAggregator = new Map<string, Address>()
for (const feed of new Set(reserves.map((r) => r.feed))) feedOfAggregator.set((await client.readContract({ address: feed, abi, functionName: 'aggregator' })).toLowerCase(), feed)
if (process.env.SEARCHER_NAME) await rpc('harness_nameSearcher', [{ name: process.env.SEARCHER_NAME, addresses: [account.address] }])
const executor = await deployExecutor(reserves)
await rpc('harness_setTokenBalance', [{ address: executor, token: 'USDC', amount: inventoryUsdc }])
say('ready', { executor, reserves: reserves.map((r) => r.symbol), aggregators: [...feedOfAggregator.keys()] })

/** The borrowers so far: every `onBehalfOf` of the Pool's `Borrow` events. */
const borrowers = new Set<Address>()
let scannedTo = -1n
async function scanBorrowers(head: bigint): Promise<void> {
  const logs = await client.getLogs({ address: POOL, event: borrowEvent, fromBlock: scannedTo + 1n, toBlock: head })
  for (const log of logs) borrowers.add(log.args.onBehalfOf!)
  scannedTo = head
}

/** A round's new answer from a transmit's calldata: the median of the report's sorted observations (libocr's report layout). */
function roundAnswer(input: Hex): bigint | null {
  try {
    const { functionName, args } = decodeFunctionData({ abi, data: input })
    if (functionName !== 'transmit') return null
    const [, , observations] = decodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'int192[]' }], args[0])
    return observations[Math.floor(observations.length / 2)]!
  } catch {
    return null
  }
}

/** A position the round puts under 1: the largest collateral and debt, Aave's health factor at the round's price, and the bonus it expects (wei). */
interface Liquidatable {
  user: Address
  collateral: Address
  debt: Address
  healthFactor: bigint
  profitWei: bigint
}

/** Every watched borrower's health factor at the round's price (Aave's: Σ collateral × price × threshold ÷ Σ debt × price), those under 1 with what each would earn. */
async function liquidatable(feed: Address, answer: bigint, head: bigint): Promise<Liquidatable[]> {
  const prices = await Promise.all(reserves.map((r) => (r.feed === feed ? Promise.resolve(answer) : client.readContract({ address: ORACLE, abi, functionName: 'getAssetPrice', args: [r.asset], blockNumber: head }))))
  const ethPrice = prices[reserves.findIndex((r) => r.asset.toLowerCase() === WETH.toLowerCase())]!
  const users = [...borrowers]
  const positions = await Promise.all(users.map((user) => Promise.all(reserves.map((r) => client.readContract({ address: DATA_PROVIDER, abi, functionName: 'getUserReserveData', args: [r.asset, user], blockNumber: head })))))
  const found: Liquidatable[] = []
  for (const [u, user] of users.entries()) {
    const data = positions[u]!
    // Base currency: USD with 8 decimals, as Aave's oracle prices.
    const collateral = data.map((d, i) => (d[8] ? (d[0] * prices[i]!) / 10n ** reserves[i]!.decimals : 0n))
    const debt = data.map((d, i) => ((d[1] + d[2]) * prices[i]!) / 10n ** reserves[i]!.decimals)
    const totalDebt = debt.reduce((a, b) => a + b, 0n)
    if (totalDebt === 0n) continue
    const weighted = collateral.reduce((sum, c, i) => sum + (c * reserves[i]!.threshold) / 10_000n, 0n)
    const healthFactor = (weighted * ONE) / totalDebt
    if (healthFactor >= ONE) continue
    const c = collateral.indexOf(collateral.reduce((a, b) => (b > a ? b : a)))
    const d = debt.indexOf(debt.reduce((a, b) => (b > a ? b : a)))
    // Aave lets half the debt be repaid (all of it under 0.95); the liquidator gets the collateral's bonus on it, less the protocol's fee on the bonus.
    const repaid = healthFactor > 95n * 10n ** 16n ? debt[d]! / 2n : debt[d]!
    const bonus = (repaid * (reserves[c]!.bonus - 10_000n)) / 10_000n
    const kept = bonus - (bonus * reserves[c]!.protocolFee) / 10_000n
    found.push({ user, collateral: reserves[c]!.asset, debt: reserves[d]!.asset, healthFactor, profitWei: (kept * ONE) / ethPrice })
  }
  return found
}

/** The raw signed tx a bundle carries, rebuilt from the node's tx object (and checked against its hash). */
function rawOf(tx: Transaction): Hex {
  const raw = serializeTransaction(
    { type: 'eip1559', chainId, nonce: tx.nonce, to: tx.to!, value: tx.value, data: tx.input, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas!, accessList: tx.accessList ?? [] },
    { r: tx.r, s: tx.s, yParity: tx.yParity ?? Number(tx.v) },
  )
  if (keccak256(raw) !== tx.hash) throw new Error(`could not rebuild ${tx.hash}`)
  return raw
}

/** Backruns one oracle round (a pending transmit to a feed's aggregator). */
async function onRound(tx: Transaction, feed: Address, answer: bigint): Promise<void> {
  const hash = tx.hash
  const head = await client.getBlock()
  // Landed already (the bot answered too late): its positions are the block's now.
  if (tx.blockNumber !== null) return say('skipped', { round: hash, why: 'the round landed before the bot answered' })
  say('round', { feed, answer, hash })
  await scanBorrowers(head.number)
  const found = await liquidatable(feed, answer, head.number)
  const baseFee = head.baseFeePerGas ?? 0n
  const taken = found.map((l) => ({ ...l, payment: (l.profitWei * BigInt(Math.round(bidShare * 1e6))) / 1_000_000n })).filter((l) => l.profitWei - l.payment - baseFee * LIQUIDATION_GAS >= minProfit)
  for (const l of found) say('liquidatable', { user: l.user, healthFactor: l.healthFactor, profitWei: l.profitWei, taken: taken.includes(l as never) || taken.some((t) => t.user === l.user) })
  if (taken.length === 0) return say('skipped', { round: hash, why: found.length === 0 ? 'nobody under a health factor of 1' : 'no profit after the bid and gas' })
  // One tx a position, in nonce order, each paying its own share.
  const nonce = await client.getTransactionCount({ address: account.address, blockNumber: head.number })
  const txs = await Promise.all(
    taken.map((l, i) =>
      account.signTransaction({
        type: 'eip1559',
        chainId,
        nonce: nonce + i,
        to: executor,
        data: encodeFunctionData({ abi, functionName: 'liquidate', args: [l.collateral, l.debt, l.user, l.payment] }),
        gas: LIQUIDATION_GAS,
        maxPriorityFeePerGas: 0n,
        maxFeePerGas: baseFee * 2n,
      }),
    ),
  )
  // eth_sendBundle right behind the round, for the next block, signed as Flashbots' clients sign (X-Flashbots-Signature over the body's hash).
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendBundle', params: [{ txs: [rawOf(tx), ...txs], blockNumber: toHex(head.number + 1n) }] })
  const signature = await account.signMessage({ message: keccak256(toHex(body)) })
  const sent = (await rpc('eth_sendBundle', [], { 'X-Flashbots-Signature': `${account.address}:${signature}` }, body)) as { bundleHash: Hash }
  say('sent', { round: hash, block: head.number + 1n, bundleHash: sent.bundleHash, positions: taken.map((l) => l.user), payment: taken.reduce((sum, l) => sum + l.payment, 0n) })
}

// The public mempool: every new tx read at once (one batched request), each oracle round among them answered in turn.
let queue = Promise.resolve()
client.watchPendingTransactions({
  pollingInterval: 100,
  onTransactions: async (hashes: Hash[]) => {
    const txs = await Promise.all(hashes.map((hash) => client.getTransaction({ hash }).catch(() => null)))
    for (const tx of txs) {
      const feed = tx?.to ? feedOfAggregator.get(tx.to.toLowerCase()) : undefined
      const answer = feed ? roundAnswer(tx!.input) : null
      if (!feed || answer === null) continue
      queue = queue.then(() => onRound(tx!, feed, answer)).catch((error: Error) => say('error', { round: tx!.hash, message: error.message }))
    }
  },
})
say('watching', { pool: POOL })
