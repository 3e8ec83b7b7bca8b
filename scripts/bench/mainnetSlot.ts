import { encodeAbiParameters, encodeFunctionData, keccak256, pad, parseEther, parseGwei, toHex, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { router02Abi } from '../../src/dex/abis.js'
import { amountOut, afterSwap, type PoolReserves } from '../../src/dex/math.js'
import { MAINNET } from '../../src/dex/mainnet.js'
import { balanceSlot } from '../../src/world/funding.js'
import type { Harness } from '../../src/index.js'
import { SINK, benchAccounts, inBatches, rpc, type SignedTx } from './support.js'

/**
 * The bundles of a mainnet-shaped slot on the DEX world (`--world dex`): users' swaps of ETH
 * for tokens on the Uniswap V2 pairs, sent to the public mempool over the slot, and for each
 * swap many searchers' backruns `[userSwap, backrun]` (selling the token back, each from its
 * own account, each bidding its own priority fee) — bundles sharing a user tx race for its
 * nonce, so one of them lands at most; plus independent transfers, swaps that revert at top
 * of block (their guard cannot be met), and sponsored bundles (a funded account pays the
 * coinbase, then an empty account sends: the builder pays its gas).
 */
export type MainnetKind = 'backrun' | 'independent' | 'reverting' | 'sponsored'

/** Shares of the bundles (the rest are backruns). */
export const MAINNET_MIX = { independent: 0.12, reverting: 0.05, sponsored: 0.01 } as const
/** Opportunities (users' swaps) per bundle: 300 for 10,000 bundles, ~27 backruns each. */
export const OPPORTUNITY_SHARE = 0.03

/** A tx with what `eth_simulateV1` needs to run it as a call (the baseline's requests). */
export interface CallableSignedTx extends SignedTx {
  call: Record<string, Hex>
}

export interface Arrival {
  /** ms into the slot it is sent at. */
  ms: number
  /** A raw tx to the public mempool, or a bundle. */
  kind: 'mempool' | MainnetKind
  txs: CallableSignedTx[]
  /** For backruns: the opportunity (user swap) index. */
  opportunity?: number
}

export interface MainnetSlotSet {
  arrivals: Arrival[]
  bundles: Arrival[]
  opportunities: number
  /** Fixture calls for the harness's Anvil before the slot: balances, token balances, router allowances. */
  fixtures: Array<{ method: string; params: unknown[] }>
}

/** A world V2 pair, as `harness_status` lists it, with its reserves at the head. */
export type Pair = PoolReserves

const DEADLINE = 2n ** 40n
/** Fee cap of every tx: room for the backruns' 30 gwei tips. */
const MAX_FEE = parseGwei('100')
const V2_FEE = 3000

/** The world's V2 pairs with WETH on one side, and their reserves (`getReserves` at the head). */
export async function worldPairs(harness: Harness): Promise<Pair[]> {
  const world = harness.status().world
  if (!world) throw new Error('mainnet bench: the harness has no DEX world')
  const pairs = world.pools.filter((p) => p.dex === 'uniswap-v2' && [p.token0, p.token1].some((t) => t.toLowerCase() === MAINNET.weth.toLowerCase()))
  const reserves = await inBatches<Hex>(
    harness.anvilUrl,
    pairs.map((p) => ({ method: 'eth_call', params: [{ to: p.address, data: '0x0902f1ac' }, 'latest'] })),
  )
  return pairs.map((p, i) => {
    const data = reserves[i]!
    return {
      address: p.address as Address,
      dex: 'uniswap-v2',
      token0: p.token0 as Address,
      token1: p.token1 as Address,
      fee: V2_FEE,
      reserve0: BigInt(`0x${data.slice(2, 66)}`),
      reserve1: BigInt(`0x${data.slice(66, 130)}`),
    }
  })
}

const other = (pair: Pair) => (pair.token0.toLowerCase() === MAINNET.weth.toLowerCase() ? pair.token1 : pair.token0)

/** Deterministic pseudo-random in [0, 1) from an index and a salt (no state: the same set every run). */
function unit(i: number, salt: number): number {
  const x = Math.sin(i * 12.9898 + salt * 78.233) * 43758.5453
  return x - Math.floor(x)
}

async function signCall(account: PrivateKeyAccount, nonce: number, to: Address, value: bigint, data: Hex | undefined, gas: bigint, tip: bigint): Promise<CallableSignedTx> {
  const raw = await account.signTransaction({ type: 'eip1559', chainId: 31337, nonce, to, value, data, gas, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: tip })
  return {
    raw,
    hash: keccak256(raw),
    from: account.address,
    nonce,
    call: { from: account.address, to, value: toHex(value), input: data ?? '0x', gas: toHex(gas), maxFeePerGas: toHex(MAX_FEE), maxPriorityFeePerGas: toHex(tip), nonce: toHex(nonce) },
  }
}

/**
 * Signs the slot's `count` bundles (and the users' swaps) over `pairs`, with arrival times
 * spread over `slotMs` (users' swaps up to 3/4 of it, each backrun 50–1,500 ms after its swap).
 */
export async function mainnetSlotSet(count: number, pairs: readonly Pair[], coinbase: Address, slotMs: number, label = `mainnet ${count}`): Promise<MainnetSlotSet> {
  const opportunities = Math.max(2, Math.round(count * OPPORTUNITY_SHARE))
  const independent = Math.round(count * MAINNET_MIX.independent)
  const reverting = Math.round(count * MAINNET_MIX.reverting)
  const sponsored = Math.max(1, Math.round(count * MAINNET_MIX.sponsored))
  const backruns = count - independent - reverting - sponsored
  const users = benchAccounts(opportunities, `${label} user`)
  const searchers = benchAccounts(backruns + reverting, `${label} searcher`)
  const senders = benchAccounts(independent + sponsored, `${label} sender`)
  const empties = benchAccounts(sponsored, `${label} empty`)
  const fixtures: MainnetSlotSet['fixtures'] = []
  const ether = (address: Address, eth: bigint) => fixtures.push({ method: 'anvil_setBalance', params: [address, toHex(eth * 10n ** 18n)] })
  const tokens = (address: Address, token: Address, amount: bigint) => {
    fixtures.push({ method: 'anvil_setStorageAt', params: [token, balanceSlot(address, 0n), pad(toHex(amount), { size: 32 })] })
    fixtures.push({ method: 'anvil_setStorageAt', params: [token, allowanceSlot(address, MAINNET.uniswapV2Router02), pad(toHex(2n ** 255n), { size: 32 })] })
  }

  const arrivals: Arrival[] = []
  // Users: swap 1–20 ETH for the pair's token, through Router02, a 1 gwei tip, no slippage guard.
  const swaps: Array<{ pair: Pair; token: Address; after: Pair; out: bigint; tx: CallableSignedTx; ms: number }> = []
  for (const [j, user] of users.entries()) {
    const pair = pairs[j % pairs.length]!
    const token = other(pair)
    const amountIn = parseEther(String(1 + Math.floor(unit(j, 1) * 20)))
    const data = encodeFunctionData({ abi: router02Abi, functionName: 'swapExactETHForTokens', args: [0n, [MAINNET.weth, token], user.address, DEADLINE] })
    const tx = await signCall(user, 0, MAINNET.uniswapV2Router02, amountIn, data, 200_000n, parseGwei('1'))
    ether(user.address, 100n)
    const ms = Math.floor(unit(j, 2) * slotMs * 0.75)
    swaps.push({ pair, token, after: afterSwap(pair, MAINNET.weth, amountIn), out: amountOut(pair, MAINNET.weth, amountIn), tx, ms })
    arrivals.push({ ms, kind: 'mempool', txs: [tx] })
  }
  // Backruns: sell 20–80 % of what the user bought back to the pair, guarded at 99 % of what it
  // yields right after the user's swap, bidding 1–30 gwei; searcher k backruns swap k % opportunities.
  for (let k = 0; k < backruns; k++) {
    const j = k % opportunities
    const swap = swaps[j]!
    const searcher = searchers[k]!
    const sell = (swap.out * BigInt(20 + Math.floor(unit(k, 3) * 60))) / 100n
    const expected = amountOut(swap.after, swap.token, sell)
    const data = encodeFunctionData({ abi: router02Abi, functionName: 'swapExactTokensForETH', args: [sell, (expected * 99n) / 100n, [swap.token, MAINNET.weth], searcher.address, DEADLINE] })
    const tip = parseGwei(String(1 + Math.floor(unit(k, 4) * 30)))
    const tx = await signCall(searcher, 0, MAINNET.uniswapV2Router02, 0n, data, 250_000n, tip)
    ether(searcher.address, 1n)
    tokens(searcher.address, swap.token, sell)
    arrivals.push({ ms: Math.min(slotMs - 1, swap.ms + 50 + Math.floor(unit(k, 5) * 1_450)), kind: 'backrun', txs: [swap.tx, tx], opportunity: j })
  }
  // Reverting: a swap whose guard asks for more than the whole pair holds.
  for (let r = 0; r < reverting; r++) {
    const searcher = searchers[backruns + r]!
    const pair = pairs[r % pairs.length]!
    const token = other(pair)
    const data = encodeFunctionData({ abi: router02Abi, functionName: 'swapExactTokensForETH', args: [1_000n, 2n ** 200n, [token, MAINNET.weth], searcher.address, DEADLINE] })
    const tx = await signCall(searcher, 0, MAINNET.uniswapV2Router02, 0n, data, 250_000n, parseGwei(String(1 + (r % 10))))
    ether(searcher.address, 1n)
    tokens(searcher.address, token, 1_000n)
    arrivals.push({ ms: Math.floor(unit(r, 6) * slotMs * 0.9), kind: 'reverting', txs: [tx] })
  }
  // Independent: two transfers from one account, 0–400 calldata bytes, tips 1–5 gwei.
  for (let i = 0; i < independent; i++) {
    const sender = senders[i]!
    const bytes = (i % 3) * 200
    const data = bytes ? toHex(new Uint8Array(bytes).fill(0xab)) : undefined
    const tip = parseGwei(String(1 + (i % 5)))
    const gas = 21_000n + 40n * BigInt(bytes)
    const txs = [await signCall(sender, 0, SINK, 1n, data, gas, tip), await signCall(sender, 1, SINK, 1n, data, gas, tip)]
    ether(sender.address, 1n)
    arrivals.push({ ms: Math.floor(unit(i, 7) * slotMs * 0.9), kind: 'independent', txs })
  }
  // Sponsored: a funded account pays the coinbase 0.01 ETH, then an empty account sends.
  for (let s = 0; s < sponsored; s++) {
    const payer = senders[independent + s]!
    const txs = [await signCall(payer, 0, coinbase, 10n ** 16n, undefined, 21_000n, parseGwei('2')), await signCall(empties[s]!, 0, SINK, 1n, undefined, 21_000n, parseGwei('2'))]
    ether(payer.address, 1n)
    arrivals.push({ ms: Math.floor(unit(s, 8) * slotMs * 0.9), kind: 'sponsored', txs })
  }
  arrivals.sort((a, b) => a.ms - b.ms)
  return { arrivals, bundles: arrivals.filter((a) => a.kind !== 'mempool'), opportunities, fixtures }
}

/** OpenZeppelin 3.4's ERC20 `_allowances[owner][spender]` (slot 1). */
function allowanceSlot(owner: Address, spender: Address): Hex {
  const inner = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 1n]))
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [spender, inner]))
}

