import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPublicClient, createTestClient, encodeAbiParameters, http, parseAbi, parseEther, toEventSelector, type Address, type Hash, type Hex } from 'viem'
import { call, rpc, startTestHarness, useTestHarness } from './support/harness.js'
import { launchChromium } from './support/browser.js'
import { REPO_ROOT } from './support/cli.js'
import { checkFlowPairs, loadFlow, FlowFileError } from '../src/flow/flowFile.js'
import { askedGas, planBackground, TRANSFER_GAS } from '../src/flow/gasMarket.js'
import { drawShare } from '../src/flow/random.js'
import { SeededRandom } from '../src/flow/random.js'
import { planSlot } from '../src/flow/plan.js'
import { afterSwap, amountOut, bestCycle, cyclesThrough, type PoolReserves } from '../src/dex/math.js'
import { bestSandwich } from '../src/dex/sandwich.js'
import { accountBackrun, classifyBlock } from '../src/competition/classify.js'
import { launchAnvil } from '../src/chain/launchAnvil.js'
import { deployDexWorld } from '../src/world/deploy.js'
import { loadWorldFile } from '../src/world/worldFile.js'
import { defaultFlowWithWhales } from './support/backrunBot.js'
import { amountOffsets, chainedTrip } from '../src/rivals/legs.js'
import { MAINNET } from '../src/dex/mainnet.js'

const WETH: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const USDC: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
/** USDC sorts before WETH: token0 = USDC. */
const pool = (address: Address, dex: PoolReserves['dex'], fee: number, usdc: number, weth: number): PoolReserves => ({
  address,
  dex,
  token0: USDC,
  token1: WETH,
  fee,
  reserve0: BigInt(usdc) * 10n ** 6n,
  reserve1: parseEther(String(weth)),
})
const V2 = '0x00000000000000000000000000000000000000a2' as Address
/** A V2 pair as the pure math reads it (reserves filled in by the caller). */
const pool2 = (address: Address, token0: Address, token1: Address): PoolReserves => ({ address, dex: 'uniswap-v2', token0, token1, fee: 3000, reserve0: 0n, reserve1: 0n })
const V3 = '0x00000000000000000000000000000000000000a3' as Address
const USDT: Address = '0xdAC17F958D2ee523a2206206994597C13D831ec7'
const STABLE = '0x00000000000000000000000000000000000000b1' as Address
const USDT_POOL = '0x00000000000000000000000000000000000000b2' as Address

