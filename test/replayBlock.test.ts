import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address, Hash, Hex } from 'viem'
import { ChainClient } from '../src/chain/chainClient.js'
import { launchAnvil, type LaunchedAnvil } from '../src/chain/launchAnvil.js'
import { replayBlock, replayDivergence, replayRefusalMessage, type ReplayTx } from '../src/chain/replayBlock.js'
import { readSourceBlock, type SourceBlock } from '../src/replay/sourceBlock.js'
import { useBareChain } from './support/bareChain.js'
import { DEV_KEYS, REVERTER_CODE, signTx } from './support/harness.js'

/** A contract whose every call reverts (on the source chain); the replay's fork is given code that does not. */
const REVERTER: Address = '0x00000000000000000000000000000000000000ee'
const PAYEE: Address = '0x00000000000000000000000000000000000c0ffe'
const FEE_RECIPIENT: Address = '0x00000000000000000000000000000000000000f1'

const source = useBareChain(FEE_RECIPIENT)
let block: SourceBlock
const forks: LaunchedAnvil[] = []

/** A second Anvil forking the source at `at` (the replay's parent, as the backtest's is). */
async function forkAt(at: bigint): Promise<ChainClient> {
  const anvil = await launchAnvil({ host: '127.0.0.1', port: 0, forkUrl: source.chain.url, forkBlockNumber: at })
  forks.push(anvil)
  return new ChainClient(anvil.url)
}

beforeAll(async () => {
  const chain = source.chain
  await chain.node.request({ method: 'anvil_setCode', params: [REVERTER, REVERTER_CODE] })
  await chain.test.mine({ blocks: 1 })
  // Two transfers from two keys and a call that reverts, in one block.
  const raws = [await signTx({ nonce: 0, value: 5n }), await signTx({ key: DEV_KEYS[1], nonce: 0, value: 7n }), await signTx({ nonce: 1, to: REVERTER, data: '0x01' })]
  await chain.sendRawTransactionsInOrder(raws)
  await chain.node.request({ method: 'evm_mine', params: [{ timestamp: Number((await chain.latestBlock()).timestamp + 12n) }] })
  block = await readSourceBlock(chain.url, await chain.blockNumber())
})

afterAll(async () => {
  await Promise.all(forks.map((anvil) => anvil.stop()))
})

