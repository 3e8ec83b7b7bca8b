import { toEventSelector, type Address, type Hash, type Hex } from 'viem'
import { normalizeAddress } from '../protocol/normalize.js'
import { logPool, reservesFromLog } from '../dex/decode.js'
import { amountOut, bestCycle, cyclesThrough, type PoolReserves } from '../dex/math.js'
import { backrunGas } from '../rivals/searcher.js'

/** A mined tx as the classifier reads it: its receipt's facts and its logs. */
export interface MinedTxFacts {
  hash: Hash
  from: Address
  /** What it called (null: it created a contract; absent where the reader does not need it). */
  to?: Address | null
  gasUsed: bigint
  effectiveGasPrice: bigint
  logs: ReadonlyArray<{ address: Address; topics: readonly Hex[]; data: Hex }>
}

export interface BlockFacts {
  number: number
  baseFee: bigint
  /** In block order. */
  txs: readonly MinedTxFacts[]
}

export interface ClassifyOptions {
  weth: Address
  /** The world's pools at the parent block. */
  parentPools: readonly PoolReserves[]
  /** Is this tx a user's swap (the flow's), i.e. a candidate opportunity? */
  isUserSwap(hash: Hash): boolean
  /** Smallest gap worth counting (wei): a backrun's gas at the block's base fee. */
  minGapWei: bigint
}

/**
 * The smallest gap the competition counts at a base fee: what a two-leg backrun's gas burns
 * (`backrunGas(2)`), the same for the market, the backtest's real blocks and ours.
 */
export function minimumGap(baseFee: bigint): bigint {
  return baseFee * backrunGas(2)
}

/** A user swap that left a gap, and the backrun that closed it (if any), before any accounting. */
export interface FoundOpportunity {
  blockNumber: number
  victim: Hash
  pool: Address
  gapWei: bigint
  /** The txs right after the swap, from one sender, trading the same pair; empty when nobody backran it. */
  backrun: MinedTxFacts[]
  /** A sandwich's first half: the txs right before the swap, from the backrun's sender, on the same pool; empty otherwise. */
  frontrun: MinedTxFacts[]
  /** What a sandwiched user lost: what it would have got on the pool as it was before the frontrun, less what it got. */
  userLoss: { token: Address; amount: bigint } | null
}

/** What the classifier knows of the mined block once it is read: the pools after it, for pricing tokens. */
export interface ClassifiedBlock {
  opportunities: FoundOpportunity[]
  /** The world's pools after the block's last tx. */
  poolsAfter: PoolReserves[]
}

/**
 * Every opportunity of a mined block, replayed from its pools' logs over the parent state: a
 * user swap after which a cycle through its pool (with another pool of the pair, any venue, or
 * in three hops: `cyclesThrough`) earned more than `minGapWei`, and the backrun — the next
 * txs, from one sender, trading the same pair — that closed it, if any.
 *
 * @example const { opportunities, poolsAfter } = classifyBlock(block, { weth, parentPools, isUserSwap, minGapWei })
 */
