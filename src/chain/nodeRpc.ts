import { createClient, rpcSchema, type AccessList, type Address, type BlockTag, type Client, type Hash, type Hex, type RpcBlock, type RpcTransactionReceipt, type Transport } from 'viem'
import type { BatchAnswer } from './keepAliveTransport.js'

/**
 * A frame of Anvil's `trace_block` (parity style), as far as it is read: a top-level frame's
 * error is its tx's revert; a frame with an error, and every frame below it, changed nothing.
 * `type` is `call` (with `callType` call, delegatecall, staticcall or callcode), `create`
 * (the new contract in `result.address`) or `suicide` (`address` pays its `balance` to `refundAddress`).
 */
export interface TraceFrame {
  type: string
  traceAddress: number[]
  transactionHash: Hash | null
  action: {
    from?: Address
    to?: Address
    callType?: string
    value?: Hex
    address?: Address
    refundAddress?: Address
    balance?: Hex
  }
  result?: { address?: Address; output?: Hex } | null
  error?: string
}

/** An account as a prestateTracer diff shows it: only the fields the tx changed (`post`) or their values before (`pre`). */
export interface PrestateAccount {
  balance?: Hex
  nonce?: number
  code?: Hex
  storage?: Record<Hex, Hex>
}

/**
 * What one tx changed, from Anvil's prestateTracer in diff mode: each account it touched before
 * (`pre`) and after (`post`), keyed by lowercase address; an account or slot it cleared shows in
 * `pre` only.
 */
export interface PrestateDiff {
  pre: Record<string, PrestateAccount>
  post: Record<string, PrestateAccount>
}

/** The `debug_trace*` options under which Anvil answers a `PrestateDiff` per tx. */
export interface PrestateDiffTracer {
  tracer: 'prestateTracer'
  tracerConfig: { diffMode: true }
}

/** The prestateTracer in diff mode: what refunds, sponsorships and the DEX world's storage moves are read from. */
export const PRESTATE_DIFF: PrestateDiffTracer = { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }

/** A call of a simulated block as `eth_simulateV1` takes it: hex quantities, the calldata as `input`. */
export interface SimulationCall {
  from: Address
  to?: Address
  value?: Hex
  gas: Hex
  nonce?: Hex
  input?: Hex
  /** Legacy and EIP-2930 txs; the others give the two EIP-1559 caps. */
  gasPrice?: Hex
  maxFeePerGas?: Hex
  maxPriorityFeePerGas?: Hex
  accessList?: AccessList
}

/** One block of an `eth_simulateV1` request: its environment, the state it overrides, its calls in order. */
export interface SimulatedBlockRequest {
  blockOverrides: { number: Hex; time: Hex; feeRecipient: Address; baseFeePerGas: Hex; gasLimit: Hex }
  stateOverrides: Record<Address, { code?: Hex; balance?: Hex }>
  calls: readonly SimulationCall[]
}

/** `eth_simulateV1`'s params: the blocks to simulate (with `validation`, a call must be able to pay, as a tx), on the state of `block`. */
export type SimulateV1Params = readonly [request: { blockStateCalls: readonly SimulatedBlockRequest[]; validation: boolean }, block: Hex | BlockTag]

/** A log a simulated call emitted. */
export interface SimulatedLog {
  address: Address
  topics: Hash[]
  data: Hex
}

/** How one call of a simulated block ran. Anvil answers a REVERT with `error.code` -3200 ("execution failed"); a halt names itself. */
export interface SimulatedCall {
  /** `0x1` when it succeeded. */
  status: Hex
  gasUsed: Hex
  /** The call's output, or its revert data. */
  returnData: Hex
  logs?: SimulatedLog[]
  error?: { code: number; message: string; data?: Hex }
}

/** One block of an `eth_simulateV1` answer, as far as it is read: its calls, in request order. */
export interface SimulatedBlock {
  calls: SimulatedCall[]
}

/** An unsigned tx for `eth_sendTransaction` from an account the node signs for (one it impersonates). */
export interface UnsignedTx {
  from: Address
  to?: Address
  value?: Hex
  data?: Hex
  gas?: Hex
  maxFeePerGas?: Hex
  maxPriorityFeePerGas?: Hex
}

/** A log as the node answers it (`eth_getLogs`): a mined log's every field, `null` where a pending one has none. */
export interface NodeLog {
  address: Address
  topics: Hash[]
  data: Hex
  blockNumber: Hex | null
  blockHash: Hash | null
  transactionHash: Hash | null
  transactionIndex: Hex | null
  logIndex: Hex | null
  removed: boolean
}

