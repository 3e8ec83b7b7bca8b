import WebSocket from 'ws'
import { z } from 'zod'
import type { Address, Hash } from 'viem'
import { JsonRpcError } from '../../protocol/jsonRpcError.js'
import { headStatus, type RunContext } from '../core/context.js'
import { Failures } from '../core/expectations.js'
import { addressRef, bundleFields, strict, text } from '../core/fields.js'
import type { Path } from '../core/sourceMap.js'
import { defineStep } from './definition.js'
import { callExpecting, rawTxs, txHashes } from './shared.js'

const { txs, revertingTxHashes, as, expectError } = bundleFields

/** The `flashbots_stateDiffs` message's fields a bottom-of-block bundle answers (docs/bottom-of-block.md). */
interface StateDiffMessage {
  blockNumber: string
  blockUuid: string
  stateOverrides: Record<string, unknown>
}

/**
 * `bottomOfBlock`: a searcher on a builder's bottom-of-block stream (docs/bottom-of-block.md).
 * It subscribes to `flashbots_stateDiffs` over a WebSocket on the builder's own URL (`to`), runs
 * one slot (as `advance: 1`, its report what `expect.block` reads), and answers the state-diff
 * message of the block the builder built with `eth_sendBobBundle` of `txs` targeting its
 * `blockUuid`, over the same connection (so the builder's window closes at once). `changed`:
 * accounts the message's `stateOverrides` must show changed by the block.
 */
export const bottomOfBlockStep = defineStep({
  kind: 'bottomOfBlock',
  schema: strict(
    {
      to: text('a builder name'),
      txs,
      revertingTxHashes,
      targetPools: z.array(addressRef, { error: 'expected a list of names or addresses' }).optional(),
      changed: z.array(addressRef, { error: 'expected a list of names or addresses' }).optional(),
      as,
      expectError,
    },
    'a bottom-of-block bundle { to, txs, revertingTxHashes?, targetPools?, changed?, as?, expectError? }',
  ),
  references(bundle, check, at) {
    check.builderName(bundle.to, [...at, 'to'])
    bundle.txs.forEach((ref, j) => check.txOrRaw(ref, [...at, 'txs', j]))
    bundle.revertingTxHashes?.forEach((ref, j) => check.txOrHash(ref, [...at, 'revertingTxHashes', j]))
    bundle.targetPools?.forEach((ref, j) => check.address(ref, [...at, 'targetPools', j]))
    bundle.changed?.forEach((ref, j) => check.address(ref, [...at, 'changed', j]))
    check.newBundleId(bundle.as, [...at, 'as'])
  },
  async execute(context, bundle, at) {
    if (context.realtime) throw new Error('bottomOfBlock runs its slot itself: it cannot be used with bots (slots pass in real time there)')
    const { builders } = await headStatus(context)
    const builder = builders.find((b) => b.name === bundle.to)
    if (!builder) throw new Error(`to: no builder named ${bundle.to} (the run's: ${builders.map((b) => b.name).join(', ')})`)
    // Signed before the slot: the nonces are the head's.
    const signed = await rawTxs(context, bundle.txs)
    const reverting = await txHashes(context, bundle.revertingTxHashes)
    const targetPools = bundle.targetPools?.map((ref) => context.book.resolve(ref))
    const stream = await StateDiffStream.open(builder.url.replace(/^http/, 'ws'))
    try {
      await stream.request('eth_subscribe', ['flashbots_stateDiffs'])
      const slot = context.client.advanceSlot({ slots: 1 })
      const message = await Promise.race([stream.nextMessage(), slot.then(() => null)])
      if (message === null) throw new Error(`to: builder ${bundle.to} streamed no flashbots_stateDiffs message in the slot`)
      const params = [{ txs: signed, blockNumber: message.blockNumber, ...(reverting && { revertingTxHashes: reverting }) }, message.blockUuid, ...(targetPools ? [targetPools] : [])]
      const { result, failures } = await callExpecting(context, at, 'bottomOfBlock', bundle.expectError, () => stream.request<{ bundleHash: Hash }>('eth_sendBobBundle', params))
      context.lastReports = await slot
      context.nonces.reset()
      if (result && bundle.as !== undefined) context.bundles.set(bundle.as, result.bundleHash)
      return [...failures, ...changedFailures(context, bundle.changed, message, at)]
    } finally {
      stream.close()
    }
  },
})

/** `changed`: each account must be in the message's `stateOverrides`. */
function changedFailures(context: RunContext, changed: readonly string[] | undefined, message: StateDiffMessage, at: Path) {
  const failures = new Failures(context, at)
  const shown = Object.keys(message.stateOverrides).map((a) => a.toLowerCase())
  changed?.forEach((ref, j) => {
    const address: Address = context.book.resolve(ref)
    if (!shown.includes(address.toLowerCase())) failures.add(['changed', j], `${ref} (${address}) in the stateOverrides of block ${Number(message.blockNumber)}`, `only ${shown.join(', ') || 'nothing'}`)
  })
  return failures.list
}

/** One WebSocket JSON-RPC connection: requests answered by id, and the subscription's messages in order. */
class StateDiffStream {
  private nextId = 1
  private readonly answers = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()
  private readonly messages: StateDiffMessage[] = []
  private waiting: ((message: StateDiffMessage) => void) | undefined

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { code: number; message: string; data?: unknown }; method?: string; params?: { result: StateDiffMessage } }
      if (frame.method === 'eth_subscription' && frame.params) {
        if (this.waiting) this.waiting(frame.params.result)
        else this.messages.push(frame.params.result)
        this.waiting = undefined
        return
      }
      const pending = frame.id === undefined ? undefined : this.answers.get(frame.id)
      if (!pending) return
      this.answers.delete(frame.id!)
      if (frame.error) pending.reject(new JsonRpcError(this.method(frame.id!), frame.error.code, frame.error.message, frame.error.data))
      else pending.resolve(frame.result)
    })
    socket.on('close', () => {
      for (const pending of this.answers.values()) pending.reject(new Error('the builder closed the WebSocket'))
      this.answers.clear()
    })
  }

  private readonly methods = new Map<number, string>()
  private method(id: number): string {
    return this.methods.get(id) ?? 'request'
  }

  static async open(url: string): Promise<StateDiffStream> {
    const socket = new WebSocket(url)
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve())
      socket.once('error', (error) => reject(new Error(`to: cannot open a WebSocket to ${url}: ${error.message}`)))
    })
    return new StateDiffStream(socket)
  }

  request<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const id = this.nextId++
    this.methods.set(id, method)
    return new Promise<T>((resolve, reject) => {
      this.answers.set(id, { resolve: (value) => resolve(value as T), reject })
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  /** The next subscription message (one already received, or the next to come). */
  nextMessage(): Promise<StateDiffMessage> {
    const queued = this.messages.shift()
    if (queued) return Promise.resolve(queued)
    return new Promise((resolve) => (this.waiting = resolve))
  }

  close(): void {
    this.socket.close()
  }
}
