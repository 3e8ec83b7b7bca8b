import { createPublicClient, http, type Hash, type PublicClient } from 'viem'
import type { PriceFeed } from '../exchange/valuation.js'
import { offchainAggregatorAbi } from './aggregatorArtifact.js'
import { answerOf, updateDue, type FeedDefinition } from './feeds.js'
import { observationsFor, oracleNetwork, transmitCalldata, type OracleNetwork } from './report.js'
import { TRANSMIT_GAS } from './deploy.js'

/** A round sent: which feed, why, its answer, and the tx. */
export interface SentRound {
  feed: string
  reason: 'deviation' | 'heartbeat'
  answer: bigint
  epoch: number
  hash: Hash
}

/**
 * The feeds' oracle networks as the chain sees them: when a feed's price (the exchange's, at
 * the chain clock's time) has moved past its deviation threshold or its heartbeat has passed,
 * the round's transmitter (rotating by epoch, as OCR's leader does) sends a public `transmit`
 * tx through the harness's RPC, into the public mempool, like any wallet's. One round a feed
 * is in flight at a time: the next waits until it has landed.
 *
 * @example
 * const transmitter = new FeedTransmitter(feeds, rpcUrl, headers, chainId, prices, 2_000_000_000n)
 * await transmitter.round() // [{ feed: 'ETH/USD', reason: 'deviation', answer: 301512345678n, … }]
 */
export class FeedTransmitter {
  private readonly networks = new Map<string, OracleNetwork>()
  /** Each feed's round in flight: the epoch it carries and its tx. */
  private readonly inFlight = new Map<string, { epoch: number; hash: Hash }>()
  private readonly client: PublicClient

  constructor(
    readonly feeds: readonly FeedDefinition[],
    rpcUrl: string,
    headers: Readonly<Record<string, string>>,
    private readonly chainId: number,
    private readonly prices: PriceFeed,
    private readonly tipWei: bigint,
  ) {
    for (const feed of feeds) this.networks.set(feed.name, oracleNetwork(feed.name))
    this.client = createPublicClient({ transport: http(rpcUrl, { batch: true, fetchOptions: { headers: { ...headers } } }) }) as PublicClient
  }

  /** Checks every feed against the price now; sends the rounds due. */
  async round(): Promise<SentRound[]> {
    const nowMs = this.prices.nowMs()
    const head = await this.client.getBlock()
    const sent: SentRound[] = []
    for (const feed of this.feeds) {
      const [configDigest, epoch, , answer, updatedAt] = await this.client.readContract({ address: feed.aggregator, abi: offchainAggregatorAbi, functionName: 'latestTransmissionDetails' })
      // A round in flight waits until it lands, unless the chain no longer knows its tx (an Anvil restart's new chain, a dropped tx).
      const flying = this.inFlight.get(feed.name)
      if (flying !== undefined && flying.epoch > epoch && (await this.client.getTransaction({ hash: flying.hash }).catch(() => null))) continue
      this.inFlight.delete(feed.name)
      const answerNow = answerOf(this.prices.usdAt(feed.asset, nowMs), feed.decimals)
      const reason = updateDue(feed, { answer, updatedAt: Number(updatedAt) }, answerNow, Math.floor(nowMs / 1000))
      if (!reason) continue
      const network = this.networks.get(feed.name)!
      const next = epoch + 1
      const transmitter = network.transmitters[next % network.transmitters.length]!
      const data = await transmitCalldata(network, { configDigest, epoch: next, round: 1, observations: observationsFor(answerNow), observers: network.signerKeys.map((_, i) => i) })
      const nonce = await this.client.getTransactionCount({ address: transmitter.address, blockTag: 'pending' })
      const baseFee = head.baseFeePerGas ?? 0n
      const raw = await transmitter.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce, to: feed.aggregator, data, gas: TRANSMIT_GAS, maxPriorityFeePerGas: this.tipWei, maxFeePerGas: baseFee * 2n + this.tipWei })
      const hash = (await this.client.request({ method: 'eth_sendRawTransaction', params: [raw] })) as Hash
      this.inFlight.set(feed.name, { epoch: next, hash })
      sent.push({ feed: feed.name, reason, answer: answerNow, epoch: next, hash })
    }
    return sent
  }
}
