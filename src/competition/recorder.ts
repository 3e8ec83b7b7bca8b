import { formatTransactionReceipt, numberToHex, parseAbi, toHex, type Address, type Hash, type PublicClient } from 'viem'
import type { CompetitionOpportunity } from '../protocol/competition.js'
import { normalizeAddress, normalizeHash } from '../protocol/normalize.js'
import { readReserves } from '../dex/read.js'
import type { PoolReserves } from '../dex/math.js'
import type { ChainClient } from '../chain/chainClient.js'
import type { TraceFrame } from '../chain/nodeRpc.js'
import { BlockStateDiff } from '../builder/execution/stateDiff.js'
import type { WorldOnChain } from '../world/deploy.js'
import { accountBackrun, classifyBlock, minimumGap, priceInWeth, type FoundOpportunity, type MinedTxFacts } from './classify.js'
import { contendersFor, marginOf } from './contenders.js'
import { creationsOf, Ownership } from './ownership.js'
import { searcherOf, type BundleTrace } from '../bundle/trace.js'
import { paidBack, refundPayouts } from '../bundle/builderPayments.js'
import { simulateAsCallsAt } from '../builder/simulation/asCallsAt.js'
import { logPool } from '../dex/decode.js'
import { valueInWei, type ReferencePricesWei } from '../exchange/valuation.js'
import { findCexDex, type FoundCexDex } from './cexDex.js'
import { findLiquidations, valueAtOracle } from './liquidation.js'

const LENDING_ABI = parseAbi([
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
  'function getAssetPrice(address asset) view returns (uint256)',
])

export interface CompetitionRecorderDeps {
  /** Reads blocks, receipts, code and pools (the node itself: a block's receipts are not private once mined). */
  node: PublicClient
  /** The same node for what viem does not type: the txs' state diffs (their balance changes) and the blocks' trace frames (their creations). */
  chain: ChainClient
  /** The world the market trades on: its pools are watched, its contracts, tokens and pools are public (nobody's). */
  world: Pick<WorldOnChain, 'contracts' | 'tokens' | 'pools'>
  names: { nameOf(address: Address | null): string | null; addressesWith(address: Address): Address[] }
  isUserSwap(hash: Hash): boolean
  /** The refunds a bundle earns after its block (BuilderNet's, bloXroute's), known once its block is mined. */
  refundsAfterBlock(bundleHash: Hash): ReadonlyArray<{ recipient: Address; amountWei: bigint }>
  /**
   * Whether the blocks shown follow one chain, so that a block mined between two shown (outside
   * a slot) is read for its creations too. The backtest moves the chain to each real parent:
   * only the block shown is its own.
   */
  oneChain: boolean
  /** Each world token's reference price at a moment (ms), when the market has an exchange: its pools' CEX-DEX gaps are counted. */
  pricesAt?: (ms: number) => ReferencePricesWei
  /** The lending market, when the market has one: its liquidations are counted (docs/lending.md). */
  lending?: LendingFacts
}

/** What the competition reads of the lending market: where its Pool, oracle and feeds are, and the borrowers it watches. */
export interface LendingFacts {
  pool: Address
  oracle: Address
  /** Every contract of the lending market a searcher's tx may call (the Pool, the feeds…): nobody's, by the ownership rule. */
  contracts: readonly Address[]
  /** The feeds' aggregators: a tx to one is an oracle round. */
  aggregators: readonly Address[]
  /** The borrowers opened by the setup, with their collateral's bonus and the protocol's fee on it (basis points): a missed liquidation is counted for them. */
  borrowers: ReadonlyArray<{ address: Address; liquidationBonus: number; liquidationProtocolFee: number }>
}

/**
 * Turns each mined block into the competition's opportunities (docs/market.md, Who won): the
 * gaps users' swaps left, the backrun that closed each with its searcher's money (accounted
 * over every address it controls, by the one ownership rule: `ownership.ts`), and every bundle
 * that went for it.
 */
export class CompetitionRecorder {
  private readonly ownership: Ownership
  private readonly publicContracts: ReadonlySet<Address>
  /** Addresses known to hold code (a searcher's own txs call contracts; a plain transfer to an account is no call). */
  private readonly withCode = new Set<Address>()
  private learnedThrough: bigint | null = null