describe('replayBlock: a real block mined again on its parent', () => {
  it('leaves the state the real block left, checked against its receipts (the reverted call too)', async () => {
    expect(block.txs.map((tx) => tx.reverted)).toEqual([false, false, true])
    const fork = await forkAt(block.number - 1n)
    const replayed = await replayBlock(fork, block)
    expect(replayed).toEqual({ ok: true, hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    const head = await fork.latestBlock()
    expect({ number: head.number, timestamp: head.timestamp, baseFee: head.baseFeePerGas, miner: head.miner.toLowerCase(), txs: head.transactions }).toEqual({
      number: block.number,
      timestamp: block.timestamp,
      baseFee: block.baseFeePerGas,
      miner: FEE_RECIPIENT,
      txs: block.txs.map((tx) => tx.hash),
    })
    // The accounts the block touched hold what they hold on the source after it, to the wei.
    for (const account of [PAYEE, FEE_RECIPIENT, block.txs[0]!.from, block.txs[1]!.from]) {
      expect(await fork.balance(account), account).toBe(await source.chain.balanceAt(account, block.number))
    }
    // Not on its parent any more: refused, nothing mined.
    const again = await replayBlock(fork, block)
    expect(again).toEqual({ ok: false, refusal: { kind: 'NotOnParent', head: block.number } })
    expect(await fork.blockNumber()).toBe(block.number)
  })

  it('credits the block’s withdrawals after its txs, in gwei, several to one address summed', async () => {
    const fork = await forkAt(block.number - 1n)
    const withdrawals = [{ address: PAYEE, amountGwei: 3n }, { address: PAYEE, amountGwei: 4n }, { address: REVERTER, amountGwei: 1_000_000_000n }]
    expect((await replayBlock(fork, { ...block, withdrawals })).ok).toBe(true)
    expect(await fork.balance(PAYEE)).toBe((await source.chain.balanceAt(PAYEE, block.number)) + 7_000_000_000n)
    expect(await fork.balance(REVERTER)).toBe((await source.chain.balanceAt(REVERTER, block.number)) + 10n ** 18n)
  })

  it('refuses a block whose tx runs otherwise on this state, naming the tx and what differed', async () => {
    const fork = await forkAt(block.number - 1n)
    // The reverting contract's code is gone here: its call succeeds.
    await fork.node.request({ method: 'anvil_setCode', params: [REVERTER, '0x00'] })
    const replayed = await replayBlock(fork, block)
    expect(replayed.ok).toBe(false)
    if (replayed.ok) return
    expect(replayed.refusal).toMatchObject({ kind: 'Diverged', index: 2, hash: block.txs[2]!.hash })
    expect(replayRefusalMessage(replayed.refusal)).toBe(`tx 2 (${block.txs[2]!.hash}) ran otherwise than in the real block: it succeeded where it reverted`)
  })

  it('refuses a blob tx before sending anything (the block does not hold its blobs), and a tx the pool refuses', async () => {
    const fork = await forkAt(block.number - 1n)
    const blob = { ...block.txs[0]!, raw: `0x03${block.txs[0]!.raw.slice(4)}` as Hex }
    expect(await replayBlock(fork, { ...block, txs: [blob] })).toEqual({ ok: false, refusal: { kind: 'BlobTx', hash: blob.hash } })
    // Its sender cannot pay on this state (an earlier block of the run would have funded it, say).
    await fork.setBalance(block.txs[1]!.from, 0n)
    const refused = await replayBlock(fork, block)
    expect(refused.ok ? null : refused.refusal).toMatchObject({ kind: 'NotAdmitted', hash: block.txs[1]!.hash })
    expect(await fork.blockNumber()).toBe(block.number - 1n)
  })

  it('a node that fails a request of the replay is a refusal too, with its error: the caller resets the chain', async () => {
    const gone = new ChainClient('http://127.0.0.1:9', 2_000)
    const replayed = await replayBlock(gone, block)
    expect(replayed.ok ? null : replayed.refusal.kind).toBe('NodeFailed')
    expect(replayed.ok ? '' : replayRefusalMessage(replayed.refusal)).toMatch(/^the node failed the replay: /)
  })
})

describe('replayDivergence (pure)', () => {
  const tx = (hash: Hash, gasUsed: bigint, logs: ReplayTx['logs'] = []): ReplayTx => ({ hash, raw: '0x02', reverted: false, gasUsed, logs })
  const receipt = (hash: Hash, gasUsed: bigint, logs: ReplayTx['logs'] = [], status = '0x1') => ({ transactionHash: hash, status, gasUsed: `0x${gasUsed.toString(16)}`, logs }) as never
  const A = `0x${'a'.repeat(64)}` as Hash
  const B = `0x${'b'.repeat(64)}` as Hash
  const log = { address: PAYEE, topics: [`0x${'1'.repeat(64)}` as Hex], data: '0x05' as Hex }

  it('agrees when every receipt says what the real one said, whatever the case of the hex', () => {
    expect(replayDivergence([tx(A, 21_000n, [log])], [receipt(A.toUpperCase().replace('0X', '0x') as Hash, 21_000n, [{ ...log, address: PAYEE.toUpperCase().replace('0X', '0x') as Address }])])).toBeNull()
  })

  it('names the first difference: gas used, logs, another tx, a tx missing', () => {
    expect(replayDivergence([tx(A, 21_000n)], [receipt(A, 21_001n)])).toEqual({ kind: 'Diverged', index: 0, hash: A, what: 'gas used 21001, really 21000' })
    expect(replayDivergence([tx(A, 21_000n, [log])], [receipt(A, 21_000n, [{ ...log, data: '0x06' }])])).toEqual({ kind: 'Diverged', index: 0, hash: A, what: 'log 0 differs' })
    expect(replayDivergence([tx(A, 21_000n), tx(B, 21_000n)], [receipt(B, 21_000n)])?.index).toBe(0)
    expect(replayDivergence([tx(A, 21_000n), tx(B, 21_000n)], [receipt(A, 21_000n)])).toEqual({ kind: 'Diverged', index: 1, hash: B, what: 'the block holds no tx there (1 txs mined, 2 in the real block)' })
  })
})
