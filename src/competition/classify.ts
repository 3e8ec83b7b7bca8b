import { toEventSelector, type Address, type Hash, type Hex } from 'viem'
import { normalizeAddress } from '../protocol/normalize.js'
import { reservesFromLog } from '../dex/decode.js'
import { bestRoundTrip, type PoolReserves } from '../dex/math.js'
import { samePair } from '../dex/read.js'
import type { CompetitionOpportunity } from '../protocol/competition.js'

/** A mined tx as the classifier reads it: its receipt's facts and its logs. */
export interface MinedTxFacts {
  hash: Hash
  from: Address
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
  /** The searcher behind a tx: the signing key of the bundle it landed in, else null (then its sender counts). */
  signerOf(hash: Hash): Address | null
  nameOf(searcher: Address): string | null
  /** Smallest gap worth counting (wei): a backrun's gas at the block's base fee. */
  minGapWei: bigint
}

const ERC20_TRANSFER = toEventSelector('Transfer(address,address,uint256)')

/**
 * Every opportunity of a mined block, replayed from its pools' logs over the parent state: a
 * user swap after which a V2↔V3 round trip earned more than `minGapWei`, and the backrun —
 * the next txs, from one sender, trading the same pair — that closed it, if any.
 *
 * @example classifyBlock(block, { weth, parentPools, isUserSwap, signerOf, nameOf, minGapWei })
 */
export function classifyBlock(block: BlockFacts, options: ClassifyOptions): CompetitionOpportunity[] {
  const state = new Map(options.parentPools.map((p) => [p.address.toLowerCase(), p]))
  const touched = (tx: MinedTxFacts) => {
    const moved: PoolReserves[] = []
    for (const log of tx.logs) {
      const pool = state.get(log.address.toLowerCase())
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
  const gaps: Array<{ index: number; pool: PoolReserves; gap: bigint }> = []
  block.txs.forEach((tx, index) => {
    touchedByTx[index] = touched(tx)
    if (!options.isUserSwap(tx.hash)) return
    for (const pool of touchedByTx[index]!) {
      const others = samePair([...state.values()], pool)
      const gap = others.reduce((best, other) => {
        const trip = bestRoundTrip(options.weth, pool, other)
        return trip && trip.profit > best ? trip.profit : best
      }, 0n)
      if (gap > options.minGapWei) gaps.push({ index, pool, gap })
    }
  })
  return gaps.map(({ index, pool, gap }) => {
    const victim = block.txs[index]!
    const samePairPool = (p: PoolReserves) => p.token0 === pool.token0 && p.token1 === pool.token1
    const follower = block.txs[index + 1]
    const base: CompetitionOpportunity = { blockNumber: block.number, victim: victim.hash, pool: pool.address, gapWei: gap.toString(), searcher: null, name: null, backrunTxs: [], profitWei: null, builderPaymentWei: null }
    if (!follower || options.isUserSwap(follower.hash)) return base
    // The backrun: the txs right after the swap from one sender, trading the same pair.
    let end = index + 1
    while (end < block.txs.length && block.txs[end]!.from.toLowerCase() === follower.from.toLowerCase()) end++
    if (!touchedByTx.slice(index + 1, end).some((pools) => pools.some(samePairPool))) return base
    const backrun = block.txs.slice(index + 1, end)
    const sender = normalizeAddress(follower.from)
    let weth = 0n
    let gas = 0n
    let tips = 0n
    for (const tx of backrun) {
      gas += tx.gasUsed * tx.effectiveGasPrice
      tips += tx.gasUsed * (tx.effectiveGasPrice - block.baseFee)
      for (const log of tx.logs) {
        if (log.address.toLowerCase() !== options.weth.toLowerCase() || log.topics[0] !== ERC20_TRANSFER || log.topics.length < 3) continue
        const from = `0x${log.topics[1]!.slice(26)}`
        const to = `0x${log.topics[2]!.slice(26)}`
        const value = BigInt(log.data)
        if (to === sender) weth += value
        if (from === sender) weth -= value
      }
    }
    const searcher = normalizeAddress(options.signerOf(follower.hash) ?? sender)
    return { ...base, searcher, name: options.nameOf(searcher), backrunTxs: backrun.map((t) => t.hash), profitWei: (weth - gas).toString(), builderPaymentWei: tips.toString() }
  })
}
