import type { z } from 'zod'
import type { nameSearcherParams } from './harnessParams.js'
import type { Address, Hash } from 'viem'
import type { ErrorKind } from './errorKinds.js'
import { normalizeAddress } from './normalize.js'

/**
 * One bundle that went for an opportunity: it carried the victim tx, or backran it by hash
 * (MEV-Share), for the victim's block. Amounts: decimal wei.
 */
export interface CompetitionContender {
  bundleHash: Hash
  /** The bundle's signing key (X-Flashbots-Signature), else its first tx's sender. */
  searcher: Address | null
  /** The searcher's name (`harness_nameSearcher`, a scenario's `searchers`, the flow file), else null. */
  name: string | null
  /**
   * What it paid the builder: landed, as measured in the mined block (its stats'
   * `builderPayment`); otherwise what its last simulation said it would pay (its bid).
   */
  builderPaymentWei: string
  /** Its state after the block, lowercase (`landed`, `excludedfromblock`, …). */
  status: string
  errorKind: ErrorKind | null
  /** Did this bundle capture the opportunity (its backrun is the one in the block)? */
  captured: boolean
}

/**
 * What kind of opportunity: a user swap's gap closed by a `backrun`, the same with a frontrun
 * (`sandwich`), a pool away from the exchange's price at the block's start (`cexDex`), or a
 * borrower an oracle round put under a health factor of 1 (`liquidation`, docs/lending.md).
 */
export const OPPORTUNITY_KINDS = ['backrun', 'sandwich', 'cexDex', 'liquidation'] as const
export type OpportunityKind = (typeof OPPORTUNITY_KINDS)[number]

/**
 * A gap in a mined block, who closed it, and who else tried. `backrun` and `sandwich`: a
 * user swap that left a cycle through its pool that earned; `cexDex`: a pool that started
 * the block away from the exchange's price by more than its fee (docs/exchange.md). Amounts:
 * decimal wei.
 */
export interface CompetitionOpportunity {
  kind: OpportunityKind
  blockNumber: number
  /** The swap (a user's tx) that left the gap; `liquidation`: the oracle round it followed in the block (null when none there); null for `cexDex` (the exchange's price moved). */
  victim: Hash | null
  /** The pool it moved (`cexDex`: the pool away from the price; `liquidation`: the lending Pool). */
  pool: Address
  /** `liquidation`: the borrower whose position it was; null for the other kinds. */
  position: Address | null
  /**
   * What closing the gap was worth, before gas (wei of WETH): the best round trip's profit
   * right after the user's swap; `cexDex`, the trade to the price's markout at the price of
   * the block's start, net of the pool's fee; `liquidation`, the collateral seized less the
   * debt repaid at the lending oracle's prices (a missed one: the most the close factor allowed,
   * its bonus less the protocol's fee).
   */
  gapWei: string
  /** Who closed it: the bundle's signing key (X-Flashbots-Signature), else its first tx's sender; null when nobody did. */
  searcher: Address | null
  /** The searcher's name (emulated searchers', and any named with `harness_nameSearcher`), else null. */
  name: string | null
  /** The bundle whose backrun closed the gap, when it came in one. */
  bundleHash: Hash | null
  /** The captor's txs that closed it: the backrun's (a sandwich's second half), a `cexDex` trade's. */
  backrunTxs: Hash[]
  /** A sandwich's first half: the captor's txs right before the user's swap, on its pool (empty for a backrun). */
  frontrunTxs: Hash[]
  /**
   * What a sandwiched user lost, in wei of WETH: what its swap would have bought on the pool
   * as it was before the frontrun, less what it got (in the token it bought, priced as the
   * profit's tokens are). Null when it was not sandwiched.
   */
  userLossWei: string | null
  /**
   * The searcher's profit (docs/market.md, Accounting): the value change, over the backrun's
   * txs (and a sandwich's frontrun), of every address the searcher controls — WETH and ETH 1:1, other tokens at the
   * block's WETH pool price — which is already net of its gas and of what it paid the
   * builder. Null when not captured.
   */
  profitWei: string | null
  /**
   * Refunds its bundle earned to the searcher's addresses, counted in `profitWei`: payouts in
   * the block (a `refundPercent` bundle's to itself) and refunds paid after it (BuilderNet's
   * flat-tax share and delayed refunds, bloXroute's priority-fee refund; docs/several-builders.md).
   * Null when not captured.
   */
  refundWei: string | null
  /**
   * What the builder kept of what the searcher's txs paid it, as its bundle's stats'
   * `builderPayment` counts it: `grossPaymentWei` less what the builder paid back out of it in
   * the block (a MEV-Share refund to the user, a `refundPercent` payout, a sponsorship). Null
   * when not captured.
   */
  builderPaymentWei: string | null
  /** Everything the searcher's txs gave the block's coinbase (priority fees and direct transfers), before any refund or sponsorship was paid back out of it (null when not captured). */
  grossPaymentWei: string | null
  /** The base fee its txs burned (null when not captured). */
  gasWei: string | null
  /** The winner's payment less the best losing contender's bid (null without a winner and a loser). */
  marginWei: string | null
  /** Every bundle that went for it, the winner first, then by bid. */
  contenders: CompetitionContender[]
}

