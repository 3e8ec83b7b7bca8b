import { z } from 'zod'
import type { BuilderSpec } from '../../config/config.js'
import { address, hash32 } from '../../protocol/wireRules.js'
import { addressRef, expecting, hexData, int, name, nonNegative, parseFunction, strict, shorthand, text } from './fields.js'

/*
 * A scenario's settings: every top-level field but `steps` (the chain, the builders, accounts,
 * contracts, bots, tx templates). `schema.ts` adds the steps.
 */

const privateKey = hash32({ type: expecting('a 32-byte 0x private key'), format: 'expected a 32-byte 0x private key (66 characters)' })

const chain = strict(
  {
    chainId: int('a chain id', 1).optional(),
    genesisTimestamp: int('unix seconds', 1).optional(),
    fork: strict({
      url: text('an RPC URL (${ENV} works)'),
      blockNumber: int('a block number').optional(),
    }).optional(),
    /** A `bundlesim snapshot` file (relative to the scenario): runs offline from it; `fork` then only says where it was recorded. */
    snapshot: text('a path to a snapshot JSON written by bundlesim snapshot').optional(),
  },
  '{ chainId?, genesisTimestamp? }, { fork: { url, blockNumber? } } or { snapshot }',
)

/** The builder profiles (docs/several-builders.md, "Builder profiles"): the API a builder's own URL speaks. */
const PROFILES = ['generic', 'titan', 'buildernet', 'quasar'] as const satisfies ReadonlyArray<NonNullable<BuilderSpec['profile']>>
const isProfile = (value: unknown): value is (typeof PROFILES)[number] => PROFILES.some((profile) => profile === value)

/** One competing builder of `builders:` (docs/several-builders.md); a profile's name alone (`- titan`) is the builder of that name and profile. */
const builderSpec = z.preprocess((entry) => (isProfile(entry) ? { name: entry, profile: entry } : entry), strict(
  {
    name: text('a builder name'),
    profile: z.enum(PROFILES, { error: `expected a builder profile (one of: ${PROFILES.join(', ')})` }).optional(),
    algorithms: z.array(text('an algorithm name'), { error: expecting('a list of algorithm names') }).optional(),
    share: z.number({ error: expecting('a number from 0 to 1') }).min(0, 'expected a number from 0 to 1').max(1, 'expected a number from 0 to 1').optional(),
    /** Its own URL's rules (docs/several-builders.md); checked in full when the harness starts. */
    fields: z.array(text('an eth_sendBundle field'), { error: expecting('a list of eth_sendBundle fields') }).optional(),
    rateLimit: z.number({ error: expecting('requests a second') }).min(0, 'expected requests a second, ≥ 0').optional(),
    maxRefundPercent: int('a percentage').optional(),
    stats: z.array(text('a stats method'), { error: expecting('a list of stats methods') }).optional(),
  },
  `a profile's name (${PROFILES.join(', ')}) or { name, profile?, algorithms?, share?, fields?, rateLimit?, maxRefundPercent?, stats? }`,
))
const builders = z
  .array(builderSpec, { error: expecting('a list of builders { name, algorithms?, share? }') })
  .min(1, 'expected at least one builder')
  .superRefine((list, ctx) => {
    list.forEach((spec, i) => {
      const first = list.findIndex((other) => other.name === spec.name)
      if (first < i) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${spec.name}" is already the name of builders[${first}] (expected unique names)` })
    })
  })

const builder = strict(
  {
    slotTime: int('seconds per slot', 1).optional(),
    statsDelaySlots: int('a number of slots').default(0),
    statsRetention: int('seconds', 1).optional(),
    statusCase: z.enum(['lower', 'pascal'], { error: expecting('lower or pascal') }).optional(),
    algorithms: z.array(text('an algorithm name'), { error: expecting('a list of algorithm names') }).optional(),
    buildCutoffMs: int('ms into the slot').optional(),
    boostCutoffMs: int('ms into the slot').optional(),
    simulationCutoffMs: int('ms into the slot').optional(),
    /** The proposer's getHeader (`--get-header-ms`): builders bid through the slot. */
    getHeaderMs: int('ms into the slot').optional(),
    /** The longest wait for bottom-of-block bundles after a builder streams its block (`--bob-window-ms`). */
    bobWindowMs: int('ms').optional(),
    competitorBid: nonNegative.optional(),
    competitorWinProbability: z.number({ error: expecting('a probability from 0 to 1') }).min(0, 'expected a probability from 0 to 1').max(1, 'expected a probability from 0 to 1').optional(),
    auctionSeed: int('an integer seed').optional(),
    blockGasLimit: int('an amount of gas', 21_000).optional(),
    /** EIP-7825's per-tx gas cap (`--max-tx-gas`; 0: none). */
    maxTxGas: int('an amount of gas (0: none)').optional(),
    /** Flashbots' bytes of signed txs per bundle (`--max-bundle-bytes`; 0: none). */
    maxBundleBytes: int('a number of bytes (0: none)').optional(),
    apiKeys: z.array(text('an API key'), { error: expecting('a list of API keys') }).optional(),
    coinbaseKey: privateKey.optional(),
  },
  'builder settings',
)

