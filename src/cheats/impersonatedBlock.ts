import { numberToHex, type Address, type Hash, type Hex } from 'viem'
import { nextBaseFee } from '../chain/baseFee.js'
import { nodeErrorMessage, type ChainClient } from '../chain/chainClient.js'
import type { ChainLock } from '../chain/chainLock.js'
import type { UnsignedTx } from '../chain/nodeRpc.js'
import type { SlotClock } from '../clock/slotClock.js'
import type { BundleBook } from '../bundle/book.js'
import { COMPETITOR_COINBASE } from '../builder/slot/competitorBlock.js'
import type { SlotBuilder } from '../builder/slot/slotBuilder.js'

/** An unsigned tx from an account Anvil impersonates (a real address whose key nobody has). */
export interface ImpersonatedTx {
  from: Address
  to?: Address
  value?: bigint
  data?: Hex
  gas?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
}

export interface ImpersonatedBlockDeps {
  chain: ChainClient
  lock: ChainLock
  clock: SlotClock
  builder: SlotBuilder
  traces: BundleBook
  /** The builder's coinbase, put back after the block. */
  coinbase: Address
}

/** Refused before anything was sent (the message says why); answered as a JSON-RPC error. */
export class ImpersonationRefused extends Error {}

/**
 * Mines an impersonated account's unsigned tx at once, in a block of its own. It has no
 * signature, so it can be neither in a bundle nor in the public mempool (both carry signed
 * raw txs, which is what the builder executes); it goes through `anvil_impersonateAccount`
 * and `eth_sendTransaction` instead, and is mined as another builder's block would be:
 * next block number and slot timestamp, EIP-1559 base fee, the competitor's coinbase (the
 * builder earns nothing from it). Bundles pending for that block would miss their target,
 * so it is refused while any bundle is pending: send impersonated txs first.
 */
export function mineImpersonatedTx(deps: ImpersonatedBlockDeps, tx: ImpersonatedTx): Promise<{ hash: Hash; blockNumber: bigint; status: 'success' | 'reverted' }> {
  const { chain, lock, clock, builder, traces, coinbase } = deps
  return lock.write(async () => {
    const pending = traces.pendingCount()
    if (pending > 0) {
      throw new ImpersonationRefused(
        `impersonated txs are mined at once in a block of their own, and ${pending} bundle(s) are pending: send impersonated txs before submitting bundles (or after the slots that build them)`,
      )
    }
    const parent = await chain.latestBlock()
    await chain.dropAllTransactions()
    await chain.test.impersonateAccount({ address: tx.from })
    let hash: Hash
    try {
      const request: UnsignedTx = {
        from: tx.from,
        to: tx.to,
        value: tx.value === undefined ? undefined : numberToHex(tx.value),
        data: tx.data,
        gas: tx.gas === undefined ? undefined : numberToHex(tx.gas),
        maxFeePerGas: tx.maxFeePerGas === undefined ? undefined : numberToHex(tx.maxFeePerGas),
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas === undefined ? undefined : numberToHex(tx.maxPriorityFeePerGas),
      }
      hash = await chain.node.request({ method: 'eth_sendTransaction', params: [request] })
    } catch (error) {
      throw new ImpersonationRefused(`Anvil refused the impersonated tx from ${tx.from}: ${nodeErrorMessage(error)}`)
    } finally {
      await chain.test.stopImpersonatingAccount({ address: tx.from })
    }
    await chain.setCoinbase(COMPETITOR_COINBASE)
    let mined: Awaited<ReturnType<ChainClient['mine']>>
    try {
      const baseFee = nextBaseFee({ baseFeePerGas: parent.baseFeePerGas ?? 0n, gasUsed: parent.gasUsed, gasLimit: parent.gasLimit })
      mined = await chain.mine(clock.nextBlockTimestamp(), baseFee)
    } finally {
      await chain.setCoinbase(coinbase)
    }
    // The builder's head and the slot clock move on past the new block.
    await builder.init()
    const receipt = mined.txs.get(hash)
    if (!receipt) throw new ImpersonationRefused(`the impersonated tx ${hash} from ${tx.from} was not included in block ${mined.number} (fee cap below the base fee, or a nonce gap?)`)
    return { hash, blockNumber: mined.number, status: receipt.status }
  })
}