describe('the market (pure parts)', () => {
  it('the same seed plans the same swaps; another seed others', () => {
    const users = loadFlow('default').users
    const plan = (seed: number) => {
      const random = new SeededRandom(seed)
      return Array.from({ length: 5 }, () => planSlot(random, users, new Set(), () => 3))
    }
    expect(plan(7)).toEqual(plan(7))
    expect(plan(7)).not.toEqual(plan(8))
    const swaps = plan(7).flat()
    expect(swaps.length).toBeGreaterThan(5)
    for (const s of swaps) {
      expect(s.sizeEth).toBeGreaterThan(0)
      expect(s.sizeEth).toBeLessThanOrEqual(users.size.max!)
      expect(['public', 'private', 'mevShare']).toContain(s.channel)
    }
  })

  it('a user with a swap in flight sits the slot out', () => {
    const users = { ...loadFlow('default').users, count: 3, swapsPerSlot: 50 }
    const swaps = planSlot(new SeededRandom(1), users, new Set([0, 2]), () => 1)
    expect(swaps.map((s) => s.user)).toEqual([1])
  })

  it('finds the round trip a V2 pool left 1 % below the V3 pool, as profitable as any amount', () => {
    const v2 = pool(V2, 'uniswap-v2', 3000, 2_970_000, 1000) // 2,970 USDC per WETH
    const v3 = pool(V3, 'uniswap-v3', 500, 30_000_000, 10_000) // 3,000
    const trip = bestCycle(WETH, cyclesThrough(WETH, v2, [v3], 2))!
    // WETH is dear on V3: sell it there, buy it back on V2.
    expect(trip.legs.map((l) => l.pool.address)).toEqual([V3, V2])
    expect(trip.profit).toBeGreaterThan(0n)
    expect(trip.amountOut).toBe(amountOut(v2, USDC, trip.amounts[1]!))
    // No amount on a fine grid earns more than the closed form's (to rounding).
    for (let eth = 0.1; eth < 20; eth += 0.1) {
      const x = parseEther(eth.toFixed(1))
      const back = amountOut(v2, USDC, amountOut(v3, WETH, x))
      expect(back - x).toBeLessThanOrEqual(trip.profit + 10n ** 12n)
    }
    // Within the fees (0.3 % + 0.05 %), no trip at all.
    expect(bestCycle(WETH, cyclesThrough(WETH, pool(V2, 'uniswap-v2', 3000, 2_995_000, 1000), [v3], 2))).toBeNull()
  })

  it('finds a three-hop route across pairs when it beats any two pools of the pair: WETH → USDT where WETH is dearest, USDT → USDC on the stable pool, USDC → WETH on V2 where it is cheapest', () => {
    const usdcV2 = pool(V2, 'uniswap-v2', 3000, 2_940_000, 1000) // WETH cheap on V2 after a user's sale: 2,940 USDC
    const usdcV3 = pool(V3, 'uniswap-v3', 500, 30_000_000, 10_000) // 3,000 USDC
    // USDT sorts after WETH: token0 = WETH.
    const stable: PoolReserves = { address: STABLE, dex: 'uniswap-v3', token0: USDC, token1: USDT, fee: 100, reserve0: 5_000_000n * 10n ** 6n, reserve1: 5_000_000n * 10n ** 6n }
    const usdtV3: PoolReserves = { address: USDT_POOL, dex: 'uniswap-v3', token0: WETH, token1: USDT, fee: 500, reserve0: 1000n * 10n ** 18n, reserve1: 3_060_000n * 10n ** 6n } // 3,060 USDT
    const routes = cyclesThrough(WETH, usdcV2, [usdcV3, stable, usdtV3])
    expect(routes.map((r) => r.length).sort()).toEqual([2, 2, 3, 3])
    const best = bestCycle(WETH, routes)!
    expect(best.legs.map((l) => l.pool.address)).toEqual([USDT_POOL, STABLE, V2])
    expect(best.amounts).toHaveLength(3)
    // Each leg's output is the next one's input, to the wei, and the profit is the chain's integer math.
    let x = best.amountIn
    for (const [i, leg] of best.legs.entries()) {
      expect(best.amounts[i]).toBe(x)
      x = amountOut(leg.pool, leg.tokenIn, x)
    }
    expect(best.amountOut).toBe(x)
    expect(best.profit).toBe(x - best.amountIn)
    // No amount on a fine grid earns more than the closed form's (to rounding).
    for (let eth = 0.5; eth < 60; eth += 0.5) {
      const input = parseEther(eth.toFixed(1))
      const back = best.legs.reduce((amount, leg) => amountOut(leg.pool, leg.tokenIn, amount), input)
      expect(back - input).toBeLessThanOrEqual(best.profit + 10n ** 13n)
    }
    // Its profit beats the best two-leg trip.
    expect(best.profit).toBeGreaterThan(bestCycle(WETH, cyclesThrough(WETH, usdcV2, [usdcV3], 2))?.profit ?? 0n)
  })

  it('classifies a block: the user swap that left a gap, the backrun right after it, and its searcher\'s profit and payment', () => {
    const sync = toEventSelector('Sync(uint112,uint112)')
    const transfer = toEventSelector('Transfer(address,address,uint256)')
    const v2 = pool(V2, 'uniswap-v2', 3000, 3_000_000, 1000)
    const v3 = pool(V3, 'uniswap-v3', 500, 30_000_000, 10_000)
    const user = '0x00000000000000000000000000000000000000u1'.replace('u1', '01') as Address
    const searcher = '0x00000000000000000000000000000000000000b0' as Address
    const topic = (a: Address) => `0x${a.slice(2).padStart(64, '0')}` as Hex
    const syncLog = (usdc: bigint, weth: bigint) => ({ address: V2, topics: [sync], data: encodeAbiParameters([{ type: 'uint112' }, { type: 'uint112' }], [usdc, weth]) })
    const wethTransfer = (from: Address, to: Address, wei: bigint) => ({ address: WETH, topics: [transfer, topic(from), topic(to)], data: encodeAbiParameters([{ type: 'uint256' }], [wei]) })
    // The user sells 30 WETH on V2: its price drops ~6 %.
    const afterUser = { usdc: 3_000_000n * 10n ** 6n - 87_000n * 10n ** 6n, weth: parseEther('1030') }
    const victim = { hash: '0x01'.padEnd(66, '0') as Hash, from: user, gasUsed: 100_000n, effectiveGasPrice: 2n * 10n ** 9n, logs: [syncLog(afterUser.usdc, afterUser.weth)] }
    const leg1 = { hash: '0x02'.padEnd(66, '0') as Hash, from: searcher, gasUsed: 120_000n, effectiveGasPrice: 11n * 10n ** 9n, logs: [wethTransfer(searcher, V3, parseEther('10'))] }
    const leg2 = { hash: '0x03'.padEnd(66, '0') as Hash, from: searcher, gasUsed: 100_000n, effectiveGasPrice: 11n * 10n ** 9n, logs: [syncLog(afterUser.usdc + 29_000n * 10n ** 6n, afterUser.weth - parseEther('10.2')), wethTransfer(V2, searcher, parseEther('10.2'))] }
    const lonely = { ...victim, hash: '0x04'.padEnd(66, '0') as Hash, logs: [syncLog(afterUser.usdc - 100_000n * 10n ** 6n, afterUser.weth + parseEther('40'))] }
    const { opportunities: found, poolsAfter } = classifyBlock(
      { number: 7, baseFee: 10n ** 9n, txs: [victim, leg1, leg2, lonely] },
      { weth: WETH, parentPools: [v2, v3], isUserSwap: (h) => h === victim.hash || h === lonely.hash, minGapWei: 10n ** 15n },
    )
    expect(found).toHaveLength(2)
    expect(found[0]).toMatchObject({ victim: victim.hash, backrun: [leg1, leg2] })
    expect(found[0]!.gapWei).toBeGreaterThan(parseEther('0.2'))
    expect(found[1]).toMatchObject({ victim: lonely.hash, backrun: [] })
    // The node's state diff: the sender paid 220,000 gas at 11 gwei, 10 gwei a gas of it to the coinbase as tip.
    const coinbase = '0x00000000000000000000000000000000000000cb' as Address
    const ethChange = (tx: Hash, account: Address) => {
      const gas = tx === leg1.hash ? 120_000n : 100_000n
      if (account.toLowerCase() === searcher) return -gas * 11n * 10n ** 9n
      return account === coinbase ? gas * 10n * 10n ** 9n : 0n
    }
    const account = accountBackrun(found[0]!.backrun, { weth: WETH, baseFee: 10n ** 9n, coinbase, controlled: new Set([searcher]), balanceChange: ethChange, poolsAfter })
    // 0.2 WETH gained, less 220,000 gas at 11 gwei (the tips included).
    expect(account.profit).toBe(parseEther('0.2') - 220_000n * 11n * 10n ** 9n)
    expect(account.grossPayment).toBe(220_000n * 10n * 10n ** 9n)
    expect(account.gas).toBe(220_000n * 10n ** 9n)
  })
})

