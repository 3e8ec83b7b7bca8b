import { codeFile } from '../config/codeFiles.js'
import { readYamlFile, SettingsFileError } from '../config/yamlFile.js'
import { z } from 'zod'
import { closestName } from '../protocol/closestName.js'
import { MAINNET_TOKENS, type TokenSymbol } from './mainnet.js'

/** A world file that cannot be used; `field` is where. */
export class WorldFileError extends SettingsFileError {}

/** V3 fee tiers mainnet's factory has enabled, with their tick spacing. */
export const V3_TICK_SPACING: Readonly<Record<number, number>> = { 100: 1, 500: 10, 3000: 60, 10000: 200 }

const SYMBOLS = Object.keys(MAINNET_TOKENS) as TokenSymbol[]

const symbol = z.string({ error: `expected a token symbol (${SYMBOLS.join(', ')})` }).refine((s): s is TokenSymbol => SYMBOLS.includes(s as TokenSymbol), {
  error: (issue) => {
    const near = closestName(String(issue.input), SYMBOLS)
    return `unknown token "${String(issue.input)}"${near ? ` (did you mean ${near}?)` : ''}; the world has ${SYMBOLS.join(', ')}`
  },
})

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

const v3Pool = strict(
  {
    fee: z
      .number({ error: 'expected a fee tier: 100, 500, 3000 or 10000' })
      .refine((fee) => fee in V3_TICK_SPACING, { error: (issue) => `fee tier ${String(issue.input)} is not enabled on Uniswap V3 (100, 500, 3000 or 10000)` }),
    depth,
  },
  'fee, depth',
)

const poolEntry = strict(
  {
    pair: z
      .tuple([symbol, symbol], { error: 'expected [base, quote], two token symbols' })
      .refine(([a, b]) => a !== b, { error: 'a pair needs two different tokens' }),
    price: positive('the price (quote units for one base)'),
    uniswapV2: strict({ depth }, 'depth').optional(),
    uniswapV3: z.array(v3Pool, { error: 'expected a list of { fee, depth }' }).optional(),
  },
  'pair, price, uniswapV2, uniswapV3',
)

const worldFile = strict(
  {
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
          if (!pool.uniswapV2 && !pool.uniswapV3?.length) ctx.addIssue({ code: 'custom', path: [index], message: 'neither uniswapV2 nor uniswapV3: no pool to seed' })
          const fees = new Set<number>()
          pool.uniswapV3?.forEach((p, i) => {
            if (fees.has(p.fee)) ctx.addIssue({ code: 'custom', path: [index, 'uniswapV3', i, 'fee'], message: `fee tier ${p.fee} twice for ${key}` })
            fees.add(p.fee)
          })
        })
      }),
  },
  'pools',
)

/** One pair of the world and the pools seeded for it. Amounts are decimal strings in token units. */
export type WorldPairSpec = z.output<typeof poolEntry>
export interface WorldSpec {
  /** `dex` for the built-in file, else the path given. */
  name: string
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
  return { name: world, pairs: data.pools }
}