export function classifyBlock(block: BlockFacts, options: ClassifyOptions): ClassifiedBlock {
  const state = new Map(options.parentPools.map((p) => [p.address.toLowerCase(), p]))
  const touched = (tx: MinedTxFacts) => {
    const moved: PoolReserves[] = []
    for (const log of tx.logs) {
      const pool = state.get(logPool(log))
      const after = pool && reservesFromLog(log)
      if (pool && after) {
        const next = { ...pool, ...after }
        state.set(pool.address.toLowerCase(), next)
        if (!moved.some((m) => m.address === next.address)) moved.push(next)
      }
    }
    return moved
  }
  const touchedByTx = block.txs.map(() => [] as PoolReserves[])
  /** Each pool as it was before each tx (for a sandwiched user's loss: the pool before the frontrun). */
  const beforeTx: Array<Map<string, PoolReserves>> = []
  const gaps: Array<{ index: number; pool: PoolReserves; gap: bigint }> = []
  block.txs.forEach((tx, index) => {
    beforeTx[index] = new Map(state)
    touchedByTx[index] = touched(tx)
    if (!options.isUserSwap(tx.hash)) return
    for (const pool of touchedByTx[index]!) {
      const others = [...state.values()].filter((p) => p.address !== pool.address)
      const gap = bestCycle(options.weth, cyclesThrough(options.weth, pool, others))?.profit ?? 0n
      if (gap > options.minGapWei) gaps.push({ index, pool, gap })
    }
  })
  const opportunities = gaps.map(({ index, pool, gap }): FoundOpportunity => {
    const victim = block.txs[index]!
    const base: FoundOpportunity = { blockNumber: block.number, victim: victim.hash, pool: pool.address, gapWei: gap, backrun: [], frontrun: [], userLoss: null }
    const follower = block.txs[index + 1]
    if (!follower || options.isUserSwap(follower.hash)) return base
    const samePairPool = (p: PoolReserves) => p.token0 === pool.token0 && p.token1 === pool.token1
    const sender = follower.from.toLowerCase()
    let end = index + 1
    while (end < block.txs.length && block.txs[end]!.from.toLowerCase() === sender) end++
    if (!touchedByTx.slice(index + 1, end).some((pools) => pools.some(samePairPool))) return base
    const found = { ...base, backrun: block.txs.slice(index + 1, end) }
    // A sandwich: the same sender's txs right before the swap moved its pool.
    let start = index
    while (start > 0 && block.txs[start - 1]!.from.toLowerCase() === sender && !options.isUserSwap(block.txs[start - 1]!.hash)) start--
    const samePool = (p: PoolReserves) => p.address === pool.address
    if (start === index || !touchedByTx.slice(start, index).some((pools) => pools.some(samePool))) return found
    return { ...found, frontrun: block.txs.slice(start, index), userLoss: lossOf(beforeTx[start]!.get(pool.address.toLowerCase()), beforeTx[index]!.get(pool.address.toLowerCase()), pool) }
  })
  return { opportunities, poolsAfter: [...state.values()] }
}

/**
 * A sandwiched user's loss on `pool`, from the pool's reserves alone: its swap's input and
 * output are the reserves' changes across it (`before` → `after`, V2's Sync; V3's and V4's
 * virtual reserves, the input grossed up by the fee their liquidity does not keep — exact for
 * V2, to rounding within one tick range for V3 and V4), and what that input would have bought
 * on the pool as it was before the frontrun (`untouched`) less what it got is the loss, in the
 * token it bought.
 */
function lossOf(untouched: PoolReserves | undefined, before: PoolReserves | undefined, after: PoolReserves): { token: Address; amount: bigint } | null {
  if (!untouched || !before) return null
  const zeroIn = after.reserve0 > before.reserve0
  const added = zeroIn ? after.reserve0 - before.reserve0 : after.reserve1 - before.reserve1
  // A V2 pair keeps the fee in its reserves; V3's and V4's liquidity does not (fees accrue
  // apart), so their virtual reserves grew by the input less the fee.
  const amountIn = after.dex === 'uniswap-v3' || after.dex === 'uniswap-v4' ? (added * 1_000_000n) / BigInt(1_000_000 - after.fee) : added
  const got = zeroIn ? before.reserve1 - after.reserve1 : before.reserve0 - after.reserve0
  const alone = amountOut(untouched, zeroIn ? untouched.token0 : untouched.token1, amountIn)
  return { token: zeroIn ? after.token1 : after.token0, amount: alone > got ? alone - got : 0n }
}

/** Canonical WETH9's and ERC-20's events, as the accounting reads token moves. */
const TRANSFER = toEventSelector('Transfer(address,address,uint256)')
const DEPOSIT = toEventSelector('Deposit(address,uint256)')
const WITHDRAWAL = toEventSelector('Withdrawal(address,uint256)')

/** What the accounting needs beside the backrun's receipts. */
export interface AccountingFacts {
  weth: Address
  /** The block's base fee: the part of each tx's gas price that is burned. */
  baseFee: bigint
  /** The block's fee recipient. */
  coinbase: Address
  /** Every address the searcher controls (lowercase): senders, their contracts, registered addresses. */
  controlled: ReadonlySet<Address>
  /** The ETH balance change a tx made to an account (from the node's state diff of the tx). */
  balanceChange(txHash: Hash, account: Address): bigint
  /** Pools after the block, for the price of a token in WETH (the token's deepest V2 pool against WETH). */
  poolsAfter: readonly PoolReserves[]
  /** A token amount's worth in wei of WETH, when another price counts (a CEX-DEX trade's markout: the exchange's); default `priceInWeth` at `poolsAfter`. */
  value?: (token: Address, amount: bigint) => bigint
}

