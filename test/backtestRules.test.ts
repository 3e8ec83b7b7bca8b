import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { zipSync } from 'fflate'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Address, Hash } from 'viem'
import { planArrivals, type HistoricalTx } from '../src/backtest/arrivals.js'
import { readMempoolDump, writeMempoolCsv, type DumpEntry } from '../src/backtest/mempoolDump.js'
import { signOfWork } from '../src/backtest/botSetup.js'
import { stateBeforeBlock } from '../src/backtest/stateBefore.js'
import { RpcCassette } from '../src/backtest/cassette.js'
import { readRecording } from '../src/backtest/recording.js'
import type { BacktestReport } from '../src/backtest/report.js'
import { fetchFromNode } from '../src/chain/rateLimits.js'
import { writesOfCheat } from '../src/chain/stateWrites.js'

const tx = (index: number, from: string, reverted = false): HistoricalTx => ({ hash: `0x${String(index).padStart(64, '0')}` as Hash, index, from: from as Address, to: null, raw: `0x0${index}`, reverted })
const seenAt = (entries: Array<[HistoricalTx, number]>) => new Map(entries.map(([t, ms]): [Hash, DumpEntry] => [t.hash, { hash: t.hash, timestampMs: ms, chainId: 1, includedAtBlock: 10 }]))
const slot = { parentTimestamp: 1_000n, timestamp: 1_012n, slotMs: 3_000 }

describe('planArrivals: when and how a real block’s txs reach the backtest’s builder', () => {
  it('public txs arrive at their first sighting, scaled from the 12-s slot onto the backtest’s, clamped to the slot', () => {
    const [early, mid, late] = [tx(0, 'a'), tx(1, 'b'), tx(2, 'c')]
    const { publicTxs, orders } = planArrivals([early, mid, late], { ...slot, seen: seenAt([[early, 990_000], [mid, 1_006_000], [late, 1_013_500]]) })
    expect(publicTxs.map((p) => [p.tx.index, p.atMs])).toEqual([[0, 0], [1, 1_500], [2, 3_000]])
    expect(orders).toEqual([])
  })

  it('without a dump every tx is public at the slot’s start', () => {
    const { publicTxs, orders, publicHashes } = planArrivals([tx(0, 'a'), tx(1, 'b')], slot)
    expect(publicTxs.map((p) => p.atMs)).toEqual([0, 0])
    expect(orders).toEqual([])
    expect(publicHashes.size).toBe(2)
  })

  it('private txs become the bundles they landed as: top of block, backruns of the last public tx, sandwiches; two searchers side by side are two bundles', () => {
    const arb = tx(0, 'searcherA')
    const v1 = tx(1, 'user1')
    const back1 = tx(2, 'searcherB', true)
    const back1b = tx(3, 'searcherB')
    const front2 = tx(4, 'sandwicher')
    const v2 = tx(5, 'user2')
    const back2 = tx(6, 'sandwicher')
    const late = tx(7, 'searcherC')
    const seen = seenAt([[v1, 1_003_000], [v2, 1_009_000]])
    const { orders, publicHashes } = planArrivals([arb, v1, back1, back1b, front2, v2, back2, late], { ...slot, seen })
    expect(orders.map((o) => ({ txs: o.txs.map((t) => t.index), anchor: o.anchor, atMs: o.atMs, reverting: o.revertingTxHashes }))).toEqual([
      { txs: [0], anchor: null, atMs: 0, reverting: [] },
      { txs: [1, 2, 3], anchor: v1.hash, atMs: 750, reverting: [back1.hash] },
      { txs: [4, 5, 6], anchor: v2.hash, atMs: 2_250, reverting: [] },
      // After the sandwich: a backrun of the sandwiched swap, the last public tx before it.
      { txs: [5, 7], anchor: v2.hash, atMs: 2_250, reverting: [] },
    ])
    expect([...publicHashes]).toEqual([v1.hash, v2.hash])
  })
})