  constructor(private readonly deps: CompetitionRecorderDeps) {
    const { world } = deps
    this.publicContracts = new Set([...Object.values(world.contracts), ...world.tokens.map((t) => t.address), ...world.pools.map((p) => p.address), ...(deps.lending?.contracts ?? [])].map((a) => normalizeAddress(a)))
    this.ownership = new Ownership({ addressesWith: (a) => deps.names.addressesWith(a), isPublic: (a) => this.publicContracts.has(normalizeAddress(a)) })
  }

  /**
   * Reads a block's creations from its trace frames (`frames`: the slot's, read when it was
   * mined; else read now), and on one chain those of any block mined since the last one read
   * (outside a slot). The backtest's setup block is read so: the bot's contracts, before any
   * block is accounted.
   */
  async learnBlock(blockNumber: bigint, frames?: readonly TraceFrame[]): Promise<void> {
    const from = this.deps.oneChain && this.learnedThrough !== null && this.learnedThrough < blockNumber ? this.learnedThrough + 1n : blockNumber
    for (let number = from; number <= blockNumber; number++) {
      const read = number === blockNumber && frames ? frames : await this.deps.chain.node.request({ method: 'trace_block', params: [toHex(number)] })
      const creations = creationsOf(read)
      this.ownership.learn(creations)
      for (const c of creations) this.withCode.add(c.created)
    }
    if (this.learnedThrough === null || blockNumber > this.learnedThrough) this.learnedThrough = blockNumber
  }

  /** The block's opportunities; `frames`, its trace frames when the slot read them already. */
  async opportunitiesOf(blockNumber: number, considered: ReadonlyArray<Readonly<BundleTrace>>, frames?: readonly TraceFrame[], parentPools?: readonly PoolReserves[]): Promise<CompetitionOpportunity[]> {
    return (await this.readBlock(blockNumber, considered, frames, parentPools)).opportunities
  }

