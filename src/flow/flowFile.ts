import { codeFile } from '../config/codeFiles.js'
import { checkSettings, readYamlFile, SettingsFileError } from '../config/yamlFile.js'
import { z } from 'zod'
import { closestName } from '../protocol/closestName.js'
import { MAINNET_TOKENS } from '../dex/mainnet.js'
import { exchangeSpec } from '../exchange/spec.js'
import { lendingSpec } from '../lending/spec.js'
import { boundedNumber, strictSettings } from '../config/schemaParts.js'

/** A flow file that cannot be used; `field` is where. */

/**
 * Operator accounts per emulated rival (its txs' senders): one bundle each a slot, so a rival
 * sends at most this many bundles a slot. At 24 swaps a slot a backrunner sees ~20 swaps; with
 * four, three sightings in four found no operator free. More than six cost the builder more than
 * they add: each backrun that fails in place is one more run of the block's calls, and at eight
 * the market's cutoff → final passed 1 s (docs/performance.md).
 */
export const RIVAL_OPERATORS = 6

export class FlowFileError extends SettingsFileError {}

const strict = strictSettings
const number = boundedNumber
const weight = number('a weight ≥ 0', 0)
/** The built-in world's tokens: what a flow's pairs are checked against until the world is known (`checkFlowPairs`). */
const BUILT_IN_SYMBOLS = Object.keys(MAINNET_TOKENS)
const pairName = z.string().refine(
  (name) => {
    const [a, b] = name.split('/')
    return a !== undefined && b !== undefined && a !== b && /^[A-Za-z0-9]{1,11}$/.test(a) && /^[A-Za-z0-9]{1,11}$/.test(b) && name.split('/').length === 2
  },
  { error: (issue) => `unknown pair "${String(issue.input)}": expected BASE/QUOTE, two token symbols as the world file names them (e.g. WETH/USDC)` },
)

/** A share: a number from 0 to 1, or `{ mean, sd }` — a normal draw clipped to [0, 1] each time. */
const share = (what: string) =>
  z.union([number(what, 0, 1), strict({ mean: number(`a mean ${what}`, 0, 1), sd: number('a standard deviation from 0 to 1', 0, 1) }, 'mean, sd')], {
    error: `expected ${what}, or { mean, sd }`,
  })
/** A positive amount: a number, or `{ median, sigma, max? }` — a log-normal draw each time. */
const logNormal = (what: string, min: number, max: number) =>
  z.union([number(what, min, max), strict({ median: number(`a median ${what}`, min, max), sigma: number('a log-normal sigma', 0, 5), max: number(`a largest ${what}`, min, max).optional() }, 'median, sigma, max?')], {
    error: `expected ${what}, or { median, sigma, max? }`,
  })

const HINTS = ['hash', 'logs', 'calldata', 'contract_address', 'function_selector', 'default_logs', 'special_logs', 'tx_hash', 'full']

const users = strict(
  {
    count: z.number({ error: 'expected a whole number of users' }).int('expected a whole number of users').min(1, 'expected at least 1 user').max(1000, 'expected at most 1000 users'),
    swapsPerSlot: number('a mean number of swaps per slot', 0, 100),
    size: strict({ median: number('a size in ETH above 0', 1e-9), sigma: number('a log-normal sigma', 0, 5), max: number('a largest size in ETH above 0', 1e-9).optional() }, 'median, sigma, max?'),
    /** The user's amountOutMin: the quote less this many basis points, fixed or drawn per swap. */
    slippageBps: logNormal('basis points', 0, 10_000),
    channels: strict({ public: weight.default(0), private: weight.default(0), mevShare: weight.default(0) }, 'public, private, mevShare').refine((c) => c.public + c.private + c.mevShare > 0, {
      error: 'every channel weight is 0: users would send nothing',
    }),
    /**
     * Which router a swap goes through, by weight, among those that reach its pool: the
     * Universal Router reaches Uniswap V2, V3 and V4; Router02 V2; SwapRouter V3. A V4 pool
     * is reached only by the Universal Router, a SushiSwap pair only by Sushi's router.
     */
    routers: strict({ universalRouter: weight.default(0), router02: weight.default(0), swapRouter: weight.default(0) }, 'universalRouter, router02, swapRouter')
      .refine((r) => r.universalRouter + r.router02 > 0 && r.universalRouter + r.swapRouter > 0, { error: 'no router reaches Uniswap V2 or V3 pools: give universalRouter, or router02 and swapRouter, a weight above 0' })
      .default({ universalRouter: 0, router02: 1, swapRouter: 1 }),
    mevShareHints: z
      .array(z.string().refine((h) => HINTS.includes(h), { error: (issue) => `unknown hint "${String(issue.input)}" (known: ${HINTS.join(', ')})` }), { error: 'expected a list of MEV-Share hints' })
      .default(['hash', 'logs']),
    pairs: z
      .record(z.string(), weight, { error: 'expected { PAIR: weight }, e.g. { WETH/USDC: 1 }' })
      .superRefine((pairs, ctx) => {
        for (const name of Object.keys(pairs)) {
          const checked = pairName.safeParse(name)
          if (!checked.success) ctx.addIssue({ code: 'custom', path: [name], message: checked.error.issues[0]!.message })
        }
      })
      .refine((p) => Object.values(p).some((w) => w > 0), { error: 'every pair weight is 0: users would trade nothing' }),
  },
  'count, swapsPerSlot, size, slippageBps, channels, routers?, mevShareHints?, pairs',
)

