import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromRlp, parseGwei, toRlp, type Hex } from 'viem'
import { SenderRecovery, recoverInline } from '../src/bundle/senderRecovery.js'
import fc from 'fast-check'
import { ecrecoverInput, parsedInput, plainEip1559Input, recoverOnAnvil } from '../src/bundle/ecrecoverOnAnvil.mjs'
import { corruptedEip1559, eip1559 } from './support/txArbitraries.js'
import { launchAnvil, type LaunchedAnvil } from '../src/chain/launchAnvil.js'
import { DEV_KEYS, accountOf, addressOf, signTx } from './support/harness.js'

const recovery = new SenderRecovery()
afterAll(() => recovery.close())

/** r = 0 cannot be a valid signature point. */
const withZeroR = (raw: Hex) => raw.replace(/a0[0-9a-f]{64}(a0[0-9a-f]{64})$/, `a0${'00'.repeat(32)}$1`) as Hex

describe('SenderRecovery (signature recovery off the ingest thread)', () => {
  it('recovers senders on its worker thread, in order, as the inline recovery does', async () => {
    const raws = [await signTx({ key: DEV_KEYS[0], nonce: 0 }), await signTx({ key: DEV_KEYS[1], nonce: 7 })]
    const recovered = await recovery.recover(raws)
    expect(recovery.onWorker).toBe(true)
    expect(recovered).toEqual([{ sender: addressOf(DEV_KEYS[0]) }, { sender: addressOf(DEV_KEYS[1]) }])
    expect(recovered).toEqual(await recoverInline(raws))
  })

  it('answers a signature that does not recover with the same one-line error as inline recovery', async () => {
    const bad = withZeroR(await signTx({ key: DEV_KEYS[0], nonce: 1 }))
    const [onWorker] = await recovery.recover([bad])
    expect(onWorker).toHaveProperty('error')
    expect(onWorker).toEqual((await recoverInline([bad]))[0])
  })

  it('answers recoveries asked for together, each with its own senders', async () => {
    const jobs = await Promise.all(DEV_KEYS.slice(0, 4).map(async (key, i) => [await signTx({ key, nonce: i }), await signTx({ key, nonce: i + 1 })]))
    const answers = await Promise.all(jobs.map((raws) => recovery.recover(raws)))
    expect(answers).toEqual(DEV_KEYS.slice(0, 4).map((key) => [{ sender: addressOf(key) }, { sender: addressOf(key) }]))
  })

  it("closing one recovery leaves the others recovering on the thread (harnesses share the process's one)", async () => {
    const first = new SenderRecovery()
    const second = new SenderRecovery()
    const raw = await signTx({ key: DEV_KEYS[1], nonce: 0 })
    expect(await Promise.all([first.recover([raw]), second.recover([raw])])).toEqual([[{ sender: addressOf(DEV_KEYS[1]) }], [{ sender: addressOf(DEV_KEYS[1]) }]])
    await first.close()
    expect(await second.recover([raw])).toEqual([{ sender: addressOf(DEV_KEYS[1]) }])
    expect([first.onWorker, second.onWorker, recovery.onWorker]).toEqual([false, true, true])
    await second.close()
  })

  it('the shared thread never keeps a process alive: a script that recovered and closed exits on its own', async () => {
    // What a consumer's script does with a harness (the package test's .mjs hung 60 s on it once).
    const script = `import { SenderRecovery } from ${JSON.stringify(new URL('../src/bundle/senderRecovery.ts', import.meta.url).href)}
const recovery = new SenderRecovery()
const [recovered] = await recovery.recover([${JSON.stringify(await signTx({ key: DEV_KEYS[3], nonce: 0 }))}])
await recovery.close()
console.log(recovered.sender)`
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 30_000 })
    expect(stdout.trim()).toBe(addressOf(DEV_KEYS[3]))
  })

  it('falls back to the calling thread once closed', async () => {
    const other = new SenderRecovery()
    await other.close()
    const raw = await signTx({ key: DEV_KEYS[2], nonce: 0 })
    expect(await other.recover([raw])).toEqual([{ sender: addressOf(DEV_KEYS[2]) }])
    expect(other.onWorker).toBe(false)
  })
})

