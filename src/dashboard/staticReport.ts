import type { Hash } from 'viem'
import { BUNDLE_STATES } from '../protocol/bundleStates.js'
import type { DashboardQueries } from './queries.js'

/** How many slots the timeline shows a page (the page asks for this `limit`). */
export const SLOTS_PER_PAGE = 50
/** Bundle pages read the chain (receipts, blocks, call traces): a report holds at most this many, the best of each slot first. */
export const REPORT_MAX_BUNDLES = 2_000
/** The market's opportunities: a report holds this many pages of them, the newest (`OPPORTUNITIES_PAGE_SIZE` a page). */
export const REPORT_MAX_OPPORTUNITY_PAGES = 100

/**
 * Every answer the page can ask for about a finished run, keyed by the path it would fetch:
 * each page of the timeline, each page of each slot's bundles (all, and per state), and each
 * disclosed bundle (up to `REPORT_MAX_BUNDLES`; a page it leaves out says it is not in the
 * report), and with a market the competition and its newest opportunities. Inlined in a
 * static report, these answer the page with no server behind it.
 */
export async function reportData(queries: DashboardQueries): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {}
  const bundles = new Set<Hash>()
  let before: number | null | undefined
  do {
    const page = queries.slots(SLOTS_PER_PAGE, before ?? undefined)
    data[`/api/slots?limit=${SLOTS_PER_PAGE}${before === undefined ? '' : `&before=${before}`}`] = page
    for (const slot of page.slots) {
      for (const state of ['', ...BUNDLE_STATES.filter((s) => slot.states[s] > 0)]) {
        for (let p = 0, pages = 1; p < pages; p++) {
          const answer = queries.bundles(slot.blockNumber, p, state || undefined)
          data[`/api/bundles?slot=${slot.blockNumber}&page=${p}${state ? `&state=${state}` : ''}`] = answer
          pages = Math.ceil(answer.total / answer.pageSize)
          for (const row of answer.rows) bundles.add(row.bundleHash)
        }
      }
    }
    before = page.next
  } while (before !== null)
  const competition = queries.competition()
  if (competition) {
    data['/api/competition'] = competition
    for (let p = 0, pages = 1; p < Math.min(pages, REPORT_MAX_OPPORTUNITY_PAGES); p++) {
      const answer = queries.opportunities(p)!
      data[`/api/competition/opportunities?page=${p}`] = answer
      pages = Math.ceil(answer.total / answer.pageSize)
    }
  }
  for (const hash of [...bundles].slice(0, REPORT_MAX_BUNDLES)) data[`/api/bundle/${hash}`] = await queries.bundle(hash)
  return data
}
