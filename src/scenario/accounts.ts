import { keccak256, stringToBytes, type Address, type Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { normalizeAddress } from '../protocol/normalize.js'

/** A named scenario account: its signer, or (a real address on a fork) none. */
export interface ScenarioAccount {
  name: string
  address: Address
  /** Absent for an `address` account: nothing can sign for it. */
  key?: Hex
  signer?: PrivateKeyAccount
  /** Its txs are sent unsigned through Anvil's impersonation (sendTx steps only). */
  impersonated: boolean
}

/**
 * The key of a named account: the one given, else keccak256("bundlesim:" + name). Derived
 * keys make the same name the same address in every run and every file, and never collide
 * with Anvil's dev accounts.
 */
export function accountKey(name: string, given?: Hex): Hex {
  return given ?? keccak256(stringToBytes(`bundlesim:${name}`))
}

export function scenarioAccount(name: string, given?: Hex, address?: Address, impersonate = false): ScenarioAccount {
  if (address !== undefined) return { name, address: normalizeAddress(address), impersonated: impersonate }
  const key = accountKey(name, given)
  const signer = privateKeyToAccount(key)
  return { name, key, address: normalizeAddress(signer.address), signer, impersonated: false }
}

/** The error for a tx from an account nothing can sign for, naming what to do instead. */
export function unsignableMessage(account: ScenarioAccount): string {
  return account.impersonated
    ? `impersonated: can't be signed into a bundle (account "${account.name}" is ${account.address}, impersonated; send its txs with sendTx, or give the account a key)`
    : `account "${account.name}" is an address without a key (set impersonate: true to send unsigned txs from it with sendTx, or give it a key)`
}
