import { z } from 'zod'
import type { Address, Hash } from 'viem'
import { address, hash32 } from '../protocol/wireRules.js'
import { strictFields } from '../protocol/strictFields.js'
import { normalizeAddress, normalizeHash } from '../protocol/normalize.js'
import type { NodeLog } from '../chain/nodeRpc.js'

/** A log as JSON-RPC answers it (`eth_getLogs`, filters, `logs` subscriptions): as the node sends it. */
export type RpcLog = NodeLog

/** What a log filter or `logs` subscription selects: geth's `FilterCriteria`. */
export interface LogCriteria {
  /** Any of these contracts; empty: any. */
  addresses: Address[]
  /** Per position: `null` matches anything, else any of the listed topics. */
  topics: Array<Hash[] | null>
  fromBlock?: BlockTag
  toBlock?: BlockTag
  blockHash?: Hash
}

/** A block number, or a tag resolved when the filter is read (`latest`, `pending`: the head; `earliest`: 0). */
export type BlockTag = bigint | 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'

const topic = hash32({ format: 'expected a 32-byte 0x hex topic' })
const contract = address()
const blockTag = z.union([
  z.enum(['latest', 'earliest', 'pending', 'safe', 'finalized']),
  z.string().regex(/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/, 'expected a hex block number or a tag (latest, earliest, pending, safe, finalized)').transform(BigInt),
])
const topicPosition = z.union([z.null(), topic, z.array(topic).max(1000, 'at most 1000 alternatives per topic position')])

/** The filter object of `eth_newFilter`, `eth_getLogs` and `eth_subscribe("logs", …)`, as geth reads it. */
export const logCriteriaSchema = strictFields({
  fromBlock: blockTag.optional(),
  toBlock: blockTag.optional(),
  address: z.union([contract, z.array(contract)]).optional(),
  topics: z.array(topicPosition).max(4, 'exceed max topics: at most 4 positions').optional(),
  blockHash: hash32().optional(),
})
  .refine((c) => c.blockHash === undefined || (c.fromBlock === undefined && c.toBlock === undefined), {
    message: 'blockHash cannot be combined with fromBlock/toBlock',
  })
  .transform(
    (c): LogCriteria => ({
      addresses: (c.address === undefined ? [] : Array.isArray(c.address) ? c.address : [c.address]).map((a) => normalizeAddress(a)),
      // A position of [] matches anything, like null (geth).
      topics: (c.topics ?? []).map((t) => (t === null ? null : Array.isArray(t) ? (t.length === 0 ? null : t.map((x) => normalizeHash(x))) : [normalizeHash(t)])),
      fromBlock: c.fromBlock,
      toBlock: c.toBlock,
      blockHash: normalizeHash(c.blockHash),
    }),
  )

/**
 * Whether a log matches the criteria's contracts and topics (geth's `filterLogs`): a log with
 * fewer topics than the criteria name positions never matches.
 */
export function matchesLog(criteria: Pick<LogCriteria, 'addresses' | 'topics'>, log: Pick<RpcLog, 'address' | 'topics'>): boolean {
  if (criteria.addresses.length > 0 && !criteria.addresses.includes(normalizeAddress(log.address))) return false
  if (criteria.topics.length > log.topics.length) return false
  return criteria.topics.every((wanted, i) => wanted === null || wanted.includes(normalizeHash(log.topics[i]!)))
}

/** A tag or number as a block number, given the head (`pending` reads as the head: logs exist only in mined blocks). */
export function resolveBlockTag(tag: BlockTag | undefined, head: bigint, fallback: bigint): bigint {
  if (tag === undefined) return fallback
  if (typeof tag === 'bigint') return tag
  return tag === 'earliest' ? 0n : head
}