const searcher = strict(
  {
    name: z.string({ error: 'required: the searcher\'s name' }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'expected 1–64 letters, digits, ".", "_" or "-"'),
    /** Paid to the builder (a coinbase transfer from its executor contract), drawn for each backrun. */
    bidShare: share('a share of the expected profit from 0 to 1'),
    reactionDelayMs: logNormal('ms from seeing a swap to sending the backrun', 0, 60_000).default(0),
    /** One-way delay before its submissions reach a builder (its client's latency). */
    latencyMs: number('ms of one-way latency to the builders', 0, 10_000).default(0),
    /** Smallest profit (ETH, after gas and bid) worth a backrun. */
    minProfitEth: number('ETH ≥ 0', 0).default(0.0001),
    builders: z.array(z.string(), { error: 'expected a list of builder names' }).optional(),
  },
  'name, bidShare, reactionDelayMs?, latencyMs?, minProfitEth?, builders?',
)

/**
 * A CEX-DEX arbitrageur: it holds inventory of both sides of the pairs it watches (no atomic
 * round trip: its other leg is on the exchange), and at the top of each block trades every pool
 * that strayed from the exchange's price back toward it, paying the builder a share of the
 * markout it expects.
 */
const arbitrageur = strict(
  {
    name: searcher.shape.name,
    /** Paid to the builder (a coinbase transfer from its executor), a share of the markout it expects, drawn per trade. */
    bidShare: share('a share of the expected markout from 0 to 1'),
    /** The pairs whose pools it watches, as the world names them (WETH/USDC). */
    pairs: z.array(pairName, { error: 'expected a list of pairs (WETH/USDC)' }).min(1, 'expected at least one pair').default(['WETH/USDC', 'WETH/USDT']),
    /** What its executor holds of each token of its pairs at the start, in ETH at the start price. */
    inventoryEth: number('an inventory in ETH above 0', 1e-9, 10_000_000).default(2000),
    reactionDelayMs: logNormal('ms from the price to its bundle', 0, 60_000).default(0),
    latencyMs: number('ms of one-way latency to the builders', 0, 10_000).default(0),
    /** Smallest markout (ETH, after gas and bid) worth a trade. */
    minProfitEth: number('ETH ≥ 0', 0).default(0.0005),
    /** Its trades a block at most (its best pools first): mainnet's CEX-DEX searchers landed ~1.7 a block between them over 2023–25, ~5 in Q1 2025 (docs/exchange.md). Four each: the small gaps are taken too, not only the largest. */
    tradesPerBlock: z.number({ error: 'expected a whole number of trades' }).int('expected a whole number of trades').min(1, 'expected at least 1 trade').max(RIVAL_OPERATORS, `expected at most ${RIVAL_OPERATORS} trades (its operators)`).default(4),
    /** Exclusive to these builders (its flow only there, as builder-integrated searchers are); absent: every builder. */
    builders: z.array(z.string(), { error: 'expected a list of builder names' }).optional(),
  },
  'name, bidShare, pairs?, inventoryEth?, reactionDelayMs?, latencyMs?, minProfitEth?, tradesPerBlock?, builders?',
)

/**
 * A liquidator: it watches the public mempool for the oracles' rounds, and backruns one that
 * puts borrowers under water with `liquidationCall`s, paying the builder a share of the bonus
 * it expects (docs/lending.md).
 */
const liquidator = strict(
  {
    name: searcher.shape.name,
    /** Paid to the builder (a coinbase transfer from its executor), a share of the liquidation bonus it expects, drawn per round. */
    bidShare: share('a share of the expected profit from 0 to 1'),
    reactionDelayMs: logNormal('ms from seeing the round to sending the backrun', 0, 60_000).default(0),
    latencyMs: number('ms of one-way latency to the builders', 0, 10_000).default(0),
    /** Smallest profit (ETH, after gas and bid) worth a backrun. */
    minProfitEth: number('ETH ≥ 0', 0).default(0.001),
    builders: z.array(z.string(), { error: 'expected a list of builder names' }).optional(),
  },
  'name, bidShare, reactionDelayMs?, latencyMs?, minProfitEth?, builders?',
)

