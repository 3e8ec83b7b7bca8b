import { parseTransaction, toHex, type Address, type Hex } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import type { SimulationCall } from '../chain/nodeRpc.js'
import type { SourceBlock } from '../replay/sourceBlock.js'

/**
 * Makes Anvil read, on the head, the state the real block's txs touch: its txs run once as
 * calls (`eth_simulateV1`, no validation), their answers thrown away. Run during the block's
 * window, while the bot works and the harness would wait: Anvil fetches from the fork's node
 * what its state does not hold yet (the new senders, their token balances…) and keeps it. Made
 * before the slot snapshots the parent, those reads outlive the slot's `evm_revert` (which
 * drops what was fetched after the snapshot), so neither our block nor the real block's replay
 * after it waits for them (docs/backtest.md, "Moving to the next block"). A best effort: a call
 * Anvil cannot run only leaves its reads to the slot.
 *
 * @example const warming = warmUpFor(chain, realBlock, coinbase) // …the window… then await warming
 */
export async function warmUpFor(chain: ChainClient, block: SourceBlock, coinbase: Address): Promise<void> {
  const calls: SimulationCall[] = block.txs.flatMap((tx) => {
    try {
      const parsed = parseTransaction(tx.raw)
      return [{ from: tx.from, ...(tx.to && { to: tx.to }), input: (parsed.data ?? '0x') as Hex, value: toHex(parsed.value ?? 0n), gas: toHex(parsed.gas ?? tx.gasUsed) }]
    } catch {
      return []
    }
  })
  if (calls.length === 0) return
  const blockOverrides = { number: toHex(block.number), time: toHex(block.timestamp), feeRecipient: coinbase, baseFeePerGas: toHex(block.baseFeePerGas), gasLimit: toHex(block.gasLimit) }
  await chain.largeCall('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides, stateOverrides: {}, calls }], validation: false }, 'latest']).catch(() => undefined)
}
