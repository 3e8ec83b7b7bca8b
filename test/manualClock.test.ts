import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address, Hash } from 'viem'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, addressOf, call, sendBundle, setCode, signTx, startTestHarness, stats } from './support/harness.js'
import { WsClient } from './support/wsClient.js'

/** Runtime code that logs on every call: PUSH1 0 PUSH1 0 LOG0 STOP. */
const LOGGER_CODE = '0x60006000a000'
const LOGGER: Address = '0x00000000000000000000000000000000000010c0'
// The race this guards against (the call returning before the public view had the block) missed
// about every other slot; 300 slots in a row would show a miss rate of 1 % 95 times in 100.
const ROUNDS = 300

describe('the manual clock is exact: when harness_advanceSlot returns, every view has the block', () => {
  let harness: Harness
  let ws: WsClient

  beforeAll(async () => {
    harness = await startTestHarness()
    await setCode(harness, LOGGER, LOGGER_CODE)
    ws = await WsClient.connect(harness.rpcUrl)
  })
  afterAll(async () => {
    ws?.close()
    await harness?.stop()
  })

  it(`a block filter, a log filter, newHeads and logs subscriptions: ${ROUNDS} slots in a row, none missing the block just mined`, async () => {
    const heads = await ws.subscribe('newHeads')
    const logs = await ws.subscribe('logs', { address: LOGGER })
    const blockFilter: string = await call(harness.rpcUrl, 'eth_newBlockFilter')
    const logFilter: string = await call(harness.rpcUrl, 'eth_newFilter', [{ address: LOGGER }])
    const misses: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      // A public tx that logs, so each block has a log for the log filter and subscription.
      const tx: Hash = await call(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ nonce: round, to: LOGGER, gas: 30_000n })])
      // Over the same socket as the subscriptions: a notification sent before the answer arrives before it.
      const answer = await ws.request('harness_advanceSlot', [])
      expect(answer.error).toBeUndefined()
      const report = answer.result[0]
      const number = `0x${report.blockNumber.toString(16)}`
      const head = ws.notifications(heads).find((h) => h.number === number)
      if (!head) misses.push(`round ${round}: newHeads lacks block ${report.blockNumber}`)
      else if (head.hash !== report.blockHash) misses.push(`round ${round}: newHeads sent ${head.hash} for block ${report.blockNumber}, the slot mined ${report.blockHash}`)
      if (!ws.notifications(logs).some((log) => log.transactionHash === tx)) misses.push(`round ${round}: the logs subscription lacks the log of ${tx}`)
      const newBlocks: Hash[] = await call(harness.rpcUrl, 'eth_getFilterChanges', [blockFilter])
      if (!newBlocks.includes(report.blockHash)) misses.push(`round ${round}: the block filter gave ${JSON.stringify(newBlocks)}, not block ${report.blockNumber}`)
      const newLogs: Array<{ transactionHash: Hash }> = await call(harness.rpcUrl, 'eth_getFilterChanges', [logFilter])
      if (!newLogs.some((log) => log.transactionHash === tx)) misses.push(`round ${round}: the log filter lacks the log of ${tx}`)
      // Keep the socket's record short: what was checked is not needed again.
      ws.messages.length = 0
      if (misses.length > 0) break
    }
    expect(misses).toEqual([])
    // ~10 s on an idle 2-core machine; allow for a loaded one.
  }, 240_000)

  it('the stats, the dashboard and eth_blockNumber have the block too when the call returns', async () => {
    const nonce = Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(DEV_KEYS[0]), 'latest']))
    const bundleHash = await sendBundle(harness, { txs: [await signTx({ nonce })] })
    const report = (await harness.advanceSlot())[0]!
    expect(await call(harness.rpcUrl, 'eth_blockNumber')).toBe(`0x${report.blockNumber.toString(16)}`)
    expect(await stats(harness, bundleHash)).toMatchObject({ status: 'landed', blockNumber: report.blockNumber })
    const slots = (await (await fetch(new URL('/api/slots', harness.statsUrl))).json()) as { slots: Array<{ blockNumber: number }> }
    expect(slots.slots.map((s) => s.blockNumber)).toContain(report.blockNumber)
  })
})
