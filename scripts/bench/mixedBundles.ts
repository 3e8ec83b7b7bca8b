import { keccak256, parseGwei, toHex, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { MAX_FEE, SINK, benchAccounts, type SignedTx } from './support.js'

/**
 * A one-shot "pool": the first call in a block takes it (storage slot 0: 0 → 1), every later
 * call reverts — bundles backrunning one opportunity, of which one can win.
 * PUSH1 0 SLOAD ISZERO PUSH1 0x0c JUMPI PUSH1 0 PUSH1 0 REVERT JUMPDEST PUSH1 1 PUSH1 0 SSTORE STOP
 */
export const ONE_SHOT_POOL_CODE: Hex = '0x60005415600c5760006000fd5b600160005500'
export const ONE_SHOT_POOL: Address = '0x00000000000000000000000000000000000b0071'
/** Runtime code that always reverts: PUSH1 0 PUSH1 0 REVERT. */
export const REVERTER_CODE: Hex = '0x60006000fd'
export const REVERTER: Address = '0x00000000000000000000000000000000000dead2'

export type MixKind = 'independent' | 'conflicting' | 'reverting' | 'sponsored'

/** Share of each kind in a mixed slot (the rest is independent). */
export const MIX = { conflicting: 0.1, reverting: 0.05, sponsored: 0.01 } as const

export interface MixedBundle {
  kind: MixKind
  txs: SignedTx[]
}

export interface MixedSet {
  bundles: MixedBundle[]
  /** Accounts to fund before the slot (sponsored bundles' second senders are left empty on purpose). */
  funded: Address[]
  /** Bundles expected to land: every independent and sponsored one, and one pool winner. */
  expectedLanded: number
}

const sign = (account: PrivateKeyAccount, nonce: number, to: Address, value: bigint, tip: bigint, data?: Hex, gas = 21_000n) =>
  account.signTransaction({ type: 'eip1559', chainId: 31337, nonce, to, value, data, gas, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: tip })

async function signed(account: PrivateKeyAccount, nonce: number, to: Address, value: bigint, tip: bigint, data?: Hex, gas?: bigint): Promise<SignedTx> {
  const raw = await sign(account, nonce, to, value, tip, data, gas)
  return { raw, hash: keccak256(raw), from: account.address, nonce }
}

/**
 * `count` bundles of a busy slot, each from its own account(s): independent 2-tx transfers
 * (tips 1–5 gwei), bundles racing for one pool (one lands, the others fail in place),
 * bundles that revert at top of block (not allowed to), and sponsored bundles (a funded
 * account pays the coinbase 0.01 ETH, then an empty account sends: the builder pays its gas).
 *
 * @example const { bundles, funded } = await mixedBundles(1000, 'scaling-1000', coinbase)
 */
export async function mixedBundles(count: number, label: string, coinbase: Address, sponsoredShare: number = MIX.sponsored): Promise<MixedSet> {
  const accounts = benchAccounts(count, label)
  const empties = benchAccounts(Math.ceil(count * sponsoredShare), `${label} empty`)
  const kindOf = (i: number): MixKind => {
    // Spread the kinds through the arrival order, deterministically.
    const slot = (i * 7919) % 100
    if (slot < sponsoredShare * 100) return 'sponsored'
    if (slot < (sponsoredShare + MIX.reverting) * 100) return 'reverting'
    if (slot < (sponsoredShare + MIX.reverting + MIX.conflicting) * 100) return 'conflicting'
    return 'independent'
  }
  const bundles: MixedBundle[] = []
  let sponsored = 0
  for (const [i, account] of accounts.entries()) {
    const tip = parseGwei(String(1 + (i % 5)))
    let kind = kindOf(i)
    if (kind === 'sponsored' && sponsored >= empties.length) kind = 'independent'
    switch (kind) {
      case 'independent':
        bundles.push({ kind, txs: [await signed(account, 0, SINK, 1n, tip), await signed(account, 1, SINK, 1n, tip)] })
        break
      case 'conflicting':
        bundles.push({ kind, txs: [await signed(account, 0, ONE_SHOT_POOL, 0n, tip, '0x', 60_000n)] })
        break
      case 'reverting':
        bundles.push({ kind, txs: [await signed(account, 0, REVERTER, 0n, tip, '0x01', 60_000n)] })
        break
      case 'sponsored': {
        const empty = empties[sponsored++]!
        bundles.push({ kind, txs: [await signed(account, 0, coinbase, 10n ** 16n, tip), await signed(empty, 0, SINK, 1n, tip)] })
        break
      }
    }
  }
  return {
    bundles,
    funded: accounts.map((a) => a.address),
    expectedLanded: countOf(bundles, 'independent') + countOf(bundles, 'sponsored') + (countOf(bundles, 'conflicting') > 0 ? 1 : 0),
  }
}

/** Installs the pool and the reverter, and makes the pool takeable again (a fixture set before the slot). */
export function mixFixtureCalls(): Array<{ method: string; params: unknown[] }> {
  return [
    { method: 'anvil_setCode', params: [ONE_SHOT_POOL, ONE_SHOT_POOL_CODE] },
    { method: 'anvil_setCode', params: [REVERTER, REVERTER_CODE] },
    { method: 'anvil_setStorageAt', params: [ONE_SHOT_POOL, toHex(0, { size: 32 }), toHex(0, { size: 32 })] },
  ]
}

export const countOf = (bundles: readonly MixedBundle[], kind: MixKind) => bundles.filter((b) => b.kind === kind).length
