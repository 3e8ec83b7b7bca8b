import type { Address, Hex } from 'viem'

/**
 * Mainnet's addresses and constants that the DEX world reproduces: a bot written against
 * mainnet (router, factory, WETH, USDC hardcoded) runs unchanged on `--world dex`.
 * Checksummed as Etherscan shows them; compare with `isAddressEqual`.
 */
export const MAINNET = {
  weth: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  uniswapV2Factory: '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f',
  uniswapV2Router02: '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D',
  uniswapV3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
  swapRouter: '0xE592427A0AEce92De3Edee1F18E0157C05861564',
  quoterV2: '0x61fFE014bA17989E743c5F6cB21bF9697530B21e',
  nonfungiblePositionManager: '0xC36442b4a4522E871399CD717aBDD847Ab11FE88',
  // SushiSwap's V2 fork (@sushiswap/sushiswap's exports/exports.json, chain 1).
  sushiswapFactory: '0xC0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac',
  sushiswapRouter: '0xd9e1cE17f2641f24aE83637ab66a2cca9C378B9F',
  // Uniswap V4 and the Universal Router (docs.uniswap.org/contracts/v4/deployments, Ethereum).
  permit2: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
  v4PoolManager: '0x000000000004444c5dc75cB358380D2e3dE08A90',
  v4PositionManager: '0xbD216513d74C8cf14cf4747E6AaA6420FF64ee9e',
  v4StateView: '0x7fFE42C4a5DEeA5b0feC41C94C136Cf115597227',
  v4Quoter: '0x52F0E24D1c21C8A0cB1e5a5dD6198556BD9E1203',
  universalRouter: '0x66a9893cC07D91D95644AEDD05D03f95e1dBA8Af',
} as const satisfies Record<string, Address>

/** The ERC-20s of the world, at their mainnet addresses with their mainnet decimals. */
export const MAINNET_TOKENS = {
  WETH: { address: MAINNET.weth, decimals: 18 },
  USDC: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
  USDT: { address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
  DAI: { address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', decimals: 18 },
  WBTC: { address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', decimals: 8 },
} as const satisfies Record<string, { address: Address; decimals: number }>

export type TokenSymbol = keyof typeof MAINNET_TOKENS

/** keccak256 of UniswapV2Pair's creation code: a pair's CREATE2 address from its factory. */
export const UNISWAP_V2_PAIR_INIT_CODE_HASH: Hex = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'
/** keccak256 of UniswapV3Pool's creation code: a pool's CREATE2 address from its factory. */
export const UNISWAP_V3_POOL_INIT_CODE_HASH: Hex = '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54'

/** keccak256 of SushiSwap's pair creation code on mainnet (its UniswapV2Library's `pairFor`). */
export const SUSHISWAP_PAIR_INIT_CODE_HASH: Hex = '0xe18a34eb0e04b04f7a0ac29a6e80748dca96319b42c54d679cb821dca90c6303'

/** V3 fee tiers the world seeds (hundredths of a basis point, as the factory takes them). */
export const V3_FEE_TIERS = [500, 3000] as const