describe('readMempoolDump: mempool-dumpster’s CSV and parquet', () => {
  const [first, second, third] = [1, 2, 3].map((i) => `0x${String(i).repeat(64)}` as Hash) as [Hash, Hash, Hash]
  const hashes = [first, second, third] as const

  it('reads the parquet schema (timestamp in ms, chainId as text, includedAtBlockHeight) and keeps the range’s first sightings', async () => {
    const { parquetWriteBuffer } = await import('hyparquet-writer')
    const buffer = parquetWriteBuffer({
      codec: 'UNCOMPRESSED',
      columnData: [
        { name: 'timestamp', data: [1_700_000_001_000n, 1_700_000_002_000n, 1_700_000_000_500n], type: 'TIMESTAMP' },
        { name: 'hash', data: [hashes[0], hashes[1], hashes[2]], type: 'STRING' },
        { name: 'chainId', data: ['1', '1', '1'], type: 'STRING' },
        { name: 'txType', data: [2n, 2n, 2n], type: 'INT64' },
        { name: 'includedAtBlockHeight', data: [100n, 101n, 250n], type: 'INT64' },
        { name: 'rawTx', data: [new Uint8Array([1]), new Uint8Array([2]), new Uint8Array([3])], type: 'BYTE_ARRAY' },
      ],
    })
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-parquet-'))
    const file = path.join(dir, 'dump.parquet')
    await writeFile(file, new Uint8Array(buffer))
    const slice = await readMempoolDump(file, { chainId: 1, from: 100, to: 101 })
    expect([...slice.byHash.values()]).toEqual([
      { hash: hashes[0], timestampMs: 1_700_000_001_000, chainId: 1, includedAtBlock: 100 },
      { hash: hashes[1], timestampMs: 1_700_000_002_000, chainId: 1, includedAtBlock: 101 },
    ])
    expect(slice.rows).toBe(3)
    await expect(readMempoolDump(file, { chainId: 1, from: 1, to: 2 })).rejects.toThrow(`mempool dump ${file} holds no tx included in blocks 1–2: its txs were included in blocks 100–250`)
    await expect(readMempoolDump(file, { chainId: 5, from: 100, to: 101 })).rejects.toThrow(`mempool dump ${file}: row 1 is a tx of chain 1, the backtest's chain is 5`)
  })

  it("reads every codec parquet writers use: GZIP as mempool-dumpster's merge writes it, SNAPPY, ZSTD, BROTLI", async () => {
    const { parquetWriteBuffer } = await import('hyparquet-writer')
    const { Zstd } = await import('@hpcc-js/wasm-zstd')
    const zstd = await Zstd.load()
    // Each page compressed by the codec's own library: zlib's gzip (what Go's compress/gzip writes), Facebook's zstd (wasm), zlib's brotli; SNAPPY by the writer itself.
    const compressors = { GZIP: (bytes: Uint8Array) => new Uint8Array(gzipSync(bytes)), ZSTD: (bytes: Uint8Array) => zstd.compress(bytes), BROTLI: (bytes: Uint8Array) => new Uint8Array(brotliCompressSync(bytes)) }
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-codecs-'))
    for (const codec of ['GZIP', 'SNAPPY', 'ZSTD', 'BROTLI'] as const) {
      const buffer = parquetWriteBuffer({
        codec,
        compressors,
        columnData: [
          { name: 'timestamp', data: [1_700_000_001_000n, 1_700_000_000_500n], type: 'TIMESTAMP' },
          { name: 'hash', data: [hashes[0], hashes[1]], type: 'STRING' },
          { name: 'chainId', data: ['1', '1'], type: 'STRING' },
          { name: 'includedAtBlockHeight', data: [100n, 100n], type: 'INT64' },
          { name: 'rawTx', data: [new Uint8Array(300).fill(7), new Uint8Array(300).fill(9)], type: 'BYTE_ARRAY' },
        ],
      })
      const file = path.join(dir, `transactions-${codec}.parquet`)
      await writeFile(file, new Uint8Array(buffer))
      // The file is what the codec says: its column chunks' metadata names it.
      const { parquetMetadata } = await import('hyparquet')
      expect(parquetMetadata(buffer).row_groups[0]!.columns[1]!.meta_data!.codec, codec).toBe(codec)
      const slice = await readMempoolDump(file, { chainId: 1, from: 100, to: 100 })
      expect([...slice.byHash.values()], codec).toEqual([
        { hash: hashes[0], timestampMs: 1_700_000_001_000, chainId: 1, includedAtBlock: 100 },
        { hash: hashes[1], timestampMs: 1_700_000_000_500, chainId: 1, includedAtBlock: 100 },
      ])
    }
  })

  it('reads the .csv.zip as published, without unzipping, and the days a range spans together', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-csvzip-'))
    const csv = path.join(dir, '2024-01-02.csv')
    await writeMempoolCsv(csv, [
      { hash: hashes[0], timestampMs: 2_000, chainId: 1, includedAtBlock: 7 },
      { hash: hashes[1], timestampMs: 1_500, chainId: 1, includedAtBlock: 8 },
    ])
    // As mempool-dumpster uploads a day: the CSV deflated in a zip of one entry.
    const zipped = path.join(dir, '2024-01-02.csv.zip')
    await writeFile(zipped, zipSync({ '2024-01-02.csv': new Uint8Array(await readFile(csv)) }))
    const slice = await readMempoolDump(zipped, { chainId: 1, from: 7, to: 8 })
    expect([...slice.byHash.values()]).toEqual([...(await readMempoolDump(csv, { chainId: 1, from: 7, to: 8 })).byHash.values()])
    expect(slice.byHash.size).toBe(2)
    // A range over two days: both days' files, a tx seen in both at its first sighting.
    const nextDay = path.join(dir, '2024-01-03.parquet')
    const { parquetWriteBuffer } = await import('hyparquet-writer')
    await writeFile(nextDay, new Uint8Array(parquetWriteBuffer({ codec: 'SNAPPY', columnData: [
      { name: 'timestamp', data: [1_000n, 9_000n], type: 'TIMESTAMP' },
      { name: 'hash', data: [hashes[1], hashes[2]], type: 'STRING' },
      { name: 'chainId', data: ['1', '1'], type: 'STRING' },
      { name: 'includedAtBlockHeight', data: [8n, 9n], type: 'INT64' },
    ] })))
    const both = await readMempoolDump([zipped, nextDay], { chainId: 1, from: 7, to: 9 })
    expect([...both.byHash.values()].map((e) => [e.hash, e.timestampMs]).sort()).toEqual([
      [hashes[0], 2_000],
      [hashes[1], 1_000],
      [hashes[2], 9_000],
    ])
    expect(both.file).toBe(`${zipped}, ${nextDay}`)
  })

  it('reads the CSV by its header, names a bad cell by line and column, and refuses other files', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-csv-'))
    const file = path.join(dir, 'dump.csv')
    await writeMempoolCsv(file, [
      { hash: hashes[0], timestampMs: 2_000, chainId: 1, includedAtBlock: 7, sources: ['local', 'bloxroute'] },
      { hash: hashes[0], timestampMs: 1_000, chainId: 1, includedAtBlock: 7 },
    ])
    const slice = await readMempoolDump(file, { chainId: 1, from: 7, to: 7 })
    expect(slice.byHash.get(hashes[0])?.timestampMs).toBe(1_000)
    await writeFile(file, 'timestamp_ms,hash,chain_id,included_at_block_height\nsoon,0x12,1,7\n')
    await expect(readMempoolDump(file, { chainId: 1, from: 7, to: 7 })).rejects.toThrow(`mempool dump ${file}: line 2: hash "0x12" is not a 32-byte hex hash`)
    await writeFile(file, 'when,hash\n')
    await expect(readMempoolDump(file, { chainId: 1, from: 7, to: 7 })).rejects.toThrow(`mempool dump ${file}: line 1 has no column timestamp_ms, chain_id, included_at_block_height`)
    await expect(readMempoolDump(path.join(dir, 'dump.json'), { chainId: 1, from: 7, to: 7 })).rejects.toThrow("expected mempool-dumpster's .parquet, .csv.zip (as published) or .csv")
    await expect(readMempoolDump(path.join(dir, 'absent.csv.zip'), { chainId: 1, from: 7, to: 7 })).rejects.toThrow(/absent\.csv\.zip cannot be read: .*no such file/)
  })
})