describe('a rival\'s chained legs (pure)', () => {
  const routers = { contracts: MAINNET }
  const word = (data: Hex, at: bigint) => BigInt(`0x${data.slice(2 + Number(at) * 2, 2 + Number(at) * 2 + 64)}`)

  it('finds where each later leg takes its amount in, on every router a rival uses, for the executor to write what the leg before brought', () => {
    const v4 = { ...pool(V3, 'uniswap-v4', 500, 6_000_000, 2000), tickSpacing: 10 }
    // A user bought WETH on the V2 pair: the trip sells WETH there and buys it back on the V4 pool.
    const trip = bestCycle(WETH, cyclesThrough(WETH, afterSwap(pool(V2, 'uniswap-v2', 3000, 6_000_000, 2000), USDC, 60_000n * 10n ** 6n), [v4]))!
    expect(trip.legs.map((l) => l.pool.dex)).toEqual(['uniswap-v2', 'uniswap-v4'])
    const legs = chainedTrip(routers, trip, V2, 1_700_000_600n)
    expect(legs.tokensOut).toEqual([USDC, WETH])
    // The first leg keeps its own amount; the second (V4 through the Universal Router) names its amount in twice: the swap and SETTLE_ALL's most.
    expect(legs.amountAt[0]).toEqual([])
    expect(legs.amountAt[1]!.length).toBe(2)
    for (const at of legs.amountAt[1]!) expect(word(legs.calls[1]!, at)).toBe(trip.amounts[1])
    // SwapRouter and Router02: the amount in is one word of the call.
    for (const dex of ['uniswap-v3', 'uniswap-v2'] as const) {
      const other = bestCycle(WETH, cyclesThrough(WETH, afterSwap(pool(V2, 'uniswap-v2', 3000, 6_000_000, 2000), USDC, 60_000n * 10n ** 6n), [pool(V3, dex, 500, 60_000_000, 20_000)]))!
      expect(other.legs[1]!.pool.dex).toBe(dex)
      const chained = chainedTrip(routers, other, V2, 1_700_000_600n)
      expect(chained.amountAt[1]!.length).toBe(1)
      expect(word(chained.calls[1]!, chained.amountAt[1]![0]!)).toBe(other.amounts[1])
    }
  })

  it('refuses calldata that does not hold the amount as a word, naming the amount', () => {
    expect(() => amountOffsets('0x12345678', 5n)).toThrow('does not hold its amount in (5)')
  })
})

describe('sandwiches (pure)', () => {
  const v2 = () => pool(V2, 'uniswap-v2', 3000, 6_000_000, 2000) // 3,000 USDC per WETH, 2,000 WETH deep
  const victim = (slippageBps: bigint) => {
    const amountIn = parseEther('20')
    return { tokenIn: WETH, amountIn, minOut: (amountOut(v2(), WETH, amountIn) * (10_000n - slippageBps)) / 10_000n }
  }

  it('sizes the frontrun so the user gets just its minimum, and earns what the user loses less the fees', () => {
    const s = bestSandwich(v2(), victim(100n))!
    expect(s.victimOut).toBeGreaterThanOrEqual(victim(100n).minOut)
    // Right at the edge: a frontrun 0.1 % bigger would push the user under its minimum.
    expect(amountOut(afterSwap(v2(), WETH, s.frontrunIn + s.frontrunIn / 1000n), WETH, parseEther('20'))).toBeLessThan(victim(100n).minOut)
    expect(s.profit).toBeGreaterThan(0n)
    expect(s.profit).toBe(s.backrunOut - s.frontrunIn)
    expect(s.victimAlone - s.victimOut).toBeGreaterThan(0n)
    // Tighter slippage, a smaller sandwich; none at 0.
    expect(bestSandwich(v2(), victim(30n))!.profit).toBeLessThan(s.profit)
    expect(bestSandwich(v2(), victim(0n))).toBeNull()
  })

  it('classifies a sandwich: the same sender right before and right after the user’s swap on its pool; the user’s loss from the reserves', () => {
    const sync = toEventSelector('Sync(uint112,uint112)')
    const syncLog = (p: PoolReserves) => ({ address: V2, topics: [sync], data: encodeAbiParameters([{ type: 'uint112' }, { type: 'uint112' }], [p.reserve0, p.reserve1]) })
    const s = bestSandwich(v2(), victim(100n))!
    const afterFront = afterSwap(v2(), WETH, s.frontrunIn)
    const afterUser = afterSwap(afterFront, WETH, parseEther('20'))
    const afterBack = afterSwap(afterUser, USDC, s.frontrunOut)
    const bot = '0x00000000000000000000000000000000000000b0' as Address
    const tx = (n: string, from: Address, logs: unknown[]) => ({ hash: n.padEnd(66, '0') as Hash, from, gasUsed: 150_000n, effectiveGasPrice: 10n ** 9n, logs: logs as never })
    const front = tx('0x01', bot, [syncLog(afterFront)])
    const user = tx('0x02', '0x00000000000000000000000000000000000000a1', [syncLog(afterUser)])
    const back = tx('0x03', bot, [syncLog(afterBack)])
    const v3 = pool(V3, 'uniswap-v3', 500, 30_000_000, 10_000)
    const { opportunities } = classifyBlock({ number: 9, baseFee: 10n ** 9n, txs: [front, user, back] }, { weth: WETH, parentPools: [v2(), v3], isUserSwap: (h) => h === user.hash, minGapWei: 0n })
    expect(opportunities).toHaveLength(1)
    expect(opportunities[0]).toMatchObject({ victim: user.hash, frontrun: [front], backrun: [back] })
    // In USDC: what 20 WETH bought on the untouched pair, less what it got.
    expect(opportunities[0]!.userLoss).toEqual({ token: USDC, amount: s.victimAlone - s.victimOut })
  })
})

