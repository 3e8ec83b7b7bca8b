import { keccak256, stringToHex, toHex, type Address, type Hash, type Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { ChainClient } from '../chain/chainClient.js'
import { PRESTATE_DIFF } from '../chain/nodeRpc.js'
import type { BundleTrace } from '../bundle/trace.js'
import { normalizeAddress } from '../protocol/normalize.js'
import type { SlotReport } from '../protocol/slotReport.js'
import type { BuilderProfile } from '../builder/fleet/profiles.js'
import { flatTaxRefunds, type IdentityPayment } from './flatTax.js'
import { refundPayout } from '../builder/execution/economicsPlan.js'
import type { DelayedRefund, DelayedRefundLedger } from './delayedRefunds.js'

/**
 * The refunds account's key, derived like the builders' (never one of Anvil's dev keys): it
 * pays delayed refunds, as `refunds.buildernet.eth` does on mainnet.
 */
export const REFUNDS_ACCOUNT_KEY = keccak256(stringToHex('bundlesim buildernet refunds'))

/**
 * The share of its priority fees a builder of bloXroute's Priority Fee Refund Program returns:
 * bloXroute's docs give no figure ("builders … bid competitively to return a portion of their
 * profit"); bundlesim's builders return 90 %, as MEV-Share's default refund.
 */
export const PRIORITY_FEE_REFUND_PERCENT = 90

/** Gas of a plain ETH transfer. */
const TRANSFER_GAS = 21_000n
/** The payout's tip: enough for any builder to take it. */
const PAYOUT_TIP_WEI = 1_000_000_000n

export interface RefundPayerDeps {
  chain: Pick<ChainClient, 'node'>
  chainId: number
  /** The run's builders with their coinbases and profiles, by name. */
  builders: ReadonlyArray<{ name: string; coinbase: Address; profile: Pick<BuilderProfile, 'refunds'> }>
  ledger: DelayedRefundLedger
  /** Puts a signed tx into the public mempool (a payout is a plain transfer any builder includes). */
  sendPublic(raw: Hex): Promise<Hash>
  /** Was this tx seen in the public mempool? (BuilderNet refunds nothing to a bundle of public txs only.) */
  wasPublic(hash: Hash): boolean
  onError(error: unknown): void
}

/**
 * Works out each mined block's delayed refunds and pays them in a later block (BuilderNet's
 * "out of block payment", bloXroute's refunds "paid on-chain … after inclusion"): after block
 * N is mined, the refunds of block N are recorded (`pending`), and those of earlier blocks are
 * sent as one transfer per recipient from the refunds account into the public mempool; when
 * the chain shows a transfer mined, its refunds are `received`. A block earns them only when the builder that built it pays them (its
 * profile: `delayed` for `refundPercent` bundles sent with `delayedRefund: true`, `byIdentity`
 * for the flat-tax share of each signing identity); any builder pays a bloXroute
 * `priority_fee_refund` bundle's share of its priority fees.
 */
export class RefundPayer {
  readonly account: PrivateKeyAccount = privateKeyToAccount(REFUNDS_ACCOUNT_KEY)
  private nonce: number | undefined

  constructor(private readonly deps: RefundPayerDeps) {}

  /** After a block is mined: payouts seen landed, this block's refunds recorded, earlier ones sent. */
  async onMined(report: SlotReport, considered: ReadonlyArray<Readonly<BundleTrace>>): Promise<void> {
    try {
      const block = BigInt(report.blockNumber)
      await this.confirmPayouts(block)
      this.deps.ledger.accrue(block, await this.owedBy(report, considered))
      await this.pay(block - 1n)
    } catch (error) {
      this.deps.onError(error)
    }
  }

  /** Payouts in flight that the chain shows mined: received, or owed again when the transfer reverted. */
  private async confirmPayouts(block: bigint): Promise<void> {
    for (const hash of this.deps.ledger.inFlight()) {
      const receipt = await this.deps.chain.node.request({ method: 'eth_getTransactionReceipt', params: [hash] })
      if (!receipt || BigInt(receipt.blockNumber) > block) continue
      if (receipt.status === '0x1') this.deps.ledger.received(hash, BigInt(receipt.blockNumber))
      else this.deps.ledger.unsent(hash)
    }
  }

  /**
   * After Anvil came back (a restart, a new chain): the account's nonce is read again, and a
   * payout the chain does not hold is owed again (the public mempool was cleared with it).
   */
  async recovered(): Promise<void> {
    this.nonce = undefined
    for (const hash of this.deps.ledger.inFlight()) {
      const receipt = await this.deps.chain.node.request({ method: 'eth_getTransactionReceipt', params: [hash] })
      if (!receipt) this.deps.ledger.unsent(hash)
    }
  }

  /** What the mined block owes: its builder's delayed refunds by its profile, and bloXroute's priority-fee refunds. */
  private async owedBy(report: SlotReport, considered: ReadonlyArray<Readonly<BundleTrace>>): Promise<Array<Omit<DelayedRefund, 'status' | 'blockNumber'>>> {
    const builder = report.builder === undefined ? this.deps.builders[0] : this.deps.builders.find((b) => b.name === report.builder)
    if (!builder || !report.won) return []
    const { refunds } = builder.profile
    const block = BigInt(report.blockNumber)
    const landed = considered.filter((t) => t.state === 'Landed' && t.blockNumber === block)
    const paysAny = landed.some((t) => refunds.byIdentity || t.bundle.priorityFeeRefund || (refunds.delayed && t.bundle.delayedRefund))
    if (!paysAny) return []
    const mined = await this.deps.chain.node.request({ method: 'eth_getBlockByNumber', params: [toHex(block), false] })
    const baseFee = BigInt(mined?.baseFeePerGas ?? '0x0')
    const owed: Array<Omit<DelayedRefund, 'status' | 'blockNumber'>> = []
    // Flat-tax contributions by signing key (BuilderNet's identity), each bundle's share paid to its refundIdentity.
    const payments: Array<IdentityPayment & { bundleHash: Hash; recipient: Address }> = []
    for (const trace of landed) {
      const order = trace.bundle
      if (order.priorityFeeRefund) {
        const recipient = order.refundRecipient ?? order.txs[0]!.sender
        if (!recipient) continue
        const tips = await this.priorityFeesOf(order.txs.map((tx) => tx.hash), baseFee)
        owed.push({ recipient, amountWei: (tips * BigInt(PRIORITY_FEE_REFUND_PERCENT)) / 100n, bundleHash: order.hash, reason: 'priorityFeeRefund', builder: builder.name })
      } else if (refunds.delayed && order.delayedRefund && order.refundPercent) {
        const txHash = order.refundTxHashes[0] ?? order.txs.at(-1)!.hash
        const recipient = order.refundRecipient ?? order.txs[0]!.sender
        if (!recipient) continue
        // As in the block: the payout's own gas (BuilderNet's example: "0.01 ETH in fees, deducted from the 0.6 ETH payout").
        const amountWei = refundPayout(await this.coinbaseGainOf(txHash, builder.coinbase), order.refundPercent, TRANSFER_GAS * baseFee, refunds.rule)
        owed.push({ recipient, amountWei, bundleHash: order.hash, reason: 'refundPercent', builder: builder.name })
      } else if (refunds.byIdentity && trace.searcher && !order.refundPercent && order.kind !== 'privateTx' && order.kind !== 'mevShare' && !order.txs.every((tx) => this.deps.wasPublic(tx.hash))) {
        payments.push({ identity: trace.searcher, paymentWei: trace.builderPayment, bundleHash: order.hash, recipient: order.refundIdentity ?? trace.searcher })
      }
    }
    if (payments.length > 0) {
      const own = report.builders?.find((b) => b.name === builder.name)
      // What the block keeps is its value less the refunds it already owes (refundPercent, bloXroute's).
      const alreadyOwed = owed.reduce((sum, r) => sum + r.amountWei, 0n)
      const blockValueWei = BigInt(own?.value ?? report.value) - alreadyOwed
      const otherBids = [...(report.builders ?? []).filter((b) => b.name !== builder.name).map((b) => BigInt(b.value)), ...(report.competitorBid === null ? [] : [BigInt(report.competitorBid)])]
      const winningBidFloorWei = otherBids.reduce((a, b) => (b > a ? b : a), 0n)
      const shares = flatTaxRefunds({ blockValueWei, winningBidFloorWei, payments })
      // An identity's share, spread over its bundles by what each paid (for `hash` queries), each to its refundIdentity.
      for (const [identity, share] of shares) {
        const its = payments.filter((p) => p.identity === identity)
        const paid = its.reduce((a, p) => a + p.paymentWei, 0n)
        let left = share
        its.forEach((p, i) => {
          const amountWei = i === its.length - 1 ? left : (share * p.paymentWei) / paid
          left -= amountWei
          owed.push({ recipient: p.recipient, amountWei, bundleHash: p.bundleHash, reason: 'flatTax', builder: builder.name })
        })
      }
    }
    return owed
  }

  /** The priority fees some txs of a mined block paid: (effective gas price − base fee) × gas used, from their receipts. */
  private async priorityFeesOf(hashes: readonly Hash[], baseFee: bigint): Promise<bigint> {
    let tips = 0n
    for (const hash of hashes) {
      const receipt = await this.deps.chain.node.request({ method: 'eth_getTransactionReceipt', params: [hash] })
      if (receipt) tips += (BigInt(receipt.effectiveGasPrice) - baseFee) * BigInt(receipt.gasUsed)
    }
    return tips
  }

  /** What a tx of the mined block paid the coinbase (its prestate diff: the coinbase's balance after less before). */
  private async coinbaseGainOf(txHash: Hash, coinbase: Address): Promise<bigint> {
    const diff = await this.deps.chain.node.request({ method: 'debug_traceTransaction', params: [txHash, PRESTATE_DIFF] })
    const key = Object.keys(diff.post).find((address) => normalizeAddress(address) === normalizeAddress(coinbase))
    if (key === undefined) return 0n
    const before = Object.entries(diff.pre).find(([address]) => normalizeAddress(address) === normalizeAddress(coinbase))?.[1].balance
    const after = diff.post[key]!.balance
    if (after === undefined) return 0n
    return BigInt(after) - BigInt(before ?? '0x0')
  }

  /** Sends the refunds earned at or before `block`, one transfer per recipient. */
  private async pay(block: bigint): Promise<void> {
    const due = this.deps.ledger.payable(block)
    if (due.size === 0) return
    const { node } = this.deps.chain
    const head = await node.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })
    const baseFee = BigInt(head?.baseFeePerGas ?? '0x0')
    this.nonce ??= Number(await node.request({ method: 'eth_getTransactionCount', params: [this.account.address, 'latest'] }))
    for (const [recipient, refunds] of due) {
      const value = refunds.reduce((a, r) => a + r.amountWei, 0n)
      // A recipient that is a contract (a Safe) may need more than a plain transfer's gas; one that refuses ETH is tried again next block.
      const gas = await node.request({ method: 'eth_estimateGas', params: [{ from: this.account.address, to: recipient, value: toHex(value) }] }).then((hex) => BigInt(hex), () => undefined)
      if (gas === undefined) {
        this.deps.onError(new Error(`delayed refund of ${value} wei to ${recipient}: the transfer would revert; tried again next block`))
        continue
      }
      const raw = await this.account.signTransaction({
        chainId: this.deps.chainId,
        type: 'eip1559',
        to: recipient,
        value,
        nonce: this.nonce,
        gas,
        maxPriorityFeePerGas: PAYOUT_TIP_WEI,
        maxFeePerGas: baseFee * 2n + PAYOUT_TIP_WEI,
      })
      const hash = await this.deps.sendPublic(raw)
      this.nonce++
      this.deps.ledger.sent(refunds, hash)
    }
  }
}
