import type { Address, Hash, PublicClient } from 'viem'
import type { CompetitionOpportunity } from '../protocol/competition.js'
import type { WorldStatus } from '../protocol/harnessStatus.js'
import { normalizeAddress, normalizeHash } from '../protocol/normalize.js'
import { readReserves, type PoolRef } from '../dex/read.js'
import { accountBackrun, classifyBlock, priceInWeth, type FoundOpportunity, type MinedTxFacts } from './classify.js'
import { contendersFor, marginOf } from './contenders.js'
import { searcherOf, type BundleTrace } from '../bundle/trace.js'
import { backrunGas } from '../rivals/searcher.js'


export interface CompetitionRecorderDeps {
  /** Reads blocks, receipts and pools (the node itself: a block's receipts are not private once mined). */
  node: PublicClient
  /** The ETH balance changes of some txs of a mined block (the node's prestate diffs), read together. */
  balanceChanges(txHashes: readonly Hash[]): Promise<(txHash: Hash, account: Address) => bigint>
  world: Pick<WorldStatus, 'contracts' | 'pools'>
  names: { nameOf(address: Address | null): string | null; addressesWith(address: Address): Address[] }
  isUserSwap(hash: Hash): boolean
  /** The refunds a bundle earns after its block (BuilderNet's, bloXroute's), known once its block is mined. */
  refundsAfterBlock(bundleHash: Hash): ReadonlyArray<{ recipient: Address; amountWei: bigint }>
}

/**
 * Turns each mined block into the competition's opportunities (docs/market.md, Who won): the
 * gaps users' swaps left, the backrun that closed each with its searcher's money (accounted
 * over every address it controls), and every bundle that went for it. It remembers which
 * contracts each sender deployed, since those hold a searcher's funds.
 */
export class CompetitionRecorder {
  /** Contracts by deployer (lowercase), from every mined block's receipts since the market started. */
  private readonly deployed = new Map<string, Set<string>>()

  constructor(private readonly deps: CompetitionRecorderDeps) {}

  async opportunitiesOf(blockNumber: number, considered: ReadonlyArray<Readonly<BundleTrace>>): Promise<CompetitionOpportunity[]> {
    const { node, world } = this.deps
    const number = BigInt(blockNumber)
    const block = await node.getBlock({ blockNumber: number, includeTransactions: false })
    const receipts = await Promise.all(block.transactions.map((hash) => node.getTransactionReceipt({ hash })))
    for (const receipt of receipts) if (receipt.contractAddress) this.rememberDeployment(receipt.from, receipt.contractAddress)
    const baseFee = block.baseFeePerGas ?? 0n
    const weth = world.contracts.weth as Address
    const parentPools = await readReserves(node, world.pools as PoolRef[], number - 1n)
    const txs: MinedTxFacts[] = receipts.map((r) => ({ hash: r.transactionHash, from: r.from, gasUsed: r.gasUsed, effectiveGasPrice: r.effectiveGasPrice, logs: r.logs }))
    const { opportunities, poolsAfter } = classifyBlock({ number: blockNumber, baseFee, txs }, { weth, parentPools, isUserSwap: this.deps.isUserSwap, minGapWei: baseFee * backrunGas(2) })
    const balanceChange = await this.deps.balanceChanges(opportunities.flatMap((o) => [...o.frontrun, ...o.backrun].map((tx) => tx.hash)))
    const landed = considered.filter((t) => t.state === 'Landed' && t.blockNumber === number)
    return opportunities.map((found) => {
      const contenders = contendersFor(found.victim, found.backrun.map((tx) => tx.hash), considered as BundleTrace[], (a) => this.deps.names.nameOf(a))
      const margin = marginOf(contenders)
      const base: CompetitionOpportunity = {
        blockNumber,
        victim: found.victim,
        pool: found.pool,
        gapWei: found.gapWei.toString(),
        searcher: null,
        name: null,
        bundleHash: null,
        backrunTxs: [],
        frontrunTxs: [],
        userLossWei: null,
        profitWei: null,
        refundWei: null,
        builderPaymentWei: null,
        gasWei: null,
        marginWei: margin === null ? null : margin.toString(),
        contenders,
      }
      if (found.backrun.length === 0) return base
      const captor = landed.find((t) => t.bundle.txs.some((tx) => normalizeHash(tx.hash) === normalizeHash(found.backrun[0]!.hash)))
      const searcher = (captor && searcherOf(captor, found.victim)) ?? normalizeAddress(found.backrun[0]!.from)
      const controlled = this.controlledBy(searcher, found)
      const account = accountBackrun([...found.frontrun, ...found.backrun], { weth, baseFee, coinbase: block.miner, controlled, balanceChange, poolsAfter })
      const loss = found.userLoss && (found.userLoss.token.toLowerCase() === weth.toLowerCase() ? found.userLoss.amount : priceInWeth(found.userLoss.token, found.userLoss.amount, { weth, poolsAfter }))
      const refund = captor ? this.refundsTo(captor, controlled) : 0n
      return {
        ...base,
        searcher,
        name: this.deps.names.nameOf(searcher),
        bundleHash: captor?.bundle.hash ?? null,
        backrunTxs: found.backrun.map((tx) => tx.hash),
        frontrunTxs: found.frontrun.map((tx) => tx.hash),
        userLossWei: loss === null ? null : loss.toString(),
        profitWei: (account.profit + refund).toString(),
        refundWei: refund.toString(),
        builderPaymentWei: account.builderPayment.toString(),
        gasWei: account.gas.toString(),
      }
    })
  }

  /**
   * Every address whose value counts as the searcher's (docs/market.md, Accounting): the
   * backrun's senders, the contracts they deployed, and every address registered under the
   * same name as the searcher or a sender.
   */
  private controlledBy(searcher: Address, found: FoundOpportunity): Set<string> {
    const controlled = new Set<string>()
    const addWithName = (address: Address) => {
      for (const a of this.deps.names.addressesWith(address)) controlled.add(a.toLowerCase())
    }
    addWithName(searcher)
    for (const tx of [...found.frontrun, ...found.backrun]) addWithName(tx.from)
    for (const address of [...controlled]) for (const contract of this.deployed.get(address) ?? []) controlled.add(contract)
    return controlled
  }

  /** What a captor's refunds pay the searcher's addresses: its payouts in the block, and those owed after it. */
  private refundsTo(captor: Readonly<BundleTrace>, controlled: ReadonlySet<string>): bigint {
    const { refund, refunds } = captor.builderPayments
    const inBlock = (refunds ?? (refund ? [refund] : [])).map((r) => ({ recipient: r.recipient, amountWei: r.amountWei }))
    return [...inBlock, ...this.deps.refundsAfterBlock(captor.bundle.hash)]
      .filter((r) => controlled.has(r.recipient.toLowerCase()))
      .reduce((sum, r) => sum + r.amountWei, 0n)
  }

  private rememberDeployment(deployer: Address, contract: Address): void {
    const key = deployer.toLowerCase()
    let contracts = this.deployed.get(key)
    if (!contracts) this.deployed.set(key, (contracts = new Set()))
    contracts.add(contract.toLowerCase())
  }
}
