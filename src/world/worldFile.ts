import { codeFile } from '../config/codeFiles.js'
import { readYamlFile, SettingsFileError } from '../config/yamlFile.js'
import { z } from 'zod'
import { closestName } from '../protocol/closestName.js'
import { getAddress } from 'viem'
import { MAINNET, MAINNET_TOKENS, type TokenSymbol } from '../dex/mainnet.js'
import type { WorldToken } from './pricing.js'

/** An address the world already uses: a declared token may not sit there. */
function isReserved(address: string): boolean {
  const lower = address.toLowerCase()
  return [...Object.values(MAINNET), ...Object.values(MAINNET_TOKENS).map((t) => t.address)].some((a) => a.toLowerCase() === lower)
}

/** A world file that cannot be used; `field` is where. */
export class WorldFileError extends SettingsFileError {}

/** V3 fee tiers mainnet's factory has enabled, with their tick spacing. */
export const V3_TICK_SPACING: Readonly<Record<number, number>> = { 100: 1, 500: 10, 3000: 60, 10000: 200 }

const BUILT_IN = Object.keys(MAINNET_TOKENS) as TokenSymbol[]

/** A token symbol as the world file writes one; which symbols exist is checked with the file's `tokens`. */
const symbol = z.string({ error: `expected a token symbol (${BUILT_IN.join(', ')}, or one of the file's tokens)` })

/** Decimal amounts as YAML numbers or strings ("0.5"): positive, finite. */
const positive = (what: string) =>
  z
    .union([z.number(), z.string()], { error: `expected ${what} as a number` })
    .transform((v) => String(v).trim())
    .refine((v) => /^\d+(\.\d+)?$/.test(v), { error: `expected ${what} as a plain decimal number` })
    .refine((v) => Number(v) > 0, { error: `${what} must be above 0 (a pool with no liquidity, or no price, cannot be seeded)` })

const depth = positive('the depth (base tokens in the pool)')

const strict = <T extends z.ZodRawShape>(shape: T, known: string) =>
  z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')} (known: ${known})` : `expected { ${known} }`) })

/** A position around the price: ±`pct` % of it, holding at most `depth` base tokens' worth. */
const range = strict(
  {
    pct: z
      .number({ error: 'expected pct, the half-width around the price in percent (e.g. 2 for ±2 %)' })
      .refine((pct) => pct > 0 && pct < 100, { error: 'expected pct above 0 and below 100 (±pct % around the price)' }),
    depth,
  },
  'pct, depth',
)
const ranges = z.array(range, { error: 'expected a list of { pct, depth }' }).optional()

const v3Pool = strict(
  {
    fee: z
      .number({ error: 'expected a fee tier: 100, 500, 3000 or 10000' })
      .refine((fee) => fee in V3_TICK_SPACING, { error: (issue) => `fee tier ${String(issue.input)} is not enabled on Uniswap V3 (100, 500, 3000 or 10000)` }),
    depth,
    ranges,
  },
  'fee, depth, ranges?',
)

/** V4 takes any static fee up to 100 % (in hundredths of a bp) and any tick spacing; the V3 tiers' spacings are the default. */
const v4Pool = strict(
  {
    fee: z.number({ error: 'expected a fee in hundredths of a bp (500 = 0.05 %)' }).int('expected a whole fee in hundredths of a bp').min(0, 'expected a fee from 0').max(100_000, 'expected a fee of at most 100000 (10 %)'),
    tickSpacing: z.number({ error: 'expected a tick spacing from 1 to 16383' }).int('expected a whole tick spacing').min(1, 'expected a tick spacing from 1 to 16383').max(16383, 'expected a tick spacing from 1 to 16383').optional(),
    depth,
    ranges,
  },
  'fee, tickSpacing?, depth, ranges?',
).refine((pool) => pool.tickSpacing !== undefined || pool.fee in V3_TICK_SPACING, { error: (issue) => `fee ${String((issue.input as { fee?: unknown }).fee)} has no usual tick spacing: give tickSpacing`, path: ['tickSpacing'] })

/** A V4 pool's tick spacing: the one given, else the V3 tier's. */
export function v4TickSpacing(pool: { fee: number; tickSpacing?: number }): number {
  return pool.tickSpacing ?? V3_TICK_SPACING[pool.fee]!
}

const poolEntry = strict(
  {
    pair: z
      .tuple([symbol, symbol], { error: 'expected [base, quote], two token symbols' })
      .refine(([a, b]) => a !== b, { error: 'a pair needs two different tokens' }),
    price: positive('the price (quote units for one base)'),
    uniswapV2: strict({ depth }, 'depth').optional(),
    sushiswap: strict({ depth }, 'depth').optional(),
    uniswapV3: z.array(v3Pool, { error: 'expected a list of { fee, depth, ranges? }' }).optional(),
    uniswapV4: z.array(v4Pool, { error: 'expected a list of { fee, tickSpacing?, depth, ranges? }' }).optional(),
  },
  'pair, price, uniswapV2, sushiswap, uniswapV3, uniswapV4',
)

