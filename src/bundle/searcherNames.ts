import type { Address } from 'viem'
import { normalizeAddress } from '../protocol/normalize.js'

/** One named searcher: its name and every address it registered (signing keys, senders, executor contracts). */
export interface NamedSearcher {
  name: string
  addresses: readonly Address[]
}

/**
 * The names searchers gave their addresses (`harness_nameSearcher`, a scenario's `searchers`,
 * the flow file's emulated searchers): the one place every view (stats' `lostTo`, the
 * competition report, the dashboard) reads a name from, and where the competition's
 * accounting learns which addresses hold one searcher's funds. A later name for an address
 * replaces the earlier one.
 *
 * @example names.register('alpha', [signer, executorContract]); names.nameOf(executorContract) // 'alpha'
 */
export class SearcherNames {
  private readonly byAddress = new Map<Address, string>()
  private readonly byName = new Map<string, Set<Address>>()

  register(name: string, addresses: readonly Address[]): NamedSearcher {
    for (const raw of addresses) {
      const address = normalizeAddress(raw)
      const earlier = this.byAddress.get(address)
      if (earlier !== undefined) this.byName.get(earlier)?.delete(address)
      this.byAddress.set(address, name)
      let set = this.byName.get(name)
      if (!set) this.byName.set(name, (set = new Set()))
      set.add(address)
    }
    return { name, addresses: [...(this.byName.get(name) ?? [])] }
  }

  nameOf(address: Address | null | undefined): string | null {
    return address ? (this.byAddress.get(normalizeAddress(address)) ?? null) : null
  }

  /** Every address registered under the same name as `address` (just `address` when it has none). */
  addressesWith(address: Address): Address[] {
    const name = this.nameOf(address)
    return name === null ? [normalizeAddress(address)] : [...this.byName.get(name)!]
  }

  all(): NamedSearcher[] {
    return [...this.byName].map(([name, addresses]) => ({ name, addresses: [...addresses] }))
  }
}
