import { z } from 'zod'
import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Address } from 'viem'
import type { CompetitionReport, NameSearcherParams } from '../protocol/competition.js'
import type { NamedSearcher } from '../bundle/searcherNames.js'
import { strictFields } from '../protocol/strictFields.js'
import { address } from '../protocol/wireRules.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { optionalObjectParam, singleObjectParam } from './params.js'

export interface CompetitionMethodDeps {
  /** Null without a market (`--flow`). */
  competition(fromBlock?: number, toBlock?: number): CompetitionReport | null
}

export interface SearcherNameDeps {
  /** Names a searcher's addresses (`SearcherNames.register`). */
  register(name: string, addresses: readonly Address[]): NamedSearcher
}

const block = z.number({ error: 'expected a block number' }).int('expected a whole block number').min(0, 'expected a block number ≥ 0')
const params = strictFields({ fromBlock: block.optional(), toBlock: block.optional() })
const nameParams = strictFields({
  name: z.string({ error: 'expected a name (a string)' }).trim().min(1, 'expected a non-empty name').max(64, 'expected a name of at most 64 characters'),
  addresses: z.array(address(), { error: 'expected an array of addresses' }).min(1, 'expected at least one address').max(64, 'expected at most 64 addresses'),
})

/**
 * `harness_getCompetition` `[{ fromBlock?, toBlock? }]`: every opportunity the market's users
 * left in those blocks (all so far by default), who captured it, who else went for it, and
 * each searcher's record. `harness_nameSearcher` `[{ name, addresses }]`: names a searcher —
 * its signing key, its senders, the executor contracts that hold its funds — in every view
 * (stats' `lostTo`, the competition, the dashboard), and makes those addresses count as its
 * own in the competition's accounting.
 */
export function registerCompetitionMethods(rpc: JSONRPCServer<RequestContext>, deps: CompetitionMethodDeps & SearcherNameDeps): void {
  rpc.addMethod('harness_getCompetition', (raw) => {
    const { fromBlock, toBlock } = optionalObjectParam(raw, params)
    if (fromBlock !== undefined && toBlock !== undefined && fromBlock > toBlock) throw invalidParams(`fromBlock: ${fromBlock} is after toBlock ${toBlock}`)
    const report = deps.competition(fromBlock, toBlock)
    if (!report) throw invalidParams('no market in this run: start bundlesim with --world dex --flow default (or a scenario with world: dex and flow: default)')
    return report
  })
  rpc.addMethod('harness_nameSearcher', (raw): NamedSearcher => {
    const { name, addresses } = singleObjectParam(raw, nameParams) as NameSearcherParams
    return deps.register(name, addresses)
  })
}
