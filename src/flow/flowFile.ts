import { codeFile } from '../config/codeFiles.js'
import { checkSettings, readYamlFile, SettingsFileError } from '../config/yamlFile.js'
import { z } from 'zod'
import { closestName } from '../protocol/closestName.js'
import { MAINNET_TOKENS } from '../world/mainnet.js'

/** A flow file that cannot be used; `field` is where. */
export class FlowFileError extends SettingsFileError {}

const strict = <T extends z.ZodRawShape>(shape: T, known: string) =>
  z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return `expected { ${known} }`
      const names = known.split(', ').map((k) => k.replace(/\?$/, ''))
      return issue.keys.map((key) => `unknown field ${key}${closestName(key, names) ? ` (did you mean ${closestName(key, names)}?)` : ''}`).join('; ') + ` (known: ${names.join(', ')})`
    },
  })

const number = (what: string, min: number, max = Number.MAX_VALUE) =>
  z
    .number({ error: `expected ${what}` })
    .min(min, `expected ${what} (from ${min}${max < Number.MAX_VALUE ? ` to ${max}` : ''})`)
    .max(max, `expected ${what} (from ${min} to ${max})`)
const weight = number('a weight ≥ 0', 0)
const SYMBOLS = Object.keys(MAINNET_TOKENS)
const pairName = z.string().refine(
  (name) => {
    const [a, b] = name.split('/')
    return a !== undefined && b !== undefined && a !== b && SYMBOLS.includes(a) && SYMBOLS.includes(b) && name.split('/').length === 2
  },
  { error: (issue) => `unknown pair "${String(issue.input)}": expected BASE/QUOTE of ${SYMBOLS.join(', ')}, as the world file names it (e.g. WETH/USDC)` },
)

const HINTS = ['hash', 'logs', 'calldata', 'contract_address', 'function_selector', 'default_logs', 'special_logs', 'tx_hash', 'full']

const users = strict(
  {
    count: z.number({ error: 'expected a whole number of users' }).int('expected a whole number of users').min(1, 'expected at least 1 user').max(1000, 'expected at most 1000 users'),
    swapsPerSlot: number('a mean number of swaps per slot', 0, 100),
    size: strict({ median: number('a size in ETH above 0', 1e-9), sigma: number('a log-normal sigma', 0, 5), max: number('a largest size in ETH above 0', 1e-9).optional() }, 'median, sigma, max?'),
    slippageBps: number('basis points', 0, 10_000),
    channels: strict({ public: weight.default(0), private: weight.default(0), mevShare: weight.default(0) }, 'public, private, mevShare').refine((c) => c.public + c.private + c.mevShare > 0, {
      error: 'every channel weight is 0: users would send nothing',
    }),
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
  'count, swapsPerSlot, size, slippageBps, channels, mevShareHints?, pairs',
)

const searcher = strict(
  {
    name: z.string({ error: 'required: the searcher\'s name' }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'expected 1–64 letters, digits, ".", "_" or "-"'),
    bidShare: number('a share of the expected profit from 0 to 1', 0, 1),
    reactionDelayMs: number('ms from seeing a swap to sending the backrun', 0, 60_000).default(0),
    /** Smallest profit (ETH, after gas and bid) worth a backrun. */
    minProfitEth: number('ETH ≥ 0', 0).default(0.0001),
    builders: z.array(z.string(), { error: 'expected a list of builder names' }).optional(),
  },
  'name, bidShare, reactionDelayMs?, minProfitEth?, builders?',
)

const flowFile = strict(
  {
    seed: z.number({ error: 'expected a whole number' }).int('expected a whole number').default(1),
    users,
    searchers: z
      .array(searcher, { error: 'expected a list of searchers' })
      .default([])
      .superRefine((list, ctx) => {
        const seen = new Set<string>()
        list.forEach((s, i) => {
          if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${s.name}" is already a searcher's name` })
          seen.add(s.name)
        })
      }),
    /** Names for other searchers (your bot): each name's addresses — signing key, senders, executor contracts — shown in every view. */
    names: z
      .record(
        z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'expected 1–64 letters, digits, ".", "_" or "-"'),
        z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 20-byte 0x address'), { error: 'expected a list of addresses' }).min(1, 'expected at least one address'),
        { error: 'expected a mapping of names to lists of addresses' },
      )
      .default({}),
  },
  'seed, users, searchers, names',
)

export type FlowSpec = z.output<typeof flowFile> & { name: string }
export type UsersSpec = FlowSpec['users']
export type SearcherSpec = FlowSpec['searchers'][number]

export const BUILT_IN_FLOW_FILE = codeFile('flow/default.yaml')

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
