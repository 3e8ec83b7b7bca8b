import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import nodeHttp from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createPublicClient, http, keccak256, parseEther, parseGwei, toHex, type Address, type Hash, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchAnvil, type LaunchedAnvil } from '../src/chain/launchAnvil.js'
import { ordersOf } from '../src/replay/orders.js'
import { rawFromFields } from '../src/replay/rawTx.js'
import { replayBlock, type ReplayReport } from '../src/replay/replayBlock.js'
import type { SourceTx } from '../src/replay/sourceBlock.js'
import { replayVerdict } from '../src/replay/verdict.js'
import { runScenario } from '../src/scenario/runner.js'
import { runCli } from './support/cli.js'
import { REVERTER_CODE, accountOf, addressOf, call, signTx } from './support/harness.js'

/*
 * `bundlesim replay` against an offline "real" chain: a local Anvil (chain id 4242, 20 gwei base
 * fee) whose block 2 holds the txs to replay, mined by a fee recipient that pays a proposer
 * at the end of the block, as a builder does.
 */

/** Not 1: a fork of chain 1 gets the hardfork of mainnet at that block number (block 2 is pre-Prague, no calldata floor). */
const CHAIN_ID = 4242
const GENESIS = 1_720_000_000
const SLOT = 12
const REVERTER: Address = '0x000000000000000000000000000000000000dead'
/** Reverts unless opened: a call with data opens it (storage slot 0 = 1), one without passes only when open. */
const GATE: Address = '0x0000000000000000000000000000000000006a7e'
const GATE_CODE: Hex = '0x36600f5760005460165760006000fd5b6001600055005b00'
const PROPOSER: Address = '0x00000000000000000000000000000000000b0b00'
const keyOf = (name: string): Hex => keccak256(toHex(`replay-test:${name}`))

interface RealChain {
  url: string
  anvil: LaunchedAnvil
  /** The block holding the txs (its parent is funded setup). */
  block: bigint
  hashes: Hash[]
}

interface RealTx {
  key: Hex
  nonce: number
  tip: bigint
  to?: Address
  value?: bigint
  data?: Hex
  gas?: bigint
}

/** A chain whose block 2 holds `txs` in this order, mined with `feeRecipient`'s key as coinbase. */
async function realChain(txs: RealTx[], feeRecipient: Hex): Promise<RealChain> {
  const anvil = await launchAnvil({ host: '127.0.0.1', port: 0, chainId: CHAIN_ID, timestamp: GENESIS, baseFee: parseGwei('20') })
  const url = anvil.url
  for (const key of new Set([...txs.map((t) => t.key), feeRecipient])) await call(url, 'anvil_setBalance', [addressOf(key), toHex(parseEther('10'))])
  await call(url, 'anvil_setCode', [REVERTER, REVERTER_CODE])
  await call(url, 'anvil_setCode', [GATE, GATE_CODE])
  await call(url, 'evm_mine', [{ timestamp: GENESIS + SLOT }])
  await call(url, 'anvil_setCoinbase', [addressOf(feeRecipient)])
  const hashes: Hash[] = []
  for (const tx of txs) {
    const raw = await signTx({ chainId: CHAIN_ID, key: tx.key, nonce: tx.nonce, to: tx.to, value: tx.value, data: tx.data, gas: tx.gas, maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: tx.tip })
    hashes.push(await call(url, 'eth_sendRawTransaction', [raw]))
  }
  await call(url, 'evm_mine', [{ timestamp: GENESIS + 2 * SLOT }])
  const mined = await call<{ transactions: Hash[] }>(url, 'eth_getBlockByNumber', ['0x2', false])
  expect(mined.transactions).toEqual(hashes) // the block holds them in sending order
  return { url, anvil, block: 2n, hashes }
}