/**
 * A named account: a key (given, or derived from the name) the runner signs with, or a real
 * `address` on a forked chain — watched by name, and with `impersonate: true` able to send
 * unsigned txs (sendTx steps only: an impersonated tx has no signature, so it can't be
 * signed into a bundle). Balance: set at setup (default 0 for keyed accounts; an address
 * keeps the chain's balance unless one is given).
 */
const account = shorthand(
  'balance',
  strict(
    {
      balance: nonNegative.optional(),
      key: privateKey.optional(),
      address: address({ type: expecting('a 20-byte 0x address') }).optional(),
      impersonate: z.boolean({ error: expecting('true or false') }).optional(),
      /** With `world: dex`: balances of the world's tokens, in token units (e.g. { USDC: 1000, WETH: "2.5" }). */
      tokens: z
        .record(z.string(), z.union([z.number(), z.string()], { error: expecting('an amount in token units') }).transform(String), { error: expecting('a mapping of token symbols to amounts, e.g. { USDC: 1000 }') })
        .optional(),
    },
    '{ balance, key?, tokens? }, { address, impersonate?, balance? } or a balance',
  ),
).superRefine((value, ctx) => {
  if (value.key !== undefined && value.address !== undefined) ctx.addIssue({ code: 'custom', path: ['address'], message: 'both key and address (expected one: a key signs, an address is impersonated or watched)' })
  if (value.impersonate && value.address === undefined) ctx.addIssue({ code: 'custom', path: ['impersonate'], message: 'impersonate needs an address (expected the real account to impersonate)' })
})

const SOURCE_KINDS = ['source', 'sourceFile', 'artifact', 'bytecode'] as const
const contract = strict(
  {
    from: name('an account'),
    source: text('Solidity source text').optional(),
    sourceFile: text('a path to a .sol file').optional(),
    artifact: text('a path to a Foundry artifact JSON').optional(),
    bytecode: hexData.optional(),
    contract: text('a contract name').optional(),
    args: z.array(z.unknown(), { error: expecting('a list of constructor arguments') }).optional(),
    value: nonNegative.optional(),
    gas: int('an amount of gas', 21_000).optional(),
  },
  '{ from, source | sourceFile | artifact | bytecode, contract?, args? }',
).superRefine((value, ctx) => {
  const given = SOURCE_KINDS.filter((kind) => value[kind] !== undefined)
  if (given.length !== 1) {
    ctx.addIssue({ code: 'custom', message: `${given.length ? `both ${given.join(' and ')}` : 'no code'} (expected exactly one of: ${SOURCE_KINDS.join(', ')})` })
  }
})

const call = strict(
  {
    fn: text('a function: "transfer(address,uint256)", or a name from the contract\'s ABI'),
    args: z.array(z.unknown(), { error: expecting('a list of arguments') }).default([]),
  },
  '{ fn, args }',
).superRefine((value, ctx) => {
  if (!value.fn.includes('(')) return
  try {
    const item = parseFunction(value.fn)
    if (item.inputs.length !== value.args.length) {
      ctx.addIssue({ code: 'custom', path: ['args'], message: `${value.args.length} argument(s) (expected ${item.inputs.length} for ${value.fn})` })
    }
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['fn'], message: `not a function signature (expected e.g. "transfer(address,uint256)"): ${(error as Error).message.split('\n')[0]}` })
  }
})

