import http from 'node:http'
import { numberToHex, type Address, type Hex } from 'viem'
import { fetchFromNode, fetchProblem, RATE_LIMIT_TRIES } from '../chain/rateLimits.js'

/** One answer of the remote node, as the recording keeps it: the request's method and params, and its result or error. */
export interface RecordedRead {
  method: string
  params: unknown[]
  result?: unknown
  error?: { code: number; message: string }
}

interface JsonRpcRequest {
  id?: unknown
  method?: unknown
  params?: unknown
}

/** A read the recording does not hold (other than an account's or a slot's, which are empty): answered with this code. */
export const NOT_RECORDED_CODE = -32001

/** `eth_getAccountInfo`'s field each single-account read answers. */
const ACCOUNT_FIELDS: Record<string, string> = { eth_getBalance: 'balance', eth_getTransactionCount: 'nonce', eth_getCode: 'code' }

/** What an account or slot no run read holds: nothing. */
const EMPTY_STATE: Record<string, unknown> = {
  eth_getBalance: '0x0',
  eth_getTransactionCount: '0x0',
  eth_getCode: '0x',
  eth_getStorageAt: `0x${'00'.repeat(32)}`,
  eth_getAccountInfo: { balance: '0x0', nonce: '0x0', code: '0x' },
}

/** The state reads a run that is not recorded keeps for their repeats: a few days of blocks' new reads, ~100 MB at most. */
const STATE_READS_KEPT = 500_000

/** An account's or a slot's read at a numbered block (not a tag such as `latest`): its answer never changes. */
function isStateRead(request: JsonRpcRequest): boolean {
  if (!Array.isArray(request.params)) return false
  const method = String(request.method)
  if (!(method in EMPTY_STATE)) return false
  const block = request.params[method === 'eth_getStorageAt' ? 2 : 1]
  return typeof block === 'string' && block.startsWith('0x')
}

const keyOf = (method: string, params: unknown): string => `${method} ${JSON.stringify(params ?? [])}`

/** An account as it was before a block: what a prestate trace of the block says of it. */
export interface AccountBefore {
  balance: Hex
  nonce: number
  code: Hex
  /** Its slots the block touched, by slot number. */
  storage: Map<bigint, Hex>
}

/** The state a block started from, for every account and slot the block touched (lowercase addresses). */
export type StateBefore = Map<Address, AccountBefore>

/**
 * A JSON-RPC proxy in front of the node a backtest reads — Anvil's fork and the backtest's own
 * reads both go through it. Recording, it forwards every request to the remote and keeps each
 * answer by method and params; replaying, it answers from those alone, with no remote. Anvil
 * asks a fork's remote for state by block number, so the same run asks the same questions:
 * a run from a recording reads what the recorded run read (docs/backtest.md, Recording).
 *
 * @example
 * const cassette = await RpcCassette.record('https://eth.example/…')
 * // fork Anvil at cassette.url … then
 * await writeRecording(dir, cassette.reads())
 */
export class RpcCassette {
  private readonly answers = new Map<string, RecordedRead>()
  /** Reads asked while replaying that the recording does not hold (`method params`). */
  readonly missing = new Set<string>()
  /** Times the remote answered HTTP 429 (rate limited) and the request was sent again after a wait. */
  rateLimited = 0
  /** The state at blocks Anvil will fork from, known ahead (`prime`): its reads of them are answered here. */
  private readonly primed = new Map<bigint, StateBefore>()
  /** Reads answered from a primed state instead of the remote. */
  primedAnswers = 0
  /** Repeated reads of a block's state answered from the node's first answer (`fromKnown`). */
  repeatsAnswered = 0
  /** A run not recorded keeps the node's answers to state reads only, the most recent `STATE_READS_KEPT`, for their repeats. */
  private readonly stateReads = new Map<string, RecordedRead>()

  private constructor(
    private readonly remoteUrl: string | null,
    private readonly keeping = true,
    private server: http.Server | null = null,
    public url = '',
  ) {}

  /** A proxy that forwards to `remoteUrl` and records every answer. */
  static record(remoteUrl: string): Promise<RpcCassette> {
    return new RpcCassette(remoteUrl).listen()
  }