describe('shards: the share of a range each machine runs, and the merge of their reports', () => {
  it('splits a range into contiguous shares as even as blocks allow, and refuses a shard with no block or a bad i/n', async () => {
    const { shardRange } = await import('../src/backtest/shards.js')
    const { parseShard } = await import('../src/config/shard.js')
    const shares = [1, 2, 3].map((index) => shardRange(100n, 109n, { index, count: 3 }))
    expect(shares).toEqual([
      { from: 100n, to: 102n },
      { from: 103n, to: 105n },
      { from: 106n, to: 109n },
    ])
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 })
    for (const bad of ['0/3', '4/3', '1/0', 'two/3']) expect(() => parseShard(bad), bad).toThrow(`--shard must be i/n with 1 ≤ i ≤ n (e.g. 2/4), got "${bad}"`)
    expect(() => shardRange(100n, 101n, { index: 1, count: 3 })).toThrow('--shard 1/3: blocks 100–101 are 2, fewer than 3 shards (each needs a block)')
  })

  it("refuses to merge reports of other runs or overlapping ranges, naming them", async () => {
    const { mergeReports } = await import('../src/backtest/shards.js')
    const report = (index: number, from: number, to: number, bot = 'b'): any => ({
      format: 'bundlesim-backtest/1',
      source: { node: 'n', recording: null, chainId: 1, from, to, mempool: null },
      bot: { name: bot, command: 'node bot.js', addresses: [] },
      slotMs: 12000,
      reactMs: 1000,
      blocks: [],
      totals: {},
      error: null,
      expectations: { failures: [] },
      notRecorded: 0,
      shard: { index, count: 2, of: { from: 1, to: 4 } },
      elapsedMs: 1,
      timings: { setupMs: 0, prepareWaitMs: 0, windowMs: 0, buildMs: 0 },
    })
    expect(() => mergeReports([report(1, 1, 2), report(2, 3, 4, 'other')])).toThrow('backtest merge: shard 2/2 (blocks 3–4) is of another run: bot "other" (node bot.js), not "b" (node bot.js)')
    expect(() => mergeReports([report(1, 1, 2), report(2, 2, 4)])).toThrow('backtest merge: shard 1/2 (blocks 1–2) and shard 2/2 (blocks 2–4) overlap')
    expect(mergeReports([report(2, 3, 4), report(1, 1, 2)]).source).toMatchObject({ from: 1, to: 4 })
  })
})