  /**
   * The block's opportunities, and the world's pools after it (replayed from its logs over the
   * parent's: what the slot report's pool prices show, with no second read). `parentPools`: the
   * world's pools at the parent, when the caller read them already (the backtest, from the node).
   */
  async readBlock(blockNumber: number, considered: ReadonlyArray<Readonly<BundleTrace>>, frames?: readonly TraceFrame[], knownParentPools?: readonly PoolReserves[]): Promise<{ opportunities: CompetitionOpportunity[]; poolsAfter: PoolReserves[] }> {
    const { node, world } = this.deps
    const number = BigInt(blockNumber)
    // The block's receipts in one request, not one a tx: a backtest's block holds ~150.
    const [block, rawReceipts, , parentPools] = await Promise.all([
      node.getBlock({ blockNumber: number, includeTransactions: false }),
      node.request({ method: 'eth_getBlockReceipts', params: [numberToHex(number)] }),
      this.learnBlock(number, frames),
      knownParentPools ?? readReserves(node, world.pools, number - 1n),
    ])
    const receipts = (rawReceipts ?? []).map((receipt) => formatTransactionReceipt(receipt))
    const baseFee = block.baseFeePerGas ?? 0n
    const weth = world.contracts.weth
    const txs: MinedTxFacts[] = receipts.map((r) => ({ hash: r.transactionHash, from: r.from, to: r.to, gasUsed: r.gasUsed, effectiveGasPrice: r.effectiveGasPrice, logs: r.logs }))
    const { opportunities, poolsAfter } = classifyBlock({ number: blockNumber, baseFee, txs }, { weth, parentPools, isUserSwap: this.deps.isUserSwap, minGapWei: minimumGap(baseFee) })
    const pricesAt = this.deps.pricesAt
    // CEX-DEX gaps: each pool against the price at the block's start (the parent's time); profits at the block's time.
    const parent = pricesAt && (await node.getBlock({ blockNumber: number - 1n, includeTransactions: false }))
    const cexDex = pricesAt && parent ? findCexDex({ number: blockNumber, baseFee, txs }, { parentPools, pricesAtStart: pricesAt(Number(parent.timestamp) * 1000), isUserSwap: this.deps.isUserSwap, claimed: new Set(opportunities.flatMap((o) => [...o.frontrun, ...o.backrun].map((tx) => tx.hash.toLowerCase()))), minGapWei: minimumGap(baseFee) }) : []
    const pricesAtBlock = pricesAt?.(Number(block.timestamp) * 1000)
    const diff = await BlockStateDiff.ofTxs(this.deps.chain, [...opportunities.flatMap((o) => [...o.frontrun, ...o.backrun]), ...cexDex.flatMap((o) => o.trade)].map((tx) => tx.hash))
    const balanceChange = (hash: Hash, account: Address) => diff.balanceChange(hash, account)
    const landed = considered.filter((t) => t.state === 'Landed' && t.blockNumber === number)
    const cexDexFound =
      cexDex.length === 0 || !pricesAtBlock
        ? []
        : await this.cexDexOpportunities(cexDex, { blockNumber, block, considered, landed, txs, pricesAtBlock, poolsAfter, balanceChange })
    const backruns = await Promise.all(
      opportunities.map(async (found) => {
        const contenders = contendersFor(found.victim, found.backrun.map((tx) => tx.hash), considered as BundleTrace[], (a) => this.deps.names.nameOf(a))
        const base = uncaptured({ kind: found.frontrun.length > 0 ? 'sandwich' : 'backrun', blockNumber, victim: found.victim, pool: found.pool, gapWei: found.gapWei, margin: marginOf(contenders), contenders })
        if (found.backrun.length === 0) return base
        const captor = landed.find((t) => t.bundle.txs.some((tx) => normalizeHash(tx.hash) === normalizeHash(found.backrun[0]!.hash)))
        const searcher = (captor && searcherOf(captor, found.victim)) ?? normalizeAddress(found.backrun[0]!.from)
        const controlled = await this.controlledBy(searcher, found, block.miner, number)
        const account = accountBackrun([...found.frontrun, ...found.backrun], { weth, baseFee, coinbase: block.miner, controlled, balanceChange, poolsAfter })
        const loss = found.userLoss && (found.userLoss.token.toLowerCase() === weth.toLowerCase() ? found.userLoss.amount : priceInWeth(found.userLoss.token, found.userLoss.amount, { weth, poolsAfter }))
        return {
          ...this.capturedBy(base, { searcher, captor, txs: found.backrun, account, controlled }),
          frontrunTxs: found.frontrun.map((tx) => tx.hash),
          userLossWei: loss === null ? null : loss.toString(),
        }
      }),
    )
    const liquidations = this.deps.lending ? await this.liquidationOpportunities(this.deps.lending, { blockNumber, block, txs, considered, landed }) : []
    return { opportunities: [...liquidations, ...cexDexFound, ...backruns], poolsAfter }
  }