describe('SenderRecovery through Anvil\'s ecrecover precompile', () => {
  let anvil: LaunchedAnvil
  let onAnvil: SenderRecovery
  beforeAll(async () => {
    anvil = await launchAnvil({ host: '127.0.0.1', port: 0 })
    onAnvil = new SenderRecovery({ anvilUrl: anvil.url, anvilTimeoutMs: 5_000 })
  })
  afterAll(async () => {
    await onAnvil?.close()
    await anvil?.stop()
  })

  /** One tx of every signed type, from different keys. */
  async function everyTxType(): Promise<Hex[]> {
    const to = '0x00000000000000000000000000000000000c0ffe'
    const fees = { maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('2') }
    const delegate = accountOf(DEV_KEYS[4])
    return [
      await signTx({ key: DEV_KEYS[0], nonce: 3 }),
      await accountOf(DEV_KEYS[1]).signTransaction({ type: 'legacy', chainId: 31337, nonce: 0, to, value: 1n, gas: 21_000n, gasPrice: parseGwei('10') }),
      // Before EIP-155: v is 27 or 28, no chain id.
      await accountOf(DEV_KEYS[2]).signTransaction({ type: 'legacy', nonce: 1, to, value: 1n, gas: 21_000n, gasPrice: parseGwei('10') }),
      await accountOf(DEV_KEYS[3]).signTransaction({ type: 'eip2930', chainId: 31337, nonce: 2, to, value: 1n, gas: 30_000n, gasPrice: parseGwei('10'), accessList: [{ address: to, storageKeys: [] }] }),
      await delegate.signTransaction({
        type: 'eip7702',
        chainId: 31337,
        nonce: 5,
        to,
        gas: 100_000n,
        ...fees,
        authorizationList: [await delegate.signAuthorization({ chainId: 31337, nonce: 6, contractAddress: to })],
      }),
    ]
  }

  it('the precompile itself recovers every tx type, over several calls, and nothing for an invalid signature', async () => {
    const raws = await everyTxType()
    const bad = withZeroR(raws[0]!)
    // More inputs than one eth_call takes, with gaps (null inputs) and an invalid one.
    const inputs = Array.from({ length: 600 }, (_, i) => (i % 7 === 3 ? null : i === 500 ? ecrecoverInput(bad) : ecrecoverInput(raws[i % raws.length]!)))
    const senders = await recoverOnAnvil(anvil.url, inputs, 5_000)
    const expected = await Promise.all(raws.map(async (raw) => ((await recoverInline([raw]))[0] as { sender: string }).sender))
    expect(senders).toEqual(inputs.map((input, i) => (input === null || i === 500 ? null : expected[i % raws.length])))
    expect(ecrecoverInput('0x02c0')).toBeNull()
  })

  it('the quick input of a plain EIP-1559 tx equals the one through viem, for random and corrupted txs', () => {
    let quick = 0
    for (const txs of [eip1559, corruptedEip1559]) {
      fc.assert(
        fc.property(txs, (raw) => {
          if (plainEip1559Input(raw) !== null) quick++
          expect(ecrecoverInput(raw)).toBe(parsedInput(raw))
        }),
        { numRuns: 500 },
      )
    }
    // Most of the random txs have no access list: they take the quick way.
    expect(quick).toBeGreaterThan(200)
    // A y-parity other than 0/1, or written 0x00: viem refuses the one and re-encodes the other.
    const [plain] = fc.sample(eip1559.filter((raw) => (fromRlp(`0x${raw.slice(4)}`) as unknown[])[8]?.toString() === ''), { numRuns: 1, seed: 7 })
    const fields = fromRlp(`0x${plain!.slice(4)}`) as Hex[]
    for (const yParity of ['0x02', '0x00'] as const) {
      const raw = `0x02${toRlp([...fields.slice(0, 9), yParity, ...fields.slice(10)]).slice(2)}` as Hex
      expect(ecrecoverInput(raw)).toBe(parsedInput(raw))
    }
  })

  it('recovers every tx type as the JS recovery does', async () => {
    const raws = await everyTxType()
    const recovered = await onAnvil.recover(raws)
    expect(recovered).toEqual(DEV_KEYS.slice(0, 5).map((key) => ({ sender: addressOf(key) })))
    expect(recovered).toEqual(await recoverInline(raws))
  })

  it('gives a signature the precompile cannot recover the JS recovery\'s error, and the rest of the batch their senders', async () => {
    const good = await signTx({ key: DEV_KEYS[3], nonce: 0 })
    const bad = withZeroR(await signTx({ key: DEV_KEYS[0], nonce: 9 }))
    const recovered = await onAnvil.recover([good, bad, '0x02c0' as Hex])
    expect(recovered).toEqual(await recoverInline([good, bad, '0x02c0' as Hex]))
    expect(recovered[0]).toEqual({ sender: addressOf(DEV_KEYS[3]) })
    expect(recovered[1]).toHaveProperty('error')
  })

  it('recovers in JS when Anvil does not answer', async () => {
    const closedPort = new SenderRecovery({ anvilUrl: 'http://127.0.0.1:1/', anvilTimeoutMs: 1_000 })
    try {
      const raws = await everyTxType()
      expect(await closedPort.recover(raws)).toEqual(await recoverInline(raws))
    } finally {
      await closedPort.close()
    }
  })
})
