import { keccak256, stringToHex } from 'viem'
import type { StateDiffMessage } from '../../protocol/bobParams.js'

/** Streamed blocks remembered per builder (a `targetUuid` older than these reads as never streamed). */
const STREAMED_KEPT = 4_096

/**
 * The uuid of the block `builder` streams for `block` in a run with `seed` (the auction seed):
 * keccak256 of `bundlesim bob <seed>:<builder>:<block>`, its first 16 bytes formatted as a
 * UUID v4 (version and variant bits set). The same seed gives the same uuids in every run.
 *
 * @example blockUuid(1, 'titan', 7n) // 'xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx'
 */
export function blockUuid(seed: number, builder: string, block: bigint): string {
  const bytes = Buffer.from(keccak256(stringToHex(`bundlesim bob ${seed}:${builder}:${block}`)).slice(2, 34), 'hex')
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** Who sent a bottom-of-block bundle: the WebSocket connection it came over, or nothing known (HTTP). */
export type BobAnswerer = object | null

interface Subscriber {
  /** The connection: a window waits for each connection once, however many subscriptions it holds. */
  channel: object
  notify(message: StateDiffMessage): void
}

/** An open window: one streamed block waiting for its bottom-of-block bundles. */
interface BobWindow {
  builder: string
  /** Connections that answered over themselves. */
  answered: Set<object>
  /** Answers from no known connection (HTTP): each stands for one subscriber that has not answered yet. */
  anonymous: number
  close(): void
}

/**
 * Each builder's `flashbots_stateDiffs` stream and its bottom-of-block windows, apart from any
 * transport: the WebSocket side subscribes a connection's `notify`, `eth_sendBobBundle` tells
 * it who answered which uuid, and the slot publishes each built block and waits for the
 * window to close (`BottomOfBlockFeed`).
 *
 * A window closes at `windowMs`, or as soon as every connection subscribed to that builder
 * has sent at least one bottom-of-block bundle for its uuid over itself; a bundle sent over
 * HTTP (no connection known) counts for one subscriber that has not answered. A subscriber
 * that leaves during the window is waited for no more.
 */
export class StateDiffStream {
  private readonly subscribers = new Map<string, Set<Subscriber>>()
  /** Per builder: each uuid it streamed, with its block (the last `STREAMED_KEPT`). */
  private readonly streamed = new Map<string, Map<string, bigint>>()
  private readonly windows = new Map<string, BobWindow>()

  /** Subscribes `notify` to `builder`'s stream for `channel`; returns how to stop. */
  subscribe(builder: string, channel: object, notify: (message: StateDiffMessage) => void): () => void {
    const subscriber: Subscriber = { channel, notify }
    const set = this.subscribers.get(builder) ?? new Set<Subscriber>()
    this.subscribers.set(builder, set.add(subscriber))
    return () => {
      set.delete(subscriber)
      for (const window of this.windows.values()) if (window.builder === builder) this.check(window)
    }
  }

  /** Subscriptions to `builder`'s stream now. */
  subscriberCount(builder: string): number {
    return this.subscribers.get(builder)?.size ?? 0
  }

  /** The block `builder` streamed with `uuid` (any case), if it did (among its last `STREAMED_KEPT`). */
  streamedBlock(builder: string, uuid: string): bigint | undefined {
    return this.streamed.get(builder)?.get(uuid.toLowerCase())
  }

  /**
   * Sends `message` to every subscriber of `builder` and resolves when its window closes: at
   * `windowMs`, or once every subscribed connection has answered (`answered`).
   */
  publish(builder: string, block: bigint, message: StateDiffMessage, windowMs: number): Promise<void> {
    const uuid = message.blockUuid.toLowerCase()
    const kept = this.streamed.get(builder) ?? new Map<string, bigint>()
    this.streamed.set(builder, kept.set(uuid, block))
    if (kept.size > STREAMED_KEPT) kept.delete(kept.keys().next().value!)
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => window.close(), windowMs)
      const window: BobWindow = {
        builder,
        answered: new Set(),
        anonymous: 0,
        close: () => {
          clearTimeout(timer)
          this.windows.delete(uuid)
          resolve()
        },
      }
      this.windows.set(uuid, window)
      for (const subscriber of [...(this.subscribers.get(builder) ?? [])]) subscriber.notify(message)
      this.check(window)
    })
  }

  /** A bottom-of-block bundle for `uuid` reached `builder` (once it is in the book): its window may close. */
  answered(builder: string, uuid: string, by: BobAnswerer): void {
    const window = this.windows.get(uuid.toLowerCase())
    if (!window || window.builder !== builder) return
    if (by === null) window.anonymous++
    else window.answered.add(by)
    this.check(window)
  }

  private check(window: BobWindow): void {
    const channels = new Set([...(this.subscribers.get(window.builder) ?? [])].map((s) => s.channel))
    const waiting = [...channels].filter((channel) => !window.answered.has(channel)).length
    if (waiting <= window.anonymous) window.close()
  }
}
