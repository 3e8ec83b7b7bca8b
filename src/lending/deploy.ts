import { encodeDeployData, encodeFunctionData, getContractAddress, keccak256, parseAbi, stringToHex, toBytes, type Address, type Hash, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { WorldToken } from '../world/pricing.js'
import { moveContract, type SetupSender, type SetupStep } from '../world/setupTxs.js'
import { MAINNET_FEEDS } from '../priceFeeds/feeds.js'
import { AAVE_LIBRARIES, aaveArtifact, type AaveContract, type AaveLibrary } from './artifacts.js'
import { AAVE_MARKET_ID, AAVE_V3, RESERVES } from './aave.js'

/** The lending market's admin: owner of the addresses provider, ACL admin, pool admin. Fixed, so the same setup gives the same chain. */
export const AAVE_ADMIN = privateKeyToAccount(keccak256(toBytes('bundlesim Aave V3 admin'))).address
const RAY = 10n ** 27n
const ZERO: Address = '0x0000000000000000000000000000000000000000'
const DEPLOY_GAS = 7_000_000n

const providerAbi = parseAbi([
  'function setACLAdmin(address newAclAdmin)',
  'function setACLManager(address newAclManager)',
  'function setPriceOracle(address newPriceOracle)',
  'function setPoolDataProvider(address newDataProvider)',
  'function setAddress(bytes32 id, address newAddress)',
])
const proxyAbi = parseAbi(['function initialize(address _logic, bytes _data) payable'])
const initializeAbi = parseAbi(['function initialize(address provider)'])
const aclAbi = parseAbi(['function addPoolAdmin(address admin)', 'function addRiskAdmin(address admin)', 'function addEmergencyAdmin(address admin)'])
const configuratorAbi = parseAbi([
  'struct InitReserveInput { address aTokenImpl; address stableDebtTokenImpl; address variableDebtTokenImpl; uint8 underlyingAssetDecimals; address interestRateStrategyAddress; address underlyingAsset; address treasury; address incentivesController; string aTokenName; string aTokenSymbol; string variableDebtTokenName; string variableDebtTokenSymbol; string stableDebtTokenName; string stableDebtTokenSymbol; bytes params; }',
  'function initReserves(InitReserveInput[] input)',
  'function configureReserveAsCollateral(address asset, uint256 ltv, uint256 liquidationThreshold, uint256 liquidationBonus)',
  'function setReserveBorrowing(address asset, bool enabled)',
  'function setReserveFactor(address asset, uint256 newReserveFactor)',
  'function setLiquidationProtocolFee(address asset, uint256 newFee)',
  'function setReserveFlashLoaning(address asset, bool enabled)',
])

/** A ray (1e27) from a decimal fraction (0.033 → 3.3 %). */
function ray(fraction: number): bigint {
  return (BigInt(Math.round(fraction * 1e9)) * RAY) / 10n ** 9n
}

/**
 * Deploys Aave V3 from its official artifacts (`@aave/core-v3`) at its mainnet addresses and
 * lists WETH, WBTC and USDC with mainnet's risk parameters, each priced by its Chainlink
 * feed's proxy (placed first: `placeFeeds`). As Aave's own deployment does it (aave-v3-deploy),
 * with two differences: each contract is built at a scratch address and moved (code and the
 * storage its constructor wrote) to its mainnet one, and the Pool's and the configurator's
 * proxies are built here, not by the addresses provider (whose CREATE addresses are not
 * mainnet's). The aTokens and debt tokens are proxies at new addresses: read them from
 * `getReserveData`.
 *
 * @example await deployAave(setup, world.tokens)
 */
export async function deployAave(setup: SetupSender, tokens: readonly WorldToken[]): Promise<void> {
  const { owner } = setup
  const tokenOf = (symbol: string) => {
    const token = tokens.find((t) => t.symbol === symbol)
    if (!token) throw new Error(`lending: Aave lists ${symbol}, which the world has not`)
    return token
  }
  // 1. Everything that needs no other contract placed: at scratch addresses, CREATE's of the owner's nonces.
  const first = setup.nonce
  const scratch = (i: number) => getContractAddress({ from: owner, nonce: BigInt(first + i) })
  const libraries = {} as Record<AaveLibrary, Address>
  const deploys: Array<{ name: AaveContract | 'proxy'; data: Hex; target?: Address }> = []
  const deploy = (name: AaveContract, args: readonly unknown[], target?: Address, links: Partial<Record<AaveLibrary, Address>> = {}) => {
    const artifact = aaveArtifact(name, links)
    deploys.push({ name, data: encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args }), target })
    return scratch(deploys.length - 1)
  }
  deploy('poolAddressesProvider', [AAVE_MARKET_ID, owner], AAVE_V3.poolAddressesProvider)
  for (const library of AAVE_LIBRARIES) libraries[library] = deploy(library, [], undefined, libraries)
  const poolImpl = deploy('pool', [AAVE_V3.poolAddressesProvider], undefined, libraries)
  const configuratorImpl = deploy('poolConfigurator', [], undefined, libraries)
  deploy('proxy', [AAVE_V3.poolAddressesProvider], AAVE_V3.pool)
  deploy('proxy', [AAVE_V3.poolAddressesProvider], AAVE_V3.poolConfigurator)
  deploy('dataProvider', [AAVE_V3.poolAddressesProvider], AAVE_V3.protocolDataProvider)
  const strategies = RESERVES.map((r) =>
    deploy('rateStrategy', [AAVE_V3.poolAddressesProvider, ray(r.rates.optimalUsage), 0n, ray(r.rates.slope1), ray(r.rates.slope2), 0n, 0n, 0n, 0n, ray(0.2)]),
  )
  const hashes = await setup.run(deploys.map((d) => ({ what: `deploying Aave's ${d.name}`, data: d.data, gas: DEPLOY_GAS })))
  const move = (i: number, target: Address) => moveTo(setup, scratch(i), target, hashes[i]!)
  for (const [i, d] of deploys.entries()) if (d.target) await move(i, d.target)

  // 2. The ACL manager reads its admin from the provider, now in place; the oracle its sources.
  // The ACL admin's tx first, then the two deploys: the next two nonces.
  const aclScratch = getContractAddress({ from: owner, nonce: BigInt(setup.nonce + 1) })
  const oracleScratch = getContractAddress({ from: owner, nonce: BigInt(setup.nonce + 2) })
  const acl = aaveArtifact('aclManager')
  const oracle = aaveArtifact('aaveOracle')
  const assets = RESERVES.map((r) => tokenOf(r.symbol).address)
  const sources = RESERVES.map((r) => MAINNET_FEEDS[r.feed].proxy)
  const second = await setup.run([
    { what: 'setting the ACL admin', to: AAVE_V3.poolAddressesProvider, gas: 200_000n, data: encodeFunctionData({ abi: providerAbi, functionName: 'setACLAdmin', args: [owner] }) },
    { what: "deploying Aave's ACLManager", gas: DEPLOY_GAS, data: encodeDeployData({ abi: acl.abi, bytecode: acl.bytecode, args: [AAVE_V3.poolAddressesProvider] }) },
    // Prices in USD with 8 decimals, as Aave V3 Ethereum's (base currency 0x0, unit 1e8).
    { what: "deploying Aave's AaveOracle", gas: DEPLOY_GAS, data: encodeDeployData({ abi: oracle.abi, bytecode: oracle.bytecode, args: [AAVE_V3.poolAddressesProvider, assets, sources, ZERO, ZERO, 10n ** 8n] }) },
  ])
  await moveTo(setup, aclScratch, AAVE_V3.aclManager, second[1]!)
  await moveTo(setup, oracleScratch, AAVE_V3.aaveOracle, second[2]!)

  // 3. The provider's records, the proxies' implementations, the admin's roles, then the reserves.
  const provider = (functionName: 'setACLManager' | 'setPriceOracle' | 'setPoolDataProvider', address: Address): SetupStep => ({ what: `the provider's ${functionName}`, to: AAVE_V3.poolAddressesProvider, gas: 200_000n, data: encodeFunctionData({ abi: providerAbi, functionName, args: [address] }) })
  const setAddress = (id: string, address: Address): SetupStep => ({ what: `the provider's ${id}`, to: AAVE_V3.poolAddressesProvider, gas: 200_000n, data: encodeFunctionData({ abi: providerAbi, functionName: 'setAddress', args: [stringToHex(id, { size: 32 }), address] }) })
  const initialize = (proxy: Address, implementation: Address, what: string): SetupStep => ({
    what: `initialising the ${what} proxy`,
    to: proxy,
    gas: 1_000_000n,
    data: encodeFunctionData({ abi: proxyAbi, functionName: 'initialize', args: [implementation, encodeFunctionData({ abi: initializeAbi, functionName: 'initialize', args: [AAVE_V3.poolAddressesProvider] })] }),
  })
  const configure = (functionName: string, args: readonly unknown[]): SetupStep => ({ what: `the configurator's ${functionName}`, to: AAVE_V3.poolConfigurator, gas: 500_000n, data: encodeFunctionData({ abi: configuratorAbi, functionName: functionName as 'setReserveBorrowing', args: args as [Address, boolean] }) })
  // The tokens' implementations read the provider from the Pool as they are built: after it.
  const tokenImplementations = (['aToken', 'variableDebtToken', 'stableDebtToken'] as const).map((name) => ({ name, artifact: aaveArtifact(name) }))
  const configuration: SetupStep[] = [
    provider('setACLManager', AAVE_V3.aclManager),
    provider('setPriceOracle', AAVE_V3.aaveOracle),
    provider('setPoolDataProvider', AAVE_V3.protocolDataProvider),
    setAddress('POOL', AAVE_V3.pool),
    setAddress('POOL_CONFIGURATOR', AAVE_V3.poolConfigurator),
    // From the admin, not the provider: the proxy's admin may not call through it.
    initialize(AAVE_V3.pool, poolImpl, 'Pool'),
    initialize(AAVE_V3.poolConfigurator, configuratorImpl, 'PoolConfigurator'),
    ...(['addPoolAdmin', 'addRiskAdmin', 'addEmergencyAdmin'] as const).map((functionName) => ({ what: `the ACL's ${functionName}`, to: AAVE_V3.aclManager, gas: 200_000n, data: encodeFunctionData({ abi: aclAbi, functionName, args: [owner] }) })),
  ]
  const firstToken = setup.nonce + configuration.length
  const [aTokenImpl, variableDebtImpl, stableDebtImpl] = tokenImplementations.map((_, i) => getContractAddress({ from: owner, nonce: BigInt(firstToken + i) })) as [Address, Address, Address]
  await setup.run([...configuration, ...tokenImplementations.map(({ name, artifact }) => ({ what: `deploying Aave's ${name}`, gas: DEPLOY_GAS, data: encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: [AAVE_V3.pool] }) }))])
  await setup.run([
    {
      what: 'listing the reserves',
      to: AAVE_V3.poolConfigurator,
      gas: 15_000_000n,
      data: encodeFunctionData({
        abi: configuratorAbi,
        functionName: 'initReserves',
        args: [
          RESERVES.map((r, i) => {
            const token = tokenOf(r.symbol)
            return {
              aTokenImpl,
              stableDebtTokenImpl: stableDebtImpl,
              variableDebtTokenImpl: variableDebtImpl,
              underlyingAssetDecimals: token.decimals,
              interestRateStrategyAddress: strategies[i]!,
              underlyingAsset: token.address,
              treasury: AAVE_V3.collector,
              incentivesController: ZERO,
              aTokenName: `Aave Ethereum ${r.symbol}`,
              aTokenSymbol: `aEth${r.symbol}`,
              variableDebtTokenName: `Aave Ethereum Variable Debt ${r.symbol}`,
              variableDebtTokenSymbol: `variableDebtEth${r.symbol}`,
              stableDebtTokenName: `Aave Ethereum Stable Debt ${r.symbol}`,
              stableDebtTokenSymbol: `stableDebtEth${r.symbol}`,
              params: '0x10' as Hex,
            }
          }),
        ],
      }),
    },
  ])
  await setup.run(
    RESERVES.flatMap((r) => {
      const asset = tokenOf(r.symbol).address
      return [
        configure('configureReserveAsCollateral', [asset, BigInt(r.ltv), BigInt(r.liquidationThreshold), BigInt(r.liquidationBonus)]),
        configure('setReserveBorrowing', [asset, true]),
        configure('setReserveFactor', [asset, BigInt(r.reserveFactor)]),
        configure('setLiquidationProtocolFee', [asset, BigInt(r.liquidationProtocolFee)]),
        configure('setReserveFlashLoaning', [asset, true]),
      ]
    }),
  )
}

/** A contract built at `scratch` moved to its mainnet address, with what its constructor stored. */
function moveTo(setup: SetupSender, scratch: Address, target: Address, deployTx: Hash): Promise<void> {
  return setup.publicClient.getCode({ address: scratch }).then((code) => moveContract(setup.test, setup.node, { code: code!, scratch, target, deployTx }))
}
