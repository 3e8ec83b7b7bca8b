import { z } from 'zod'
import type { JSONRPCServer } from 'json-rpc-2.0'
import type { CompetitionReport } from '../protocol/competition.js'
import { strictFields } from '../protocol/strictFields.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { optionalObjectParam } from './params.js'

export interface CompetitionMethodDeps {
  /** Null without a market (`--flow`). */
  competition(fromBlock?: number, toBlock?: number): CompetitionReport | null
}

const block = z.number({ error: 'expected a block number' }).int('expected a whole block number').min(0, 'expected a block number ≥ 0')
const params = strictFields({ fromBlock: block.optional(), toBlock: block.optional() })

/**
 * `harness_getCompetition` `[{ fromBlock?, toBlock? }]`: every opportunity the market's users
 * left in those blocks (all so far by default), who captured it, and each searcher's record.
 */
export function registerCompetitionMethods(rpc: JSONRPCServer<RequestContext>, deps: CompetitionMethodDeps): void {
  rpc.addMethod('harness_getCompetition', (raw) => {
    const { fromBlock, toBlock } = optionalObjectParam(raw, params)
    if (fromBlock !== undefined && toBlock !== undefined && fromBlock > toBlock) throw invalidParams(`fromBlock: ${fromBlock} is after toBlock ${toBlock}`)
    const report = deps.competition(fromBlock, toBlock)
    if (!report) throw invalidParams('no market in this run: start bundlesim with --world dex --flow default (or a scenario with world: dex and flow: default)')
    return report
  })
}
