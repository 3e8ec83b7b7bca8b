/**
 * A newcomer's bot, set up the way bots usually are: a key of its own (no dev account; funded
 * with `harness_setBalance`), its executor deployed from that key and the receipt waited for,
 * USDC given to the executor with `harness_setTokenBalance`, the routers approved through it one
 * receipt at a time — and only then the example backrun bot's strategy, trading through that
 * executor (`EXECUTOR_ADDRESS`) and watching the mempool. It prints no line a backtest could take
 * for "ready": the backtest must find its set-up's end by itself (docs/backtest.md).
 *
 *   node --import tsx test/support/newcomerBot.ts   (RPC_URL from bundlesim; SEARCHER_NAME, BID_SHARE as the example's)
 */
import { readFileSync } from 'node:fs'
import { createPublicClient, createWalletClient, http, keccak256, parseAbi, parseEther, toHex, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const WETH: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const USDC: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const ROUTER02: Address = '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D'
const SWAP_ROUTER: Address = '0xE592427A0AEce92De3Edee1F18E0157C05861564'
/** Its own key: the same every run, so a recording made with it replays. */
export const NEWCOMER_KEY: Hex = keccak256(toHex('bundlesim newcomer bot'))
/** What it gives its executor through the harness: USDC, in units. */
export const NEWCOMER_USDC = '25000'

const rpcUrl = process.env.RPC_URL!
const account = privateKeyToAccount(NEWCOMER_KEY)
const say = (event: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
const harness = async (method: string, params: unknown[]) => {
  const answer = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const { error } = (await answer.json()) as { error?: { message: string } }
  if (error) throw new Error(`${method}: ${error.message}`)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const client = createPublicClient({ transport: http(rpcUrl), pollingInterval: 100 })
  const chain = { id: await client.getChainId(), name: 'bundlesim', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } } as const
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) })
  await harness('harness_setBalance', [{ address: account.address, wei: parseEther('150').toString() }])

  const { default: solc } = (await import('solc')) as unknown as { default: { compile(input: string): string } }
  const content = readFileSync(new URL('../../examples/backrun-bot/Executor.sol', import.meta.url), 'utf8')
  const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { Executor: ['abi', 'evm.bytecode.object'] } } }
  const { abi, evm } = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources: { 'Executor.sol': { content } }, settings }))).contracts['Executor.sol'].Executor
  const deployed = await client.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi, bytecode: `0x${evm.bytecode.object}`, args: [WETH, account.address, [account.address]], value: parseEther('100'), gas: 1_500_000n }) })
  const executor = deployed.contractAddress!
  say('deployed', { executor, block: deployed.blockNumber })
  await harness('harness_setTokenBalance', [{ address: executor, token: 'USDC', amount: NEWCOMER_USDC }])
  const approve = parseAbi(['function approve(address token, address spender)'])
  for (const token of [WETH, USDC]) {
    for (const spender of [ROUTER02, SWAP_ROUTER]) await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: executor, abi: approve, functionName: 'approve', args: [token, spender], gas: 100_000n }) })
  }
  say('approved', { executor })

  process.env.BOT_KEY = NEWCOMER_KEY
  process.env.EXECUTOR_ADDRESS = executor
  await import('../../examples/backrun-bot/bot.ts')
}
