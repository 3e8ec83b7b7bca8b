import { decodeEventLog, parseAbi, type Address, type Hash } from 'viem'
import { normalizeAddress } from '../protocol/normalize.js'
import type { BlockFacts, MinedTxFacts } from './classify.js'

/** Aave V3's event (IPool), as its Pool emits it for every liquidation. */
const liquidationCallAbi = parseAbi(['event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)'])

/** A liquidation in a mined block: the position, what was repaid and seized, the tx, and the oracle round it followed. */
export interface FoundLiquidation {
  blockNumber: number
  /** The borrower whose position was liquidated. */
  borrower: Address
  collateral: Address
  debt: Address
  debtCovered: bigint
  collateralSeized: bigint
  /** The liquidator's tx (its sender is the captor's, by the ownership rule). */
  tx: MinedTxFacts
  /** The latest oracle round (a `transmit` to a feed's aggregator) before it in the block; null when it followed none there. */
  update: Hash | null
}

/**
 * Every `LiquidationCall` the block's txs emitted from the lending Pool, in block order, each
 * with the last oracle round before it in the block (the update a liquidator backruns).
 *
 * @example findLiquidations(block, { pool: AAVE_V3.pool, aggregators: new Set(feeds.map((f) => f.aggregator.toLowerCase())) })
 */
export function findLiquidations(block: BlockFacts, options: { pool: Address; aggregators: ReadonlySet<string> }): FoundLiquidation[] {
  const pool = normalizeAddress(options.pool)
  const found: FoundLiquidation[] = []
  let update: Hash | null = null
  for (const tx of block.txs) {
    if (tx.to && options.aggregators.has(tx.to.toLowerCase())) update = tx.hash
    for (const log of tx.logs) {
      if (normalizeAddress(log.address) !== pool) continue
      let event
      try {
        event = decodeEventLog({ abi: liquidationCallAbi, topics: log.topics as [`0x${string}`, ...`0x${string}`[]], data: log.data })
      } catch {
        continue
      }
      const { collateralAsset, debtAsset, user, debtToCover, liquidatedCollateralAmount } = event.args
      found.push({ blockNumber: block.number, borrower: normalizeAddress(user), collateral: normalizeAddress(collateralAsset), debt: normalizeAddress(debtAsset), debtCovered: debtToCover, collateralSeized: liquidatedCollateralAmount, tx, update })
    }
  }
  return found
}

/**
 * A token amount's worth in wei of ETH at the lending oracle's prices (USD, 8 decimals, as
 * Aave's oracle answers `getAssetPrice`): amount × its price ÷ WETH's, scaled by the decimals.
 * WETH is worth itself, to the wei.
 *
 * @example valueAtOracle(5_000_000000n, { decimals: 6, priceUsd8: 100000000n }, 300000000000n) // 1666666666666666666n (5,000 USDC at $3,000 ETH)
 */
export function valueAtOracle(amount: bigint, token: { decimals: number; priceUsd8: bigint }, wethPriceUsd8: bigint): bigint {
  return (amount * token.priceUsd8 * 10n ** 18n) / (10n ** BigInt(token.decimals) * wethPriceUsd8)
}
