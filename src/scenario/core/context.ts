import type { Address, Hash } from 'viem'
import type { SlotReport } from '../../protocol/slotReport.js'
import type { BundlesimClient } from '../../protocol/client.js'
import type { HarnessStatus } from '../../protocol/harnessStatus.js'
import type { AddressBook } from './addressBook.js'
import type { SourceLocation } from './errors.js'
import type { ScenarioSettings } from './settings.js'
import type { Path, SourceMap } from './sourceMap.js'
import type { TemplateSigning } from './templateSigning.js'

/** What a running scenario knows: its clients, names, signed txs and what happened so far. */
export interface RunContext {
  /** The scenario as loaded (a `LoadedScenario`): its settings, and where each of its parts is written. */
  loaded: { scenario: ScenarioSettings; source: SourceMap }
  /** The service's RPCs: bundles, harness control, forwarded reads, and stats. */
  client: BundlesimClient
  book: AddressBook
  signer: TemplateSigning
  /** Pending nonces (a `NonceTracker`): forgotten once slots pass. */
  nonces: { reset(): void }
  /** Bundle ids (`as`) to the hashes the service returned. */
  bundles: Map<string, Hash>
  /** Reports of the last `advance` step's slots. */
  lastReports?: SlotReport[]
  /** Balances after setup, and at the end of the last `expect` step. */
  balances: { start: Map<Address, bigint>; previous: Map<Address, bigint> }
  /** Addresses whose balances are recorded for deltas. */
  watched: Address[]
  /** API keys of the scenario's builder (the default for `boost`). */
  apiKeys: string[]
  /** Slots pass in real time (a scenario with bots): `advance` waits for them instead of running them. */
  realtime: boolean
}

/** Where a path of the scenario is written (file, line, column). */
export function locate(context: RunContext, path: Path): SourceLocation {
  const { file, line, column } = context.loaded.source.locate(path)
  return { file, line, column }
}

/** The harness's status now: head, clock, URLs, builders. */
export function headStatus(context: RunContext): Promise<HarnessStatus> {
  return context.client.status()
}

/** Current balance through the submission RPC (a forwarded read). */
export async function balanceOf(context: RunContext, address: Address): Promise<bigint> {
  return BigInt(await context.client.request<string>('eth_getBalance', [address, 'latest']))
}

/** The watched addresses' balances now. */
export async function recordBalances(context: RunContext): Promise<Map<Address, bigint>> {
  const values = await Promise.all(context.watched.map((address) => balanceOf(context, address)))
  return new Map(context.watched.map((address, i) => [address, values[i]!]))
}

/** The id a bundle hash goes by in this scenario, or the hash. */
export function bundleName(context: RunContext, hash: string): string {
  for (const [id, known] of context.bundles) if (known === hash) return id
  return hash
}