  /** A proxy that forwards to `remoteUrl` and keeps nothing: a run not recorded still waits out a rate limit. */
  static passThrough(remoteUrl: string): Promise<RpcCassette> {
    return new RpcCassette(remoteUrl, false).listen()
  }

  /** A proxy that answers from `reads` only. */
  static replay(reads: readonly RecordedRead[]): Promise<RpcCassette> {
    const cassette = new RpcCassette(null)
    for (const read of reads) cassette.answers.set(keyOf(read.method, read.params), read)
    return cassette.listen()
  }

  /** Every answer kept, in a stable order (by method, then params): a recording diffs only in what changed. */
  reads(): RecordedRead[] {
    return [...this.answers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, read]) => read)
  }

  close(): Promise<void> {
    const server = this.server
    this.server = null
    if (!server) return Promise.resolve()
    return new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }

  private async listen(): Promise<RpcCassette> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        this.answer(Buffer.concat(chunks)).then(
          (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
          (error: Error) => res.writeHead(502, { 'content-type': 'text/plain' }).end(`backtest: the node did not answer: ${fetchProblem(error)}`),
        )
      })
    })
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()))
    this.server = server
    this.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    return this
  }

  /**
   * Answers Anvil's reads of accounts and slots at `block` from `state` (the state the next real
   * block started from, read ahead in one trace of it), instead of one round trip to the node for
   * each: the same values the node would give, without its latency. Reads of anything else at
   * that block still go to the node (or the recording). One state at a time: it replaces the
   * one primed before. `block` is the block Anvil forked from, which may be before the state's:
   * what Anvil's state does not hold yet, no block since changed (runBacktest.ts, `forkBlock`).
   */
  prime(block: bigint, state: StateBefore): void {
    this.primed.clear()
    this.primed.set(block, state)
  }

  private async answer(body: Buffer): Promise<string> {
    const parsed = JSON.parse(body.toString('utf8')) as JsonRpcRequest | JsonRpcRequest[]
    const requests = [parsed].flat()
    const local = requests.map((request) => this.fromPrimed(request) ?? this.fromKnown(request))
    const rest = requests.filter((_, i) => local[i] === null)
    let answered: object[] = []
    if (rest.length > 0) {
      if (this.remoteUrl === null) answered = rest.map((request) => this.fromRecording(request))
      else answered = await this.forward(rest.length === requests.length ? body : Buffer.from(JSON.stringify(Array.isArray(parsed) ? rest : rest[0])), rest)
    }
    const answers = local.map((own) => own ?? answered.shift()!)
    return JSON.stringify(Array.isArray(parsed) ? answers : answers[0])
  }

  /** A read of an account or a slot at a primed block, answered from its state; null for any other read. */
  private fromPrimed(request: JsonRpcRequest): object | null {
    if (this.primed.size === 0 || !Array.isArray(request.params)) return null
    const method = String(request.method)
    const params = request.params as unknown[]
    const blockParam = params[method === 'eth_getStorageAt' ? 2 : 1]
    if (typeof params[0] !== 'string' || typeof blockParam !== 'string' || !blockParam.startsWith('0x')) return null
    const account = this.primed.get(BigInt(blockParam))?.get(params[0].toLowerCase() as Address)
    if (!account) return null
    let result: unknown
    if (method === 'eth_getStorageAt' && typeof params[1] === 'string') result = account.storage.get(BigInt(params[1]))
    else if (method === 'eth_getAccountInfo') result = { balance: account.balance, nonce: numberToHex(account.nonce), code: account.code }
    else if (method === 'eth_getBalance') result = account.balance
    else if (method === 'eth_getTransactionCount') result = numberToHex(account.nonce)
    else if (method === 'eth_getCode') result = account.code
    if (result === undefined) return null
    this.primedAnswers++
    // Kept as the node's own answer would be: a recording replays with or without the trace.
    if (this.keeping && this.remoteUrl !== null) this.answers.set(keyOf(method, params), { method, params, result })
    return { jsonrpc: '2.0', id: request.id, result }
  }

  /**
   * A read of an account or a slot at a numbered block the node already answered: the state of
   * a block never changes, so the repeat is answered from that answer. Anvil asks again what an
   * `evm_revert` dropped from its state, and a backtest reverts each block it builds (half of a
   * block's reads were repeats, 1 ms each through this proxy). Only where a node answers: a
   * replay answers everything from the recording.
   */
  private fromKnown(request: JsonRpcRequest): object | null {
    if (this.remoteUrl === null || !isStateRead(request)) return null
    const read = this.answers.get(keyOf(String(request.method), request.params)) ?? this.stateReads.get(keyOf(String(request.method), request.params))
    if (!read) return null
    this.repeatsAnswered++
    return read.error ? { jsonrpc: '2.0', id: request.id, error: read.error } : { jsonrpc: '2.0', id: request.id, result: read.result }
  }

  private keepStateRead(key: string, read: RecordedRead): void {
    this.stateReads.delete(key)
    this.stateReads.set(key, read)
    // A Map iterates in insertion order: the first key is the least recently answered.
    if (this.stateReads.size > STATE_READS_KEPT) this.stateReads.delete(this.stateReads.keys().next().value!)
  }

  private fromRecording(request: JsonRpcRequest): object {
    const key = keyOf(String(request.method), request.params)
    const read = this.answers.get(key) ?? this.fromAccountReads(String(request.method), request.params)
    if (!read) {
      this.missing.add(key)
      // An account or slot the recorded run never read is empty (as in a snapshot: docs/fork-and-replay.md), and counted.
      const empty = EMPTY_STATE[String(request.method)]
      if (empty !== undefined) return { jsonrpc: '2.0', id: request.id, result: empty }
      return { jsonrpc: '2.0', id: request.id, error: { code: NOT_RECORDED_CODE, message: `not in the backtest's recording: ${key.slice(0, 200)} (record the run again with --record)` } }
    }
    return read.error ? { jsonrpc: '2.0', id: request.id, error: read.error } : { jsonrpc: '2.0', id: request.id, result: read.result }
  }

  /**
   * Anvil loads an account at the fork block with `eth_getAccountInfo`, or with its three
   * reads, depending on what asked first (a tx's execution, or a read of that very block): one
   * answers the other, so a replay does not depend on that order.
   */
  private fromAccountReads(method: string, params: unknown): RecordedRead | undefined {
    if (!Array.isArray(params) || params.length !== 2) return undefined
    const recorded = (m: string) => this.answers.get(keyOf(m, params))
    const field = ACCOUNT_FIELDS[method]
    if (field) {
      const info = recorded('eth_getAccountInfo')?.result as Record<string, unknown> | undefined
      return info && info[field] !== undefined ? { method, params, result: info[field] } : undefined
    }
    if (method !== 'eth_getAccountInfo') return undefined
    const [balance, nonce, code] = ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'].map((m) => recorded(m)?.result)
    return balance !== undefined && nonce !== undefined && code !== undefined ? { method, params, result: { balance, nonce, code } } : undefined
  }

  private async forward(body: Buffer, requests: JsonRpcRequest[]): Promise<object[]> {
    const text = await this.post(body)
    const answers = [JSON.parse(text) as { id?: unknown; result?: unknown; error?: { code: number; message: string } }].flat()
    for (const answer of answers) {
      const request = requests.find((r) => r.id === answer.id)
      if (!request || typeof request.method !== 'string') continue
      const params = Array.isArray(request.params) ? request.params : []
      // A refused read is kept too (a pruned node's answer), so the replay refuses it the same way.
      const read = answer.error ? { method: request.method, params, error: answer.error } : { method: request.method, params, result: answer.result }
      if (this.keeping) this.answers.set(keyOf(request.method, params), read)
      else if (isStateRead(request)) this.keepStateRead(keyOf(request.method, params), read)
    }
    return answers
  }

  /**
   * Posts to the remote: a rate limit (HTTP 429) waited out and a dropped connection tried again
   * (`fetchFromNode`); then the run stops with the provider's answer.
   */
  private async post(body: Buffer): Promise<string> {
    const response = await fetchFromNode(this.remoteUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(body) }, { onWait: () => this.rateLimited++ })
    const text = await response.text()
    if (response.ok) return text
    throw new Error(`HTTP ${response.status}${response.status === 429 ? ` after ${RATE_LIMIT_TRIES} tries` : ''}: ${text.slice(0, 200)}`)
  }
}