describe('the bot’s set-up (pure)', () => {
  it('a sign of work is what a bot does once it trades, never what waiting for a receipt does', () => {
    const call = (method: string, params: unknown = []) => signOfWork({ method, params })
    expect(call('eth_subscribe', ['newPendingTransactions'])).toBe('eth_subscribe newPendingTransactions')
    expect(call('eth_subscribe', ['logs', { address: '0x00' }])).toBe('eth_subscribe logs')
    expect(call('eth_newPendingTransactionFilter')).toBe('eth_newPendingTransactionFilter')
    expect(call('eth_sendBundle', [{ txs: [] }])).toBe('eth_sendBundle')
    expect(call('eth_callBundle', [{ txs: [] }])).toBe('eth_callBundle')
    expect(call('mev_sendBundle', [{}])).toBe('mev_sendBundle')
    // viem's waitForTransactionReceipt over a WebSocket subscribes to new heads; a block filter and reads are no sign either.
    expect(call('eth_subscribe', ['newHeads'])).toBeNull()
    expect(call('eth_newBlockFilter')).toBeNull()
    expect(call('eth_getTransactionReceipt', ['0x00'])).toBeNull()
    expect(call('eth_blockNumber')).toBeNull()
    expect(call('eth_sendRawTransaction', ['0x02'])).toBeNull()
  })

  it('what a state cheatcode wrote, named by its field and slot', () => {
    const token = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
    expect(writesOfCheat('anvil_setStorageAt', [token, '0x9', '0x01'])).toEqual([{ address: token.toLowerCase(), field: 'storage', slot: `0x${'9'.padStart(64, '0')}` }])
    expect(writesOfCheat('hardhat_setBalance', [token, '0x1'])).toEqual([{ address: token.toLowerCase(), field: 'balance' }])
    expect(writesOfCheat('anvil_setCode', [token, '0x00'])).toEqual([{ address: token.toLowerCase(), field: 'code' }])
    expect(writesOfCheat('anvil_setNonce', [token, '0x1'])).toEqual([{ address: token.toLowerCase(), field: 'nonce' }])
    expect(writesOfCheat('anvil_mine', ['0x1'])).toEqual([])
    expect(writesOfCheat('anvil_setStorageAt', ['not an address', '0x9', '0x1'])).toEqual([])
  })
})

