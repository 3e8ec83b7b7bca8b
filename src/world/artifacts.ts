import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Abi, Hex } from 'viem'

/** A contract as its official npm package ships it: ABI and creation code. */
export interface Artifact {
  abi: Abi
  bytecode: Hex
}

const require = createRequire(import.meta.url)

/** Truffle, Waffle and Hardhat spell the creation code differently; each package keeps its own. */
export function loadArtifact(path: string): Artifact {
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
  weth9: () => loadArtifact('canonical-weth/build/contracts/WETH9.json'),
  /** OpenZeppelin 3.4's ERC20: `decimals` is a storage slot (5), so one artifact serves 6, 8 and 18 decimals. */
  erc20: () => loadArtifact('@openzeppelin/contracts/build/contracts/ERC20.json'),
  uniswapV2Factory: () => loadArtifact('@uniswap/v2-core/build/UniswapV2Factory.json'),
  uniswapV2Pair: () => loadArtifact('@uniswap/v2-core/build/UniswapV2Pair.json'),
  uniswapV2Router02: () => loadArtifact('@uniswap/v2-periphery/build/UniswapV2Router02.json'),
  uniswapV3Factory: () => loadArtifact('@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json'),
  uniswapV3Pool: () => loadArtifact('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'),
  swapRouter: () => loadArtifact('@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json'),
  quoterV2: () => loadArtifact('@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json'),
  nonfungiblePositionManager: () => loadArtifact('@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json'),
  sushiswapFactory: () => loadArtifact('@sushiswap/sushiswap/artifacts/contracts/UniswapV2Factory.sol/UniswapV2Factory.json'),
  sushiswapRouter: () => loadArtifact('@sushiswap/sushiswap/artifacts/contracts/UniswapV2Router02.sol/UniswapV2Router02.json'),
  /** Uniswap's published build (solc 0.8.26, via-IR, cancun); the Universal Router package carries another. */
  v4PoolManager: () => loadArtifact('@uniswap/v4-core/out/PoolManager.sol/PoolManager.json'),
  v4PositionManager: () => loadArtifact('@uniswap/v4-periphery/foundry-out/PositionManager.sol/PositionManager.json'),
  v4StateView: () => loadArtifact('@uniswap/v4-periphery/foundry-out/StateView.sol/StateView.json'),
  v4Quoter: () => loadArtifact('@uniswap/v4-periphery/foundry-out/V4Quoter.sol/V4Quoter.json'),
  /** 2.0.0 is the build at mainnet's 0x66a9…a8af (2.1.0 adds an Across field to its constructor). */
  universalRouter: () => loadArtifact('@uniswap/universal-router/out/UniversalRouter.sol/UniversalRouter.json'),
} as const

/**
 * Permit2's runtime code. No npm package ships its creation code: Uniswap's own tests etch
 * this runtime at 0x0000…22D3 (v4-periphery's `lib/permit2/test/utils/DeployPermit2.sol`),
 * and so does the world. Its constructor writes no storage.
 */
export function permit2RuntimeCode(): Hex {
  const source = readFileSync(require.resolve('@uniswap/v4-periphery/lib/permit2/test/utils/DeployPermit2.sol'), 'utf8')
  const hex = /hex"([0-9a-fA-F]+)"/.exec(source)?.[1]
  if (!hex) throw new Error('DeployPermit2.sol has no runtime code constant')
  return `0x${hex}`
}
