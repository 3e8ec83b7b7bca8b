import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { OrderLogEntry } from '../src/rpc/orderLog.js'
import { DEV_KEYS, rpc, signTx, useTestHarness } from './support/harness.js'

/** `--order-log`: every order the submission RPC accepted, as it came, one JSON line each; nothing refused. */
const file = path.join(mkdtempSync(path.join(tmpdir(), 'bundlesim-order-log-')), 'orders.jsonl')
const harness = useTestHarness({ orderLog: file })

describe('the order log', () => {
  it('keeps each accepted order with its params and answer, in order, and leaves out what was refused or is not an order', async () => {
    const bundle = { txs: [await signTx({ key: DEV_KEYS[1], nonce: 0 })], blockNumber: '0x1', replacementUuid: 'b2b8c0a4-5b1e-4e0b-9d8f-3c1c2b7f0a11' }
    const sent = await rpc(harness.rpcUrl, 'eth_sendBundle', [bundle])
    const refused = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: 'not an array', blockNumber: '0x1' }])
    const privateTx = { tx: await signTx({ key: DEV_KEYS[2], nonce: 0 }) }
    const sentPrivate = await rpc(harness.rpcUrl, 'eth_sendPrivateTransaction', [privateTx])
    await harness.advanceSlot()
    const publicTx = await signTx({ key: DEV_KEYS[3], nonce: 0 })
    const sentPublic = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [publicTx])
    const cancelled = await rpc(harness.rpcUrl, 'eth_cancelBundle', [{ replacementUuid: bundle.replacementUuid }])
    await rpc(harness.rpcUrl, 'eth_blockNumber')
    expect(refused.body.error?.code).toBe(-32602)
    for (const reply of [sent, sentPrivate, sentPublic, cancelled]) expect(reply.body.error).toBeUndefined()

    const entries = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as OrderLogEntry)
    expect(entries.map(({ method, params, result }) => ({ method, params, result }))).toEqual([
      { method: 'eth_sendBundle', params: [bundle], result: sent.body.result },
      { method: 'eth_sendPrivateTransaction', params: [privateTx], result: sentPrivate.body.result },
      { method: 'eth_sendRawTransaction', params: [publicTx], result: sentPublic.body.result },
      { method: 'eth_cancelBundle', params: [{ replacementUuid: bundle.replacementUuid }], result: cancelled.body.result },
    ])
    expect(entries.every((e, i) => e.at >= (entries[i - 1]?.at ?? 0) && e.at <= Date.now())).toBe(true)
    expect(entries.map((e) => e.head)).toEqual([0, 0, 1, 1])
  })
})