describe('the gas market and the rivals’ draws (pure)', () => {
  const spec = loadFlow('default').gas!
  const start = BigInt(spec.baseFeeGwei * 1e9)

  it('asks for fill × the limit at the starting base fee, less when gas is dearer, more when cheaper (never over twice the limit)', () => {
    const mean = (baseFee: bigint) => {
      const random = new SeededRandom(3)
      const draws = Array.from({ length: 400 }, () => Number(askedGas(random, spec, 60_000_000n, baseFee)))
      return draws.reduce((a, b) => a + b, 0) / draws.length
    }
    expect(mean(start) / 60e6).toBeCloseTo(spec.fill, 1)
    expect(mean(start * 2n)).toBeLessThan(mean(start) * 0.6)
    expect(mean(start / 2n)).toBeGreaterThan(mean(start) * 1.6)
    expect(askedGas(new SeededRandom(1), spec, 60_000_000n, 1n)).toBe(120_000_000n)
  })

  it('plans txs until their gas reaches what is asked, from the free accounts only, with tips from the distribution', () => {
    const txs = planBackground(new SeededRandom(5), spec, { gasLimit: 60_000_000n, baseFee: start }, [2, 5, 9])
    const gas = txs.reduce((sum, tx) => sum + tx.gas, 0n)
    const asked = askedGas(new SeededRandom(5), spec, 60_000_000n, start)
    expect(gas).toBeGreaterThanOrEqual(asked)
    expect(gas - txs.at(-1)!.gas).toBeLessThan(asked)
    expect(new Set(txs.map((t) => t.account))).toEqual(new Set([2, 5, 9]))
    expect(txs.filter((t) => t.kind === 'transfer').every((t) => t.gas === TRANSFER_GAS)).toBe(true)
    expect(new Set(txs.map((t) => t.kind))).toEqual(new Set(['transfer', 'token', 'call']))
    // The default's tips: log-normal around 0.05 gwei, at most 5.
    const tips = txs.map((t) => Number(t.tipWei) / 1e9).sort((a, b) => a - b)
    expect(tips[Math.floor(tips.length / 2)]).toBeGreaterThan(0.03)
    expect(tips[Math.floor(tips.length / 2)]).toBeLessThan(0.08)
    expect(tips.at(-1)).toBeLessThanOrEqual(5)
    expect(planBackground(new SeededRandom(5), spec, { gasLimit: 60_000_000n, baseFee: start }, [])).toEqual([])
  })

  it('a bid share drawn from { mean, sd } stays in [0, 1] around its mean; a number is fixed', () => {
    const random = new SeededRandom(9)
    const draws = Array.from({ length: 2000 }, () => drawShare(random, { mean: 0.88, sd: 0.04 }))
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...draws)).toBeLessThanOrEqual(1)
    expect(draws.reduce((a, b) => a + b, 0) / draws.length).toBeCloseTo(0.88, 2)
    expect(drawShare(random, { mean: 0.99, sd: 0.5 })).toBeLessThanOrEqual(1)
    expect(drawShare(random, 0.3)).toBe(0.3)
  })
})