  /**
   * The block's liquidations (docs/lending.md, Who won): each `LiquidationCall`, its captor's
   * money over its tx — the collateral seized less the debt repaid, tokens at the lending
   * oracle's prices after the block, net of gas and payment — and the bundles that backran the
   * same oracle round; and, in a block with a round, each watched borrower left under a health
   * factor of 1 that nobody liquidated (missed, no captor).
   */
  private async liquidationOpportunities(
    lending: LendingFacts,
    at: { blockNumber: number; block: { miner: Address; baseFeePerGas: bigint | null }; txs: readonly MinedTxFacts[]; considered: ReadonlyArray<Readonly<BundleTrace>>; landed: ReadonlyArray<Readonly<BundleTrace>> },
  ): Promise<CompetitionOpportunity[]> {
    const { node } = this.deps
    const number = BigInt(at.blockNumber)
    const baseFee = at.block.baseFeePerGas ?? 0n
    const aggregators = new Set(lending.aggregators.map((a) => a.toLowerCase()))
    const found = findLiquidations({ number: at.blockNumber, baseFee, txs: at.txs }, { pool: lending.pool, aggregators })
    const update = [...at.txs].reverse().find((tx) => tx.to && aggregators.has(tx.to.toLowerCase()))?.hash ?? null
    // Most blocks hold neither a round nor a liquidation: nothing to read.
    if (found.length === 0 && update === null) return []
    const liquidated = new Set(found.map((f) => f.borrower))
    // Missed: only in a block with a round (the one that put them under), else every later block would list them again.
    const watched = update === null ? [] : lending.borrowers.filter((b) => !liquidated.has(normalizeAddress(b.address)))
    const accounts = await Promise.all(watched.map((b) => node.readContract({ address: lending.pool, abi: LENDING_ABI, functionName: 'getUserAccountData', args: [b.address], blockNumber: number })))
    const tokens = [...new Set([this.deps.world.contracts.weth, ...found.flatMap((f) => [f.collateral, f.debt])].map((a) => normalizeAddress(a)))]
    const prices = new Map(await Promise.all(tokens.map(async (token) => [token, await node.readContract({ address: lending.oracle, abi: LENDING_ABI, functionName: 'getAssetPrice', args: [token], blockNumber: number })] as const)))
    const wethPrice = prices.get(normalizeAddress(this.deps.world.contracts.weth))!
    const decimalsOf = (token: Address) => this.deps.world.tokens.find((t) => normalizeAddress(t.address) === normalizeAddress(token))?.decimals ?? 18
    const value = (token: Address, amount: bigint) => valueAtOracle(amount, { decimals: decimalsOf(token), priceUsd8: prices.get(normalizeAddress(token)) ?? 0n }, wethPrice)
    const diff = await BlockStateDiff.ofTxs(this.deps.chain, [...new Set(found.map((f) => f.tx.hash))])
    const counted = new Set<string>()
    const captured = await Promise.all(
      found.map(async (f) => {
        const contenders = f.update ? contendersFor(f.update, [f.tx.hash], at.considered as BundleTrace[], (a) => this.deps.names.nameOf(a)) : []
        const base = uncaptured({ kind: 'liquidation', blockNumber: at.blockNumber, victim: f.update, pool: lending.pool, position: f.borrower, gapWei: value(f.collateral, f.collateralSeized) - value(f.debt, f.debtCovered), margin: marginOf(contenders), contenders })
        const captor = at.landed.find((t) => t.bundle.txs.some((tx) => normalizeHash(tx.hash) === normalizeHash(f.tx.hash)))
        const searcher = (captor && searcherOf(captor, f.update ?? undefined)) ?? normalizeAddress(f.tx.from)
        const controlled = await this.controlledBy(searcher, { backrun: [f.tx], frontrun: [] }, at.block.miner, number)
        // A tx that liquidates several positions: its money is counted once, on its first.
        const first = !counted.has(f.tx.hash)
        counted.add(f.tx.hash)
        const account = first ? accountBackrun([f.tx], { weth: this.deps.world.contracts.weth, baseFee, coinbase: at.block.miner, controlled, balanceChange: (hash, account) => diff.balanceChange(hash, account), poolsAfter: [], value }) : { profit: 0n, grossPayment: 0n, gas: 0n }
        return this.capturedBy(base, { searcher, captor: first ? captor : undefined, txs: [f.tx], account, controlled })
      }),
    )
    const ethUsd = wethPrice
    const missed = watched.flatMap((b, i) => {
      const [, debtBase, , , , healthFactor] = accounts[i]!
      if (debtBase === 0n || healthFactor >= 10n ** 18n) return []
      // The most the close factor lets a liquidator repay (half, all of it under 0.95), its bonus less the protocol's fee, in wei at the oracle's ETH price.
      const repaid = healthFactor > 95n * 10n ** 16n ? debtBase / 2n : debtBase
      const bonus = (repaid * BigInt(b.liquidationBonus - 10_000)) / 10_000n
      const kept = bonus - (bonus * BigInt(b.liquidationProtocolFee)) / 10_000n
      // Nobody went for it: a bundle behind the round that liquidated other positions did not (its liquidations name theirs).
      return [uncaptured({ kind: 'liquidation', blockNumber: at.blockNumber, victim: update, pool: lending.pool, position: normalizeAddress(b.address), gapWei: (kept * 10n ** 18n) / ethUsd, margin: null, contenders: [] })]
    })
    return [...captured, ...missed]
  }