/** A token of the file's own, at its mainnet address: a standard ERC-20 is placed there. */
const tokenEntry = strict(
  {
    symbol: z
      .string({ error: 'expected a symbol' })
      .regex(/^[A-Za-z0-9]{1,11}$/, 'expected 1–11 letters or digits')
      .refine((s) => !BUILT_IN.includes(s as TokenSymbol), { error: (issue) => `${String(issue.input)} is built in (at ${MAINNET_TOKENS[issue.input as TokenSymbol]?.address}); declare only other tokens` }),
    address: z
      .string({ error: 'expected the token\'s mainnet address' })
      .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 20-byte 0x address')
      .transform((a) => getAddress(a))
      .refine((a) => !isReserved(a), { error: (issue) => `${String(issue.input)} is already one of the world's contracts or tokens` }),
    decimals: z.number({ error: 'expected decimals, a whole number from 0 to 36' }).int('expected decimals, a whole number from 0 to 36').min(0, 'expected decimals from 0 to 36').max(36, 'expected decimals from 0 to 36'),
    name: z.string({ error: 'expected a name' }).optional(),
  },
  'symbol, address, decimals, name?',
)

const worldFile = strict(
  {
    tokens: z
      .array(tokenEntry, { error: 'expected a list of { symbol, address, decimals }' })
      .default([])
      .superRefine((tokens, ctx) => {
        const symbols = new Map<string, number>()
        const addresses = new Map<string, number>()
        tokens.forEach((t, i) => {
          if (symbols.has(t.symbol)) ctx.addIssue({ code: 'custom', path: [i, 'symbol'], message: `${t.symbol} is already tokens[${symbols.get(t.symbol)}]` })
          if (addresses.has(t.address)) ctx.addIssue({ code: 'custom', path: [i, 'address'], message: `${t.address} is already tokens[${addresses.get(t.address)}]` })
          symbols.set(t.symbol, i)
          addresses.set(t.address, i)
        })
      }),
    pools: z
      .array(poolEntry, { error: 'expected a list of pools' })
      .min(1, 'expected at least one pool')
      .superRefine((pools, ctx) => {
        const seen = new Map<string, number>()
        pools.forEach((pool, index) => {
          const key = [...pool.pair].sort().join('/')
          const first = seen.get(key)
          if (first !== undefined) ctx.addIssue({ code: 'custom', path: [index, 'pair'], message: `${key} is already pools[${first}] (one entry per pair)` })
          else seen.set(key, index)
          if (!pool.uniswapV2 && !pool.sushiswap && !pool.uniswapV3?.length && !pool.uniswapV4?.length) ctx.addIssue({ code: 'custom', path: [index], message: 'none of uniswapV2, sushiswap, uniswapV3, uniswapV4: no pool to seed' })
          const fees = new Set<number>()
          pool.uniswapV3?.forEach((p, i) => {
            if (fees.has(p.fee)) ctx.addIssue({ code: 'custom', path: [index, 'uniswapV3', i, 'fee'], message: `fee tier ${p.fee} twice for ${key}` })
            fees.add(p.fee)
          })
          // A V4 pool is its key: the same fee and spacing twice would be one pool.
          const keys = new Set<string>()
          pool.uniswapV4?.forEach((p, i) => {
            const poolKey = `${p.fee}/${v4TickSpacing(p)}`
            if (keys.has(poolKey)) ctx.addIssue({ code: 'custom', path: [index, 'uniswapV4', i, 'fee'], message: `fee ${p.fee} with tick spacing ${v4TickSpacing(p)} twice for ${key} (one V4 pool)` })
            keys.add(poolKey)
          })
        })
      }),
  },
  'tokens?, pools',
).superRefine((file, ctx) => {
  const known = [...BUILT_IN, ...file.tokens.map((t) => t.symbol)]
  file.pools.forEach((pool, index) =>
    pool.pair.forEach((s, side) => {
      if (known.includes(s)) return
      const near = closestName(s, known)
      ctx.addIssue({ code: 'custom', path: ['pools', index, 'pair', side], message: `unknown token "${s}"${near ? ` (did you mean ${near}?)` : ''}; the world has ${known.join(', ')} (declare others under tokens: { symbol, address, decimals })` })
    }),
  )
})

/** One pair of the world and the pools seeded for it. Amounts are decimal strings in token units. */
export type WorldPairSpec = z.output<typeof poolEntry>
export interface WorldSpec {
  /** `dex` for the built-in file, else the path given. */
  name: string
  /** Every token of the world: the built-in ones, then the file's own. */
  tokens: WorldToken[]
  pairs: WorldPairSpec[]
}

/** Where the built-in world's file is (shipped beside this module, in src/ and in dist/). */
export const BUILT_IN_WORLD_FILE = codeFile('world/dex.yaml')

/**
 * Reads a world file (`dex`: the built-in one), checked; the first problem is thrown as a
 * `WorldFileError` naming the field.
 *
 * @example loadWorldFile('dex').pairs[0].pair // ['WETH', 'USDC']
 */
export function loadWorldFile(world: string): WorldSpec {
  const file = world === 'dex' ? BUILT_IN_WORLD_FILE : world
  const data = readYamlFile(file, worldFile, 'world', (field, problem) => new WorldFileError(world, field, problem))
  const tokens: WorldToken[] = [...BUILT_IN.map((symbol) => ({ symbol, ...MAINNET_TOKENS[symbol] })), ...data.tokens.map((t) => ({ symbol: t.symbol, address: t.address, decimals: t.decimals, ...(t.name && { name: t.name }) }))]
  return { name: world, tokens, pairs: data.pools }
}
