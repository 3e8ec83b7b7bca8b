import { toHex, type Address, type Hash, type Hex } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import type { ChainLock } from '../chain/chainLock.js'
import { failureMessage } from '../bundle/failure.js'
import { recoverSenders } from '../bundle/verifySenders.js'
import type { Bundle, ShareBody } from '../bundle/types.js'
import { bundleGroup } from '../builder/execution/groups.js'
import { ParentState } from '../builder/execution/parentState.js'
import { shareRefunds } from '../builder/execution/shareRefunds.js'
import { inBackrunTerms } from '../builder/slot/backruns.js'
import { BlockStateDiff } from '../builder/execution/stateDiff.js'
import type { SimOptions } from './sendBundleSchema.js'
import { pendingBaseFee, setNextBaseFee } from '../chain/pendingBaseFee.js'

/** mev_simBundle's answer, the MEV-Share node's shape (quantities as hex). */
export interface SimBundleAnswer {
  success: boolean
  error?: string
  stateBlock: Hex
  mevGasPrice: Hex
  profit: Hex
  refundableValue: Hex
  gasUsed: Hex
  logs?: SimBodyLogs[]
}

/** Logs per body element: a tx's own, or a nested bundle's per element. */
export interface SimBodyLogs {
  txLogs?: RpcLog[]
  bundleLogs?: SimBodyLogs[]
}

interface RpcLog {
  address: Address
  topics: Hex[]
  data: Hex
  blockNumber: Hex
  transactionHash: Hash
  transactionIndex: Hex
  logIndex: Hex
  removed: boolean
}

export interface SimBundleDeps {
  chain: ChainClient
  lock: ChainLock
  coinbase: Address
  slotSeconds: number
}

/** A simOption the simulation cannot honour: the field and why (`-32602`). */
export class SimOptionRefused extends Error {}

/**
 * `mev_simBundle`: executes the bundle (a backrun's user tx first) for real as the next
 * block on the head state, under the chain lock, reads what it paid, and undoes it. `profit`
 * is what the builder keeps (coinbase gain less the refunds the body promises), `mevGasPrice`
 * that per gas, `refundableValue` what the top level's unrefunded elements paid (the value
 * refunds are percents of). A tx that reverts without `canRevert`, or is refused, answers
 * `success: false` with the builder's reason.
 *
 * @example const answer = await simShareBundle(deps, bundle, { timestamp: 1_700_000_012n })
 */
export async function simShareBundle(deps: SimBundleDeps, bundle: Bundle, options: SimOptions): Promise<SimBundleAnswer> {
  const run = deps.lock.write(() => simulate(deps, bundle, options))
  if (options.timeout === undefined) return run
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<SimBundleAnswer>((resolve) => {
    timer = setTimeout(() => resolve(failed(0n, `simulation timed out after ${options.timeout} ms (simOptions.timeout)`)), options.timeout)
  })
  try {
    return await Promise.race([run, timedOut])
  } finally {
    clearTimeout(timer)
  }
}