  /**
   * The block's CEX-DEX opportunities with their captors' money: the trade's txs accounted over
   * every address the captor controls, tokens at the exchange's price at the block's time (a
   * markout), and the bundles that went for each pool (`cexDexContenders`).
   */
  private async cexDexOpportunities(
    found: readonly FoundCexDex[],
    at: {
      blockNumber: number
      block: { miner: Address; baseFeePerGas: bigint | null; timestamp: bigint }
      considered: ReadonlyArray<Readonly<BundleTrace>>
      landed: ReadonlyArray<Readonly<BundleTrace>>
      /** The mined block's txs (a landed bundle's pools are read from its receipts' logs). */
      txs: readonly MinedTxFacts[]
      pricesAtBlock: ReferencePricesWei
      poolsAfter: Parameters<typeof accountBackrun>[1]['poolsAfter']
      balanceChange(hash: Hash, account: Address): bigint
    },
  ): Promise<CompetitionOpportunity[]> {
    const touched = await this.poolsTouchedBy(at.considered, at.txs, BigInt(at.blockNumber), at.block)
    const baseFee = at.block.baseFeePerGas ?? 0n
    const weth = this.deps.world.contracts.weth
    return Promise.all(
      found.map(async (opportunity): Promise<CompetitionOpportunity> => {
        const first = opportunity.trade[0]?.hash
        const captor = first === undefined ? undefined : at.landed.find((t) => t.bundle.txs.some((tx) => normalizeHash(tx.hash) === normalizeHash(first)))
        const pool = opportunity.pool.toLowerCase()
        const contenders = at.considered
          .filter((t) => t === captor || touched.get(t.bundle.hash)?.has(pool))
          .map((trace) => {
            const searcher = searcherOf(trace)
            return {
              bundleHash: trace.bundle.hash,
              searcher,
              name: this.deps.names.nameOf(searcher),
              builderPaymentWei: (trace.builderPayment > 0n ? trace.builderPayment : 0n).toString(),
              status: trace.state.toLowerCase(),
              errorKind: trace.errorKind,
              captured: trace === captor,
            }
          })
          .sort((a, b) => Number(b.captured) - Number(a.captured) || (BigInt(b.builderPaymentWei) > BigInt(a.builderPaymentWei) ? 1 : BigInt(b.builderPaymentWei) < BigInt(a.builderPaymentWei) ? -1 : a.bundleHash.localeCompare(b.bundleHash)))
        const base = uncaptured({ kind: 'cexDex', blockNumber: at.blockNumber, victim: null, pool: opportunity.pool, gapWei: opportunity.gapWei, margin: marginOf(contenders), contenders })
        if (opportunity.trade.length === 0) return base
        const searcher = (captor && searcherOf(captor)) ?? normalizeAddress(opportunity.trade[0]!.from)
        const controlled = await this.controlledBy(searcher, { backrun: opportunity.trade, frontrun: [] }, at.block.miner, BigInt(at.blockNumber))
        const value = (token: Address, amount: bigint) => valueInWei(at.pricesAtBlock, token, amount) ?? 0n
        const account = accountBackrun(opportunity.trade, { weth, baseFee, coinbase: at.block.miner, controlled, balanceChange: at.balanceChange, poolsAfter: at.poolsAfter, value })
        return this.capturedBy(base, { searcher, captor, txs: opportunity.trade, account, controlled })
      }),
    )
  }

  /**
   * The pools each considered searcher bundle trades (no user's tx in it, no MEV-Share backrun):
   * a landed one's from its receipts' logs; another's from its txs run as calls on the block's
   * parent, at its time and coinbase. Bundle hash → lowercase pool addresses (and V4 pool ids).
   */
  private async poolsTouchedBy(considered: ReadonlyArray<Readonly<BundleTrace>>, mined: readonly MinedTxFacts[], blockNumber: bigint, block: { miner: Address; timestamp: bigint }): Promise<Map<Hash, Set<string>>> {
    const out = new Map<Hash, Set<string>>()
    const candidates = considered.filter((t) => t.bundle.kind === 'bundle' && t.bundle.txs.every((tx) => !this.deps.isUserSwap(tx.hash)))
    const receipts = new Map(mined.map((tx) => [normalizeHash(tx.hash), tx]))
    const landed = candidates.filter((t) => t.state === 'Landed' && t.blockNumber === blockNumber)
    for (const trace of landed) out.set(trace.bundle.hash, new Set(trace.bundle.txs.flatMap((tx) => receipts.get(normalizeHash(tx.hash))?.logs.map((log) => logPool(log)) ?? [])))
    await Promise.all(
      candidates.filter((t) => !landed.includes(t)).map(async (trace) => {
        // At the mined block's own timestamp (so `slotSeconds`, the default's step, is not read).
        const run = await simulateAsCallsAt(this.deps.chain, { stateBlock: blockNumber - 1n, coinbase: block.miner, timestamp: block.timestamp, slotSeconds: 12 }, trace.bundle.txs)
        if (run.ok) out.set(trace.bundle.hash, new Set(run.txs.flatMap((tx) => tx.logs.map((log) => logPool(log)))))
      }),
    )
    return out
  }

