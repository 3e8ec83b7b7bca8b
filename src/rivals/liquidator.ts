import { encodeFunctionData, maxUint256, parseAbi, parseEther, parseTransaction, parseUnits, toHex, type Address, type Hash, type PublicClient } from 'viem'
import type { BundlesimClient } from '../protocol/client.js'
import type { WorldOnChain } from '../world/deploy.js'
import type { LiquidatorSpec } from '../flow/flowFile.js'
import type { MarketCheats } from '../flow/users.js'
import { drawShare } from '../flow/random.js'
import { decodeTransmit } from '../priceFeeds/report.js'
import type { FeedDefinition } from '../priceFeeds/feeds.js'
import { AAVE_V3, RESERVES } from '../lending/aave.js'
import type { LendingOnChain } from '../lending/setUp.js'
import { rivalExecutorAbi } from './executorArtifact.js'
import { EmulatedSearcher, type Sighting } from './rival.js'

/** A liquidationCall's gas (Aave V3 measures ~250–350k), and the tx's own around them. */
export const LIQUIDATION_GAS = 350_000n
const TX_GAS_BASE = 60_000n
/** Aave V3's health factor of 1, and the line under which the whole debt may be repaid at once (DEFAULT_LIQUIDATION_CLOSE_FACTOR applies above it). */
const ONE = 10n ** 18n
const CLOSE_FACTOR_HF_THRESHOLD = 95n * 10n ** 16n

const poolAbi = parseAbi([
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
  'function liquidationCall(address collateralAsset, address debtAsset, address user, uint256 debtToCover, bool receiveAToken)',
])
const feedAbi = parseAbi(['function latestAnswer() view returns (int256)'])

/** A position the round puts under water, and what liquidating it is expected to earn. */
export interface Liquidatable {
  borrower: Address
  collateral: Address
  debt: Address
  /** What the liquidator expects to keep of the bonus (wei of ETH at the round's prices). */
  profitWei: bigint
}

/**
 * An emulated liquidator (docs/lending.md): it watches the public mempool for the oracles'
 * `transmit` txs, decodes the round's new answer before it lands, and computes each borrower's
 * health factor at it (Aave's own, from `getUserAccountData`, scaled by the price's move). For
 * each position it puts under 1 it sends one tx of its executor calling `liquidationCall` — the
 * debt repaid out of its inventory, the most Aave lets it (`type(uint256).max`: half the debt,
 * or all of it under a health factor of 0.95), the collateral kept — that pays the builder its
 * drawn share (one draw a round) of the bonus it expects by a coinbase transfer. The bundle is
 * `[the round's tx, its liquidations…]`: it lands only right behind the round.
 */
export class Liquidator extends EmulatedSearcher<LiquidatorSpec> {
  constructor(spec: LiquidatorSpec, seed: number, world: WorldOnChain, client: BundlesimClient, reader: PublicClient, chainId: number, private readonly lending: LendingOnChain) {
    super(spec, seed, world, client, reader, chainId)
  }

  /** Its executor and operators, inventory of every reserve's token to repay debts with, and the Pool approved for each. */
  async fund(cheats: MarketCheats): Promise<void> {
    await this.accounts.fund(cheats, this.world)
    const tokens = RESERVES.map((r) => this.world.tokens.find((t) => t.symbol === r.symbol)!)
    const inventory: Record<string, string> = { WETH: '10000', WBTC: '500', USDC: '30000000' }
    await cheats.setTokenState({
      balances: tokens.filter((t) => t.symbol !== 'WETH').map((t) => ({ token: t.address, holder: this.accounts.executor, amount: parseUnits(inventory[t.symbol] ?? '0', t.decimals) })),
      allowances: tokens.map((t) => ({ token: t.address, owner: this.accounts.executor, spender: AAVE_V3.pool, amount: maxUint256 })),
    })
  }

  /** The feed a public tx reports a round of, and its new answer; null for any other tx. */
  roundOf(sighting: Sighting): { feed: FeedDefinition; answer: bigint } | null {
    if (sighting.kind !== 'public') return null
    const tx = parseTransaction(sighting.raw)
    const feed = tx.to && this.lending.feeds.find((f) => f.aggregator.toLowerCase() === tx.to!.toLowerCase())
    const report = feed && tx.data ? decodeTransmit(tx.data) : null
    return feed && report ? { feed, answer: report.answer } : null
  }