describe('the flow file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bundlesim-flow-'))
  const problem = (text: string) => {
    const file = path.join(dir, 'flow.yaml')
    writeFileSync(file, text)
    try {
      loadFlow(file)
    } catch (error) {
      expect(error).toBeInstanceOf(FlowFileError)
      return `${(error as FlowFileError).field}: ${(error as FlowFileError).problem}`
    }
    throw new Error('accepted')
  }
  const users = (extra: string) => `users:\n  count: 2\n  swapsPerSlot: 1\n  size: { median: 1, sigma: 0.5 }\n  slippageBps: 50\n  channels: { public: 1 }\n  pairs: { WETH/USDC: 1 }\n${extra}`

  it('names the field of every mistake', () => {
    expect(problem(users('').replace('channels: { public: 1 }', 'channels: { pubic: 1 }'))).toBe('users.channels: unknown field pubic (did you mean public?) (known: public, private, mevShare)')
    expect(problem(users('').replace('WETH/USDC', 'WETH-USDC'))).toMatch(/^users\.pairs\.WETH-USDC: unknown pair "WETH-USDC"/)
    expect(problem(users('').replace('channels: { public: 1 }', 'channels: { public: 0 }'))).toBe('users.channels: every channel weight is 0: users would send nothing')
    expect(problem(users('searchers:\n  - { name: a, bidShare: 1.5 }\n'))).toBe('searchers[0].bidShare: expected a share of the expected profit from 0 to 1 (from 0 to 1)')
    expect(problem(users('searchers:\n  - { name: a, bidShare: 0.5 }\n  - { name: a, bidShare: 0.5 }\n'))).toBe('searchers[1].name: "a" is already a searcher\'s name')
    expect(problem(users('').replace('slippageBps: 50', 'slipageBps: 50'))).toMatch(/^users: unknown field slipageBps \(did you mean slippageBps\?\)/)
    expect(problem(users('searchers:\n  - { name: a, bidShare: { mean: 0.9 } }\n'))).toBe('searchers[0].bidShare: expected a share of the expected profit from 0 to 1, or { mean, sd }')
    expect(problem(users('searchers:\n  - { name: a, bidShare: 0.5, reactionDelayMs: { median: 50, sigma: -1 } }\n'))).toBe('searchers[0].reactionDelayMs.sigma: expected a log-normal sigma (from 0 to 5)')
    expect(problem(users('searchers:\n  - { name: a, bidShare: 0.5 }\nsandwichers:\n  - { name: a, bidShare: 0.9 }\n'))).toBe('sandwichers[0].name: "a" is already a searcher\'s name')
    const gas = (extra: string) => `gas:\n  baseFeeGwei: 1\n  fill: 0.5\n  priorityFeeGwei: 0.05\n  callGas: 100000\n  mix: { transfer: 1 }\n${extra}${users('')}`
    expect(problem(gas('').replace('fill: 0.5', 'fill: 1.5'))).toBe('gas.fill: expected a share of the block gas limit from 0 to 1 (from 0 to 1)')
    expect(problem(gas('').replace('mix: { transfer: 1 }', 'mix: { transfer: 0 }'))).toBe('gas.mix: every weight is 0: the background flow would send nothing')
    expect(problem(gas('').replace('mix: { transfer: 1 }', 'mix: { transfers: 1 }'))).toBe('gas.mix: unknown field transfers (did you mean transfer?) (known: transfer, token, call)')
  })

  it('checks the pairs against the world: a token it lacks is named, and users trade against WETH', () => {
    const flow = loadFlow('default')
    expect(() => checkFlowPairs({ ...flow, users: { ...flow.users, pairs: { 'WETH/PEPE': 1 } } })).toThrow('default: users.pairs.WETH/PEPE: unknown token "PEPE"; the world has WETH, USDC, USDT, DAI, WBTC')
    expect(() => checkFlowPairs({ ...flow, arbitrageurs: [], users: { ...flow.users, pairs: { 'WETH/PEPE': 1 } } }, ['WETH', 'PEPE'])).not.toThrow()
    expect(() => checkFlowPairs({ ...flow, users: { ...flow.users, pairs: { 'WETH/PEPE': 1 } } }, ['WETH', 'PEPE'])).toThrow('default: arbitrageurs.0.pairs.0: unknown token "USDC"; the world has WETH, PEPE')
    expect(() => checkFlowPairs({ ...flow, users: { ...flow.users, pairs: { 'USDC/DAI': 1 } } })).toThrow('default: users.pairs.USDC/DAI: users trade pairs with WETH on one side (they buy or sell WETH)')
  })

  it('a flow without a world, or a bad flow file, is refused at start naming it', async () => {
    await expect(startTestHarness({ flow: 'default' })).rejects.toThrow(/^flow: the market trades on the DEX world; start with --world dex/)
    writeFileSync(path.join(dir, 'bad.yaml'), users('').replace('count: 2', 'count: two'))
    await expect(startTestHarness({ world: 'dex', flow: path.join(dir, 'bad.yaml') })).rejects.toThrow(/users\.count: expected a whole number of users/)
  })
})

/** The market's run: one BuilderNet builder, whose flat-tax refunds a competing bid below its blocks leaves room for. */
const MARKET_RUN = {
  world: 'dex',
  // Whales' swaps: every kind of opportunity (backruns, MEV-Share backruns, sandwiches) in the few slots a test runs.
  flow: defaultFlowWithWhales(),
  genesisTimestamp: 1_700_000_000,
  builders: [{ name: 'buildernet', profile: 'buildernet' as const }],
  competitorBidWei: 1n,
  // A quarter of mainnet's 60M, so the tests run a quarter of the txs; the gas market fills it the same way (the bench runs 60M).
  blockGasLimit: 15_000_000n,
}

