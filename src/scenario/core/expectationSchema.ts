import { z } from 'zod'
import { OPPORTUNITY_KINDS } from '../../protocol/competition.js'
import type { AbiEvent } from 'viem'
import { BUNDLE_STATES } from '../../protocol/bundleStates.js'
import { addressRef, amount, bounds, errorKind, expecting, hexData, int, name, parseEvent, shorthand, strict, text, textMatch, txRef } from './fields.js'

/*
 * What a scenario can expect: the `expect` step's checks, and `callBundle`'s own `expect`.
 * `expectations.ts` runs them.
 */

const rate = z.number({ error: expecting('a share from 0 to 1') }).min(0, 'expected a share from 0 to 1').max(1, 'expected a share from 0 to 1')

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
const HINT_EVENT_FIELDS = ['hash', 'logs', 'txs.hash', 'txs.to', 'txs.functionSelector', 'txs.callData', 'mevGasPrice', 'gasUsed'] as const

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

/** One entry of `buildernet_getDelayedRefunds`' answer: the bundle it refunds (an id), its amount, its status, the block that owes it. */
const delayedRefundExpectation = strict(
  {
    bundle: name('a bundle id').optional(),
    amount: bounds.optional(),
    status: z.enum(['pending', 'received'], { error: expecting('pending or received') }).optional(),
    blockNumber: int('a block number').optional(),
  },
  '{ bundle?, amount?, status?, blockNumber? }',
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

/** The `expect` step's value: every check it makes, each optional. */
export const expectations = strict(
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
    /** BuilderNet's refunds paid after the block: `buildernet_getDelayedRefunds [{ recipient }]`, exactly these entries, in order. */
    delayedRefunds: z.record(z.string(), z.array(delayedRefundExpectation, { error: expecting('a list of { bundle?, amount?, status?, blockNumber? }: every refund of the recipient, in order') }), {
      error: expecting('a mapping of recipients (names or addresses) to their refunds'),
    }).optional(),
    hintEvents: z.array(hintEventExpectation, { error: expecting('a list of { tx, fields }: every hint event so far, in order') }).optional(),
    /** With a market (`flow:`): one searcher's record over every block so far. */
    competition: strict(
      {
        searcher: text('a searcher: a flow searcher\'s name, an account name, or a 0x address'),
        /** Only opportunities of this kind count (`backrun`, `sandwich`, `cexDex`, `liquidation`); absent: every kind. */
        kind: z.enum(OPPORTUNITY_KINDS, { error: expecting(`one of ${OPPORTUNITY_KINDS.join(', ')}`) }).optional(),
        captured: strict({ min: int('a count').optional(), max: int('a count').optional() }, '{ min?, max? }').optional(),
        captureRate: strict({ min: rate.optional(), max: rate.optional() }, '{ min?, max? } (shares from 0 to 1)').optional(),
        /** Opportunities it went for (a bundle for them) that another searcher captured. */
        lost: strict({ min: int('a count').optional(), max: int('a count').optional() }, '{ min?, max? }').optional(),
        /** Opportunities it went for that nobody captured: its own bundle failed. */
        failed: strict({ min: int('a count').optional(), max: int('a count').optional() }, '{ min?, max? }').optional(),
        /** Its profit over every address it controls, net of gas and payment (docs/market.md, Whose money it is). */
        profit: bounds.optional(),
        /** What the builder kept of its captures' payments (priority fees and coinbase transfers, less refunds paid out of them): its bundles' stats' `builderPayment`. */
        builderPayment: bounds.optional(),
        /** What its captures' txs gave the coinbase, before any refund. */
        grossPayment: bounds.optional(),
      },
      '{ searcher, kind?, captured?, captureRate?, lost?, failed?, profit?, builderPayment?, grossPayment? }',
    ).optional(),
  },
  '{ bundles?, balances?, receipts?, events?, block?, delayedRefunds?, hintEvents?, competition? }',
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

/** `callBundle`'s own `expect`: the eth_callBundle answer (or, with `error`, its refusal). */
export const callBundleExpectations = strict(
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
)

/** An `expect` step's checks, as parsed. */
export type Expectations = z.output<typeof expectations>
/** `callBundle`'s checks, as parsed. */
export type CallBundleExpectations = z.output<typeof callBundleExpectations>
/** `expect.bundles.<id>`: what the bundle's stats must say. */
export type BundleExpectation = z.output<typeof bundleExpectation>
/** `expect.balances.<name>`: a balance now, or its change. */
export type BalanceExpectation = z.output<typeof balanceExpectation>
/** One of `expect.events.<template>`: a log its tx emitted. */
export type EventExpectation = z.output<typeof eventExpectation>
/** One of `expect.delayedRefunds.<recipient>`: a refund BuilderNet owes or paid. */
export type DelayedRefundExpectation = z.output<typeof delayedRefundExpectation>
/** One of `expect.hintEvents`: an event of the hint stream. */
export type HintEventExpectation = z.output<typeof hintEventExpectation>
