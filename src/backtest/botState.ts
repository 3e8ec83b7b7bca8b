import { numberToHex, pad, type Address, type Hash, type Hex } from 'viem'
import { storageKey, type StateWrite } from '../chain/stateWrites.js'
import type { ChainClient } from '../chain/chainClient.js'
import { BlockStateDiff } from '../builder/execution/stateDiff.js'
import { normalizeAddress } from '../protocol/normalize.js'

/**
 * What the bot's set-up left on chain (docs/backtest.md, "The bot's set-up"): its executor
 * contracts' code and storage, the slots its approvals and deposits wrote, what the harness's
 * cheats wrote for it (`harness_setBalance`, `harness_setTokenBalance`, `anvil_setCode`…),
 * each account's balance change. Laid over every real parent after the chain moves there, so the bot trades
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

/** What the bot's set-up did: its txs (mined in the set-up's blocks) and what cheats wrote for it. */
export interface BotSetupEffects {
  txs: readonly Hash[]
  writes: readonly StateWrite[]
  /**
   * An account's balance at the first parent, from the source: the set-up's balance changes are
   * counted from it (Anvil's own view of that block has the cheats written on it before the
   * set-up's first block).
   */
  parentBalance(account: Address): Promise<bigint>
}

/**
 * The overlay of the set-up: the state its txs and cheats left on the chain's head (the set-up's
 * last block) for every key they touched — code, slots, nonces — and each touched account's
 * balance change since the first parent, leaving out the builders' coinbases (what they were
 * paid is the builder's, not the bot's).
 */
export async function setupOverlay(chain: ChainClient, setup: BotSetupEffects, coinbases: readonly Address[]): Promise<SetupOverlay> {
  const diff = await BlockStateDiff.ofTxs(chain, setup.txs)
  const touched = new Map<Address, { code: boolean; nonce: boolean; balance: boolean; slots: Set<Hex> }>()
  const touch = (address: Address) => {
    const account = normalizeAddress(address)
    const entry = touched.get(account) ?? { code: false, nonce: false, balance: false, slots: new Set<Hex>() }
    touched.set(account, entry)
    return entry
  }
  for (const [account, change] of diff.accountChanges()) {
    const entry = touch(account)
    if (change.code !== undefined) entry.code = true
    if (change.nonce !== undefined) entry.nonce = true
    for (const slot of Object.keys(change.storage)) entry.slots.add(storageKey(slot as Hex))
  }
  for (const account of diff.balanceDeltas().keys()) touch(account).balance = true
  for (const write of setup.writes) {
    const entry = touch(write.address)
    if (write.field === 'storage') entry.slots.add(write.slot)
    else entry[write.field] = true
  }
  for (const coinbase of coinbases) touched.delete(normalizeAddress(coinbase))

  const overlay: SetupOverlay = { code: new Map(), storage: new Map(), balanceDeltas: new Map(), nonces: new Map() }
  await Promise.all(
    [...touched].map(async ([account, entry]) => {
      const [code, nonce, balances, slots] = await Promise.all([
        entry.code ? chain.node.request({ method: 'eth_getCode', params: [account, 'latest'] }) : null,
        entry.nonce ? chain.node.request({ method: 'eth_getTransactionCount', params: [account, 'latest'] }) : null,
        entry.balance ? Promise.all([chain.node.request({ method: 'eth_getBalance', params: [account, 'latest'] }).then(BigInt), setup.parentBalance(account)]) : null,
        Promise.all([...entry.slots].map(async (slot) => [slot, await chain.node.request({ method: 'eth_getStorageAt', params: [account, slot, 'latest'] })] as const)),
      ])
      if (code !== null) overlay.code.set(account, code)
      if (nonce !== null) overlay.nonces.set(account, Number(nonce))
      if (balances !== null && balances[0] !== balances[1]) overlay.balanceDeltas.set(account, balances[0] - balances[1])
      if (slots.length > 0) overlay.storage.set(account, Object.fromEntries(slots.map(([slot, value]) => [slot, pad(value, { size: 32 })])))
    }),
  )
  return overlay
}

/**
 * Writes the overlay on the chain's head (right after the move to a real parent): code, slots,
 * balances (the head's plus the setup's change), nonces — `carriedNonces` (the bot's accounts'
 * nonces on the chain before the move) over the setup's, since a bot counts its own nonces.
 * `onReplayedBlock`: the head is a real block mined again on a parent the overlay lay over
 * (`Harness.moveFork`'s replay), so the balances hold the setup's change already.
 */
export async function applyOverlay(chain: ChainClient, overlay: SetupOverlay, carriedNonces: ReadonlyMap<Address, number>, { onReplayedBlock = false } = {}): Promise<void> {
  // A real block mined again on a parent the overlay lay over keeps its balance changes: added again, they would count twice.
  const accounts = onReplayedBlock ? [] : [...overlay.balanceDeltas.keys()]
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