describe('the market on the DEX world (--world dex, the default flow with whales\' swaps)', () => {
  const harness = useTestHarness(MARKET_RUN)
  /** The first slot's block: the gas market's figures are read from there. */
  let firstSlotBlock = 0

  it('users swap through the routers on the public mempool; searchers backrun them right after the swap; the report and harness_getCompetition agree', async () => {
    const pending = (await rpc(harness.rpcUrl, 'txpool_content')).body.result
    const publicTxs = Object.values(pending.pending as Record<string, Record<string, { to: string }>>).flatMap((byNonce) => Object.values(byNonce))
    const routers = ['0x66a9893cc07d91d95644aedd05d03f95e1dba8af', '0x7a250d5630b4cf539739df2c5dacb4c659f2488d', '0xe592427a0aece92de3edee1f18e0157c05861564', '0xd9e1ce17f2641f24ae83637ab66a2cca9c378b9f']
    // Users' swaps go through the routers (the Universal Router, Router02, SwapRouter, Sushi's); the rest is the gas market's flow (transfers, token transfers, contract calls).
    expect(publicTxs.filter((tx) => routers.includes(tx.to.toLowerCase())).length).toBeGreaterThan(0)
    expect(publicTxs.filter((tx) => !routers.includes(tx.to.toLowerCase())).length).toBeGreaterThan(50)

    const reports = await harness.advanceSlot(5)
    firstSlotBlock = reports[0]!.blockNumber
    const client = createPublicClient({ transport: http(harness.rpcUrl) })
    const competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [{ fromBlock: reports[0]!.blockNumber }])).body.result
    expect(competition.opportunities).toBe(reports.reduce((n, r) => n + r.competition!.opportunities, 0))
    expect(competition.captured).toBeGreaterThan(0)
    const names = competition.searchers.filter((s: { captured: number }) => s.captured > 0).map((s: { name: string }) => s.name)
    expect(names.every((n: string) => ['alpha', 'beta', 'gamma', 'kappa', 'lambda'].includes(n))).toBe(true)
    // The backruns and sandwiches (a CEX-DEX trade follows no user: test/exchange.test.ts).
    for (const o of competition.list.filter((x: { searcher: string | null; kind: string }) => x.searcher && x.kind !== 'cexDex')) {
      // Right after the user's swap, in the same block; the searcher earned and paid the builder.
      const block = await client.getBlock({ blockNumber: BigInt(o.blockNumber) })
      const at = block.transactions.indexOf(o.victim)
      expect(block.transactions.slice(at + 1, at + 1 + o.backrunTxs.length)).toEqual(o.backrunTxs)
      expect(BigInt(o.profitWei)).toBeGreaterThan(0n)
      expect(BigInt(o.builderPaymentWei)).toBeGreaterThan(0n)
    }
    const refused = await rpc(harness.rpcUrl, 'harness_getCompetition', [{ fromBlock: 5, toBlock: 2 }])
    expect(refused.body.error!.message).toBe('fromBlock: 5 is after toBlock 2')
  })

  it("each captured opportunity's refundWei is the refunds its bundle earned the searcher, as buildernet_getDelayedRefunds lists them", async () => {
    // The slots the test before ran (no more: the run below counts on them).
    const competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
    const captured = competition.list.filter((o: { bundleHash: string | null }) => o.bundleHash)
    expect(captured.length).toBeGreaterThan(0)
    // A MEV-Share backrun earns no flat-tax share (its user is refunded instead): 0, as the ledger lists nothing for it.
    let refunded = 0
    let userRefunded = 0
    for (const o of captured) {
      const { refunds } = await call(harness.rpcUrl, 'buildernet_getDelayedRefunds', [{ recipient: o.searcher }])
      const earned = refunds.filter((r: { hash: string }) => r.hash === o.bundleHash).reduce((sum: bigint, r: { amount: string }) => sum + BigInt(r.amount), 0n)
      expect(BigInt(o.refundWei)).toBe(earned)
      if (earned > 0n) refunded++
      // Two payment figures under two names: what its txs gave the coinbase, and what the builder kept after the refunds it paid out of it (a MEV-Share user's) — as its bundle's stats measure them.
      const stats = await call(harness.statsUrl, 'svc_getBundleStats', [{ bundle_hash: o.bundleHash }])
      expect(BigInt(o.grossPaymentWei) - BigInt(o.builderPaymentWei)).toBe(BigInt(stats.grossPayment) - BigInt(stats.builderPayment))
      if ((stats.refunds ?? []).length > 0) userRefunded++
    }
    expect(refunded).toBeGreaterThan(0)
    // Some captures were MEV-Share backruns, whose user was refunded out of the payment.
    expect(userRefunded).toBeGreaterThan(0)
    const row = competition.searchers.find((s: { captured: number }) => s.captured > 0)
    const itsOwn = captured.filter((o: { searcher: string }) => o.searcher === row.searcher)
    expect(BigInt(row.profitWei)).toBe(itsOwn.reduce((sum: bigint, o: { profitWei: string }) => sum + BigInt(o.profitWei), 0n))
  })

  it('the dashboard’s competition view shows each searcher’s captures, profit and payment', async () => {
    await harness.advanceSlot(3)
    const browser = await launchChromium()
    try {
      const page = await browser.newPage({ viewport: { width: 1300, height: 800 } })
      await page.goto(`${harness.statsUrl}#/competition`)
      const competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
      const winner = competition.searchers.find((s: { captured: number }) => s.captured > 0)
      const row = page.locator(`tr.searcher-row[data-searcher="${winner.name}"]`)
      await row.waitFor()
      expect(await row.locator('td').nth(1).textContent()).toBe(String(winner.captured))
      expect(await page.locator('.competition h2').textContent()).toContain(`${competition.captured} of ${competition.opportunities} opportunities captured`)
      await page.screenshot({ path: path.join(REPO_ROOT, 'test-output', 'competition.png'), fullPage: true })
    } finally {
      await browser.close()
    }
  })

  it('the gas market: over its first 20 slots the base fee stays near its start (0.05 gwei) and blocks are 40–60 % full on average; tips are drawn', async () => {
    // The slots the tests before ran, and more to 20.
    const firstSlot = BigInt(firstSlotBlock)
    const client = createPublicClient({ transport: http(harness.rpcUrl) })
    const head = BigInt(harness.status().blockNumber)
    if (head < firstSlot + 19n) await harness.advanceSlot(Number(firstSlot + 19n - head))
    const blocks = await Promise.all(Array.from({ length: 20 }, (_, i) => client.getBlock({ blockNumber: firstSlot + BigInt(i), includeTransactions: true })))
    const start = 50_000_000n
    // The first slot's block starts there; then EIP-1559 moves it by at most 12.5 % a block, around the start.
    expect(blocks[0]!.baseFeePerGas).toBe(start)
    for (const block of blocks) {
      expect(block.baseFeePerGas).toBeGreaterThanOrEqual(start / 2n)
      expect(block.baseFeePerGas).toBeLessThanOrEqual(start * 2n)
    }
    const fills = blocks.map((b) => Number(b.gasUsed) / Number(b.gasLimit))
    const meanFill = fills.reduce((a, b) => a + b, 0) / fills.length
    expect(meanFill).toBeGreaterThan(0.4)
    expect(meanFill).toBeLessThan(0.6)
    expect(blocks[0]!.gasLimit).toBe(MARKET_RUN.blockGasLimit)
    // Tips are the distribution's, not one wallet default: many distinct values, most below 1 gwei.
    const tips = blocks.flatMap((b) => b.transactions.map((tx) => tx.maxPriorityFeePerGas ?? 0n))
    expect(new Set(tips).size).toBeGreaterThan(tips.length / 2)
    expect(tips.filter((t) => t < 1_000_000_000n).length).toBeGreaterThan(tips.length * 0.8)
    // A mainnet-like mix: ether transfers, calls, and the users' router swaps.
    const all = blocks.flatMap((b) => b.transactions)
    expect(all.filter((tx) => tx.input === '0x' && tx.gas === 21_000n).length).toBeGreaterThan(50)
    // Users' swaps go through the Universal Router, Router02, SwapRouter and Sushi's router.
    const routers = ['0x66a9893cc07d91d95644aedd05d03f95e1dba8af', '0x7a250d5630b4cf539739df2c5dacb4c659f2488d', '0xe592427a0aece92de3edee1f18e0157c05861564', '0xd9e1ce17f2641f24ae83637ab66a2cca9c378b9f']
    const through = routers.map((router) => all.filter((tx) => tx.to?.toLowerCase() === router).length)
    expect(through[0]).toBeGreaterThan(through[1]! + through[2]!)
    expect(through.reduce((a, b) => a + b, 0)).toBeGreaterThan(20)
  })

  it('the sandwicher lands sandwiches on loose-slippage users: its frontrun right before the user’s swap and its backrun right after, from one sender; the report counts them and the user’s loss', async () => {
    const client = createPublicClient({ transport: http(harness.rpcUrl) })
    const competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
    const sandwiches = competition.list.filter((o: { frontrunTxs: string[] }) => o.frontrunTxs.length > 0)
    expect(sandwiches.length).toBeGreaterThan(0)
    expect(competition.sandwiches).toBe(sandwiches.length)
    expect(BigInt(competition.userLossWei)).toBe(sandwiches.reduce((sum: bigint, o: { userLossWei: string }) => sum + BigInt(o.userLossWei), 0n))
    for (const o of sandwiches) {
      expect(o.name).toBe('gamma')
      const block = await client.getBlock({ blockNumber: BigInt(o.blockNumber) })
      const at = block.transactions.indexOf(o.victim)
      expect(block.transactions.slice(at - o.frontrunTxs.length, at)).toEqual(o.frontrunTxs)
      expect(block.transactions.slice(at + 1, at + 1 + o.backrunTxs.length)).toEqual(o.backrunTxs)
      const senders = await Promise.all([...o.frontrunTxs, ...o.backrunTxs].map(async (hash: `0x${string}`) => (await client.getTransaction({ hash })).from))
      expect(new Set(senders).size).toBe(1)
      // The user got less than it would have alone, still at least its minimum (its swap succeeded); the sandwicher earned and paid.
      expect((await client.getTransactionReceipt({ hash: o.victim })).status).toBe('success')
      expect(BigInt(o.userLossWei)).toBeGreaterThan(0n)
      expect(BigInt(o.profitWei)).toBeGreaterThan(0n)
      expect(BigInt(o.builderPaymentWei)).toBeGreaterThan(0n)
    }

    // Held against the chain, for a block where the sandwicher did one thing: its executor's WETH,
    // the token it kept (priced at the V2 pair after the block) and its ether; the payment is what
    // the executor unwrapped and sent the coinbase; the user's loss from the pair's Swap and Sync logs.
    const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)', 'function getReserves() view returns (uint112, uint112, uint32)', 'function token0() view returns (address)', 'function token1() view returns (address)'])
    const swapTopic = toEventSelector('Swap(address,uint256,uint256,uint256,uint256,address)')
    const syncTopic = toEventSelector('Sync(uint112,uint112)')
    const withdrawalTopic = toEventSelector('Withdrawal(address,uint256)')
    const pools = harness.status().world!.pools
    const alone = sandwiches.filter((o: { blockNumber: number; pool: string }) => sandwiches.filter((x: { blockNumber: number }) => x.blockNumber === o.blockNumber).length === 1 && pools.find((p) => p.address === o.pool)?.dex === 'uniswap-v2')
    expect(alone.length).toBeGreaterThan(0)
    for (const o of alone) {
      const n = BigInt(o.blockNumber)
      const front = await client.getTransaction({ hash: o.frontrunTxs[0] })
      const executor = front.to!
      const operator = front.from
      const pool = o.pool as Address
      const [token0, token1] = await Promise.all([client.readContract({ address: pool, abi: erc20, functionName: 'token0' }), client.readContract({ address: pool, abi: erc20, functionName: 'token1' })])
      const token = token0.toLowerCase() === WETH.toLowerCase() ? token1 : token0
      const at = async (blockNumber: bigint) => ({
        weth: await client.readContract({ address: WETH, abi: erc20, functionName: 'balanceOf', args: [executor], blockNumber }),
        token: await client.readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [executor], blockNumber }),
        ether: (await client.getBalance({ address: executor, blockNumber })) + (await client.getBalance({ address: operator, blockNumber })),
      })
      const [before, after] = [await at(n - 1n), await at(n)]
      const [r0, r1] = await client.readContract({ address: pool, abi: erc20, functionName: 'getReserves', blockNumber: n })
      const [wethReserve, tokenReserve] = token0.toLowerCase() === WETH.toLowerCase() ? [r0, r1] : [r1, r0]
      const chainProfit = after.weth - before.weth + ((after.token - before.token) * wethReserve) / tokenReserve + after.ether - before.ether
      expect(BigInt(o.profitWei) - BigInt(o.refundWei)).toBe(chainProfit)
      const backrun = await client.getTransactionReceipt({ hash: o.backrunTxs[0] })
      const paid = backrun.logs.filter((l) => l.topics[0] === withdrawalTopic && l.address.toLowerCase() === WETH.toLowerCase()).reduce((sum, l) => sum + BigInt(l.data), 0n)
      expect(BigInt(o.builderPaymentWei)).toBe(paid)
      // The user's loss: what its WETH would have bought on the pair before the frontrun (its reserves then: after the frontrun's Sync, less its Swap), less what it got.
      const logOf = async (hash: Hash, topic: Hex) => (await client.getTransactionReceipt({ hash })).logs.find((l) => l.address.toLowerCase() === pool.toLowerCase() && l.topics[0] === topic)!
      const amounts = (data: Hex) => (data.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`))
      const [s0, s1] = amounts((await logOf(o.frontrunTxs[0], syncTopic)).data)
      const [f0In, f1In, f0Out, f1Out] = amounts((await logOf(o.frontrunTxs[0], swapTopic)).data)
      const [v0In, v1In, v0Out, v1Out] = amounts((await logOf(o.victim, swapTopic)).data)
      const untouched = { ...pool2(pool, token0, token1), reserve0: s0! - f0In! + f0Out!, reserve1: s1! - f1In! + f1Out! }
      const userIn = v0In! > 0n ? v0In! : v1In!
      const got = v0In! > 0n ? v1Out! : v0Out!
      const lossInToken = amountOut(untouched, v0In! > 0n ? token0 : token1, userIn) - got
      expect(BigInt(o.userLossWei)).toBe((lossInToken * wethReserve) / tokenReserve)
    }
  })

  it('a manual-clock run is the same every time (same seed, same genesis: same blocks)', async () => {
    const again = await startTestHarness(MARKET_RUN)
    try {
      // The first slots again: each block the same as the first run's at its number (users, gas market, rivals' draws).
      const replay = await again.advanceSlot(5)
      for (const report of replay) {
        const first = (await rpc(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${report.blockNumber.toString(16)}`, false])).body.result
        expect(report.blockHash).toBe(first.hash)
      }
    } finally {
      await again.stop()
    }
  })
})

