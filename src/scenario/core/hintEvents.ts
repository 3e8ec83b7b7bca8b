import { keccak256, type Hash } from 'viem'
import { headStatus, type RunContext } from './context.js'
import type { HintEventExpectation } from './expectationSchema.js'
import type { Path } from './sourceMap.js'

/** One check that failed: where under `expect`, what was wanted, what was found. */
export interface Mismatch {
  path: Path
  expected: string
  actual: string
}

/** A hint event as the MEV-Share history serves it (only what the check reads). */
interface HistoryEntry {
  hint: { hash: Hash; txs?: Array<Record<string, unknown>> } & Record<string, unknown>
}

/**
 * How long an `expect` waits for events still being simulated on the head (they go out after
 * the RPC answer). It polls, so a quick event costs nothing more; a full `npm test` on two
 * cores once took over 5 s to recover and simulate one.
 */
const SETTLE_MS = 15_000

/**
 * `expect: hintEvents: [{ tx, fields }]`: every event the hint stream sent so far, in order,
 * read from its history (`harness_status.mevShareUrl` + `api/v1/history`, as a bot reads it):
 * the n-th announces the n-th entry's template (its hash is keccak256 of the tx hash) and
 * carries exactly the fields listed (`txs.<key>` for a key of its txs).
 */
export async function hintEventMismatches(context: RunContext, expected: readonly HintEventExpectation[]): Promise<Mismatch[]> {
  const mismatches: Mismatch[] = []
  const add = (path: Path, wanted: string, actual: string) => mismatches.push({ path, expected: wanted, actual })
  const { mevShareUrl } = await headStatus(context)
  const url = new URL('api/v1/history', mevShareUrl)
  const deadline = Date.now() + SETTLE_MS
  let entries = await readHistory(url)
  while (entries.length < expected.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    entries = await readHistory(url)
  }
  const describe = (entry: HistoryEntry | undefined) => (entry ? `${nameOf(context, entry.hint.hash)} with [${fieldsOf(entry.hint).join(', ')}]` : 'no event')
  for (const [i, wanted] of expected.entries()) {
    const entry = entries[i]
    const hash = await context.signer.hashOf(wanted.tx)
    const want = `${wanted.tx} with [${[...wanted.fields].sort().join(', ')}]`
    if (!hash) add(['hintEvents', i, 'tx'], `${wanted.tx} sent`, 'it was never sent')
    else if (entry?.hint.hash !== keccak256(hash) || fieldsOf(entry.hint).join() !== [...wanted.fields].sort().join()) add(['hintEvents', i], want, describe(entry))
  }
  if (entries.length > expected.length) add(['hintEvents'], `${expected.length} events`, `${entries.length}: also ${entries.slice(expected.length).map(describe).join('; ')}`)
  return mismatches
}

async function readHistory(url: URL): Promise<HistoryEntry[]> {
  const res = await fetch(url)
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`)
  return (await res.json()) as HistoryEntry[]
}

function fieldsOf(hint: HistoryEntry['hint']): string[] {
  const fields = new Set(Object.keys(hint).filter((key) => key !== 'txs'))
  for (const tx of hint.txs ?? []) for (const key of Object.keys(tx)) fields.add(`txs.${key}`)
  return [...fields].sort()
}

/** The template a hint announces (its hash is keccak256 of the tx hash), or the hash. */
function nameOf(context: RunContext, matchingHash: Hash): string {
  return context.signer.templateWhere((hash) => keccak256(hash) === matchingHash) ?? matchingHash
}
