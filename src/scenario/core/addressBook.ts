import type { Address } from 'viem'
import { WIRE_PATTERNS } from '../../protocol/wireRules.js'
import { nameList } from './errors.js'
import { BUILDER } from './fields.js'
import { normalizeAddress } from '../../protocol/normalize.js'

/** A name that is no account, contract or `builder`. */
export class UnknownNameError extends Error {
  constructor(
    readonly ref: string,
    readonly expected: string,
  ) {
    super(`unknown name "${ref}" (expected ${expected})`)
    this.name = 'UnknownNameError'
  }
}

/**
 * Turns what a scenario writes where an address goes (an account, a contract, `builder`, or
 * 0x hex) into an address. At load time contracts and the builder have placeholder
 * addresses: only whether the name exists matters then.
 */
export class AddressBook {
  private readonly names = new Map<string, Address>()

  constructor(
    private readonly accounts: ReadonlyMap<string, Address>,
    private readonly contracts: ReadonlyMap<string, Address>,
    builder: Address,
  ) {
    for (const [name, address] of accounts) this.names.set(name, address)
    for (const [name, address] of contracts) this.names.set(name, address)
    this.names.set(BUILDER, builder)
  }

  /** What may stand here, for error messages. */
  get expected(): string {
    return `an account (${nameList(this.accounts.keys())}), a contract (${nameList(this.contracts.keys())}), ${BUILDER}, or a 0x address`
  }

  has(ref: string): boolean {
    return WIRE_PATTERNS.address.test(ref) || this.names.has(ref)
  }

  resolve(ref: string): Address {
    if (WIRE_PATTERNS.address.test(ref)) return normalizeAddress(ref)
    const address = this.names.get(ref)
    if (!address) throw new UnknownNameError(ref, this.expected)
    return address
  }

  /** The name an address goes by in this scenario (for readable failure output). */
  nameOf(address: string): string | undefined {
    const lower = address.toLowerCase()
    for (const [name, known] of this.names) if (known === lower) return name
    return undefined
  }
}
