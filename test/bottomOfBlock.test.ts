import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { keccak256, type Address, type Hash, type Hex } from 'viem'
import type { HarnessStatus } from '../src/protocol/harnessStatus.js'
import type { StateDiffMessage } from '../src/protocol/bobParams.js'
import { blockUuid } from '../src/builder/slot/stateDiffStream.js'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, rpc, setCode, signTx, stats, useTestHarness } from './support/harness.js'

/**
 * Bottom-of-block bundles as Titan's and BuilderNet's TEE searchers use them: a searcher
 * subscribes to `flashbots_stateDiffs` on a builder's URL, reads the block it streams, and
 * answers with `eth_sendBobBundle` for that block's uuid over the same WebSocket; the builder's
 * window closes on that answer (never on a guessed time: the window here is far longer than a
 * test), and the bundle lands as the block's last tx. Real Anvil, real HTTP and WebSocket.
 */

/** A pool whose every call changes its storage: slot 0 += 1 (PUSH1 0 SLOAD PUSH1 1 ADD PUSH1 0 SSTORE STOP). */
const POOL: Address = '0x00000000000000000000000000000000000b0b01'
const COUNTER_CODE: Hex = '0x60005460010160005500'
const REVERTER: Address = '0x00000000000000000000000000000000000b0b02'
const SLOT0: Hex = `0x${'00'.repeat(32)}`

const harness = useTestHarness({ bobWindowMs: 30_000 }, async (started) => {
  await setCode(started, POOL, COUNTER_CODE)
  await setCode(started, REVERTER, REVERTER_CODE)
})

const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const callTo = (key: Hex, nonce: number, to: Address) => signTx({ key, nonce, to, value: 0n, data: '0x01', gas: 60_000n })
const builderUrl = async () => (await call<HarnessStatus>(harness.rpcUrl, 'harness_status')).builders[0]!

