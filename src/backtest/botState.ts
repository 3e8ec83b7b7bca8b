import { numberToHex, type Address, type Hash, type Hex } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import { BlockStateDiff } from '../builder/execution/stateDiff.js'
import { normalizeAddress } from '../protocol/normalize.js'

/**
 * What the bot's setup left on chain (docs/backtest.md, "The bot's setup"): its executor
 * contracts' code and storage, the slots its approvals and deposits wrote, each account's
 * balance change. Laid over every real parent after the chain moves there, so the bot trades
 * with what it set up while each block is judged on real state.
 */
export interface SetupOverlay {
  code: Map<Address, Hex>
  storage: Map<Address, Record<Hex, Hex>>
  /** Added to the account's balance on the real parent (a delta: WETH's ether changes block to block). */
  balanceDeltas: Map<Address, bigint>
  /** Nonces set absolutely: contracts the setup created (1), and the bot's accounts (carried block to block). */
  nonces: Map<Address, number>
}

/**
 * The overlay of the setup txs (mined in the setup block), leaving out the builders' coinbases:
 * what they were paid is the builder's, not the bot's.
 */
export async function setupOverlay(chain: ChainClient, setupTxs: readonly Hash[], coinbases: readonly Address[]): Promise<SetupOverlay> {
  const diff = await BlockStateDiff.ofTxs(chain, setupTxs)
  const skip = new Set(coinbases.map(normalizeAddress))
  const overlay: SetupOverlay = { code: new Map(), storage: new Map(), balanceDeltas: new Map(), nonces: new Map() }
  for (const [account, change] of diff.accountChanges()) {
    if (skip.has(account)) continue
    if (change.code !== undefined && change.code !== '0x') overlay.code.set(account, change.code)
    if (Object.keys(change.storage).length > 0) overlay.storage.set(account, change.storage)
    if (change.nonce !== undefined) overlay.nonces.set(account, change.nonce)
  }
  for (const [account, delta] of diff.balanceDeltas()) if (!skip.has(account)) overlay.balanceDeltas.set(account, delta)
  return overlay
}

/**
 * Writes the overlay on the chain's head (right after `anvil_reset`): code, slots, balances
 * (the head's plus the setup's change), nonces — `carriedNonces` (the bot's accounts' nonces on
 * the chain before the reset) over the setup's, since a bot counts its own nonces.
 */
export async function applyOverlay(chain: ChainClient, overlay: SetupOverlay, carriedNonces: ReadonlyMap<Address, number>): Promise<void> {
  const accounts = [...overlay.balanceDeltas.keys()]
  const balances = await Promise.all(accounts.map((account) => chain.balance(account)))
  const writes: Array<Promise<unknown>> = []
  for (const [account, code] of overlay.code) writes.push(chain.node.request({ method: 'anvil_setCode', params: [account, code] }))
  for (const [account, slots] of overlay.storage) {
    for (const [slot, value] of Object.entries(slots)) writes.push(chain.node.request({ method: 'anvil_setStorageAt', params: [account, slot as Hex, value] }))
  }
  accounts.forEach((account, i) => writes.push(chain.setBalance(account, balances[i]! + overlay.balanceDeltas.get(account)!)))
  const nonces = new Map([...overlay.nonces, ...carriedNonces])
  for (const [account, nonce] of nonces) writes.push(chain.node.request({ method: 'anvil_setNonce', params: [account, numberToHex(nonce)] }))
  await Promise.all(writes)
}