/** `eth_getLogs`' filter: one block by hash or a range of numbers; the contracts (absent: any), and per topic position its alternatives (`null`: any). */
export type LogFilter = ({ blockHash: Hash } | { fromBlock: Hex; toBlock: Hex }) & { address?: Address[]; topics?: Array<Hash[] | null> }

/** The part of `eth_config` (EIP-7910) bundlesim reads: the current fork's blob schedule (absent before Cancun). */
export interface ForkConfig {
  current?: { blobSchedule?: { max?: number } | null } | null
}

/**
 * Every method bundlesim calls on Anvil by name (rather than through one of viem's actions),
 * with its params and its result as Anvil sends them, in viem's `RpcSchema` form: the node
 * client (`nodeClient`) takes it as its `rpcSchema`, and `ChainClient`'s batches, pipelines
 * and WebSocket calls are typed by it (`NodeCall`, `NodeAnswer`). A new call to the node is
 * declared here first; the compiler then checks its params and its readers.
 *
 * Anvil answers `null` for a method with nothing to return.
 */
export type NodeRpcSchema = [
  { Method: 'eth_simulateV1'; Parameters: SimulateV1Params; ReturnType: SimulatedBlock[] },
  { Method: 'eth_getBalance'; Parameters: readonly [account: Address, block: Hex | BlockTag]; ReturnType: Hex },
  { Method: 'eth_getTransactionCount'; Parameters: readonly [account: Address, block: Hex | BlockTag]; ReturnType: Hex },
  { Method: 'eth_getCode'; Parameters: readonly [account: Address, block: Hex | BlockTag]; ReturnType: Hex },
  { Method: 'eth_getStorageAt'; Parameters: readonly [account: Address, slot: Hex, block: Hex | BlockTag]; ReturnType: Hex },
  { Method: 'eth_getTransactionReceipt'; Parameters: readonly [hash: Hash]; ReturnType: RpcTransactionReceipt | null },
  { Method: 'eth_estimateGas'; Parameters: readonly [call: { from: Address; to: Address; value: Hex }]; ReturnType: Hex },
  { Method: 'eth_sendRawTransaction'; Parameters: readonly [signed: Hex]; ReturnType: Hash },
  { Method: 'eth_sendTransaction'; Parameters: readonly [tx: UnsignedTx]; ReturnType: Hash },
  { Method: 'eth_config'; Parameters: readonly []; ReturnType: ForkConfig | null },
  /** A block by number with its txs' hashes (`null` past the head). */
  { Method: 'eth_getBlockByNumber'; Parameters: readonly [block: Hex | BlockTag, fullTxs: false]; ReturnType: RpcBlock<'latest', false> | null },
  { Method: 'eth_getLogs'; Parameters: readonly [filter: LogFilter]; ReturnType: NodeLog[] },
  /** Every receipt of a block, in block order (`null` past the head). */
  { Method: 'eth_getBlockReceipts'; Parameters: readonly [block: Hex | BlockTag]; ReturnType: RpcTransactionReceipt[] | null },
  { Method: 'trace_block'; Parameters: readonly [block: Hex | BlockTag]; ReturnType: TraceFrame[] },
  { Method: 'debug_traceTransaction'; Parameters: readonly [hash: Hash, tracer: PrestateDiffTracer]; ReturnType: PrestateDiff },
  { Method: 'debug_traceCall'; Parameters: readonly [call: { to: Address; data: Hex }, block: Hex | BlockTag, tracer: { tracer: 'prestateTracer' }]; ReturnType: Record<string, PrestateAccount> },
  { Method: 'debug_traceBlockByNumber'; Parameters: readonly [block: Hex, tracer: PrestateDiffTracer]; ReturnType: Array<{ txHash: Hash; result: PrestateDiff }> },
  { Method: 'anvil_nodeInfo'; Parameters: readonly []; ReturnType: { hardFork?: string } },
  { Method: 'anvil_setBalance'; Parameters: readonly [account: Address, wei: Hex]; ReturnType: null },
  { Method: 'anvil_setCode'; Parameters: readonly [account: Address, code: Hex]; ReturnType: null },
  { Method: 'anvil_rollback'; Parameters: readonly [blocks: number]; ReturnType: null },
  { Method: 'anvil_reset'; Parameters: readonly [options: { forking: { jsonRpcUrl: string; blockNumber: number } }]; ReturnType: null },
  { Method: 'anvil_setNonce'; Parameters: readonly [account: Address, nonce: Hex]; ReturnType: null },
  { Method: 'anvil_setStorageAt'; Parameters: readonly [account: Address, slot: Hex, value: Hex]; ReturnType: boolean },
  { Method: 'anvil_dropAllTransactions'; Parameters: readonly []; ReturnType: null },
  { Method: 'anvil_setNextBlockBaseFeePerGas'; Parameters: readonly [wei: Hex]; ReturnType: null },
  /** The gas limit of the blocks mined from now on. */
  { Method: 'evm_setBlockGasLimit'; Parameters: readonly [gas: Hex]; ReturnType: boolean },
  /** One block with what is in the pool, at this timestamp (seconds, or a hex quantity); answers `0x0`. */
  { Method: 'evm_mine'; Parameters: readonly [at: { timestamp: number } | Hex]; ReturnType: Hex },
  /** `false` when the snapshot is unknown (already used, or taken by an Anvil process since restarted). */
  { Method: 'evm_revert'; Parameters: readonly [snapshot: Hex]; ReturnType: boolean },
]

