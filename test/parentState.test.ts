import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchAnvil, type LaunchedAnvil } from '../src/chain/launchAnvil.js'
import { ChainClient } from '../src/chain/chainClient.js'
import { ParentState } from '../src/builder/parentState.js'
import { bundleGroup } from '../src/builder/groups.js'
import { decodeBundle } from '../src/bundle/decode.js'
import { recoverSenders } from '../src/bundle/verifySenders.js'
import { signTx } from './support/harness.js'

const COINBASE = '0x00000000000000000000000000000000000000c0'
let anvil: LaunchedAnvil
let chain: ChainClient

beforeAll(async () => {
  anvil = await launchAnvil({ host: '127.0.0.1', port: 0 })
  chain = new ChainClient(anvil.url)
})
afterAll(() => anvil?.stop())

describe('ParentState', () => {
  async function group() {
    const { bundle } = decodeBundle({ txs: [await signTx({ nonce: 0 })], revertingTxHashes: [], droppingTxHashes: [], refundTxHashes: [] }, { chainId: 31337, headBlock: 0n, boosted: false })
    await recoverSenders(bundle)
    return bundleGroup(bundle)
  }

  it('abandon() puts Anvil back on the parent after a simulated block was mined', async () => {
    const parent = await ParentState.capture(chain, COINBASE)
    const result = await parent.execute(parent.timestamp + 12n, [await group()])
    expect(result.ok).toBe(true)
    expect(await chain.blockNumber()).toBe(parent.number + 1n)

    await parent.abandon()
    expect(await chain.blockNumber()).toBe(parent.number)
    await parent.abandon() // once only: the snapshot is gone
    expect(await chain.blockNumber()).toBe(parent.number)
  })

  it('abandon() after commit keeps the committed block', async () => {
    const parent = await ParentState.capture(chain, COINBASE)
    const committed = await parent.commit(parent.timestamp + 12n, [await group()])
    expect(committed.ok).toBe(true)
    await parent.abandon()
    expect(await chain.blockNumber()).toBe(parent.number + 1n)
  })
})