async function simulate(deps: SimBundleDeps, bundle: Bundle, options: SimOptions): Promise<SimBundleAnswer> {
  const { chain } = deps
  const problems = await recoverSenders(bundle)
  if (problems.length > 0) return failed(0n, failureMessage({ kind: 'Invalid', problems }))
  const head = await chain.latestBlock()
  if (options.parentBlock !== undefined && options.parentBlock !== 'latest' && options.parentBlock !== head.number) {
    throw new SimOptionRefused(`simOptions.parentBlock: bundlesim simulates on the head state only (block ${head.number}), not block ${options.parentBlock}`)
  }
  if (options.blockNumber !== undefined && options.blockNumber !== head.number + 1n) {
    throw new SimOptionRefused(`simOptions.blockNumber: the simulated block is the one after the head, ${head.number + 1n}, not ${options.blockNumber}`)
  }
  const coinbase = options.coinbase ?? (deps.coinbase.toLowerCase() as Address)
  const coinbaseOverridden = coinbase !== deps.coinbase.toLowerCase()
  const timestamp = options.timestamp ?? head.timestamp + BigInt(deps.slotSeconds)
  if (timestamp <= head.timestamp) throw new SimOptionRefused(`simOptions.timestamp: ${timestamp} must be after the head's timestamp ${head.timestamp}`)
  const parent = await ParentState.capture(chain, coinbase, undefined, { baseFee: options.baseFee })
  const pendingFee = await pendingBaseFee(chain)
  try {
    if (coinbaseOverridden) await chain.setCoinbase(coinbase)
    // No builder key here: the refunds are computed from the execution, not paid.
    const execution = await parent.execute(timestamp, [{ ...bundleGroup(bundle), mayDrop: () => false, bundle: {} }])
    // A backrun's user tx that fails is named by its event hash, as in the backrun's trace.
    if (!execution.ok) return failed(parent.number, failureMessage(inBackrunTerms({ bundle }, execution.failure)))
    const { block } = execution
    const [diff, receipts] = await Promise.all([
      BlockStateDiff.of(chain, block.number),
      Promise.all(bundle.txs.map((tx) => chain.public.getTransactionReceipt({ hash: tx.hash }))),
    ])
    const gasUsed = receipts.reduce((sum, r) => sum + r.gasUsed, 0n)
    if (options.gasLimit !== undefined && gasUsed > options.gasLimit) {
      return failed(parent.number, `the bundle uses ${gasUsed} gas, over simOptions.gasLimit ${options.gasLimit}`)
    }
    const gain = execution.coinbaseBalance - parent.coinbaseBalance
    const senders = new Map(bundle.txs.map((tx) => [tx.hash, tx.sender]))
    const body = bundle.mevShare?.body ?? { elements: bundle.txs.map((tx) => ({ kind: 'tx' as const, hash: tx.hash })), refund: [], refundConfig: [] }
    const refunds = shareRefunds(body, { gainOf: (hash) => diff.balanceChange(hash, coinbase), senderOf: (hash) => senders.get(hash) })
    const promised = [...refunds.byRecipient.values()].reduce((a, b) => a + b, 0n)
    const profit = gain - promised
    const logsOf = new Map(receipts.map((r) => [r.transactionHash, r.logs.map(rpcLog)]))
    return {
      success: true,
      stateBlock: toHex(parent.number),
      mevGasPrice: toHex(gasUsed > 0n && profit > 0n ? profit / gasUsed : 0n),
      profit: toHex(profit > 0n ? profit : 0n),
      refundableValue: toHex(refunds.refundableWei),
      gasUsed: toHex(gasUsed),
      logs: bodyLogs(body, logsOf),
    }
  } finally {
    await parent.release()
    if (coinbaseOverridden) await chain.setCoinbase(deps.coinbase)
    await setNextBaseFee(chain, pendingFee)
  }
}

function failed(stateBlock: bigint, error: string): SimBundleAnswer {
  return { success: false, error, stateBlock: toHex(stateBlock), mevGasPrice: '0x0', profit: '0x0', refundableValue: '0x0', gasUsed: '0x0' }
}

function bodyLogs(body: ShareBody, logsOf: ReadonlyMap<Hash, RpcLog[]>): SimBodyLogs[] {
  return body.elements.map((element) => (element.kind === 'tx' ? { txLogs: logsOf.get(element.hash) ?? [] } : { bundleLogs: bodyLogs(element.body, logsOf) }))
}

function rpcLog(log: { address: Address; topics: readonly Hex[]; data: Hex; blockNumber: bigint; transactionHash: Hash; transactionIndex: number; logIndex: number }): RpcLog {
  return {
    address: log.address,
    topics: [...log.topics],
    data: log.data,
    blockNumber: toHex(log.blockNumber),
    transactionHash: log.transactionHash,
    transactionIndex: toHex(log.transactionIndex),
    logIndex: toHex(log.logIndex),
    removed: false,
  }
}