/** A JSON-RPC proxy to `upstream` that answers eth_getRawTransactionByHash with "method not found", as some nodes do. */
async function withoutRawTxMethod(upstream: string): Promise<{ url: string; refused(): number; close(): void }> {
  let refused = 0
  const answer = async (request: { id: unknown; method: string }) => {
    if (request.method !== 'eth_getRawTransactionByHash') return (await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })).json()
    refused++
    return { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'the method eth_getRawTransactionByHash does not exist/is not available' } }
  }
  const server = nodeHttp.createServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    const parsed = JSON.parse(body)
    const result = Array.isArray(parsed) ? await Promise.all(parsed.map(answer)) : await answer(parsed)
    res.setHeader('content-type', 'application/json').end(JSON.stringify(result))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, refused: () => refused, close: () => server.close() }
}

/** The real chain of the enclosing describe: started in `beforeAll`, stopped in `afterAll`; call it inside a test. */
function useRealChain(txs: RealTx[], feeRecipient: Hex): () => RealChain {
  let chain: RealChain | undefined
  beforeAll(async () => {
    chain = await realChain(txs, feeRecipient)
  }, 60_000)
  afterAll(() => chain?.anvil.stop())
  return () => chain!
}

describe('replay rules', () => {
  const tx = (index: number, from: string, reverted = false): SourceTx => ({
    hash: `0x${String(index).padStart(64, '0')}`,
    index,
    from: from as Address,
    to: null,
    nonce: 0,
    raw: `0x0${index}`,
    reverted,
    gasUsed: 21_000n,
    priorityFee: 0n,
    effectiveGasPrice: 0n,
    logs: [],
  })

  it('one bundle per tx in block order; a sender’s later txs join its first; real reverts may revert', () => {
    const orders = ordersOf([tx(0, '0xa'), tx(1, '0xb', true), tx(2, '0xa', true), tx(3, '0xc')])
    expect(orders.map((o) => [o.sender, o.txs.map((t) => t.index)])).toEqual([['0xa', [0, 2]], ['0xb', [1]], ['0xc', [3]]])
    expect(orders[0]!.raw).toEqual(['0x00', '0x02'])
    expect(orders[0]!.revertingTxHashes).toEqual([tx(2, '0xa').hash])
    expect(orders[2]!.revertingTxHashes).toEqual([])
  })

  it('the verdict: every tx accounted for, and the value ratio when one is asked for', () => {
    const fate = { hash: tx(0, '0xa').hash, realIndex: 0, from: '0xa' as Address, realReverted: false, position: null, status: 'excludedfromblock', error: 'pays nothing', bundleHash: tx(0, '0xa').hash }
    const report = { real: { txCount: 1 }, valueRatio: 0.5, txs: [fate] } as unknown as ReplayReport
    expect(replayVerdict(report, 0)).toEqual({ ok: true, problems: [] })
    expect(replayVerdict(report, 0.5).ok).toBe(true)
    expect(replayVerdict(report, 0.9).problems).toEqual(["our block is worth 0.5 × the real block's value, below --min-value-ratio 0.9"])
    expect(replayVerdict({ ...report, txs: [{ ...fate, error: null }] }, 0).problems).toEqual([`tx ${fate.hash} was left out with no reason`])
    expect(replayVerdict({ ...report, real: { txCount: 3 } } as ReplayReport, 0).problems).toEqual(["2 of the block's 3 txs have no fate"])
    expect(replayVerdict({ ...report, valueRatio: null }, 0.9).ok).toBe(true) // a block worth nothing: nothing to compare
  })
})

