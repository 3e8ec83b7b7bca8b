import { beforeAll, describe, expect, it } from 'vitest'
import { useBareChain } from './support/bareChain.js'
import type { ChainClient } from '../src/chain/chainClient.js'
import { ParentState } from '../src/builder/execution/parentState.js'
import { bundleGroup } from '../src/builder/execution/groups.js'
import { decodeBundle } from '../src/bundle/decode.js'
import { withRecoveredSenders } from '../src/bundle/verifySenders.js'
import { DEV_KEYS, addressOf, signTx } from './support/harness.js'

const COINBASE = '0x00000000000000000000000000000000000000c0'
const bare = useBareChain()
let chain: ChainClient

beforeAll(() => {
  chain = bare.chain
})

describe('ParentState', () => {
  /** A one-tx bundle from dev key 0 with its next nonce on the head. */
  async function group() {
    const nonce = await chain.nonce(addressOf(DEV_KEYS[0]), await chain.blockNumber())
    const { bundle } = decodeBundle({ txs: [await signTx({ nonce })], revertingTxHashes: [], droppingTxHashes: [], refundTxHashes: [] }, { chainId: 31337, headBlock: 0n, boosted: false })
    return bundleGroup((await withRecoveredSenders(bundle)).bundle)
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

  it('on a snapshotted parent, commit executes the block again rather than leave the snapshot behind', async () => {
    const parent = await ParentState.capture(chain, COINBASE)
    const txs = [await group()]
    const executed = await parent.execute(parent.timestamp + 12n, txs)
    const committed = await parent.commit(parent.timestamp + 12n, txs, executed.ok ? executed : undefined)
    expect(committed.ok).toBe(true)
    expect(committed).not.toBe(executed)
    expect(await chain.blockNumber()).toBe(parent.number + 1n)
  })

  it('abandon() after commit keeps the committed block', async () => {
    const parent = await ParentState.capture(chain, COINBASE)
    const committed = await parent.commit(parent.timestamp + 12n, [await group()])
    expect(committed.ok).toBe(true)
    await parent.abandon()
    expect(await chain.blockNumber()).toBe(parent.number + 1n)
  })

  describe('on a head this Anvil mined (undone by rollback)', () => {
    async function minedHead() {
      await chain.test.mine({ blocks: 1 })
      return (await chain.latestBlock()).hash
    }

    it('executions are rolled back, and commit keeps the last one as it is', async () => {
      const parent = await ParentState.capture(chain, COINBASE, undefined, { minedHere: await minedHead() })
      const txs = [await group()]
      const first = await parent.execute(parent.timestamp + 12n, txs)
      const second = await parent.execute(parent.timestamp + 12n, txs)
      expect(first.ok && second.ok).toBe(true)
      expect(await chain.blockNumber()).toBe(parent.number + 1n)

      const committed = await parent.commit(parent.timestamp + 12n, txs, second.ok ? second : undefined)
      expect(committed).toBe(second)
      expect((await chain.latestBlock()).hash).toBe(second.ok && second.block.hash)
    })

    it('an earlier execution is executed again on commit; release leaves the parent with the edits made on it', async () => {
      const account = '0x00000000000000000000000000000000000ed175'
      const head = await minedHead()
      // A cheat between slots edits the head state in place: the rollback must not lose it.
      await chain.setBalance(account, 12345n)
      const parent = await ParentState.capture(chain, COINBASE, undefined, { minedHere: head })
      const txs = [await group()]
      const first = await parent.execute(parent.timestamp + 12n, txs)
      await parent.execute(parent.timestamp + 12n, [])
      const committed = await parent.commit(parent.timestamp + 12n, txs, first.ok ? first : undefined)
      expect(committed.ok && committed.block.txs.size).toBe(1)
      expect(committed).not.toBe(first)
      expect(await chain.balance(account)).toBe(12345n)

      const next = await ParentState.capture(chain, COINBASE, undefined, { minedHere: committed.ok ? committed.block.hash : undefined })
      await next.execute(next.timestamp + 12n, [])
      await next.release()
      expect(await chain.blockNumber()).toBe(next.number)
      expect(await chain.balance(account)).toBe(12345n)
    })
  })
})