  /** Reacts to one sighting: an oracle round that makes positions liquidatable gets its backrun. Returns the bundle hash sent, or null. */
  async react(sighting: Sighting): Promise<Hash | null> {
    const round = this.roundOf(sighting)
    if (!round || sighting.kind !== 'public') return null
    const head = await this.reader.getBlock()
    const found = await this.liquidatable(round, head.number)
    if (found.length === 0) return null
    const baseFee = head.baseFeePerGas ?? 0n
    const share = BigInt(Math.round(drawShare(this.accounts.random, this.spec.bidShare) * 1e6))
    // One tx a position, each paying its share of that position's bonus: what each earned is its own tx's.
    const paid = found.map((l) => ({ ...l, payment: (l.profitWei * share) / 1_000_000n })).filter((l) => l.profitWei - l.payment - baseFee * (TX_GAS_BASE + LIQUIDATION_GAS) >= parseEther(String(this.spec.minProfitEth)))
    if (paid.length === 0) return null
    const operator = this.accounts.takeOperator()
    if (!operator) return null
    const nonce = await this.reader.getTransactionCount({ address: operator.address, blockNumber: head.number })
    const txs = await Promise.all(
      paid.map((l, i) =>
        operator.signTransaction({
          type: 'eip1559',
          chainId: this.chainId,
          nonce: nonce + i,
          to: this.accounts.executor,
          data: encodeFunctionData({ abi: rivalExecutorAbi, functionName: 'rebalance', args: [[AAVE_V3.pool], [encodeFunctionData({ abi: poolAbi, functionName: 'liquidationCall', args: [l.collateral, l.debt, l.borrower, maxUint256, false] })], l.payment] }),
          gas: ((TX_GAS_BASE + LIQUIDATION_GAS) * 3n) / 2n,
          maxPriorityFeePerGas: 0n,
          maxFeePerGas: baseFee * 2n,
        }),
      ),
    )
    const builders = this.spec.builders && { builders: this.spec.builders }
    const result = await this.client.signedRequest('eth_sendBundle', [{ txs: [sighting.raw, ...txs], blockNumber: toHex(head.number + 1n), ...builders }], this.accounts.identity)
    return result?.bundleHash ?? null
  }

  /**
   * The borrowers the round puts under a health factor of 1: Aave's health factor now, times
   * the collateral's price move, divided by the debt's; and each one's expected profit — the
   * debt it may repay (the close factor's share) times the collateral's bonus, less the
   * protocol's fee on the bonus, in ETH at the round's prices.
   */
  async liquidatable(round: { feed: FeedDefinition; answer: bigint }, blockNumber: bigint): Promise<Liquidatable[]> {
    const feedOf = (symbol: string) => this.lending.feeds.find((f) => f.name === RESERVES.find((r) => r.symbol === symbol)!.feed)!
    const touched = this.lending.positions.filter((p) => feedOf(p.collateral.symbol).name === round.feed.name || feedOf(p.debt.symbol).name === round.feed.name)
    if (touched.length === 0) return []
    const ethFeed = this.lending.feeds.find((f) => f.name === 'ETH/USD')!
    const [previous, ethNow, ...accounts] = await Promise.all([
      this.reader.readContract({ address: round.feed.proxy, abi: feedAbi, functionName: 'latestAnswer', blockNumber }),
      this.reader.readContract({ address: ethFeed.proxy, abi: feedAbi, functionName: 'latestAnswer', blockNumber }),
      ...touched.map((p) => this.reader.readContract({ address: AAVE_V3.pool, abi: poolAbi, functionName: 'getUserAccountData', args: [p.borrower], blockNumber })),
    ])
    if (previous <= 0n) return []
    const ethUsd = round.feed.name === 'ETH/USD' ? round.answer : ethNow
    const found: Liquidatable[] = []
    touched.forEach((p, i) => {
      const [, debtBase, , , , healthFactor] = accounts[i]!
      if (debtBase === 0n) return
      const collateralMoves = feedOf(p.collateral.symbol).name === round.feed.name
      const debtMoves = feedOf(p.debt.symbol).name === round.feed.name
      let health = healthFactor
      if (collateralMoves) health = (health * round.answer) / previous
      if (debtMoves) health = (health * previous) / round.answer
      if (health >= ONE) return
      const debtAfter = debtMoves ? (debtBase * round.answer) / previous : debtBase
      const repaid = health > CLOSE_FACTOR_HF_THRESHOLD ? debtAfter / 2n : debtAfter
      const reserve = RESERVES.find((r) => r.symbol === p.collateral.symbol)!
      const bonusBase = (repaid * BigInt(reserve.liquidationBonus - 10_000)) / 10_000n
      const keptBase = bonusBase - (bonusBase * BigInt(reserve.liquidationProtocolFee)) / 10_000n
      found.push({ borrower: p.borrower, collateral: p.collateral.address, debt: p.debt.address, profitWei: (keptBase * ONE) / ethUsd })
    })
    return found
  }
}
