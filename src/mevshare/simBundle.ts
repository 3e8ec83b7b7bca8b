import { toHex, type Address, type Hash, type Hex } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import type { ChainLock } from '../chain/chainLock.js'
import { failureMessage, inBackrunTerms } from '../bundle/failure.js'
import { withRecoveredSenders } from '../bundle/verifySenders.js'
import type { Bundle } from '../bundle/types.js'
import { bundleGroup } from '../builder/execution/groups.js'
import { ParentState } from '../builder/execution/parentState.js'
import { BlockStateDiff } from '../builder/execution/stateDiff.js'
import type { SimOptions } from '../protocol/mevShareParams.js'
import { pendingBaseFee, setNextBaseFee } from '../chain/pendingBaseFee.js'
import { failedSim, failedSimOn, shareSimAnswer, SimOptionRefused, type RpcLog, type SimBundleAnswer } from './simBundleAnswer.js'
import { simShareBundleOnPastState } from './simBundleOnPastState.js'
import { normalizeAddress } from '../protocol/normalize.js'

export { SimOptionRefused, type SimBodyLogs, type SimBundleAnswer } from './simBundleAnswer.js'

export interface SimBundleDeps {
  chain: ChainClient
  lock: ChainLock
  coinbase: Address
  slotSeconds: number
}

/**
 * `mev_simBundle`: simulates the bundle (a backrun's user tx first) as the block after
 * `simOptions.parentBlock` (default: the head). On the head it executes the bundle for real as
 * the next block, under the chain lock, reads what it paid, and undoes it; on an older block
 * the node still holds it runs the txs as calls there (`simShareBundleOnPastState`). `profit`
 * is what the builder keeps (coinbase gain less the refunds the body promises), `mevGasPrice`
 * that per gas, `refundableValue` what the top level's unrefunded elements paid (the value
 * refunds are percents of). A tx that reverts without `canRevert`, or is refused, answers
 * `success: false` with the builder's reason; a block not mined yet is refused (-32602).
 *
 * @example const answer = await simShareBundle(deps, bundle, { timestamp: 1_700_000_012n })
 */
export async function simShareBundle(deps: SimBundleDeps, bundle: Bundle, options: SimOptions): Promise<SimBundleAnswer> {
  const run = simulate(deps, bundle, options)
  if (options.timeout === undefined) return run
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<SimBundleAnswer>((resolve) => {
    timer = setTimeout(() => resolve(failedSim(0n, `simulation timed out after ${options.timeout} ms (simOptions.timeout)`)), options.timeout)
  })
  try {
    return await Promise.race([run, timedOut])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The block whose state the bundle runs on: `simOptions.parentBlock`, else the one before
 * `simOptions.blockNumber`, else the head (undefined). Both given must agree.
 *
 * @example requestedParent({ blockNumber: 42n }) // 41n
 */
export function requestedParent(options: Pick<SimOptions, 'parentBlock' | 'blockNumber'>): bigint | undefined {
  const parent = options.parentBlock === 'latest' ? undefined : options.parentBlock
  if (parent !== undefined && options.blockNumber !== undefined && options.blockNumber !== parent + 1n) {
    throw new SimOptionRefused(`simOptions.blockNumber: the simulated block is the one after simOptions.parentBlock ${parent}, ${parent + 1n}, not ${options.blockNumber}`)
  }
  if (parent !== undefined) return parent
  if (options.blockNumber === undefined) return undefined
  if (options.blockNumber < 1n) throw new SimOptionRefused('simOptions.blockNumber: block 0 has no parent state to simulate on')
  return options.blockNumber - 1n
}

async function simulate(deps: SimBundleDeps, sent: Bundle, options: SimOptions): Promise<SimBundleAnswer> {
  const { bundle, problems } = await withRecoveredSenders(sent)
  if (problems.length > 0) return failedSim(0n, failureMessage({ kind: 'Invalid', problems }))
  const parent = requestedParent(options)
  const head = await deps.chain.blockNumber()
  if (parent !== undefined && parent > head) {
    const field = options.parentBlock !== undefined && options.parentBlock !== 'latest' ? 'simOptions.parentBlock' : 'simOptions.blockNumber'
    throw new SimOptionRefused(`${field}: block ${parent} is not mined yet (the head is ${head}): bundlesim simulates on the state of the head or of an older block`)
  }
  // A past state never changes: calls there need only the read side; the head path mines, and
  // takes the write side (if the head moved on meanwhile, the named block is a past one by then).
  if (parent !== undefined && parent < head) return deps.lock.read(() => simShareBundleOnPastState(deps, bundle, parent, options))
  return deps.lock.write(async () => {
    const latest = await deps.chain.latestBlock()
    if (parent !== undefined && parent !== latest.number) return simShareBundleOnPastState(deps, bundle, parent, options)
    return simulateOnHead(deps, bundle, options, latest)
    // A what-if: the simulated block is undone, the chain's state is as it was.
  }, { keepsState: true })
}

async function simulateOnHead(deps: SimBundleDeps, bundle: Bundle, options: SimOptions, head: { number: bigint; timestamp: bigint }): Promise<SimBundleAnswer> {
  const { chain } = deps
  const coinbase = options.coinbase ?? normalizeAddress(deps.coinbase)
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
    if (!execution.ok) return failedSimOn(parent.number, inBackrunTerms({ bundle }, execution.failure))
    const { block } = execution
    const [diff, receipts] = await Promise.all([
      BlockStateDiff.of(chain, block.number),
      Promise.all(bundle.txs.map((tx) => chain.public.getTransactionReceipt({ hash: tx.hash }))),
    ])
    return shareSimAnswer(
      bundle,
      {
        stateBlock: parent.number,
        coinbaseGain: execution.coinbaseBalance - parent.coinbaseBalance,
        gainOf: (hash) => diff.balanceChange(hash, coinbase),
        gasUsed: receipts.reduce((sum, r) => sum + r.gasUsed, 0n),
        logsOf: new Map(receipts.map((r) => [r.transactionHash, r.logs.map(rpcLog)])),
      },
      options,
    )
  } finally {
    await parent.release()
    if (coinbaseOverridden) await chain.setCoinbase(deps.coinbase)
    await setNextBaseFee(chain, pendingFee)
  }
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
