import type { Address } from 'viem'

/**
 * Aave V3's Ethereum market at its mainnet addresses (Aave's address book,
 * github.com/bgd-labs/aave-address-book, `AaveV3Ethereum`).
 */
export const AAVE_V3 = {
  poolAddressesProvider: '0x2f39d218133AFaB8F2B819B1066c7E434Ad94E9e',
  pool: '0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2',
  poolConfigurator: '0x64b761D848206f447Fe2dd461b0c635Ec39EbB27',
  aaveOracle: '0x54586bE62E3c3580375aE3723C145253060Ca0C2',
  aclManager: '0xc2aaCf6553D20d1e9d78E365AAba8032af9c85b0',
  protocolDataProvider: '0x0a16f2FCC0D44FaE41cc54e079281D84A363bECD',
  /** The Collector: where reserve factors and the liquidation protocol fee go. */
  collector: '0x464C71f6c2F760DdA6093dCB91C24c39e5d6e18c',
} as const satisfies Record<string, Address>

export const AAVE_MARKET_ID = 'Aave Ethereum Market'

/** A reserve's risk parameters, in basis points as the PoolConfigurator takes them. */
export interface ReserveParameters {
  symbol: 'WETH' | 'WBTC' | 'USDC'
  /** The Chainlink feed Aave's oracle reads for it. */
  feed: 'ETH/USD' | 'BTC/USD' | 'USDC/USD'
  ltv: number
  liquidationThreshold: number
  /** 10500 = a 5 % bonus to the liquidator. */
  liquidationBonus: number
  reserveFactor: number
  /** The share of the bonus the protocol keeps (the Collector's). */
  liquidationProtocolFee: number
  /** The interest rate strategy: optimal usage, and the variable rate's slopes (ray fractions as decimals). */
  rates: { optimalUsage: number; slope1: number; slope2: number }
}

/**
 * The three reserves bundlesim lists, with the risk parameters of Aave V3 Ethereum's
 * configuration as governance set them in October 2023: WETH
 * 80.5 % LTV / 83 % threshold / 5 % bonus, WBTC 73 / 78 / 5 %, USDC 77 / 80 / 4.5 %; a liquidation
 * protocol fee of 10 % (WETH, WBTC) and 20 % (USDC). Source: Aave's governance snapshot of the
 * reserves, bgd-labs/aave-proposals-v3 `reports/AaveV3Ethereum_UpgradeAaveV3ETHPooolWETHParameters_20231031_after.json`
 * (USDC's LTV and threshold were lowered to 75 / 78 % in 2024). Interest rates matter little over a run's minutes.
 */
export const RESERVES: readonly ReserveParameters[] = [
  { symbol: 'WETH', feed: 'ETH/USD', ltv: 8050, liquidationThreshold: 8300, liquidationBonus: 10500, reserveFactor: 1500, liquidationProtocolFee: 1000, rates: { optimalUsage: 0.8, slope1: 0.033, slope2: 0.8 } },
  { symbol: 'WBTC', feed: 'BTC/USD', ltv: 7300, liquidationThreshold: 7800, liquidationBonus: 10500, reserveFactor: 2000, liquidationProtocolFee: 1000, rates: { optimalUsage: 0.45, slope1: 0.04, slope2: 3 } },
  { symbol: 'USDC', feed: 'USDC/USD', ltv: 7700, liquidationThreshold: 8000, liquidationBonus: 10450, reserveFactor: 1000, liquidationProtocolFee: 2000, rates: { optimalUsage: 0.9, slope1: 0.035, slope2: 0.6 } },
]