describe('the parent’s state read ahead from a trace of the block', () => {
  const A = '0x00000000000000000000000000000000000000aa'
  const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
  it('each account and slot as the first tx that touched it found it (a later tx’s prestate shows what earlier ones left); the system contracts written before the txs left out', () => {
    const state = stateBeforeBlock([
      { result: { [A.toUpperCase().replace('0X', '0x')]: { balance: '0x5', nonce: 2, code: '0x60', storage: { [word(1)]: word(7) } } } },
      { result: { [A]: { balance: '0x9', nonce: 3, storage: { [word(1)]: word(8), [word(2)]: word(4) } }, '0x000f3df6d732807ef1319fb7b8bb8522d0beac02': { balance: '0x0', storage: { [word(1)]: word(1) } } } },
    ])
    expect([...state.keys()]).toEqual([A])
    const account = state.get(A)!
    expect({ balance: account.balance, nonce: account.nonce, code: account.code }).toEqual({ balance: '0x5', nonce: 2, code: '0x60' })
    expect([...account.storage]).toEqual([[1n, word(7)], [2n, word(4)]])
  })

  it('the cassette answers Anvil’s reads of a primed block from it, in any spelling, and nothing else', async () => {
    const cassette = await RpcCassette.replay([])
    try {
      cassette.prime(9n, stateBeforeBlock([{ result: { [A]: { balance: '0x5', nonce: 2, code: '0x60', storage: { [word(1)]: word(7) } } } }]))
      const ask = async (method: string, params: unknown[]) => (await (await fetch(cassette.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method, params }]) })).json())[0]
      expect((await ask('eth_getStorageAt', [A, '0x1', '0x9'])).result).toBe(word(7))
      expect((await ask('eth_getAccountInfo', [A, '0x9'])).result).toEqual({ balance: '0x5', nonce: '0x2', code: '0x60' })
      expect((await ask('eth_getTransactionCount', [A, '0x9'])).result).toBe('0x2')
      // Another block, another slot: the recording's (here: none, so empty and counted).
      expect((await ask('eth_getStorageAt', [A, '0x1', '0x8'])).result).toBe(word(0))
      expect((await ask('eth_getStorageAt', [A, '0x3', '0x9'])).result).toBe(word(0))
      expect(cassette.primedAnswers).toBe(3)
      expect(cassette.missing.size).toBe(2)
      // The next block's state replaces it.
      cassette.prime(10n, stateBeforeBlock([]))
      expect((await ask('eth_getCode', [A, '0x9'])).result).toBe('0x')
    } finally {
      await cassette.close()
    }
  })
})

