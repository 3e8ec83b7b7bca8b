import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { encodeDeployData, encodeFunctionData, getContractAddress, parseEther, parseGwei, type Abi, type Address, type Hex } from 'viem'
import { launchAnvil, type LaunchedAnvil } from '../../src/chain/launchAnvil.js'
import { resolveContracts } from '../../src/scenario/contracts.js'
import { DEV_KEYS, accountOf, addressOf, call, signTx } from './harness.js'

/*
 * A stand-in "mainnet" for fork tests (there is no internet here): a local Anvil with chain
 * id 1, a 20 gwei genesis base fee and fixed timestamps, where the toy AMM of
 * scenarios/contracts/Backrun.sol lives at a fixed address and has seen some swaps, one of
 * them by an impersonated "whale". Blocks after FORK_BLOCK hold more swaps that a fork
 * pinned at FORK_BLOCK must not see. Deterministic: the same blocks every run.
 */

export const MAINNET_CHAIN_ID = 1
export const GENESIS_TIMESTAMP = 1_710_000_000
export const SLOT = 12
/** The block fork tests pin (scenarios/fork/*.yaml say it too). */
export const FORK_BLOCK = 3
/** A "real" address with tokens in the pool, used impersonated (it has no key here either). */
export const WHALE: Address = '0xbe0eb53f46cd790cd13851d5eff43d12404d33e8'
export const POOL: Address = getContractAddress({ from: addressOf(DEV_KEYS[0]), nonce: 0n }).toLowerCase() as Address

const CONTRACTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scenarios/contracts')

export interface Mainnet {
  url: string
  anvil: LaunchedAnvil
  poolAbi: Abi
  stop(): Promise<void>
}

export async function startMainnet(): Promise<Mainnet> {
  const { code, issues } = await resolveContracts({ pool: { from: 'x', sourceFile: 'Backrun.sol', contract: 'Pool' } }, CONTRACTS_DIR)
  if (issues.length > 0) throw new Error(issues.map((i) => i.message).join('\n'))
  const pool = code.get('pool')!
  const anvil = await launchAnvil({ host: '127.0.0.1', port: 0, chainId: MAINNET_CHAIN_ID, timestamp: GENESIS_TIMESTAMP, baseFee: parseGwei('20') })
  const url = anvil.url
  let block = 0
  const mine = () => call(url, 'evm_mine', [{ timestamp: GENESIS_TIMESTAMP + SLOT * ++block }])
  const fees = { chainId: MAINNET_CHAIN_ID, maxFeePerGas: parseGwei('100'), gas: 500_000n }
  const send = (raw: Hex) => call(url, 'eth_sendRawTransaction', [raw])
  const swap = (fn: 'buyTokens' | 'sellTokens', args: bigint[]) => encodeFunctionData({ abi: pool.abi, functionName: fn, args })
  const whaleSends = async (data: Hex, value: bigint) => {
    await call(url, 'anvil_impersonateAccount', [WHALE])
    await call(url, 'eth_sendTransaction', [{ from: WHALE, to: POOL, data, value: `0x${value.toString(16)}`, gas: '0x7a120', maxFeePerGas: `0x${parseGwei('100').toString(16)}` }])
    await call(url, 'anvil_stopImpersonatingAccount', [WHALE])
  }
  // Block 1: the pool, 10 ETH against 10,000 tokens.
  const deploy = encodeDeployData({ abi: pool.abi, bytecode: pool.bytecode, args: [parseEther('10000')] })
  await send(await accountOf(DEV_KEYS[0]).signTransaction({ type: 'eip1559', chainId: MAINNET_CHAIN_ID, nonce: 0, data: deploy, value: parseEther('10'), gas: 1_000_000n, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: parseGwei('2') }))
  await mine()
  // Block 2: the whale and dev account 1 buy.
  await call(url, 'anvil_setBalance', [WHALE, `0x${parseEther('100').toString(16)}`])
  await whaleSends(swap('buyTokens', [0n]), parseEther('2'))
  await send(await signTx({ ...fees, key: DEV_KEYS[1], nonce: 0, to: POOL, value: parseEther('1'), data: swap('buyTokens', [0n]) }))
  await mine()
  // Block 3 (FORK_BLOCK): dev account 1 sells some back.
  await send(await signTx({ ...fees, key: DEV_KEYS[1], nonce: 1, to: POOL, value: 0n, data: swap('sellTokens', [parseEther('100'), 0n]) }))
  await mine()
  // Blocks 4 and 5: after the pinned block, invisible to the fork.
  await send(await signTx({ ...fees, key: DEV_KEYS[2], nonce: 0, to: POOL, value: parseEther('3'), data: swap('buyTokens', [0n]) }))
  await mine()
  await mine()
  return { url, anvil, poolAbi: pool.abi, stop: () => anvil.stop() }
}