/**
 * The gas market: background public flow (ether and token transfers, contract calls) that asks
 * for `fill` of the block gas limit at `baseFeeGwei`, less as the base fee rises above it
 * (`elasticity`), so the base fee moves by EIP-1559 around where it started.
 */
const gas = strict(
  {
    /** The base fee the market starts from (a fresh devnet; a fork keeps its own). */
    baseFeeGwei: number('a base fee in gwei above 0', 1e-9, 10_000),
    /** The share of the block gas limit asked for at the starting base fee. */
    fill: number('a share of the block gas limit from 0 to 1', 0, 1),
    /** How demand falls as the base fee rises: asked = fill × limit × (start ÷ base fee)^elasticity. */
    elasticity: number('an elasticity ≥ 0', 0, 10).default(1),
    /** What the background flow and the users tip, in gwei. */
    priorityFeeGwei: logNormal('a priority fee in gwei', 0, 10_000),
    /** The gas of a background contract call (transfers use their own). */
    callGas: logNormal('gas for a contract call', 21_000, 16_777_216),
    /** Which background txs, by weight. */
    mix: strict({ transfer: weight.default(0), token: weight.default(0), call: weight.default(0) }, 'transfer, token, call').refine((m) => m.transfer + m.token + m.call > 0, {
      error: 'every weight is 0: the background flow would send nothing',
    }),
    /** Accounts that send the background flow (each sends several txs a slot, in nonce order). */
    accounts: z.number({ error: 'expected a whole number of accounts' }).int('expected a whole number of accounts').min(1, 'expected at least 1 account').max(1000, 'expected at most 1000 accounts').default(64),
  },
  'baseFeeGwei, fill, elasticity?, priorityFeeGwei, callGas, mix, accounts?',
)

/** Names are unique within a list (and across the searchers and sandwichers: the flow file's own check). */
function uniqueNames(list: ReadonlyArray<{ name: string }>, ctx: z.RefinementCtx): void {
  const seen = new Set<string>()
  list.forEach((s, i) => {
    if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${s.name}" is already a searcher's name` })
    seen.add(s.name)
  })
}

const flowFile = strict(
  {
    seed: z.number({ error: 'expected a whole number' }).int('expected a whole number').default(1),
    gas: gas.optional(),
    users,
    searchers: z.array(searcher, { error: 'expected a list of searchers' }).default([]).superRefine(uniqueNames),
    /** Sandwichers: the same settings as a searcher; they frontrun and backrun public swaps whose slippage allows it. */
    sandwichers: z.array(searcher, { error: 'expected a list of sandwichers' }).default([]).superRefine(uniqueNames),
    /** The reference price, served as an exchange serves it (docs/exchange.md); without it, no pool has a price off the chain. */
    exchange: exchangeSpec.optional(),
    /** CEX-DEX arbitrageurs: they trade pools back toward the exchange's price at the top of the block. */
    arbitrageurs: z.array(arbitrageur, { error: 'expected a list of arbitrageurs' }).default([]).superRefine(uniqueNames),
    /** Aave V3 and its Chainlink feeds, following the exchange's price, and borrowers near liquidation (docs/lending.md). */
    lending: lendingSpec.optional(),
    /** Liquidators: they backrun the oracles' rounds with liquidationCall (a flow with lending:). */
    liquidators: z.array(liquidator, { error: 'expected a list of liquidators' }).default([]).superRefine(uniqueNames),
    /** Names for other searchers (your bot): each name's addresses — signing key, senders, executor contracts — shown in every view. */
    names: z
      .record(
        z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'expected 1–64 letters, digits, ".", "_" or "-"'),
        z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 20-byte 0x address'), { error: 'expected a list of addresses' }).min(1, 'expected at least one address'),
        { error: 'expected a mapping of names to lists of addresses' },
      )
      .default({}),
  },
  'seed, gas?, users, searchers, sandwichers?, exchange?, arbitrageurs?, lending?, liquidators?, names',
).superRefine((flow, ctx) => {
  const searchers = new Set(flow.searchers.map((s) => s.name))
  flow.sandwichers.forEach((s, i) => {
    if (searchers.has(s.name)) ctx.addIssue({ code: 'custom', path: ['sandwichers', i, 'name'], message: `"${s.name}" is already a searcher's name` })
    searchers.add(s.name)
  })
  flow.arbitrageurs.forEach((s, i) => {
    if (searchers.has(s.name)) ctx.addIssue({ code: 'custom', path: ['arbitrageurs', i, 'name'], message: `"${s.name}" is already a searcher's name` })
    searchers.add(s.name)
  })
  flow.liquidators.forEach((s, i) => {
    if (searchers.has(s.name)) ctx.addIssue({ code: 'custom', path: ['liquidators', i, 'name'], message: `"${s.name}" is already a searcher's name` })
  })
  if (flow.liquidators.length > 0 && !flow.lending) ctx.addIssue({ code: 'custom', path: ['liquidators'], message: 'liquidators backrun the oracles of the lending market: the flow needs a lending: section' })
  if (flow.arbitrageurs.length > 0 && !flow.exchange) ctx.addIssue({ code: 'custom', path: ['arbitrageurs'], message: 'arbitrageurs trade toward the exchange\'s price: the flow needs an exchange: section' })
  if (flow.lending) {
    if (!flow.exchange) ctx.addIssue({ code: 'custom', path: ['lending'], message: "the oracles report the exchange's price: the flow needs an exchange: section" })
    else
      for (const asset of ['ETH', 'BTC']) {
        const path = flow.exchange.assets[asset]
        if (!path) ctx.addIssue({ code: 'custom', path: ['exchange', 'assets'], message: `lending's feeds report ${asset}/USD: the exchange needs the asset ${asset}` })
        else if (path.price === undefined) ctx.addIssue({ code: 'custom', path: ['exchange', 'assets', asset], message: `lending's feeds start at the asset's seeded price: a replayed ${asset} is not supported with lending yet` })
      }
  }
})