/** Sets the fixtures on the harness's Anvil (200 a batch). */
export async function applyFixtures(anvilUrl: string, set: MainnetSlotSet): Promise<void> {
  await inBatches(anvilUrl, set.fixtures, 200)
}

/**
 * The `eth_simulateV1` request a plain simulator would send for a bundle on the parent: its
 * txs as calls in the next block's environment, `validation` on (the builder's own adds a
 * balance probe and state overrides; this baseline does not).
 */
export function simulateV1Params(txs: readonly CallableSignedTx[], parent: { number: bigint; timestamp: bigint; gasLimit: bigint }, coinbase: Address): unknown[] {
  return [
    {
      blockStateCalls: [{ blockOverrides: { number: toHex(parent.number + 1n), time: toHex(parent.timestamp + 12n), feeRecipient: coinbase, gasLimit: toHex(parent.gasLimit) }, calls: txs.map((tx) => tx.call) }],
      validation: true,
    },
    toHex(parent.number),
  ]
}

export async function headOf(url: string): Promise<{ number: bigint; timestamp: bigint; gasLimit: bigint; baseFee: bigint }> {
  const block = await rpc<{ number: Hex; timestamp: Hex; gasLimit: Hex; baseFeePerGas: Hex }>(url, 'eth_getBlockByNumber', ['latest', false])
  return { number: BigInt(block.number), timestamp: BigInt(block.timestamp), gasLimit: BigInt(block.gasLimit), baseFee: BigInt(block.baseFeePerGas) }
}