describe('a read sent to the node again', () => {
  it('when the connection drops (a reused keep-alive socket the node closed), up to three times; a refused connection is the node’s answer at once', async () => {
    const http = await import('node:http')
    let requests = 0
    // Drops the first two connections mid-request, then answers.
    const server = http.createServer((req, res) => {
      requests++
      if (requests <= 2) return req.socket.destroy()
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":"0x1"}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    try {
      const response = await fetchFromNode(url, { method: 'POST', body: '{}' })
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' })
      expect(requests).toBe(3)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
    await expect(fetchFromNode('http://127.0.0.1:9', { method: 'POST', body: '{}' })).rejects.toThrow('fetch failed')
  })
})

describe('a recording of an earlier bundlesim', () => {
  it('is refused, saying to record it again: its reads are at each block’s parent, where a run of today reads at the block it forked from', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-old-recording-'))
    await writeFile(path.join(dir, 'backtest.json'), JSON.stringify({ format: 'bundlesim-backtest-recording/1', chainId: 1, from: 10, to: 12, node: 'http://node', mempool: null, recordedAt: '2026-01-01T00:00:00Z' }))
    await expect(readRecording(dir)).rejects.toThrow(`recording ${dir}: recorded by an earlier bundlesim (format bundlesim-backtest-recording/1: each block's reads at its own parent, where today's run reads at the block it forked from): record it again with bundlesim backtest --record ${dir}`)
  })
})

describe('a state read the node answered before', () => {
  it('is answered again by the cassette without the node, recording or not: a numbered block’s state never changes; a read of `latest` always goes to the node', async () => {
    const http = await import('node:http')
    const A = '0x00000000000000000000000000000000000000aa'
    const asked: string[] = []
    // A node answering each read with its own count, so a repeat answered by it would differ.
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const requests = [JSON.parse(Buffer.concat(chunks).toString('utf8'))].flat() as Array<{ id: number; method: string; params: unknown[] }>
        const answers = requests.map((request) => {
          asked.push(`${request.method} ${JSON.stringify(request.params)}`)
          return { jsonrpc: '2.0', id: request.id, result: `0x${asked.length.toString(16).padStart(64, '0')}` }
        })
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers.length === 1 ? answers[0] : answers))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const node = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    try {
      for (const cassette of [await RpcCassette.passThrough(node), await RpcCassette.record(node)]) {
        asked.length = 0
        const ask = async (params: unknown[]) => (await (await fetch(cassette.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_getStorageAt', params }) })).json()).result
        try {
          const first = await ask([A, '0x1', '0x9'])
          expect(await ask([A, '0x1', '0x9'])).toBe(first)
          await ask([A, '0x1', 'latest'])
          await ask([A, '0x1', 'latest'])
          expect(asked).toEqual([`eth_getStorageAt ${JSON.stringify([A, '0x1', '0x9'])}`, ...Array(2).fill(`eth_getStorageAt ${JSON.stringify([A, '0x1', 'latest'])}`)])
          expect(cassette.repeatsAnswered).toBe(1)
        } finally {
          await cassette.close()
        }
      }
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('the summary of a run whose replays were refused', () => {
  it('says how many real blocks were reached by anvil_reset instead, and why the first was', async () => {
    const { BACKTEST_FORMAT, summaryText, totalsOf } = await import('../src/backtest/report.js')
    const report: BacktestReport = {
      format: BACKTEST_FORMAT,
      source: { node: 'http://node', recording: null, chainId: 1, from: 10, to: 13, mempool: null },
      bot: { name: 'bot', command: 'node bot.js', addresses: [], setup: null },
      slotMs: 12_000,
      reactMs: 1_000,
      blocks: [],
      totals: totalsOf([]),
      error: null,
      expectations: { failures: [] },
      notRecorded: 0,
      rateLimited: 0,
      shard: null,
      elapsedMs: 1_000,
      timings: { setupMs: 0, prepareWaitMs: 0, windowMs: 0, buildMs: 0, slotMs: 0, readMs: 0, moveMs: 0 },
      moves: { replayed: 1, reset: 3, resets: [{ block: 11, reason: 'tx 0x01 carries blobs the block does not hold' }, { block: 12, reason: 'x' }] },
    }
    expect(summaryText(report)).toContain('note: 2 real blocks were not mined again and reached by anvil_reset instead (slower; the first: block 11, tx 0x01 carries blobs the block does not hold)')
    expect(summaryText({ ...report, moves: { replayed: 3, reset: 1, resets: [] } })).not.toContain('anvil_reset')
  })
})
