import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { OrderLogEntry } from '../src/rpc/orderLog.js'
import { DEV_KEYS, rpc, signTx, useTestHarness } from './support/harness.js'

/** `--order-log`: every order the submission RPC accepted, as it came, one JSON line each; nothing refused. */
const file = path.join(mkdtempSync(path.join(tmpdir(), 'bundlesim-order-log-')), 'orders.jsonl')
const harness = useTestHarness({ orderLog: file, builders: [{ name: 'titan' }, { name: 'beaver' }] })

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
    const status = await rpc<{ builders: Array<{ name: string; url: string }>; gatewayUrl: string }>(harness.rpcUrl, 'harness_status')
    const titan = status.body.result!.builders.find((b) => b.name === 'titan')!
    const toTitan = { txs: [await signTx({ key: DEV_KEYS[4], nonce: 0 })] }
    const sentToTitan = await rpc(titan.url, 'eth_sendBundle', [toTitan])
    const viaGateway = { transaction: [(await signTx({ key: DEV_KEYS[4], nonce: 1 })).slice(2)], block_number: '0x5', mev_builders: { beaver: '' } }
    const sentViaGateway = await rpc(status.body.result!.gatewayUrl, 'blxr_submit_bundle', viaGateway, { authorization: 'dGVzdDp0ZXN0' })
    expect(refused.body.error?.code).toBe(-32602)
    for (const reply of [sent, sentPrivate, sentPublic, cancelled, sentToTitan, sentViaGateway]) expect(reply.body.error).toBeUndefined()

    const entries = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as OrderLogEntry)
    expect(entries.map(({ endpoint, method, params, result }) => ({ endpoint, method, params, result }))).toEqual([
      { endpoint: '/', method: 'eth_sendBundle', params: [bundle], result: sent.body.result },
      { endpoint: '/', method: 'eth_sendPrivateTransaction', params: [privateTx], result: sentPrivate.body.result },
      { endpoint: '/', method: 'eth_sendRawTransaction', params: [publicTx], result: sentPublic.body.result },
      { endpoint: '/', method: 'eth_cancelBundle', params: [{ replacementUuid: bundle.replacementUuid }], result: cancelled.body.result },
      { endpoint: new URL(titan.url).pathname, method: 'eth_sendBundle', params: [toTitan], result: sentToTitan.body.result },
      { endpoint: '/bloxroute', method: 'blxr_submit_bundle', params: viaGateway, result: sentViaGateway.body.result },
    ])
    expect(entries.every((e, i) => e.at >= (entries[i - 1]?.at ?? 0) && e.at <= Date.now())).toBe(true)
    expect(entries.map((e) => e.head)).toEqual([0, 0, 1, 1, 1, 1])
    // All accepted on the first Anvil (no restart yet).
    expect(entries.map((e) => e.chain)).toEqual([0, 0, 0, 0, 0, 0])
  })
})
