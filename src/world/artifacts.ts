import { createRequire } from 'node:module'
import type { Abi, Hex } from 'viem'

/** A contract as its official npm package ships it: ABI and creation code. */
export interface Artifact {
  abi: Abi
  bytecode: Hex
}

const require = createRequire(import.meta.url)

/** Truffle, Waffle and Hardhat spell the creation code differently; each package keeps its own. */
function load(path: string): Artifact {
  const json = require(path) as { abi: Abi; bytecode?: string | { object: string }; evm?: { bytecode: { object: string } } }
  const raw = typeof json.bytecode === 'string' ? json.bytecode : (json.bytecode?.object ?? json.evm?.bytecode.object ?? '')
  if (raw.length === 0) throw new Error(`${path} has no creation code`)
  return { abi: json.abi, bytecode: (raw.startsWith('0x') ? raw : `0x${raw}`) as Hex }
}

/**
 * The world's contracts, from the official npm artifacts (read on first use, so a harness
 * without a world never loads them).
 */
export const ARTIFACTS = {
  weth9: () => load('canonical-weth/build/contracts/WETH9.json'),
  /** OpenZeppelin 3.4's ERC20: `decimals` is a storage slot (5), so one artifact serves 6, 8 and 18 decimals. */
  erc20: () => load('@openzeppelin/contracts/build/contracts/ERC20.json'),
  uniswapV2Factory: () => load('@uniswap/v2-core/build/UniswapV2Factory.json'),
  uniswapV2Pair: () => load('@uniswap/v2-core/build/UniswapV2Pair.json'),
  uniswapV2Router02: () => load('@uniswap/v2-periphery/build/UniswapV2Router02.json'),
  uniswapV3Factory: () => load('@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json'),
  uniswapV3Pool: () => load('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'),
  swapRouter: () => load('@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json'),
  quoterV2: () => load('@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json'),
  nonfungiblePositionManager: () => load('@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json'),
} as const
