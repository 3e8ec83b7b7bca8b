import { afterAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { SenderRecovery, recoverInline } from '../src/bundle/senderRecovery.js'
import { DEV_KEYS, addressOf, signTx } from './support/harness.js'

const recovery = new SenderRecovery()
afterAll(() => recovery.close())

describe('SenderRecovery (signature recovery off the ingest thread)', () => {
  it('recovers senders on its worker thread, in order, as the inline recovery does', async () => {
    const raws = [await signTx({ key: DEV_KEYS[0], nonce: 0 }), await signTx({ key: DEV_KEYS[1], nonce: 7 })]
    const recovered = await recovery.recover(raws)
    expect(recovery.onWorker).toBe(true)
    expect(recovered).toEqual([{ sender: addressOf(DEV_KEYS[0]) }, { sender: addressOf(DEV_KEYS[1]) }])
    expect(recovered).toEqual(await recoverInline(raws))
  })

  it('answers a signature that does not recover with the same one-line error as inline recovery', async () => {
    const raw = await signTx({ key: DEV_KEYS[0], nonce: 1 })
    // r = 0 cannot be a valid signature point.
    const bad = raw.replace(/a0[0-9a-f]{64}(a0[0-9a-f]{64})$/, `a0${'00'.repeat(32)}$1`) as Hex
    const [onWorker] = await recovery.recover([bad])
    expect(onWorker).toHaveProperty('error')
    expect(onWorker).toEqual((await recoverInline([bad]))[0])
  })

  it('falls back to the calling thread once closed', async () => {
    const other = new SenderRecovery()
    await other.close()
    const raw = await signTx({ key: DEV_KEYS[2], nonce: 0 })
    expect(await other.recover([raw])).toEqual([{ sender: addressOf(DEV_KEYS[2]) }])
    expect(other.onWorker).toBe(false)
  })
})
