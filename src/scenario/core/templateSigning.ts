import type { Address, Hash, Hex } from 'viem'

/** A template signed: the same tx every time the scenario refers to it. */
export interface SignedTx {
  template: string
  raw: Hex
  hash: Hash
  from: Address
  nonce: number
}

/** An impersonated account's template: sent unsigned (`harness_sendImpersonatedTx`); Anvil picks the nonce, and the gas unless given. */
export interface UnsignedTx {
  from: Address
  to?: Address
  value: bigint
  data?: Hex
  gas?: bigint
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

/**
 * The templates of a running scenario as its steps and checks use them: a name means one tx
 * hash everywhere. `TemplateSigner` (`txTemplates.ts`) is the one implementation; steps know
 * it by this interface so they depend on nothing that loads a scenario.
 */
export interface TemplateSigning {
  /** The template's signed tx: signed on first use, the same one afterwards. */
  sign(name: string): Promise<SignedTx>
  /** The template's tx hash, if it has been signed (or, impersonated, sent). */
  hashOf(name: string): Promise<Hash | undefined>
  /** Whether the template is from an impersonated account (sent unsigned, never signed). */
  isImpersonated(name: string): boolean
  /** The unsigned tx of an impersonated account's template, with the same fee defaults as signed ones. */
  unsignedTx(name: string): UnsignedTx
  /** Records the hash Anvil gave an impersonated template's tx: it is that tx from now on. */
  recordUnsigned(name: string, hash: Hash): void
  /** Which template a tx hash is, if any. */
  templateOf(hash: string): string | undefined
  /** The template whose tx hash passes the test (e.g. it hashes to a hint event's hash), if any. */
  templateWhere(test: (hash: Hash) => boolean): string | undefined
}