describe('the market on a fork (--fork-url): the same flow and searchers on the forked pools', () => {
  it('deploys nothing where the fork has mainnet’s contracts, and users and searchers trade there', async () => {
    // The "mainnet" is a local chain that has the world (no network in tests).
    const mainnet = await launchAnvil({ host: '127.0.0.1', port: 0, chainId: 31337, timestamp: 1_700_000_000 })
    try {
      await deployDexWorld(mainnet.url, loadWorldFile('dex'))
      await createTestClient({ mode: 'anvil', transport: http(mainnet.url) }).mine({ blocks: 1 })
      const forkHead = await createPublicClient({ transport: http(mainnet.url) }).getBlockNumber()
      const fork = await startTestHarness({ forkUrl: mainnet.url, world: 'dex', flow: 'default' })
      try {
        // Nothing deployed on the fork: its head is the forked block.
        expect(BigInt(fork.status().blockNumber)).toBe(forkHead)
        expect(fork.status().world!.pools).toHaveLength(19)
        const reports = await fork.advanceSlot(4)
        const competition = (await rpc(fork.rpcUrl, 'harness_getCompetition', [])).body.result
        expect(reports.some((r) => r.mempoolTxs.length > 0)).toBe(true)
        expect(competition.captured).toBeGreaterThan(0)
      } finally {
        await fork.stop()
      }
    } finally {
      await mainnet.stop()
    }
  })
})