/** A method of `NodeRpcSchema`. */
export type NodeMethod = NodeRpcSchema[number]['Method']

type SchemaEntry<M extends NodeMethod> = Extract<NodeRpcSchema[number], { Method: M }>

/** What `method` takes as params. */
export type NodeParams<M extends NodeMethod> = SchemaEntry<M>['Parameters']

/** What `method` answers. */
export type NodeResult<M extends NodeMethod> = SchemaEntry<M>['ReturnType']

/** One JSON-RPC call of a declared method with its params (for `NodeMethod`: any of them). */
export type NodeCall<M extends NodeMethod = NodeMethod> = M extends NodeMethod ? { method: M; params: NodeParams<M> } : never

/** The node's answer to a call of `method`: its result, or its own error. */
export type NodeAnswer<M extends NodeMethod> = BatchAnswer<NodeResult<M>>

/** The answers to `Calls`, call for call: a list of one method's calls gives a list of its answers, a tuple a tuple. */
export type NodeAnswers<Calls extends readonly NodeCall[]> = { -readonly [K in keyof Calls]: Calls[K] extends { method: infer M extends NodeMethod } ? NodeAnswer<M> : never }

// Where JSON from the node becomes typed: `nodeAnswers`, `nodeAnswerGroups`, `nodeAnswer` and
// `nodeResult` below for what comes over bundlesim's own wires (batches, the pipeline, the
// WebSocket, canonical reads), and the node client's `request`, which viem types from the same
// schema. Nothing is checked at run time, as viem checks nothing of its own schema's answers:
// a slot reads thousands of them, and the schema says what Anvil sends.

/** The answers of a batch (or a pipeline) to `calls`, in call order, read as the schema says. */
export function nodeAnswers<const Calls extends readonly NodeCall[]>(_calls: Calls, answers: readonly BatchAnswer[]): NodeAnswers<Calls> {
  return answers as NodeAnswers<Calls>
}

/** The answers to lists of calls, list for list (`ChainClient.batchGroups`). */
export type NodeAnswerGroups<Groups extends ReadonlyArray<readonly NodeCall[]>> = { -readonly [G in keyof Groups]: NodeAnswers<Groups[G]> }

/** The answers of one batch of `groups`' calls (flattened in order), split back into the groups and read as the schema says (see `nodeAnswers`). */
export function nodeAnswerGroups<const Groups extends ReadonlyArray<readonly NodeCall[]>>(groups: Groups, answers: readonly BatchAnswer[]): NodeAnswerGroups<Groups> {
  let start = 0
  return groups.map((group) => answers.slice(start, (start += group.length))) as NodeAnswerGroups<Groups>
}

/** The node's answer to one call of `method`, read as the schema says (see `nodeAnswers`). */
export function nodeAnswer<M extends NodeMethod>(_method: M, answer: BatchAnswer): NodeAnswer<M> {
  return answer as NodeAnswer<M>
}

/** The result of one call of `method` (a reader that throws the node's errors), read as the schema says (see `nodeAnswers`). */
export function nodeResult<M extends NodeMethod>(_method: M, result: unknown): NodeResult<M> {
  return result as NodeResult<M>
}

/** A viem client whose `request` knows exactly the methods of `NodeRpcSchema`. */
export type NodeClient = Client<Transport, undefined, undefined, NodeRpcSchema>

/**
 * The node client over `transport`: `request` takes only declared methods, with their params,
 * and resolves with their result type.
 *
 * @example const frames = await nodeClient(transport).request({ method: 'trace_block', params: ['latest'] })
 */
export function nodeClient(transport: Transport): NodeClient {
  return createClient({ transport, rpcSchema: rpcSchema<NodeRpcSchema>() })
}