describe('rebuilding a raw tx from the fields a node reports', () => {
  it('legacy (with and without a chain id), EIP-2930 and EIP-1559 hash back to themselves', async () => {
    const anvil = await launchAnvil({ host: '127.0.0.1', port: 0, chainId: CHAIN_ID })
    try {
      const account = accountOf(keyOf('types'))
      await call(anvil.url, 'anvil_setBalance', [account.address, toHex(parseEther('1'))])
      const base = { to: PROPOSER, value: 1n, gas: 30_000n }
      const raws = [
        await account.signTransaction({ ...base, type: 'legacy', chainId: CHAIN_ID, nonce: 0, gasPrice: parseGwei('50') }),
        await account.signTransaction({ ...base, type: 'legacy', nonce: 1, gasPrice: parseGwei('50') }),
        await account.signTransaction({ ...base, type: 'eip2930', chainId: CHAIN_ID, nonce: 2, gasPrice: parseGwei('50'), accessList: [{ address: REVERTER, storageKeys: [toHex(1n, { size: 32 })] }] }),
        await account.signTransaction({ ...base, type: 'eip1559', chainId: CHAIN_ID, nonce: 3, maxFeePerGas: parseGwei('50'), maxPriorityFeePerGas: 1n, data: '0xabcd' }),
      ]
      for (const raw of raws) await call(anvil.url, 'eth_sendRawTransaction', [raw])
      await call(anvil.url, 'evm_mine', [])
      const client = createPublicClient({ transport: http(anvil.url) })
      const block = await client.getBlock({ blockTag: 'latest', includeTransactions: true })
      expect(block.transactions.map((tx) => tx.type)).toEqual(['legacy', 'legacy', 'eip2930', 'eip1559'])
      expect(block.transactions.map(rawFromFields)).toEqual(raws)
    } finally {
      await anvil.stop()
    }
  })
})

