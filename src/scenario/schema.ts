import { z } from 'zod'
import { parseAbiItem, type AbiEvent, type AbiFunction } from 'viem'
import { BUNDLE_STATES } from '../protocol/bundleStates.js'
import { MEV_SHARE_HINTS } from '../protocol/methods.js'
import { ERROR_KIND_NAMES } from '../protocol/errorKinds.js'
import { address, hash32, hexBytes } from '../protocol/wireRules.js'
import { AMOUNT_HINT, parseAmount } from './units.js'

/*
 * The scenario file format (docs/scenarios.md). Every object is strict: a misspelt field is
 * an error, never silently ignored. Shorthands (`advance: 2`, `alice: 10 ether`) are
 * normalised here, so the runner sees one shape.
 */

/** Names of accounts, contracts, templates and bundles. */
export const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/
/** The builder's coinbase, usable wherever an address is. */
export const BUILDER = 'builder'

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A strict object whose unknown-field error lists the fields it does know. */
function strict<T extends z.ZodRawShape>(shape: T, expected?: string) {
  const known = Object.keys(shape).join(', ')
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return `unknown field (expected one of: ${known})`
      if (issue.code === 'invalid_type' && expected) return expecting(expected)(issue)
      return undefined
    },
  })
}

/** Lets a scalar stand for an object: `advance: 2` means `advance: { slots: 2 }`. */
function shorthand<T extends z.ZodType>(key: string, schema: T) {
  return z.preprocess((value) => (isPlainObject(value) ? value : { [key]: value }), schema)
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a mapping'
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`
  return `${typeof value} ${String(value)}`
}

/** zod's message for a value of the wrong type, or a missing one. */
export const expecting =
  (what: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? `required (expected ${what})` : `got ${describeValue(issue.input)} (expected ${what})`

const name = (what: string) =>
  z.string({ error: expecting(`${what} name`) }).regex(NAME, `expected ${what} name (letters, digits, _ . -; starting with a letter or _)`)
const text = (what: string) => z.string({ error: expecting(what) })
const int = (what: string, min = 0) =>
  z
    .number({ error: expecting(what) })
    .int(`expected ${what}`)
    .min(min, `expected ${what}`)
    .max(Number.MAX_SAFE_INTEGER, `expected ${what}`)

/** An amount of wei with units (`0.1 ether`, `2 gwei`, `100 wei`, plain integers = wei). */
export const amount = z.unknown().transform((value, ctx): bigint => {
  if (value === undefined) {
    ctx.addIssue({ code: 'custom', message: `required (expected ${AMOUNT_HINT})` })
    return z.NEVER
  }
  try {
    return parseAmount(value)
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message })
    return z.NEVER
  }
})
const nonNegative = amount.refine((wei) => wei >= 0n, { message: `must not be negative (expected ${AMOUNT_HINT})` })

/** `{ min?, max?, equals? }`, or one amount meaning `equals`. */
const bounds = shorthand(
  'equals',
  strict({ equals: amount.optional(), min: amount.optional(), max: amount.optional() }, 'an amount or { min, max }'),
)
export type Bounds = z.output<typeof bounds>

/** Text to find in a message: a substring, or `/regex/flags`. */
export const REGEX_TEXT = /^\/(.*)\/([dgimsuvy]*)$/s
const rate = z.number({ error: expecting('a share from 0 to 1') }).min(0, 'expected a share from 0 to 1').max(1, 'expected a share from 0 to 1')
const textMatch = z.string({ error: expecting('text to find, or /regex/') }).superRefine((value, ctx) => {
  const match = REGEX_TEXT.exec(value)
  if (!match) return
  try {
    new RegExp(match[1]!, match[2])
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `bad regular expression: ${(error as Error).message}` })
  }
})

/** A target block: an integer, `+N` (N after the head when the step runs), or 0x hex. */
export type BlockRef = { relative: boolean; value: bigint }
const BLOCK_REF = /^(\+)?(\d+)$/
const blockRef = (what: string) =>
  z.unknown().transform((value, ctx): BlockRef => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return { relative: false, value: BigInt(value) }
    if (typeof value === 'string') {
      const relative = BLOCK_REF.exec(value.trim())
      if (relative) return { relative: relative[1] === '+', value: BigInt(relative[2]!) }
      if (/^0x[0-9a-fA-F]{1,16}$/.test(value)) return { relative: false, value: BigInt(value) }
    }
    ctx.addIssue({ code: 'custom', message: `got ${describeValue(value)} (expected ${what}: an integer, "+N" for N after the head, or 0x hex)` })
    return z.NEVER
  })

const hexData = hexBytes({ type: expecting('0x hex data'), format: 'expected 0x hex with an even number of digits' })
const privateKey = hash32({ type: expecting('a 32-byte 0x private key'), format: 'expected a 32-byte 0x private key (66 characters)' })
/** A template name, or a literal 0x value (a raw signed tx, a tx hash). */
const txRef = z.string({ error: expecting('a template name or 0x hex') })
const txRefs = z.array(txRef, { error: expecting('a list of template names or 0x hashes') })
/** An account, contract, `builder`, or a 0x address. */
const addressRef = z.string({ error: expecting('an account or contract name, "builder", or a 0x address') })

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

/** One competing builder of `builders:` (docs/several-builders.md). */
const builderSpec = strict(
  {
    name: text('a builder name'),
    algorithms: z.array(text('an algorithm name'), { error: expecting('a list of algorithm names') }).optional(),
    share: z.number({ error: expecting('a number from 0 to 1') }).min(0, 'expected a number from 0 to 1').max(1, 'expected a number from 0 to 1').optional(),
    /** Its own URL's rules (docs/several-builders.md); checked in full when the harness starts. */
    fields: z.array(text('an eth_sendBundle field'), { error: expecting('a list of eth_sendBundle fields') }).optional(),
    rateLimit: z.number({ error: expecting('requests a second') }).min(0, 'expected requests a second, ≥ 0').optional(),
    maxRefundPercent: int('a percentage').optional(),
    stats: z.array(text('a stats method'), { error: expecting('a list of stats methods') }).optional(),
  },
  '{ name, algorithms?, share?, fields?, rateLimit?, maxRefundPercent?, stats? }',
)
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
    competitorBid: nonNegative.optional(),
    competitorWinProbability: z.number({ error: expecting('a probability from 0 to 1') }).min(0, 'expected a probability from 0 to 1').max(1, 'expected a probability from 0 to 1').optional(),
    auctionSeed: int('an integer seed').optional(),
    blockGasLimit: int('an amount of gas', 21_000).optional(),
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

/** `fn` with parentheses is a full signature; a bare name is looked up in `to`'s ABI. */
export function parseFunction(fn: string): AbiFunction {
  return parseAbiItem(`function ${fn}`) as AbiFunction
}

export function parseEvent(signature: string): AbiEvent {
  return parseAbiItem(`event ${signature.replace(/^event\s+/, '')}`) as AbiEvent
}

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
export type TxTemplate = z.output<typeof template>

/** Every eth_sendBundle field; hashes and txs may name templates. */
const bundleFields = {
  txs: txRefs,
  blockNumber: blockRef('a block number').optional(),
  minTimestamp: blockRef('a timestamp').optional(),
  maxTimestamp: blockRef('a timestamp').optional(),
  revertingTxHashes: txRefs.optional(),
  droppingTxHashes: txRefs.optional(),
  replacementUuid: text('a replacement UUID, or any name').optional(),
  replacementSeqNumber: int('a sequence number').optional(),
  refundPercent: int('a percentage').optional(),
  refundRecipient: addressRef.optional(),
  refundTxHashes: txRefs.optional(),
  /** Flashbots' `builders`: with several builders, only these see the bundle. */
  builders: z.array(text('a builder name'), { error: expecting('a list of builder names') }).optional(),
  /** Sent to each of these builders' own URLs (`harness_status.builders`), as a broadcaster does. */
  to: z.array(text('a builder name'), { error: expecting('a list of builder names') }).optional(),
  /** Sent through bloXroute's gateway (`blxr_submit_bundle`) with `mev_builders` naming these builders (`all`: every one). */
  gateway: z.union([z.literal('all'), z.array(text('a builder name'))], { error: expecting('all, or a list of builder names') }).optional(),
  /** The id later steps use for this bundle. */
  as: name('a bundle id').optional(),
  /** The call itself must be refused with this error. */
  expectError: textMatch.optional(),
}
const submit = strict(bundleFields, 'a bundle { txs, … }').refine((b) => !(b.to && b.gateway), { message: 'to and gateway in one step (expected one way to send it)', path: ['gateway'] })
const { to: _to, gateway: _gateway, ...boostFields } = bundleFields
const boost = strict({ ...boostFields, apiKey: text('an API key').optional() }, 'a bundle { txs, apiKey?, … }')
/** Titan's eth_sendEndOfBlockBundle: its fields (txs and hashes may name templates), signed by the scenario's searcher key. */
const { txs: eobTxs, blockNumber: eobBlock, revertingTxHashes, replacementUuid, replacementSeqNumber, as, expectError } = bundleFields
const submitEndOfBlock = strict(
  { txs: eobTxs, blockNumber: eobBlock, revertingTxHashes, targetPools: z.array(addressRef).optional(), replacementUuid, replacementSeqNumber, as, expectError },
  'an end-of-block bundle { txs, targetPools?, … }',
)
/**
 * eth_sendPrivateTransaction: a template's signed tx, kept private until it lands; `as` names it
 * for expectations (its trace is keyed by its tx hash); `hints` (MEV-Share's names) share it on
 * the hint stream.
 */
const hints = z.array(z.enum(MEV_SHARE_HINTS, { error: `expected a MEV-Share hint (one of: ${MEV_SHARE_HINTS.join(', ')})` }), {
  error: expecting('a list of MEV-Share hints'),
})
const sendPrivateTx = shorthand(
  'tx',
  strict(
    {
      tx: name('a template'),
      maxBlockNumber: eobBlock,
      /** `preferences.privacy.hints`: a tx with hints is shared with MEV-Share searchers (they may backrun it). */
      hints: hints.optional(),
      /** `preferences.validity.refund`: where the user's MEV-Share refund goes. */
      refund: z.array(strict({ address: addressRef, percent: int('a percentage') }, '{ address, percent }'), { error: expecting('a list of { address, percent }') }).optional(),
      as,
      expectError,
    },
    '{ tx, maxBlockNumber?, hints?, refund?, as? } or a template name',
  ),
)
/** eth_cancelPrivateTransaction of a private tx sent by an earlier step (by its id). */
const cancelPrivateTx = shorthand('tx', strict({ tx: name('a private tx id'), expectError }, '{ tx } or a private tx id'))
/**
 * MEV-Share's mev_sendBundle, signed by the scenario's searcher key: `backrun` names a
 * private tx sent with hints (body[0] is `{ hash }` of its event hash), then `txs` as `{ tx }`
 * elements (those in `canRevert` may revert); `block` / `maxBlock` its inclusion.
 */
const mevSendBundle = strict(
  {
    backrun: name('a private tx id').optional(),
    txs: txRefs,
    canRevert: txRefs.optional(),
    block: blockRef('a block number').optional(),
    maxBlock: blockRef('a block number').optional(),
    refund: z.array(strict({ bodyIdx: int('a body index'), percent: int('a percentage') }, '{ bodyIdx, percent }'), { error: expecting('a list of { bodyIdx, percent }') }).optional(),
    refundConfig: z.array(strict({ address: addressRef, percent: int('a percentage') }, '{ address, percent }'), { error: expecting('a list of { address, percent }') }).optional(),
    as,
    expectError,
  },
  '{ backrun?, txs, block?, maxBlock?, refund?, refundConfig?, as? }',
)
/** Titan's eth_sendBlobs: blob templates at one nonce (permutations); `as` names each one's trace, in order. */
const sendBlobs = strict(
  {
    txs: z.array(name('a blob template'), { error: expecting('a list of blob templates') }).min(1, 'expected at least one blob template'),
    maxBlockNumber: eobBlock,
    as: z.array(name('a bundle id'), { error: expecting('a list of bundle ids, one per tx') }).optional(),
    expectError,
  },
  '{ txs, maxBlockNumber?, as? }',
).superRefine((value, ctx) => {
  if (value.as && value.as.length !== value.txs.length) {
    ctx.addIssue({ code: 'custom', path: ['as'], message: `${value.as.length} id(s) for ${value.txs.length} tx(s) (expected one id per tx, in order)` })
  }
})
const cancel = strict(
  { replacementUuid: text('a replacement UUID, or any name'), cancelled: z.array(name('a bundle id')).optional(), expectError: textMatch.optional() },
  '{ replacementUuid, cancelled? }',
)
const errorKind = z.enum(ERROR_KIND_NAMES, { error: `expected an error kind (one of: ${ERROR_KIND_NAMES.join(', ')})` })
const sendTx = shorthand(
  'tx',
  strict(
    {
      tx: name('a template'),
      expectError: textMatch.optional(),
      /** The raw tx must be refused with this kind (the JSON-RPC error's `data.errorKind`). */
      expectErrorKind: errorKind.optional(),
    },
    '{ tx, expectError?, expectErrorKind? } or a template name',
  ),
)
const advance = shorthand('slots', strict({ slots: int('a number of slots from 1 to 1000', 1).max(1000, 'expected a number of slots from 1 to 1000') }, '{ slots } or a number'))
const timeInSlot = shorthand('ms', strict({ ms: int('ms into the slot') }, '{ ms } or a number of ms'))
/** The txs of a real block of the fork (default: the block after the fork block) as bundles for the next block. */
const replayBlock = shorthand('block', strict({ block: int('a block number', 1).optional() }, '{ block? } or a block number'))
const competitorBid = shorthand('wei', strict({ wei: nonNegative.nullable() }, '{ wei } or an amount, or null'))

const bundleExpectation = strict(
  {
    status: text('a bundle status, e.g. landed')
      .refine((status) => BUNDLE_STATES.some((state) => state.toLowerCase() === status.toLowerCase()), {
        message: `unknown status (expected one of: ${BUNDLE_STATES.map((s) => s.toLowerCase()).join(', ')}; any case)`,
      })
      .optional(),
    error: textMatch.nullable().optional(),
    /** The stable kind of the error (null: no error); prefer it to matching the text. */
    errorKind: errorKind.nullable().optional(),
    revertingHash: txRef.nullable().optional(),
    /** Why the reverting tx reverted (`x` for require(false, "x"), `out of gas …`, `custom error 0x…`): text or /regex/; null: none. */
    revertReason: textMatch.nullable().optional(),
    builderPayment: bounds.optional(),
    refund: strict({ recipient: addressRef.optional(), amount: bounds.optional() }, '{ recipient?, amount? } or null').nullable().optional(),
    sponsorships: z.array(strict({ tx: txRef, amount: bounds.optional() }, '{ tx, amount? }'), { error: expecting('a list of { tx, amount? }') }).optional(),
    blockNumber: int('a block number').nullable().optional(),
    /** Several builders: the builder that took it furthest (whose block landed it). */
    builder: text('a builder name').nullable().optional(),
    /** Several builders: exactly the builders that saw it. */
    seenBy: z.array(text('a builder name'), { error: expecting('a list of builder names') }).optional(),
  },
  'bundle expectations { status?, error?, errorKind?, … }',
)

const balanceExpectation = shorthand(
  'equals',
  strict(
    {
      equals: amount.optional(),
      min: amount.optional(),
      max: amount.optional(),
      delta: bounds.optional(),
      since: z.enum(['start', 'previous'], { error: expecting('start or previous') }).default('start'),
    },
    '{ equals?, min?, max?, delta?, since? } or an amount',
  ),
)

const eventExpectation = strict(
  {
    event: text('an event signature, e.g. "Transfer(address indexed from, address indexed to, uint256 value)"'),
    args: z.record(z.string(), z.unknown(), { error: expecting('a mapping of argument names to values') }).optional(),
    address: addressRef.optional(),
  },
  '{ event, args?, address? }',
).superRefine((value, ctx) => {
  let item: AbiEvent
  try {
    item = parseEvent(value.event)
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['event'], message: `not an event signature (expected e.g. "Transfer(address indexed from, address indexed to, uint256 value)"): ${(error as Error).message.split('\n')[0]}` })
    return
  }
  const names = item.inputs.map((input) => input.name).filter(Boolean)
  for (const arg of Object.keys(value.args ?? {})) {
    if (!names.includes(arg)) ctx.addIssue({ code: 'custom', path: ['args', arg], message: `not an argument of ${item.name} (expected one of: ${names.join(', ') || 'none: name them in the signature'})` })
  }
})

/** The fields one hint event may carry: its own keys, and `txs.<key>` for the keys of its txs. */
export const HINT_EVENT_FIELDS = ['hash', 'logs', 'txs.hash', 'txs.to', 'txs.functionSelector', 'txs.callData', 'mevGasPrice', 'gasUsed'] as const

/** One event of the MEV-Share hint stream: the private tx it announces (a template) and exactly the fields it carries. */
const hintEventExpectation = strict(
  {
    tx: name('a template'),
    fields: z.array(z.enum(HINT_EVENT_FIELDS, { error: `expected a hint event field (one of: ${HINT_EVENT_FIELDS.join(', ')})` }), {
      error: expecting('a list of hint event fields'),
    }),
  },
  '{ tx, fields }',
)

const blockExpectation = strict(
  {
    bundles: z.array(name('a bundle id')).optional(),
    txs: z.array(name('a template')).optional(),
    mempoolTxs: z.array(name('a template')).optional(),
    won: z.boolean({ error: expecting('true or false') }).optional(),
    /** Several builders: the builder whose block won the relay auction. */
    winner: text('a builder name').optional(),
    /**
     * The relay's data API for the last block's slot: `bids`, the builders whose bids
     * `builder_blocks_received` lists (in the order received, a name once per bid);
     * `delivered`, whose payload `proposer_payload_delivered` has (null: none), which must be
     * the mined block and pay what the slot report says.
     */
    relay: strict(
      {
        bids: z.array(text('a builder name'), { error: expecting('a list of builder names') }).optional(),
        delivered: z.union([text('a builder name'), z.null()]).optional(),
      },
      '{ bids?, delivered? }',
    ).optional(),
  },
  '{ bundles?, txs?, mempoolTxs?, won?, winner?, relay? }',
)

const expect = strict(
  {
    bundles: z.record(name('a bundle id'), bundleExpectation, { error: expecting('a mapping of bundle ids to expectations') }).optional(),
    balances: z.record(z.string(), balanceExpectation, { error: expecting('a mapping of names or addresses to balances') }).optional(),
    receipts: z
      .record(name('a template'), z.enum(['success', 'reverted', 'absent'], { error: expecting('success, reverted or absent') }), { error: expecting('a mapping of template names to success, reverted or absent') })
      .optional(),
    events: z
      .record(name('a template'), z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(eventExpectation)), { error: expecting('a mapping of template names to events') })
      .optional(),
    block: blockExpectation.optional(),
    hintEvents: z.array(hintEventExpectation, { error: expecting('a list of { tx, fields }: every hint event so far, in order') }).optional(),
    /** With a market (`flow:`): one searcher's record over every block so far. */
    competition: strict(
      {
        searcher: text('a searcher: a flow searcher\'s name, an account name, or a 0x address'),
        captured: strict({ min: int('a count').optional(), max: int('a count').optional() }, '{ min?, max? }').optional(),
        captureRate: strict({ min: rate.optional(), max: rate.optional() }, '{ min?, max? } (shares from 0 to 1)').optional(),
        /** Opportunities it went for (a bundle for them) and did not capture. */
        lost: strict({ min: int('a count').optional(), max: int('a count').optional() }, '{ min?, max? }').optional(),
        /** Its profit over every address it controls, net of gas and payment (docs/market.md, Accounting). */
        profit: bounds.optional(),
        /** What its captures paid the builder: priority fees and coinbase transfers. */
        builderPayment: bounds.optional(),
      },
      '{ searcher, captured?, captureRate?, lost?, profit?, builderPayment? }',
    ).optional(),
  },
  '{ bundles?, balances?, receipts?, events?, block?, hintEvents?, competition? }',
)

const callResultExpectation = strict(
  {
    error: textMatch.nullable().optional(),
    revert: textMatch.optional(),
    gasUsed: bounds.optional(),
    coinbaseDiff: bounds.optional(),
    ethSentToCoinbase: bounds.optional(),
    value: hexData.optional(),
  },
  '{ error?, revert?, gasUsed?, coinbaseDiff?, ethSentToCoinbase?, value? }',
)

const callBundle = strict(
  {
    txs: txRefs,
    blockNumber: blockRef('a block number').optional(),
    stateBlockNumber: z.union([z.literal('latest'), int('a block number')], { error: expecting('"latest" or a block number') }).optional(),
    timestamp: blockRef('a timestamp').optional(),
    coinbase: addressRef.optional(),
    baseFee: nonNegative.optional(),
    expect: strict(
      {
        error: textMatch.optional(),
        coinbaseDiff: bounds.optional(),
        ethSentToCoinbase: bounds.optional(),
        gasFees: bounds.optional(),
        totalGasUsed: bounds.optional(),
        bundleGasPrice: bounds.optional(),
        results: z.record(name('a template'), callResultExpectation).optional(),
      },
      'eth_callBundle expectations',
    ).optional(),
  },
  '{ txs, blockNumber?, stateBlockNumber?, timestamp?, coinbase?, baseFee?, expect? }',
)

/** Step kinds, each its own schema; a step is a mapping with exactly one of these keys. */
export const STEP_SCHEMAS = { submit, boost, submitEndOfBlock, sendPrivateTx, sendBlobs, cancelPrivateTx, mevSendBundle, cancel, sendTx, replayBlock, advance, timeInSlot, competitorBid, callBundle, expect } as const
export type StepKind = keyof typeof STEP_SCHEMAS
export const STEP_KINDS = Object.keys(STEP_SCHEMAS) as StepKind[]

const step = strict(
  Object.fromEntries(STEP_KINDS.map((kind) => [kind, STEP_SCHEMAS[kind].optional()])) as { [K in StepKind]: z.ZodOptional<(typeof STEP_SCHEMAS)[K]> },
  `a step: one of ${STEP_KINDS.join(', ')}`,
).superRefine((value, ctx) => {
  const kinds = STEP_KINDS.filter((kind) => value[kind] !== undefined)
  if (kinds.length !== 1) {
    ctx.addIssue({ code: 'custom', message: `${kinds.length ? `${kinds.join(' and ')} in one step` : 'empty step'} (expected exactly one of: ${STEP_KINDS.join(', ')})` })
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

export const scenarioSchema = strict(
  {
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
    steps: z.array(step, { error: expecting('a list of steps') }).min(1, 'expected at least one step'),
  },
  'a scenario mapping { name, accounts, txs, steps, … }',
)

export type Scenario = z.output<typeof scenarioSchema>
export type Step = Scenario['steps'][number]
export type SubmitStep = z.output<typeof submit>
export type BoostStep = z.output<typeof boost>
export type EndOfBlockStep = z.output<typeof submitEndOfBlock>
export type CancelStep = z.output<typeof cancel>
export type SendTxStep = z.output<typeof sendTx>
export type SendPrivateTxStep = z.output<typeof sendPrivateTx>
export type SendBlobsStep = z.output<typeof sendBlobs>
export type MevSendBundleStep = z.output<typeof mevSendBundle>
export type CancelPrivateTxStep = z.output<typeof cancelPrivateTx>
export type CallBundleStep = z.output<typeof callBundle>
export type ExpectStep = z.output<typeof expect>
export type HintEventExpectation = z.output<typeof hintEventExpectation>
export type BundleExpectation = z.output<typeof bundleExpectation>
export type BalanceExpectation = z.output<typeof balanceExpectation>
export type EventExpectation = z.output<typeof eventExpectation>
export type ContractSpec = z.output<typeof contract>
export type AccountSpec = z.output<typeof account>
export type BotSpec = z.output<typeof bot>

/** The kind of a validated step (it has exactly one). */
export function stepKind(step: Step): StepKind {
  return STEP_KINDS.find((kind) => step[kind] !== undefined)!
}