  /** The captor's addresses by the ownership rule: its key, its txs' senders and the contracts they called (those with code), and what any of them created. */
  private async controlledBy(searcher: Address, found: Pick<FoundOpportunity, 'frontrun' | 'backrun'>, coinbase: Address, blockNumber: bigint): Promise<Set<Address>> {
    const txs = [...found.frontrun, ...found.backrun]
    const targets = [...new Set(txs.flatMap((tx) => (tx.to ? [normalizeAddress(tx.to)] : [])))].filter((to) => to !== normalizeAddress(coinbase) && !this.publicContracts.has(to))
    const called = await Promise.all(
      targets.map(async (to) => {
        if (this.withCode.has(to)) return to
        const code = await this.deps.node.getCode({ address: to, blockNumber })
        if (code === undefined || code === '0x') return null
        this.withCode.add(to)
        return to
      }),
    )
    return this.ownership.controlledBy(searcher, { senders: txs.map((tx) => tx.from), called: called.filter((to): to is Address => to !== null) })
  }

  /** Every address the rule gives a searcher from its names and what they created alone (no tx of its to read): the backtest's list of the bot's addresses. */
  addressesOf(searcher: Address): Address[] {
    return [...this.ownership.controlledBy(searcher, { senders: [], called: [] })]
  }

  /** An opportunity with its captor's money: its txs, its profit with the refunds it earned, and what the builder kept of its payment. */
  private capturedBy(
    base: CompetitionOpportunity,
    { searcher, captor, txs, account, controlled }: { searcher: Address; captor: Readonly<BundleTrace> | undefined; txs: readonly MinedTxFacts[]; account: ReturnType<typeof accountBackrun>; controlled: ReadonlySet<string> },
  ): CompetitionOpportunity {
    const refund = captor ? this.refundsTo(captor, controlled) : 0n
    const paidBackInBlock = captor ? paidBack(captor.builderPayments) : 0n
    return {
      ...base,
      searcher,
      name: this.deps.names.nameOf(searcher),
      bundleHash: captor?.bundle.hash ?? null,
      backrunTxs: txs.map((tx) => tx.hash),
      profitWei: (account.profit + refund).toString(),
      refundWei: refund.toString(),
      builderPaymentWei: (account.grossPayment - paidBackInBlock).toString(),
      grossPaymentWei: account.grossPayment.toString(),
      gasWei: account.gas.toString(),
    }
  }

  /** What a captor's refunds pay the searcher's addresses: its payouts in the block, and those owed after it. */
  private refundsTo(captor: Readonly<BundleTrace>, controlled: ReadonlySet<string>): bigint {
    const inBlock = refundPayouts(captor.builderPayments).map((r) => ({ recipient: r.recipient, amountWei: r.amountWei }))
    return [...inBlock, ...this.deps.refundsAfterBlock(captor.bundle.hash)]
      .filter((r) => controlled.has(r.recipient.toLowerCase()))
      .reduce((sum, r) => sum + r.amountWei, 0n)
  }
}


/** An opportunity as found, before any captor: who went for it and the margin between them. */
function uncaptured(o: { kind: CompetitionOpportunity['kind']; blockNumber: number; victim: Hash | null; pool: Address; position?: Address; gapWei: bigint; margin: bigint | null; contenders: CompetitionOpportunity['contenders'] }): CompetitionOpportunity {
  return {
    kind: o.kind,
    blockNumber: o.blockNumber,
    victim: o.victim,
    pool: o.pool,
    position: o.position ?? null,
    gapWei: o.gapWei.toString(),
    searcher: null,
    name: null,
    bundleHash: null,
    backrunTxs: [],
    frontrunTxs: [],
    userLossWei: null,
    profitWei: null,
    refundWei: null,
    builderPaymentWei: null,
    grossPaymentWei: null,
    gasWei: null,
    marginWei: o.margin === null ? null : o.margin.toString(),
    contenders: o.contenders,
  }
}
