import { keccak256, stringToBytes, type Address, type Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'

/** A named scenario account and its signer. */
export interface ScenarioAccount {
  name: string
  key: Hex
  address: Address
  signer: PrivateKeyAccount
}

/**
 * The key of a named account: the one given, else keccak256("bundlesim:" + name). Derived
 * keys make the same name the same address in every run and every file, and never collide
 * with Anvil's dev accounts.
 */
export function accountKey(name: string, given?: Hex): Hex {
  return given ?? keccak256(stringToBytes(`bundlesim:${name}`))
}

export function scenarioAccount(name: string, given?: Hex): ScenarioAccount {
  const key = accountKey(name, given)
  const signer = privateKeyToAccount(key)
  return { name, key, address: signer.address.toLowerCase() as Address, signer }
}
