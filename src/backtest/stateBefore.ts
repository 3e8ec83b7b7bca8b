import { numberToHex, type Address, type Hex } from 'viem'
import type { PrestateAccount } from '../chain/nodeRpc.js'
import type { AccountBefore, StateBefore } from './cassette.js'

/**
 * Contracts a block writes before its first tx (EIP-4788's beacon roots, EIP-2935's block
 * hashes): a tx's prestate shows them after that write, not as the parent left them.
 */
const WRITTEN_BEFORE_TXS = new Set<Address>(['0x000f3df6d732807ef1319fb7b8bb8522d0beac02', '0x0000f90827f1c53a10cb7a02335b175320002935'])

/**
 * The state a block started from, for every account and slot its txs touched: each one's value
 * in the prestate trace of the first tx that touched it (a later tx's prestate shows what the
 * earlier ones left). Pure.
 *
 * @example stateBeforeBlock([{ result: { '0xabc…': { balance: '0x1', storage: { '0x…01': '0x…05' } } } }])
 */
export function stateBeforeBlock(traces: ReadonlyArray<{ result: Record<string, PrestateAccount> }>): StateBefore {
  const state: StateBefore = new Map()
  for (const { result } of traces) {
    for (const [address, before] of Object.entries(result)) {
      const account = address.toLowerCase() as Address
      if (WRITTEN_BEFORE_TXS.has(account)) continue
      let known: AccountBefore | undefined = state.get(account)
      if (!known) {
        known = { balance: before.balance ?? '0x0', nonce: before.nonce ?? 0, code: before.code ?? '0x', storage: new Map() }
        state.set(account, known)
      }
      for (const [slot, value] of Object.entries(before.storage ?? {})) {
        const key = BigInt(slot)
        if (!known.storage.has(key)) known.storage.set(key, value as Hex)
      }
    }
  }
  return state
}

/**
 * The state block `number` started from, read from the node in one prestate trace of the block
 * (`debug_traceBlockByNumber`); null when the node does not trace blocks (then each of Anvil's
 * reads goes to it, as without).
 */
export async function readStateBefore(nodeUrl: string, number: bigint): Promise<StateBefore | null> {
  try {
    const response = await fetch(nodeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceBlockByNumber', params: [numberToHex(number), { tracer: 'prestateTracer' }] }),
      signal: AbortSignal.timeout(60_000),
    })
    const answer = (await response.json()) as { result?: Array<{ result: Record<string, PrestateAccount> }> }
    return Array.isArray(answer.result) ? stateBeforeBlock(answer.result) : null
  } catch {
    return null
  }
}