export type FlowSpec = z.output<typeof flowFile> & { name: string }
export type UsersSpec = FlowSpec['users']
export type SearcherSpec = FlowSpec['searchers'][number]
export type GasSpec = NonNullable<FlowSpec['gas']>
export type ArbitrageurSpec = FlowSpec['arbitrageurs'][number]
export type LiquidatorSpec = FlowSpec['liquidators'][number]

export const BUILT_IN_FLOW_FILE = codeFile('flow/default.yaml')

/**
 * The flow's pairs against the world's tokens (`symbols`: the built-in ones and the world
 * file's own): each is a pair of them, with WETH on one side (users buy or sell WETH).
 * Throws a `FlowFileError` naming the pair.
 *
 * @example checkFlowPairs(loadFlow('default'), ['WETH', 'USDC', 'USDT', 'DAI', 'WBTC'])
 */
export function checkFlowPairs(flow: FlowSpec, symbols: readonly string[] = BUILT_IN_SYMBOLS): void {
  for (const name of Object.keys(flow.users.pairs)) {
    const sides = name.split('/')
    const unknown = sides.find((s) => !symbols.includes(s))
    if (unknown !== undefined) {
      const near = closestName(unknown, symbols)
      throw new FlowFileError(flow.name, `users.pairs.${name}`, `unknown token "${unknown}"${near ? ` (did you mean ${near}?)` : ''}; the world has ${symbols.join(', ')}`)
    }
    if (!sides.includes('WETH')) throw new FlowFileError(flow.name, `users.pairs.${name}`, 'users trade pairs with WETH on one side (they buy or sell WETH)')
  }
  flow.arbitrageurs.forEach((a, i) =>
    a.pairs.forEach((name, j) => {
      const unknown = name.split('/').find((s) => !symbols.includes(s))
      if (unknown === undefined) return
      const near = closestName(unknown, symbols)
      throw new FlowFileError(flow.name, `arbitrageurs.${i}.pairs.${j}`, `unknown token "${unknown}"${near ? ` (did you mean ${near}?)` : ''}; the world has ${symbols.join(', ')}`)
    }),
  )
}

/**
 * The market a run asks for: `default` (the built-in file), a flow file's path, or the flow
 * itself (inline in a scenario), checked; the first problem is thrown as a `FlowFileError`
 * naming the field.
 *
 * @example loadFlow('default').users.swapsPerSlot // 3
 */
export function loadFlow(flow: string | Record<string, unknown>): FlowSpec {
  if (typeof flow !== 'string') return { ...checkSettings(flow, flowFile, 'flow', (field, problem) => new FlowFileError('flow', field, problem)), name: 'inline' }
  const file = flow === 'default' ? BUILT_IN_FLOW_FILE : flow
  return { ...readYamlFile(file, flowFile, 'flow', (field, problem) => new FlowFileError(flow, field, problem)), name: flow }
}
