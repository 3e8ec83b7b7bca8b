import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Address } from 'viem'
import type { CompetitionReport } from '../protocol/competition.js'
import type { NamedSearcher } from '../bundle/searcherNames.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface CompetitionMethodDeps {
  /** Null without a market (`--flow`). */
  competition(fromBlock?: number, toBlock?: number): CompetitionReport | null
}

export interface SearcherNameDeps {
  /** Names a searcher's addresses (`SearcherNames.register`). */
  register(name: string, addresses: readonly Address[]): NamedSearcher
}

export function registerCompetitionMethods(rpc: JSONRPCServer<RequestContext>, deps: CompetitionMethodDeps & SearcherNameDeps): void {
  registerMethod(rpc, 'harness_getCompetition', ({ fromBlock, toBlock }) => {
    if (fromBlock !== undefined && toBlock !== undefined && fromBlock > toBlock) throw invalidParams(`fromBlock: ${fromBlock} is after toBlock ${toBlock}`)
    const report = deps.competition(fromBlock, toBlock)
    if (!report) throw invalidParams('no market in this run: start bundlesim with --world dex --flow default (or a scenario with world: dex and flow: default)')
    return report
  })
  registerMethod(rpc, 'harness_nameSearcher', ({ name, addresses }) => deps.register(name, addresses))
}