describe('replay a block of 20 txs', () => {
  const feeRecipient = keyOf('fee-recipient')
  const transfer = (name: string, tipGwei: number, nonce = 0): RealTx => ({ key: keyOf(name), nonce, tip: parseGwei(String(tipGwei)) })
  const txs: RealTx[] = [
    ...Array.from({ length: 10 }, (_, i) => transfer(`single-${i}`, i + 1)),
    transfer('chain', 3, 0),
    transfer('chain', 3, 1),
    { key: keyOf('reverter'), nonce: 0, tip: parseGwei('4'), to: REVERTER, value: 0n, data: '0x01', gas: 100_000n },
    transfer('chain', 3, 2),
    transfer('no-tip', 0),
    ...Array.from({ length: 4 }, (_, i) => transfer(`late-${i}`, 1)),
    // The fee recipient pays the proposer last, with no tip (a builder's payout).
    { key: feeRecipient, nonce: 0, tip: 0n, to: PROPOSER, value: parseEther('0.001') },
  ]

  const real = useRealChain(txs, feeRecipient)

  it('reports every tx’s fate, the real block’s value and ours', async () => {
    const chain = real()
    expect(txs).toHaveLength(20)
    const report = await replayBlock({ forkUrl: chain.url, block: chain.block })
    expect(report.block).toBe(2)
    expect(report.forkBlock).toBe(1)
    expect(report.timestamp).toBe(GENESIS + 2 * SLOT)
    expect(report.txs.map((f) => f.hash)).toEqual(chain.hashes)

    // The real value: every tip (21000 gas each, the reverting call its own gas), before the payout.
    const receipts = await Promise.all(chain.hashes.map((h) => call(chain.url, 'eth_getTransactionReceipt', [h])))
    const tips = receipts.reduce((sum, r, i) => sum + BigInt(r.gasUsed) * txs[i]!.tip, 0n)
    const payout = parseEther('0.001') + 21_000n * BigInt(receipts[19].effectiveGasPrice)
    expect(report.real.feeRecipient).toBe(addressOf(feeRecipient))
    expect(BigInt(report.real.value)).toBe(tips)
    expect(BigInt(report.real.feeRecipientBalanceDelta)).toBe(tips - payout)
    // Ours: the same tips (the two txs left out pay none).
    expect(report.ours.value).toBe(tips.toString())
    expect(report.valueRatio).toBe(1)

    const fate = (i: number) => report.txs[i]!
    for (const i of [...Array(14).keys(), 15, 16, 17, 18]) {
      expect(fate(i).status, `tx ${i}`).toBe('landed')
      expect(fate(i).position, `tx ${i}`).not.toBeNull()
    }
    // The reverting call reverted for real and is allowed to here.
    expect(fate(12).realReverted).toBe(true)
    // The chain's three txs are one bundle, kept together in nonce order.
    expect([fate(10).position, fate(11).position, fate(13).position]).toEqual([fate(10).position!, fate(10).position! + 1, fate(10).position! + 2])
    expect(fate(13).bundleHash).toBe(fate(10).bundleHash)
    // No tip: the builder earns nothing from them, so they are left out, and say why.
    for (const i of [14, 19]) {
      expect(fate(i).position, `tx ${i}`).toBeNull()
      expect(fate(i).status, `tx ${i}`).toBe('excludedfromblock')
      expect(fate(i).error, `tx ${i}`).toMatch(/pays nothing|nothing/i)
    }
    expect(report.included).toBe(18)
    expect(report.excluded).toBe(2)
    // By tip, the 10 gwei single lands first.
    expect(fate(9).position).toBe(0)
  }, 30_000)

  it('bundlesim replay prints the table, writes the JSON and exits 0; 1 when ours is worth less than --min-value-ratio asks', async () => {
    const chain = real()
    const dir = await mkdtemp(path.join(tmpdir(), 'replay-'))
    const json = path.join(dir, 'replay.json')
    const args = ['replay', '--fork-url', chain.url, '--block', '2', '--algorithms', 'arrival']
    const run = await runCli([...args, '--json', json])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('replay of block 2 (forked at 1)')
    expect(run.stdout).toMatch(/18 of the block's txs included, 2 left out/)
    expect(run.stdout).toContain('excludedfromblock: bundle pays the builder nothing')
    const written = JSON.parse(await readFile(json, 'utf8'))
    expect(written.txs).toHaveLength(20)
    expect(written.ours.candidates.map((c: { algorithm: string }) => c.algorithm)).toEqual(['arrival'])

    const strict = await runCli([...args, '--min-value-ratio', '1.5'])
    expect(strict.code).toBe(1)
    expect(strict.stderr).toContain("our block is worth 1 × the real block's value, below --min-value-ratio 1.5")
  }, 60_000)

  it('a node without eth_getRawTransactionByHash: the txs are rebuilt from their fields, with the same fates', async () => {
    const chain = real()
    const proxy = await withoutRawTxMethod(chain.url)
    try {
      const direct = await replayBlock({ forkUrl: chain.url, block: chain.block })
      const rebuilt = await replayBlock({ forkUrl: proxy.url, block: chain.block })
      expect(proxy.refused()).toBe(20)
      expect(rebuilt.txs.map(({ hash, position, status }) => ({ hash, position, status }))).toEqual(direct.txs.map(({ hash, position, status }) => ({ hash, position, status })))
      expect(rebuilt.ours.value).toBe(direct.ours.value)
    } finally {
      proxy.close()
    }
  }, 60_000)

  it('a block past the head, or an unreachable URL, is refused at once and says why', async () => {
    const chain = real()
    await expect(replayBlock({ forkUrl: chain.url, block: 9n })).rejects.toThrow(`fork block 9 is beyond the remote head 2 (${chain.url})`)
    await expect(replayBlock({ forkUrl: 'http://127.0.0.1:1/v2/secret', block: 2n })).rejects.toThrow(/^fork URL http:\/\/127\.0\.0\.1:1\/… unreachable/)
  })

  it('a scenario replays block 2 with its own bundle added: both land in block 2', async () => {
    const chain = real()
    const dir = await mkdtemp(path.join(tmpdir(), 'replay-scenario-'))
    const file = path.join(dir, 'replay.yaml')
    await writeFile(
      file,
      [
        'name: replay block 2 with my bundle',
        'chain:',
        '  fork: { url: "${REPLAY_FORK_URL}", blockNumber: 1 }',
        'accounts:',
        '  searcher: 1 ether',
        'txs:',
        '  tip: { from: searcher, to: builder, value: 0.01 ether }',
        'steps:',
        '  - replayBlock: {}',
        '  - submit: { txs: [tip], as: mine }',
        '  - advance: 1',
        '  - expect:',
        '      bundles:',
        '        mine: { status: landed, blockNumber: 2 }',
        '      block: { won: true }',
        '      balances:',
        '        # the 17 paying transfers of the real block (1 wei each) landed with it',
        '        "0x00000000000000000000000000000000000c0ffe": { delta: 17 wei }',
        '',
      ].join('\n'),
    )
    process.env.REPLAY_FORK_URL = chain.url
    const result = await runScenario(file).finally(() => delete process.env.REPLAY_FORK_URL)
    expect(result.failures).toEqual([])
    expect(result.status).toBe('passed')
  }, 60_000)
})

describe('replay a block whose tx needs an earlier one', () => {
  const txs: RealTx[] = [
    { key: keyOf('opener'), nonce: 0, tip: parseGwei('1'), to: GATE, value: 0n, data: '0x01', gas: 100_000n },
    // Works only after the gate is opened: at the top of the block it reverts.
    { key: keyOf('follower'), nonce: 0, tip: parseGwei('1'), to: GATE, value: 0n, data: '0x', gas: 100_000n },
  ]

  const real = useRealChain(txs, keyOf('dependent-fee-recipient'))

  it('is left out with its trace’s reason, and ours is worth less than the real block', async () => {
    const chain = real()
    const report = await replayBlock({ forkUrl: chain.url, block: chain.block })
    expect(report.txs.map((f) => f.realReverted)).toEqual([false, false])
    expect(report.txs[0]!.position).toBe(0)
    expect(report.txs[1]!.position).toBeNull()
    expect(report.txs[1]!.status).toBe('simulationfail')
    expect(report.txs[1]!.error).toContain(`Reverting Hash: ${chain.hashes[1]}`)
    // Ours holds the opener's tip only (its own gas, the same as in the real block).
    const [opener, follower] = await Promise.all(chain.hashes.map((h) => call(chain.url, 'eth_getTransactionReceipt', [h])))
    expect(BigInt(report.real.value)).toBe((BigInt(opener.gasUsed) + BigInt(follower.gasUsed)) * parseGwei('1'))
    expect(BigInt(report.ours.value)).toBe(BigInt(opener.gasUsed) * parseGwei('1'))
    expect(report.valueRatio).toBeLessThan(0.9)
    expect(replayVerdict(report, 0.9).ok).toBe(false)
  }, 30_000)
})

describe('replay a block of 200 txs', () => {
  const txs: RealTx[] = Array.from({ length: 200 }, (_, i) =>
    i % 50 === 7
      ? { key: keyOf(`big-${i}`), nonce: 0, tip: parseGwei('2'), to: REVERTER, value: 0n, data: '0x01', gas: 100_000n }
      : { key: keyOf(`big-${i % 180}`), nonce: i < 180 ? 0 : 1, tip: parseGwei(String(1 + (i % 7))) },
  )

  const real = useRealChain(txs, keyOf('big-fee-recipient'))

  // How long it takes is printed, not asserted: speed lives in benchmarks, and a loaded machine took 18 s.
  it('reports every tx’s fate', async () => {
    const chain = real()
    const report = await replayBlock({ forkUrl: chain.url, block: chain.block })
    console.log(`replay of a ${report.real.txCount}-tx block: ${report.elapsedMs} ms ${JSON.stringify(report.timings)}, ${report.included} included, ${report.excluded} excluded`)
    expect(report.txs.map((f) => f.hash)).toEqual(chain.hashes)
    expect(report.excluded).toBe(0)
    expect(report.ours.value).toBe(report.real.value)
  }, 60_000)
})
