import { createRequire } from 'node:module'
import type { Address, Hex } from 'viem'
import { loadArtifact, type Artifact } from '../world/artifacts.js'

const require = createRequire(import.meta.url)
const CORE = '@aave/core-v3/artifacts/contracts'

/** A Hardhat artifact's external libraries: for each, where its address goes in the creation code. */
type LinkReferences = Record<string, Record<string, Array<{ start: number; length: number }>>>

/** Aave V3's contracts as `@aave/core-v3` (1.19.3, Aave's own Hardhat build) ships them. */
const PATHS = {
  poolAddressesProvider: 'protocol/configuration/PoolAddressesProvider.sol/PoolAddressesProvider.json',
  aclManager: 'protocol/configuration/ACLManager.sol/ACLManager.json',
  pool: 'protocol/pool/Pool.sol/Pool.json',
  poolConfigurator: 'protocol/pool/PoolConfigurator.sol/PoolConfigurator.json',
  proxy: 'protocol/libraries/aave-upgradeability/InitializableImmutableAdminUpgradeabilityProxy.sol/InitializableImmutableAdminUpgradeabilityProxy.json',
  aaveOracle: 'misc/AaveOracle.sol/AaveOracle.json',
  dataProvider: 'misc/AaveProtocolDataProvider.sol/AaveProtocolDataProvider.json',
  aToken: 'protocol/tokenization/AToken.sol/AToken.json',
  variableDebtToken: 'protocol/tokenization/VariableDebtToken.sol/VariableDebtToken.json',
  stableDebtToken: 'protocol/tokenization/StableDebtToken.sol/StableDebtToken.json',
  rateStrategy: 'protocol/pool/DefaultReserveInterestRateStrategy.sol/DefaultReserveInterestRateStrategy.json',
  BorrowLogic: 'protocol/libraries/logic/BorrowLogic.sol/BorrowLogic.json',
  BridgeLogic: 'protocol/libraries/logic/BridgeLogic.sol/BridgeLogic.json',
  EModeLogic: 'protocol/libraries/logic/EModeLogic.sol/EModeLogic.json',
  LiquidationLogic: 'protocol/libraries/logic/LiquidationLogic.sol/LiquidationLogic.json',
  PoolLogic: 'protocol/libraries/logic/PoolLogic.sol/PoolLogic.json',
  SupplyLogic: 'protocol/libraries/logic/SupplyLogic.sol/SupplyLogic.json',
  FlashLoanLogic: 'protocol/libraries/logic/FlashLoanLogic.sol/FlashLoanLogic.json',
  ConfiguratorLogic: 'protocol/libraries/logic/ConfiguratorLogic.sol/ConfiguratorLogic.json',
} as const

export type AaveContract = keyof typeof PATHS

/** The libraries Aave's Pool and PoolConfigurator link, in an order where each comes after those it links (FlashLoanLogic links BorrowLogic). */
export const AAVE_LIBRARIES = ['BorrowLogic', 'BridgeLogic', 'EModeLogic', 'LiquidationLogic', 'PoolLogic', 'SupplyLogic', 'FlashLoanLogic', 'ConfiguratorLogic'] as const satisfies readonly AaveContract[]
export type AaveLibrary = (typeof AAVE_LIBRARIES)[number]

/**
 * An Aave contract's ABI and creation code, its libraries' placeholders replaced by their
 * addresses (a library it links and `libraries` lacks is refused, naming it).
 *
 * @example aaveArtifact('pool', { BorrowLogic: '0x…', … }).bytecode
 */
export function aaveArtifact(name: AaveContract, libraries: Partial<Record<AaveLibrary, Address>> = {}): Artifact {
  const path = `${CORE}/${PATHS[name]}`
  const artifact = loadArtifact(path)
  const references = (require(path) as { linkReferences?: LinkReferences }).linkReferences ?? {}
  let code = artifact.bytecode.slice(2)
  for (const byLibrary of Object.values(references)) {
    for (const [library, places] of Object.entries(byLibrary)) {
      const address = libraries[library as AaveLibrary]
      if (!address) throw new Error(`Aave's ${name} links ${library}: its address is needed`)
      for (const { start, length } of places) code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2)
    }
  }
  return { abi: artifact.abi, bytecode: `0x${code}` as Hex }
}