const template = strict(
  {
    from: name('an account'),
    to: addressRef.optional(),
    value: nonNegative.optional(),
    call: call.optional(),
    data: hexData.optional(),
    gas: int('an amount of gas', 21_000).optional(),
    maxFeePerGas: nonNegative.optional(),
    maxPriorityFeePerGas: nonNegative.optional(),
    gasPrice: nonNegative.optional(),
    nonce: z
      .union([int('a nonce'), name('a template')], { error: expecting('a nonce, or a template name (same nonce as that template)') })
      .optional(),
    chainId: int('a chain id', 1).optional(),
    /** An EIP-4844 tx carrying this many blobs (sent in the network form, sidecar included). */
    blobs: int('a number of blobs', 1).optional(),
    maxFeePerBlobGas: nonNegative.optional(),
  },
  'a transaction template { from, to, value?, call? | data?, … }',
).superRefine((value, ctx) => {
  if (value.call && value.data) ctx.addIssue({ code: 'custom', path: ['data'], message: 'both call and data (expected one of them)' })
  if (value.gasPrice !== undefined && (value.maxFeePerGas !== undefined || value.maxPriorityFeePerGas !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['gasPrice'], message: 'gasPrice (legacy) with EIP-1559 fee fields (expected one kind)' })
  }
  if (value.call && value.to === undefined) ctx.addIssue({ code: 'custom', path: ['call'], message: 'a call needs a target (expected a to field)' })
  if (value.blobs !== undefined) {
    if (value.to === undefined) ctx.addIssue({ code: 'custom', path: ['blobs'], message: 'a blob tx cannot create a contract (expected a to field)' })
    if (value.gasPrice !== undefined) ctx.addIssue({ code: 'custom', path: ['gasPrice'], message: 'a blob tx has EIP-1559 fees (expected maxFeePerGas / maxPriorityFeePerGas)' })
  } else if (value.maxFeePerBlobGas !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['maxFeePerBlobGas'], message: 'only a blob tx has a blob fee (expected blobs beside it)' })
  }
})

/**
 * A user's own bot, run for the whole scenario (docs/run-your-bot.md): started once the setup is
 * done, with the harness's URLs and its account's key in its environment and the host map loaded,
 * stopped at the end; its output goes into the result. It trades under its name like a flow searcher.
 */
const bot = strict(
  {
    name: name('a bot'),
    /** A shell command line, run in the scenario's folder (or `cwd`, relative to it). */
    command: text('a command line').min(1, 'expected a command line'),
    /** The scenario account it signs with: its key is BOT_KEY and PRIVATE_KEY, its address counts as the bot's. */
    account: text('an account name'),
    env: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()], { error: expecting('a string or a number') }).transform(String), { error: expecting('a mapping of variable names to values') })
      .default({}),
    cwd: text('a folder, relative to the scenario').optional(),
    /** A regular expression its output matches once it is ready: the steps wait for it (default: they start at once). */
    ready: text('a regular expression').optional(),
    /** Seconds to wait for `ready` (default 60). */
    readyTimeout: z.number({ error: expecting('seconds') }).positive('expected seconds above 0').default(60),
    /** Load the host-map preload into its Node processes (default true). */
    hostMap: z.boolean({ error: expecting('true or false') }).default(true),
  },
  '{ name, command, account, env?, cwd?, ready?, readyTimeout?, hostMap? }',
)

/** Every top-level field of a scenario but `steps`, in the order the unknown-field message lists them. */
export const SETTINGS_FIELDS = {
  name: text('a scenario name').optional(),
  description: text('a description').optional(),
  chain: chain.optional(),
  builder: builder.default({ statsDelaySlots: 0 }),
  builders: builders.optional(),
  /** A DEX world at mainnet addresses: `dex`, or a world file (relative to the scenario). */
  world: text('"dex" or a world file').optional(),
  /** A market on the world: `default`, a flow file (relative to the scenario), or the flow itself. */
  flow: z.union([z.string(), z.record(z.string(), z.unknown())], { error: expecting('"default", a flow file, or a flow mapping { users, searchers }') }).optional(),
  accounts: z.record(name('an account'), account, { error: expecting('a mapping of account names to { balance, key? }') }).default({}),
  /**
   * Names for searchers: each name's accounts, contracts or 0x addresses (its signing key, its
   * senders, its executor contracts), shown in every view and counted as its own by the competition.
   */
  searchers: z
    .record(name('a searcher'), z.array(text('an account, a contract or a 0x address'), { error: expecting('a list of accounts, contracts or addresses') }).min(1, 'expected at least one address'), {
      error: expecting('a mapping of searcher names to their accounts, contracts or addresses'),
    })
    .default({}),
  contracts: z.record(name('a contract'), contract, { error: expecting('a mapping of contract names to contracts') }).default({}),
  /** Your own bots, run for the whole scenario on the realtime clock (`advance` waits for slots to pass). */
  bots: z.array(bot, { error: expecting('a list of bots { name, command, account }') }).default([]),
  txs: z.record(name('a template'), template, { error: expecting('a mapping of template names to transactions') }).default({}),
}

/** A scenario's settings as parsed: a `Scenario` without its steps. */
export type ScenarioSettings = z.output<z.ZodObject<typeof SETTINGS_FIELDS>>
/** A tx template of `txs:`, as parsed. */
export type TxTemplate = z.output<typeof template>
/** A contract of `contracts:`, as parsed. */
export type ContractSpec = z.output<typeof contract>
/** An account of `accounts:`, as parsed (a bare balance expanded). */
export type AccountSpec = z.output<typeof account>
/** A bot of `bots:`, as parsed (defaults filled in). */
export type BotSpec = z.output<typeof bot>