/** One searcher's record over the blocks asked for. */
export interface CompetitionSearcher {
  searcher: Address
  name: string | null
  captured: number
  /** Opportunities it went for (a bundle for them) that another searcher captured. */
  lost: number
  /** Opportunities it went for that nobody captured: its own bundle failed (reverted, not profitable, too late…), counted apart from `lost`. */
  failed: number
  /** Its failed rounds by the `errorKind` of its bundle (the stats' kind; `unknown` when it had none). */
  failedKinds: Record<string, number>
  /** captured / every opportunity in the range (0 when there was none). */
  captureRate: number
  profitWei: string
  /** What the builder kept of its captures' payments (after refunds paid out of them). */
  builderPaymentWei: string
  /** What its captures' txs gave the coinbase before those refunds. */
  grossPaymentWei: string
}

/** `harness_getCompetition`'s answer, and (per block) the slot report's `competition`. */
export interface CompetitionSummary {
  fromBlock: number
  toBlock: number
  opportunities: number
  captured: number
  /** Captures that were sandwiches (a frontrun and a backrun around the user's swap). */
  sandwiches: number
  /** Opportunities and captures by kind. */
  kinds: Record<OpportunityKind, { opportunities: number; captured: number }>
  /** What sandwiched users lost in all (decimal wei of WETH). */
  userLossWei: string
  searchers: CompetitionSearcher[]
}

export interface CompetitionReport extends CompetitionSummary {
  list: CompetitionOpportunity[]
}

/** harness_getCompetition's params: a block range (default: every block so far). */
export interface GetCompetitionParams {
  fromBlock?: number
  toBlock?: number
}

/** harness_nameSearcher's params: a name for a searcher's addresses (signing keys, senders, executor contracts); the first address is the one reports list it under, unless it signs its bundles with another. */
export type NameSearcherParams = z.input<typeof nameSearcherParams>

/** Why a bundle lost: the order of the mined block that took the tx or the opportunity it went for. */
export interface LostTo {
  bundleHash: Hash
  searcher: Address | null
  name: string | null
  /** What that order paid the builder in the block (decimal wei). */
  builderPayment: string
}

/** A named searcher is one record whichever of its addresses signed or sent (its key and its executors); an unnamed one, its address. */
export function searcherKey(s: { searcher: Address; name: string | null }): string {
  return s.name === null ? s.searcher.toLowerCase() : `name:${s.name}`
}

/** A searcher the records list even before it contended (the emulated ones, and any named). */
export interface KnownSearcher {
  searcher: Address
  name: string
}

/**
 * Each searcher's record over `opportunities`: captures with their profit and payments, the
 * rounds another searcher captured (`lost`), and the rounds nobody captured where its own bundle
 * failed (`failed`, by `errorKind`). The one sum the market's tracker, the dashboard and the
 * backtest report use; a named searcher is one row whichever of its addresses a round lists.
 * Most captures first, then most losses.
 *
 * @example const rows = searcherRecords(report.list, names.all().map(({ name, addresses }) => ({ searcher: addresses[0]!, name })), names.nameOf)
 */
export function searcherRecords(
  opportunities: readonly CompetitionOpportunity[],
  known: readonly KnownSearcher[] = [],
  nameOf: (searcher: Address) => string | null = () => null,
): CompetitionSearcher[] {
  const rows = new Map<string, { searcher: Address; name: string | null; captured: number; lost: number; failed: number; failedKinds: Record<string, number>; profit: bigint; payment: bigint; gross: bigint }>()
  const row = (searcher: Address, given: string | null) => {
    const name = given ?? nameOf(searcher)
    const key = searcherKey({ searcher, name })
    let found = rows.get(key)
    if (!found) rows.set(key, (found = { searcher: normalizeAddress(searcher), name, captured: 0, lost: 0, failed: 0, failedKinds: {}, profit: 0n, payment: 0n, gross: 0n }))
    return found
  }
  for (const k of known) row(k.searcher, k.name)
  for (const o of opportunities) {
    const winner = o.searcher ? row(o.searcher, o.name) : null
    if (winner) {
      winner.captured++
      winner.profit += BigInt(o.profitWei ?? '0')
      winner.payment += BigInt(o.builderPaymentWei ?? '0')
      winner.gross += BigInt(o.grossPaymentWei ?? o.builderPaymentWei ?? '0')
    }
    // One loss (or failure) per round, however many of its bundles went for it; the kind of its best bundle (the list is by bid).
    const contended = new Map<ReturnType<typeof row>, CompetitionContender>()
    for (const c of o.contenders) {
      if (c.searcher === null) continue
      const r = row(c.searcher, c.name)
      if (r !== winner && !contended.has(r)) contended.set(r, c)
    }
    for (const [r, c] of contended) {
      if (winner) r.lost++
      else {
        r.failed++
        const kind = c.errorKind ?? 'unknown'
        r.failedKinds[kind] = (r.failedKinds[kind] ?? 0) + 1
      }
    }
  }
  return [...rows.values()]
    .map((r) => ({
      searcher: r.searcher,
      name: r.name,
      captured: r.captured,
      lost: r.lost,
      failed: r.failed,
      failedKinds: r.failedKinds,
      captureRate: opportunities.length === 0 ? 0 : r.captured / opportunities.length,
      profitWei: r.profit.toString(),
      builderPaymentWei: r.payment.toString(),
      grossPaymentWei: r.gross.toString(),
    }))
    .sort((a, b) => b.captured - a.captured || b.lost - a.lost || a.searcher.localeCompare(b.searcher))
}
