import { encodeFunctionData, type Address } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import type { SetupSender } from '../world/setupTxs.js'
import { offchainAggregatorAbi, offchainAggregatorCode } from './aggregatorArtifact.js'
import { feedProxyAbi, feedProxyCode } from './feedProxyArtifact.js'
import type { FeedDefinition } from './feeds.js'
import { FAULTY, observationsFor, oracleNetwork, transmitCalldata } from './report.js'

/** int192's largest value: the aggregator's maxAnswer when nothing bounds it. */
const INT192_MAX = 2n ** 191n - 1n
/** A transmit's gas: 21 observations and 7 signatures cost ~120k; generous. */
export const TRANSMIT_GAS = 400_000n

/**
 * Places each feed's aggregator and proxy (their code at the proxy's mainnet address and the
 * aggregator's), configures the oracles, and posts each feed's first round at `answers`: the
 * first report's tx a transmitter's, as every later one is. Mines its blocks through `setup`.
 *
 * @example await placeFeeds(setup, [MAINNET_FEEDS['ETH/USD']], { 'ETH/USD': 300000000000n })
 */
export async function placeFeeds(setup: SetupSender, feeds: readonly FeedDefinition[], answers: Readonly<Record<string, bigint>>): Promise<void> {
  for (const feed of feeds) {
    await setup.test.setCode({ address: feed.aggregator, bytecode: offchainAggregatorCode })
    await setup.test.setCode({ address: feed.proxy, bytecode: feedProxyCode })
    // Ether for the transmitters' gas, as the oracles' operators keep.
    for (const transmitter of oracleNetwork(feed.name).transmitters) await setup.test.setBalance({ address: transmitter.address, value: 100n * 10n ** 18n })
  }
  await setup.run(
    feeds.flatMap((feed) => {
      const network = oracleNetwork(feed.name)
      const signers = network.signerKeys.map((key) => privateKeyToAddress(key))
      const transmitters = network.transmitters.map((t) => t.address)
      return [
        { what: `configuring the ${feed.name} aggregator`, to: feed.aggregator, gas: 8_000_000n, data: encodeFunctionData({ abi: offchainAggregatorAbi, functionName: 'initialize', args: [feed.decimals, feed.description, 1n, INT192_MAX, signers, transmitters, FAULTY, network.configDigest] }) },
        { what: `pointing the ${feed.name} proxy at its aggregator`, to: feed.proxy, gas: 200_000n, data: encodeFunctionData({ abi: feedProxyAbi, functionName: 'initialize', args: [feed.aggregator] }) },
      ]
    }),
  )
  await setup.run(
    await Promise.all(
      feeds.map(async (feed) => {
        const network = oracleNetwork(feed.name)
        const answer = answers[feed.name]
        if (answer === undefined) throw new Error(`price feeds: no first answer for ${feed.name}`)
        const data = await transmitCalldata(network, { configDigest: network.configDigest, epoch: 1, round: 1, observations: observationsFor(answer), observers: network.signerKeys.map((_, i) => i) })
        return { what: `the ${feed.name} feed's first round`, to: feed.aggregator, from: network.transmitters[1]!.address as Address, gas: TRANSMIT_GAS, data }
      }),
    ),
  )
}