/** A backrun's money, decimal-free (wei). */
export interface BackrunAccount {
  /** Value change of every controlled address: ETH, WETH 1:1, other tokens at the pool price. Net of gas and payment. */
  profit: bigint
  /** What the backrun's txs gave the coinbase (priority fees and direct transfers), before the builder paid any of it back (a refund, a sponsorship). */
  grossPayment: bigint
  /** The base fee its txs burned. */
  gas: bigint
}

/**
 * The searcher's money over its backrun's txs (docs/market.md, Accounting): the value change
 * of every address it controls — ETH from the txs' state diffs (so gas, priority fees and
 * direct coinbase transfers are already taken out), WETH and other tokens from their
 * `Transfer` logs and WETH's `Deposit`/`Withdrawal`, tokens priced in WETH at the block's
 * pools. The payment is the coinbase's balance change over the same txs; the gas, the base fee
 * they burned.
 *
 * @example const { profit, grossPayment } = accountBackrun(backrunTxs, { weth, baseFee, coinbase, controlled, balanceChange, poolsAfter })
 */
export function accountBackrun(txs: readonly MinedTxFacts[], facts: AccountingFacts): BackrunAccount {
  const weth = facts.weth.toLowerCase()
  const tokenChange = new Map<Address, bigint>()
  const add = (token: Address, amount: bigint) => tokenChange.set(token, (tokenChange.get(token) ?? 0n) + amount)
  const mine = (topic: Hex | undefined) => topic !== undefined && facts.controlled.has(normalizeAddress(`0x${topic.slice(26)}`))
  let ether = 0n
  let grossPayment = 0n
  let gas = 0n
  for (const tx of txs) {
    for (const account of facts.controlled) ether += facts.balanceChange(tx.hash, account)
    grossPayment += facts.balanceChange(tx.hash, facts.coinbase)
    gas += tx.gasUsed * facts.baseFee
    for (const log of tx.logs) {
      const token = normalizeAddress(log.address)
      const [topic, first, second] = log.topics
      if (topic === TRANSFER && log.topics.length === 3) {
        const value = BigInt(log.data)
        if (mine(first)) add(token, -value)
        if (mine(second)) add(token, value)
      } else if (token === weth && topic === DEPOSIT && mine(first)) add(token, BigInt(log.data))
      else if (token === weth && topic === WITHDRAWAL && mine(first)) add(token, -BigInt(log.data))
    }
  }
  let tokens = 0n
  for (const [token, amount] of tokenChange) tokens += token === weth ? amount : facts.value ? facts.value(token, amount) : priceInWeth(token, amount, facts)
  return { profit: ether + tokens, grossPayment, gas }
}

/** A token amount in WETH at the mid price of its deepest V2 pool against WETH after the block; 0 without one. */
export function priceInWeth(token: Address, amount: bigint, facts: Pick<AccountingFacts, 'weth' | 'poolsAfter'>): bigint {
  const weth = normalizeAddress(facts.weth)
  const key = normalizeAddress(token)
  const reservesOf = (pool: PoolReserves) =>
    normalizeAddress(pool.token0) === key ? { token: pool.reserve0, weth: pool.reserve1 } : { token: pool.reserve1, weth: pool.reserve0 }
  const pools = facts.poolsAfter
    .filter((p) => p.dex === 'uniswap-v2')
    .filter((p) => (normalizeAddress(p.token0) === key && normalizeAddress(p.token1) === weth) || (normalizeAddress(p.token1) === key && normalizeAddress(p.token0) === weth))
    .map(reservesOf)
    .filter((r) => r.token > 0n)
  const deepest = pools.sort((a, b) => (b.weth > a.weth ? 1 : -1))[0]
  return deepest ? (amount * deepest.weth) / deepest.token : 0n
}
