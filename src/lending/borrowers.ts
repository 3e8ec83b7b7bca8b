import { encodeFunctionData, keccak256, parseAbi, toBytes, type Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { WorldToken } from '../world/pricing.js'
import type { SetupStep } from '../world/setupTxs.js'
import { AAVE_V3, RESERVES, type ReserveParameters } from './aave.js'
import { POSITION_KINDS, type BorrowersSpec } from './spec.js'

/** The draws a plan needs (the flow's `SeededRandom`). */
export interface Draws {
  next(): number
  logNormal(median: number, sigma: number): number
}

/** One borrower's position as the setup opens it. */
export interface PlannedPosition {
  borrower: Address
  collateral: WorldToken
  debt: WorldToken
  /** Supplied first: enough for the borrow at the reserve's LTV. */
  supplied: bigint
  borrowed: bigint
  /** What is left supplied once the rest is withdrawn: the health factor asked for. */
  kept: bigint
  healthFactor: number
}

/** USD prices of the world tokens the reserves hold, as the feeds answer at the start. */
export type UsdPrices = Readonly<Record<ReserveParameters['symbol'], number>>

const poolAbi = parseAbi([
  'function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)',
  'function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)',
  'function withdraw(address asset, uint256 amount, address to) returns (uint256)',
])
const erc20Abi = parseAbi(['function approve(address spender, uint256 amount) returns (bool)'])
const VARIABLE_RATE = 2n
const MAX_UINT256 = 2n ** 256n - 1n

/** The i-th borrower's address (its key derived from the seed; it never signs: the setup sends for it). */
export function borrowerAddress(seed: number, i: number): Address {
  return privateKeyToAccount(keccak256(toBytes(`bundlesim borrower ${seed} ${i}`))).address
}

/**
 * The borrowers' positions: each a kind drawn by weight, a collateral worth drawn in ETH, and
 * a health factor drawn uniformly in the flow's range. The debt is what gives that health
 * factor at the start's prices (Aave's: collateral × price × liquidation threshold ÷ debt ×
 * price); the supply first is what lets the borrow pass the LTV check, the surplus withdrawn
 * after (a withdrawal checks the health factor only).
 *
 * @example planPositions(spec, new SeededRandom(1), tokens, { WETH: 3000, WBTC: 60000, USDC: 1 }, 1)[0].healthFactor // 1.04…
 */
export function planPositions(spec: BorrowersSpec, draws: Draws, tokens: readonly WorldToken[], usd: UsdPrices, seed: number): PlannedPosition[] {
  const kinds = POSITION_KINDS.filter((k) => (spec.positions[k] ?? 0) > 0)
  const weights = kinds.map((k) => spec.positions[k]!)
  const total = weights.reduce((a, b) => a + b, 0)
  const token = (symbol: string) => tokens.find((t) => t.symbol === symbol)!
  return Array.from({ length: spec.count }, (_, i) => {
    let point = draws.next() * total
    const kind = kinds.find((_, k) => (point -= weights[k]!) < 0) ?? kinds[kinds.length - 1]!
    const [collateralSymbol, debtSymbol] = kind.split('/') as [ReserveParameters['symbol'], ReserveParameters['symbol']]
    const reserve = RESERVES.find((r) => r.symbol === collateralSymbol)!
    const sizeEth = Math.min(draws.logNormal(spec.sizeEth.median, spec.sizeEth.sigma), spec.sizeEth.max ?? Infinity)
    const healthFactor = spec.healthFactor.min + draws.next() * (spec.healthFactor.max - spec.healthFactor.min)
    const collateral = token(collateralSymbol)
    const debt = token(debtSymbol)
    const keptUsd = sizeEth * usd.WETH
    const kept = units(keptUsd / usd[collateralSymbol], collateral.decimals)
    const borrowedUsd = (keptUsd * reserve.liquidationThreshold) / 10_000 / healthFactor
    const borrowed = units(borrowedUsd / usd[debtSymbol], debt.decimals)
    // The borrow must pass the LTV on what is supplied then: 1 % over it.
    const suppliedUsd = Math.max(keptUsd, ((borrowedUsd * 10_000) / reserve.ltv) * 1.01)
    const supplied = units(suppliedUsd / usd[collateralSymbol], collateral.decimals)
    return { borrower: borrowerAddress(seed, i), collateral, debt, supplied, borrowed, kept, healthFactor }
  })
}

/** An amount in a token's smallest units (to 10^-6 of a token, then exact). */
export function units(amount: number, decimals: number): bigint {
  const scaled = amount * 10 ** Math.min(decimals, 6)
  return BigInt(Math.round(scaled)) * 10n ** BigInt(decimals - Math.min(decimals, 6))
}

/** A position's setup txs, sent for its borrower: approve, supply, borrow, withdraw the surplus. */
export function positionSteps(p: PlannedPosition): SetupStep[] {
  const from = p.borrower
  const steps: SetupStep[] = [
    { what: `borrower ${from}: approving ${p.collateral.symbol}`, from, to: p.collateral.address, gas: 100_000n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [AAVE_V3.pool, MAX_UINT256] }) },
    { what: `borrower ${from}: supplying ${p.collateral.symbol}`, from, to: AAVE_V3.pool, gas: 400_000n, data: encodeFunctionData({ abi: poolAbi, functionName: 'supply', args: [p.collateral.address, p.supplied, from, 0] }) },
    { what: `borrower ${from}: borrowing ${p.debt.symbol}`, from, to: AAVE_V3.pool, gas: 600_000n, data: encodeFunctionData({ abi: poolAbi, functionName: 'borrow', args: [p.debt.address, p.borrowed, VARIABLE_RATE, 0, from] }) },
  ]
  if (p.supplied > p.kept) steps.push({ what: `borrower ${from}: withdrawing ${p.collateral.symbol}`, from, to: AAVE_V3.pool, gas: 600_000n, data: encodeFunctionData({ abi: poolAbi, functionName: 'withdraw', args: [p.collateral.address, p.supplied - p.kept, from] }) })
  return steps
}

/** A lender's supply of `amount` of `token` (liquidity for the borrowers' debts). */
export function supplySteps(from: Address, token: WorldToken, amount: bigint): SetupStep[] {
  return [
    { what: `the lender: approving ${token.symbol}`, from, to: token.address, gas: 100_000n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [AAVE_V3.pool, MAX_UINT256] }) },
    { what: `the lender: supplying ${token.symbol}`, from, to: AAVE_V3.pool, gas: 400_000n, data: encodeFunctionData({ abi: poolAbi, functionName: 'supply', args: [token.address, amount, from, 0] }) },
  ]
}
