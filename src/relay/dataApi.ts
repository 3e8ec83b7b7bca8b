import { Router, type Request, type Response } from 'express'
import type { Hash, Hex } from 'viem'
import type { RelayBid, RelayLog } from './bidTraces.js'

/** A bid as mev-boost-relay's data API writes it (`BidTraceV2JSON`): numbers as decimal strings. */
export interface BidTraceJson {
  slot: string
  parent_hash: string
  block_hash: string
  builder_pubkey: string
  proposer_pubkey: string
  proposer_fee_recipient: string
  gas_limit: string
  gas_used: string
  value: string
  block_number: string
  num_tx: string
}

/** `builder_blocks_received`' rows (`BidTraceV2WithTimestampJSON`): when the relay received it, in seconds and ms. */
export interface BidTraceWithTimestampJson extends BidTraceJson {
  timestamp: string
  timestamp_ms: string
  optimistic_submission: boolean
}

export function toBidTraceJson(bid: RelayBid): BidTraceJson {
  return {
    slot: bid.slot.toString(),
    parent_hash: bid.parentHash,
    block_hash: bid.blockHash,
    builder_pubkey: bid.builderPubkey,
    proposer_pubkey: bid.proposerPubkey,
    proposer_fee_recipient: bid.proposerFeeRecipient,
    gas_limit: bid.gasLimit.toString(),
    gas_used: bid.gasUsed.toString(),
    value: bid.value.toString(),
    block_number: bid.blockNumber.toString(),
    num_tx: String(bid.numTx),
  }
}

export function toBidTraceWithTimestampJson(bid: RelayBid): BidTraceWithTimestampJson {
  return { ...toBidTraceJson(bid), timestamp: String(Math.floor(bid.receivedAtMs / 1000)), timestamp_ms: String(bid.receivedAtMs), optimistic_submission: false }
}

/** A refused query, answered as mev-boost-relay answers it: HTTP 400, `{ code, message }`. */
class QueryError extends Error {}

const DECIMAL = /^\d{1,20}$/
const HASH = /^0x[0-9a-fA-F]{64}$/
const PUBKEY = /^0x[0-9a-fA-F]{96}$/

/** One query argument as text (the first if repeated), or undefined when absent. */
function arg(req: Request, name: string): string | undefined {
  const value = req.query[name]
  const text = Array.isArray(value) ? value[0] : value
  return typeof text === 'string' && text !== '' ? text : undefined
}

function decimalArg(req: Request, name: string): bigint | undefined {
  const text = arg(req, name)
  if (text === undefined) return undefined
  if (!DECIMAL.test(text)) throw new QueryError(`invalid ${name} argument`)
  return BigInt(text)
}

function patternArg(req: Request, name: string, pattern: RegExp): string | undefined {
  const text = arg(req, name)
  if (text === undefined) return undefined
  if (!pattern.test(text)) throw new QueryError(`invalid ${name} argument`)
  return text.toLowerCase()
}

function limitArg(req: Request, max: number): number {
  const limit = decimalArg(req, 'limit')
  if (limit === undefined) return max
  if (limit > BigInt(max)) throw new QueryError(`maximum limit is ${max}`)
  return Number(limit)
}

function answer(res: Response, rows: () => unknown): void {
  try {
    res.json(rows())
  } catch (error) {
    if (!(error instanceof QueryError)) throw error
    res.status(400).json({ code: 400, message: error.message })
  }
}

/**
 * The relay's data API, as mev-boost-relay serves it and relayscan and searchers' dashboards
 * read it: `GET /relay/v1/data/bidtraces/builder_blocks_received` (filters `slot`,
 * `block_number`, `block_hash`, `builder_pubkey`, at least one of them; `limit` ≤ 500) and
 * `GET /relay/v1/data/bidtraces/proposer_payload_delivered` (`slot` or `cursor`,
 * `block_number`, `block_hash`, `builder_pubkey`, `proposer_pubkey`, `order_by`, `limit` ≤ 200).
 *
 * @example app.use(relayDataApi(relay)) // GET /relay/v1/data/bidtraces/proposer_payload_delivered?limit=10
 */
export function relayDataApi(relay: RelayLog): Router {
  const router = Router()
  router.get('/relay/v1/data/bidtraces/builder_blocks_received', (req, res) =>
    answer(res, () => {
      const query = {
        slot: decimalArg(req, 'slot'),
        blockNumber: decimalArg(req, 'block_number'),
        blockHash: patternArg(req, 'block_hash', HASH) as Hash | undefined,
        builderPubkey: patternArg(req, 'builder_pubkey', PUBKEY) as Hex | undefined,
        limit: limitArg(req, 500),
      }
      if (query.slot === undefined && query.blockNumber === undefined && query.blockHash === undefined && query.builderPubkey === undefined) {
        throw new QueryError('need to query for specific slot or block_hash or block_number or builder_pubkey')
      }
      return relay.receivedBids(query).map(toBidTraceWithTimestampJson)
    }),
  )
  router.get('/relay/v1/data/bidtraces/proposer_payload_delivered', (req, res) =>
    answer(res, () => {
      const orderBy = arg(req, 'order_by')
      if (orderBy !== undefined && orderBy !== 'value' && orderBy !== '-value') throw new QueryError('invalid order_by argument')
      const query = {
        slot: decimalArg(req, 'slot'),
        cursor: decimalArg(req, 'cursor'),
        blockNumber: decimalArg(req, 'block_number'),
        blockHash: patternArg(req, 'block_hash', HASH) as Hash | undefined,
        builderPubkey: patternArg(req, 'builder_pubkey', PUBKEY) as Hex | undefined,
        proposerPubkey: patternArg(req, 'proposer_pubkey', PUBKEY) as Hex | undefined,
        orderBy: orderBy as 'value' | '-value' | undefined,
        limit: limitArg(req, 200),
      }
      if (query.slot !== undefined && query.cursor !== undefined) throw new QueryError('cannot specify both slot and cursor')
      return relay.deliveredPayloads(query).map(toBidTraceJson)
    }),
  )
  return router
}