/** A searcher's bot on one WebSocket: JSON-RPC calls answered by id, `flashbots_stateDiffs` messages to `onBlock`. */
class BobBot {
  private nextId = 1
  private readonly waiting = new Map<number, (reply: { result?: unknown; error?: { message: string } }) => void>()
  readonly blocks: StateDiffMessage[] = []
  onBlock: (message: StateDiffMessage) => void = () => undefined

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data))
      if (message.method === 'eth_subscription') {
        this.blocks.push(message.params.result)
        this.onBlock(message.params.result)
      } else this.waiting.get(message.id)?.(message)
    })
  }

  static async connect(url: string): Promise<BobBot> {
    const socket = new WebSocket(url.replace(/^http/, 'ws'))
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    return new BobBot(socket)
  }

  request(method: string, params: unknown[]): Promise<{ result?: any; error?: { message: string } }> {
    const id = this.nextId++
    return new Promise((resolve) => {
      this.waiting.set(id, resolve)
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  close(): void {
    this.socket.close()
  }
}

async function minedTxs(blockNumber: number): Promise<Hash[]> {
  return (await call(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false])).transactions as Hash[]
}

describe('bottom-of-block bundles (flashbots_stateDiffs, eth_sendBobBundle)', () => {
  it('streams the built block to a subscriber, and the bundle it answers with lands as the block’s last tx', async () => {
    const { url, name } = await builderUrl()
    const bot = await BobBot.connect(url)
    const subscribed = await bot.request('eth_subscribe', ['flashbots_stateDiffs'])
    expect(typeof subscribed.result).toBe('string')

    const user = DEV_KEYS[1]
    const searcherKey = DEV_KEYS[2]
    const poolBefore = BigInt(await call(harness.rpcUrl, 'eth_getStorageAt', [POOL, '0x0', 'latest']))
    const swap = await callTo(user, await nonceOf(user), POOL)
    await call(harness.rpcUrl, 'eth_sendRawTransaction', [swap])
    const backrun = await callTo(searcherKey, await nonceOf(searcherKey), POOL)
    const answers: Array<Promise<{ result?: any; error?: { message: string } }>> = []
    // The bot answers the block it is shown: the window closes on this answer.
    bot.onBlock = (block) => answers.push(bot.request('eth_sendBobBundle', [{ txs: [backrun], blockNumber: block.blockNumber }, block.blockUuid, [POOL]]))

    const [report] = await harness.advanceSlot()
    bot.close()
    expect(bot.blocks).toHaveLength(1)
    const [message] = bot.blocks
    const [answer] = await Promise.all(answers)
    expect(answer!.error).toBeUndefined()
    const bundleHash = answer!.result.bundleHash as Hash

    // The message: its block, a uuid v4, the gas left, and the block's state diff as the chain has it.
    expect(message!.blockNumber).toBe(`0x${report!.blockNumber.toString(16)}`)
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [message!.blockNumber, false])
    expect(message!.blockTimestamp).toBe(block.timestamp)
    expect(message!.blockUuid).toBe(blockUuid(1, name, BigInt(report!.blockNumber)))
    expect(message!.blockUuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(BigInt(message!.gasRemaining)).toBeGreaterThan(0n)
    // The swap changed the pool's slot 0 (before the backrun, which the streamed block does not hold).
    expect(BigInt(message!.stateOverrides[POOL]!.stateDiff[SLOT0]!)).toBe(poolBefore + 1n)
    // The user's balance and nonce after the swap: what the chain says at the block (the backrun does not touch the user).
    const sender = message!.stateOverrides[addressOf(user)]!
    expect(BigInt(sender.balance!)).toBe(BigInt(await call(harness.rpcUrl, 'eth_getBalance', [addressOf(user), message!.blockNumber])))
    expect(Number(sender.nonce)).toBe(await nonceOf(user))

    // On chain: the swap, then the backrun last; the pool counted both.
    expect(await minedTxs(report!.blockNumber)).toEqual([keccak256(swap), keccak256(backrun)])
    expect(BigInt(await call(harness.rpcUrl, 'eth_getStorageAt', [POOL, '0x0', 'latest']))).toBe(poolBefore + 2n)
    const traced = await stats(harness, bundleHash)
    expect(traced).toMatchObject({ status: 'landed', error: null, blockNumber: report!.blockNumber })
    expect(BigInt(traced.builderPayment)).toBeGreaterThan(0n)
  }, 60_000)

  it('a bundle that reverts at the bottom is left out and says why; uuids never streamed, or streamed for a past slot, say so', async () => {
    const { url, name } = await builderUrl()
    const bot = await BobBot.connect(url)
    await bot.request('eth_subscribe', ['flashbots_stateDiffs'])
    const searcherKey = DEV_KEYS[3]
    const nonce = await nonceOf(searcherKey)

    // Sent over HTTP before the slot: a uuid no block had.
    const unknownUuid = '123e4567-e89b-42d3-a456-426614174000'
    const other = DEV_KEYS[4]
    const unknown = await rpc(url, 'eth_sendBobBundle', [{ txs: [await callTo(other, await nonceOf(other), POOL)] }, unknownUuid, [POOL]])
    expect(unknown.body.error).toBeUndefined()
    const unknownHash = unknown.body.result.bundleHash as Hash

    const user = DEV_KEYS[1]
    const swap = await callTo(user, await nonceOf(user), POOL)
    await call(harness.rpcUrl, 'eth_sendRawTransaction', [swap])
    const reverting = await callTo(searcherKey, nonce, REVERTER)
    const answers: Array<Promise<{ result?: any }>> = []
    bot.onBlock = (block) => answers.push(bot.request('eth_sendBobBundle', [{ txs: [reverting] }, block.blockUuid]))
    const [report] = await harness.advanceSlot()
    const [answer] = await Promise.all(answers)
    const revertingHash = answer!.result.bundleHash as Hash

    expect(await minedTxs(report!.blockNumber)).toEqual([keccak256(swap)])
    const failed = await stats(harness, revertingHash)
    expect(failed).toMatchObject({ status: 'simulationfail', errorKind: 'BundleReverted', revertingHash: keccak256(reverting) })
    const neverStreamed = await stats(harness, unknownHash)
    expect(neverStreamed).toMatchObject({ status: 'received', errorKind: 'BottomOfBlockTargetUnknown' })
    expect(neverStreamed.error).toBe(`targeted block uuid ${unknownUuid}, which builder ${name} never streamed (flashbots_stateDiffs): not tried for block ${report!.blockNumber}`)

    // Next slot: a bundle for the block just streamed (a past slot's uuid) is not tried.
    const pastUuid = bot.blocks[0]!.blockUuid
    const late = await rpc(url, 'eth_sendBobBundle', [{ txs: [await callTo(searcherKey, await nonceOf(searcherKey), POOL)] }, pastUuid, []])
    const lateHash = late.body.result.bundleHash as Hash
    bot.onBlock = (block) => void bot.request('eth_sendBobBundle', [{ txs: [reverting] }, block.blockUuid])
    const [next] = await harness.advanceSlot()
    bot.close()
    const past = await stats(harness, lateHash)
    expect(past).toMatchObject({ status: 'received', errorKind: 'BottomOfBlockTargetPast' })
    expect(past.error).toContain(`targeted block uuid ${pastUuid}, which builder ${name} streamed for block ${report!.blockNumber}, a past slot`)
    expect(next!.blockNumber).toBe(report!.blockNumber + 1)
  }, 60_000)

  it('without a subscriber nothing is streamed (so no window is waited for); the same seed gives the same uuids', async () => {
    const { url, name } = await builderUrl()
    const searcherKey = DEV_KEYS[4]
    const [report] = await harness.advanceSlot()
    // The uuid that block would have had was never streamed: a bundle for it is told so.
    const { auctionSeed } = harness.config
    const unstreamed = await rpc(url, 'eth_sendBobBundle', [{ txs: [await callTo(searcherKey, await nonceOf(searcherKey), POOL)] }, blockUuid(auctionSeed, name, BigInt(report!.blockNumber)), []])
    await harness.advanceSlot()
    expect(await stats(harness, unstreamed.body.result.bundleHash)).toMatchObject({ errorKind: 'BottomOfBlockTargetUnknown' })
    const overHttp = await rpc(url, 'eth_subscribe', ['flashbots_stateDiffs'])
    expect(overHttp.body.error?.message).toContain('needs a WebSocket connection')
    // The uuid is derived from the run's seed, the builder and the block: the same in every run, another for another seed.
    expect(blockUuid(1, 'titan', 7n)).toBe('c203505d-8e70-4385-8a9a-b1bb8c7ab6bc')
    expect(blockUuid(2, 'titan', 7n)).not.toBe(blockUuid(1, 'titan', 7n))
  })
})
