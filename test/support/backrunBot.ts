import { fileURLToPath } from 'node:url'
import { loadFlow } from '../../src/flow/flowFile.js'
import type { Hex } from 'viem'
import type { Harness } from '../../src/index.js'
import { rpc } from './harness.js'
import { startExample } from './exampleProcess.js'

/** `examples/backrun-bot/bot.ts` as a user runs it (tsx), its JSON lines collected as they come. */
export const startBot = (rpcUrl: string, key: Hex, bidShare: string, extra: Record<string, string> = {}) => startExample('examples/backrun-bot/bot.ts', { RPC_URL: rpcUrl, BOT_KEY: key, BID_SHARE: bidShare, ...extra })

/** The txs a bot has answered (sent, skipped, error), read from its lines once each: the gas market makes hundreds a slot. */
const handled = new WeakMap<object, { read: number; hashes: Set<unknown> }>()
function handledBy(bot: object, lines: ReadonlyArray<Record<string, unknown>>): Set<unknown> {
  let seen = handled.get(bot)
  if (!seen) handled.set(bot, (seen = { read: 0, hashes: new Set() }))
  for (; seen.read < lines.length; seen.read++) {
    const line = lines[seen.read]!
    if (['sent', 'skipped', 'error'].includes(line.event as string)) seen.hashes.add(line.hash)
  }
  return seen.hashes
}

/**
 * Runs slots until `done` says so (or 25 slots), each after the bot handled every public swap
 * of the coming slot: the bot reacts to the pending stream, the slot waits for its answer.
 */
export async function runUntil(harness: Harness, bots: ReadonlyArray<ReturnType<typeof startBot>>, done: (competition: any) => boolean, maxSlots = 25): Promise<any> {
  const pendingHashes = async () => {
    const pool = (await rpc(harness.rpcUrl, 'txpool_content')).body.result.pending as Record<string, Record<string, { hash: string }>>
    return Object.values(pool).flatMap((byNonce) => Object.values(byNonce).map((tx) => tx.hash))
  }
  // Swaps sent before the bot subscribed are not on its stream: only later ones are waited for.
  const before = new Set(await pendingHashes())
  let competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
  for (let slot = 0; slot < maxSlots && !done(competition); slot++) {
    await harness.advanceSlot()
    const pending = (await pendingHashes()).filter((hash) => !before.has(hash))
    for (const bot of bots) await bot.until((all) => pending.every((hash) => handledBy(bot, all).has(hash)), 'handle every pending swap')
    competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
  }
  // One more slot: the bundles sent for the swaps of the last one are judged too.
  await harness.advanceSlot()
  return (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
}

/** The world of the venues the example bot trades (Uniswap V2 and V3, full range): on the built-in one the rivals also trade SushiSwap and V4 and outbid it. */
export const EXAMPLE_WORLD = fileURLToPath(new URL('../../examples/backrun-bot/world.yaml', import.meta.url))

/** The default market on the example bot's venues (its gas market on a quarter of mainnet's gas limit, so the tests run a quarter of the txs). */
export const MARKET = { world: EXAMPLE_WORLD, flow: 'default', genesisTimestamp: 1_700_000_000, blockGasLimit: 15_000_000n }

/**
 * Whales' swaps: ~20 ETH at the median. The default flow's are mainnet's (1.5 ETH at the median,
 * docs/market.md "Depth and sizes"), whose opportunities come a few a slot at mainnet's pace of
 * swaps; a test of how a kind of opportunity is taken, lost and counted needs one in each of a
 * few slots, so its users trade as whales do. The magnitudes are the market bench's business.
 */
export const WHALE_SWAPS = { median: 20, sigma: 0.6, max: 200 }

/** The default flow with whales' swaps ({@link WHALE_SWAPS}): every kind of opportunity in a few slots. */
export function defaultFlowWithWhales(): Record<string, unknown> {
  const { name: _name, ...flow } = loadFlow('default')
  return { ...flow, users: { ...flow.users, size: WHALE_SWAPS } }
}

/** The default flow's rivals and gas market, its users trading WETH/USDC in the public mempool as whales, where the example bot looks: what it can compete for comes every slot. */
export function publicWethUsdcMarket(): Omit<typeof MARKET, 'flow'> & { flow: Record<string, unknown> } {
  const { name: _name, ...flow } = loadFlow('default')
  return { ...MARKET, flow: { ...flow, users: { ...flow.users, size: WHALE_SWAPS, swapsPerSlot: 4, channels: { public: 1, private: 0, mevShare: 0 }, pairs: { 'WETH/USDC': 1 } } } }
}

