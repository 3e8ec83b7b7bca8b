import type { ChainClient } from './chainClient.js'

/** The base fee Anvil will give its next block. */
export async function pendingBaseFee(chain: ChainClient): Promise<bigint> {
  const pending = await chain.public.getBlock({ blockTag: 'pending' })
  return pending.baseFeePerGas ?? 0n
}

/** Puts back the next block's base fee (an `evm_revert` keeps the one a simulated block derived). */
export async function setNextBaseFee(chain: ChainClient, baseFee: bigint): Promise<void> {
  await chain.node.request({ method: 'anvil_setNextBlockBaseFeePerGas', params: [`0x${baseFee.toString(16)}`] })
}
