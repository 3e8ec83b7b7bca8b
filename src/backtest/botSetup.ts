import type { Hash } from 'viem'
import type { StateWrite } from '../chain/stateWrites.js'
import type { AnsweredCall } from '../rpc/answeredCalls.js'
import { lastLines, type RunningBot } from '../bots/botProcess.js'
import type { HarnessEvents } from '../harness/events.js'

/** Methods a bot calls once it trades: it sends or simulates orders, or reads the public mempool. */
const WORK_METHODS = new Set([
  'eth_sendBundle',
  'eth_callBundle',
  'svc_boostBundle',
  'eth_sendEndOfBlockBundle',
  'eth_sendBobBundle',
  'eth_sendPrivateTransaction',
  'eth_sendPrivateRawTransaction',
  'eth_sendBlobs',
  'mev_sendBundle',
  'mev_simBundle',
  'blxr_submit_bundle',
  'eth_newPendingTransactionFilter',
  'eth_newFilter',
  'txpool_content',
  'txpool_contentFrom',
  'txpool_inspect',
])

/**
 * Is this call a sign that the bot is at work — a subscription to what it trades on (pending
 * txs, logs, state diffs), a filter of them, a bundle sent or simulated? Its name, or null.
 * New heads are not a sign: waiting for a receipt subscribes to them (viem's
 * `waitForTransactionReceipt` over a WebSocket, ethers' `tx.wait()`), and so does a block filter.
 *
 * @example signOfWork({ endpoint: '/', method: 'eth_subscribe', params: ['newPendingTransactions'], result: '0x1' }) // 'eth_subscribe newPendingTransactions'
 */
export function signOfWork(call: Pick<AnsweredCall, 'method' | 'params'>): string | null {
  if (call.method === 'eth_subscribe') {
    const kind = Array.isArray(call.params) ? call.params[0] : undefined
    return typeof kind === 'string' && kind !== 'newHeads' ? `eth_subscribe ${kind}` : null
  }
  return WORK_METHODS.has(call.method) ? call.method : null
}

/** How the set-up ended: the bot's line, or its first sign of work. */
export interface BotSetup {
  /** The set-up's txs, in the order they were mined (each block a part of it). */
  txs: Hash[]
  /** How many blocks were mined for it. */
  blocks: number
  /** What cheats wrote for it (`harness_setBalance`, `harness_setTokenBalance`, `anvil_setCode`…). */
  writes: StateWrite[]
  /** What said it was ready: `a line containing "…"`, or the first sign of work (`eth_subscribe newPendingTransactions`). */
  readyBy: string
}

export interface BotSetupOptions {
  bot: RunningBot
  events: HarnessEvents
  /** Mines one block on the set-up chain; the hashes of its txs. */
  mine(): Promise<Hash[]>
  /** Txs in the public mempool now: one sent before the set-up was watched is mined too. */
  pendingTxs(): number
  /** The line the bot prints once set up (`--ready`); without it, its first sign of work. */
  readyText?: string
  timeoutMs: number
}

/** The bot was not ready in time, or stopped during its set-up. */
export class BotSetupFailed extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BotSetupFailed'
  }
}

/**
 * The bot's set-up, as a chain would take it (docs/backtest.md, "The bot's set-up"): until it
 * is ready, each tx it sends to the public mempool is mined as it arrives, in a block of the
 * set-up, so a bot that waits for its receipts goes on; what cheats write for it is kept. Ready
 * is its line (`readyText`) or, without one, its first sign of work — once none of its txs is
 * waiting to be mined.
 *
 * @example const setup = await setUpBot({ bot, events: harness.events, mine, timeoutMs: 60_000 })
 */
export function setUpBot({ bot, events, mine, pendingTxs, readyText, timeoutMs }: BotSetupOptions): Promise<BotSetup> {
  const txs: Hash[] = []
  const writes: StateWrite[] = []
  const waiting = new Set<Hash>()
  let blocks = 0
  let mining: Promise<void> | null = null
  let readyBy: string | null = null
  let done = false

  return new Promise<BotSetup>((resolve, reject) => {
    const finish = (error: Error | null) => {
      if (done) return
      done = true
      events.off('answered', onAnswered)
      events.off('stateWritten', onWritten)
      clearTimeout(timer)
      if (error) reject(error)
      else resolve({ txs, blocks, writes, readyBy: readyBy! })
    }
    const check = () => {
      if (readyBy !== null && waiting.size === 0 && mining === null) finish(null)
    }
    const mineWaiting = () => {
      if (mining !== null) return
      mining = (async () => {
        while (waiting.size > 0 || pendingTxs() > 0) {
          const mined = await mine()
          blocks++
          txs.push(...mined)
          for (const hash of mined) waiting.delete(hash.toLowerCase() as Hash)
          // A tx no block takes (a nonce gap, a fee under the base fee) waits for the bot's next one.
          if (mined.length === 0) break
        }
      })()
      mining.then(
        () => {
          mining = null
          check()
        },
        (error: Error) => finish(new BotSetupFailed(`the bot's set-up block could not be mined: ${error.message}`)),
      )
    }
    const onAnswered = (call: AnsweredCall) => {
      if (call.method === 'eth_sendRawTransaction' && call.endpoint === '/' && typeof call.result === 'string') {
        waiting.add(call.result.toLowerCase() as Hash)
        mineWaiting()
        return
      }
      // Mined at once in a block of its own: part of the set-up as it is.
      if (call.method === 'harness_sendImpersonatedTx') {
        const { hash } = call.result as { hash: Hash }
        txs.push(hash)
        blocks++
        return
      }
      if (readyText === undefined && readyBy === null) {
        const sign = signOfWork(call)
        if (sign !== null) {
          readyBy = sign
          check()
        }
      }
    }
    const onWritten = (written: StateWrite[]) => writes.push(...written)
    events.on('answered', onAnswered)
    events.on('stateWritten', onWritten)
    if (pendingTxs() > 0) mineWaiting()

    const timer = setTimeout(() => {
      const still = waiting.size > 0 ? `; its txs ${[...waiting].join(', ')} were sent but no block took them` : ''
      const waited =
        readyText !== undefined
          ? `the bot did not print a line containing ${JSON.stringify(readyText)} within ${timeoutMs} ms (--ready: the text your bot prints once set up)`
          : `the bot showed no sign of work within ${timeoutMs} ms (a subscription to pending txs or logs, a filter, eth_callBundle or a bundle, after its set-up txs were mined; a bot that only polls gives --ready the line it prints once set up)`
      finish(new BotSetupFailed(`${waited}${still}; its last lines:\n${lastLines(bot)}`))
    }, timeoutMs)
    bot.exited.then((exit) => finish(new BotSetupFailed(`the bot exited (code ${exit.code}, signal ${exit.signal}) during its set-up; its last lines:\n${lastLines(bot)}`)))
    if (readyText !== undefined) {
      const escaped = new RegExp(readyText.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      bot.waitForLine(escaped, timeoutMs).then(
        () => {
          readyBy = `a line containing ${JSON.stringify(readyText)}`
          check()
        },
        () => undefined,
      )
    }
  })
}
