import { pad, toHex, type Address, type Hex } from 'viem'
import type { WorldOnChain } from '../world/deploy.js'
import type { Arbitrage, PoolReserves } from '../dex/math.js'
import { swapCall, type RouterName } from '../dex/swapCalls.js'

/** One swap an executor contract makes: the router to call and its calldata. */
export interface Leg {
  to: Address
  data: Hex
}

/** The router a rival trades a pool through: the venue's own, V4's through the Universal Router (the only one that reaches it). */
const ROUTER_OF: Record<PoolReserves['dex'], RouterName> = { 'uniswap-v2': 'router02', sushiswap: 'sushiswapRouter', 'uniswap-v3': 'swapRouter', 'uniswap-v4': 'universalRouter' }

/**
 * One exact-input swap on `pool` through its router (Router02 for V2, Sushi's for Sushi,
 * SwapRouter for V3, the Universal Router for V4), paid to `recipient` (the Universal Router
 * pays its caller: the executor), guarded by `minOut` (a stale state reverts it, so it is not built).
 *
 * @example routerLeg(world, v2Pair, WETH, USDC, parseEther('1'), minOut, executor, deadline)
 */
export function routerLeg(world: Pick<WorldOnChain, 'contracts'>, pool: PoolReserves, tokenIn: Address, tokenOut: Address, amountIn: bigint, minOut: bigint, recipient: Address, deadline: bigint): Leg {
  const call = swapCall(world.contracts, { router: ROUTER_OF[pool.dex], pool, tokenIn, tokenOut, amountIn, minOut, recipient, deadline })
  return { to: call.to, data: call.data }
}

/**
 * Where a leg's calldata holds its amount in: the byte offsets of every 32-byte word equal to
 * `amountIn` (the Universal Router's V4 swap names it twice, in the swap and in SETTLE_ALL's
 * most), so the executor's `run` can write there what the leg before it brought. ABI words sit
 * 32 bytes apart after the 4-byte selector, nested calldata too.
 *
 * @example amountOffsets(routerLeg(world, pool, USDC, WETH, 3_000_000_000n, 0n, executor, deadline).data, 3_000_000_000n) // [4n]
 */
export function amountOffsets(data: Hex, amountIn: bigint): bigint[] {
  const word = pad(toHex(amountIn)).slice(2)
  const body = data.slice(2 + 8)
  const offsets: bigint[] = []
  for (let at = 0; at + 64 <= body.length; at += 64) if (body.slice(at, at + 64) === word) offsets.push(BigInt(4 + at / 2))
  if (offsets.length === 0) throw new Error(`the leg's calldata does not hold its amount in (${amountIn}) as a word`)
  return offsets
}

/** Legs as the executor's `run` and `settle` take them: where, what, the token each brings in, and where each takes in the one before's (none: its own amount). */
export interface ChainedLegs {
  targets: Address[]
  calls: Hex[]
  tokensOut: Address[]
  amountAt: bigint[][]
}

/**
 * A round trip's legs for the executor to chain (`contracts/RivalExecutor.sol`): the first takes
 * in `trip.amountIn`, each after it what the one before it brought (`amountOffsets`), with no
 * minimum out: the executor checks the gain of the whole.
 *
 * @example const legs = chainedTrip(world, bestCycle(weth, cycles)!, executor, deadline)
 */
export function chainedTrip(world: Pick<WorldOnChain, 'contracts'>, trip: Arbitrage, recipient: Address, deadline: bigint): ChainedLegs {
  const legs = trip.legs.map((leg, i) => routerLeg(world, leg.pool, leg.tokenIn, leg.tokenOut, trip.amounts[i]!, 0n, recipient, deadline))
  return {
    targets: legs.map((l) => l.to),
    calls: legs.map((l) => l.data),
    tokensOut: trip.legs.map((l) => l.tokenOut),
    amountAt: legs.map((leg, i) => (i === 0 ? [] : amountOffsets(leg.data, trip.amounts[i]!))),
  }
}
