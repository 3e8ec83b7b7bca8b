import { describe, expect, it } from 'vitest'
import { parseGwei, type Address, type Hash, type Hex } from 'viem'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, addressOf, call, rpc, signTx, signedRpc, stats, useTestHarness } from './support/harness.js'

/**
 * Several builders as a searcher's broadcaster meets them (docs/several-builders.md): one URL
 * per builder from `harness_status`, each with its own rules; bloXroute's gateway; and the
 * relay's data API, checked against the traces and the chain, on a real Anvil.
 */

const nonceOf = async (h: Harness, key: Hex) => Number(await call(h.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const balanceAt = async (h: Harness, address: Address, block: number) => BigInt(await call(h.rpcUrl, 'eth_getBalance', [address, `0x${block.toString(16)}`]))
const relay = async (base: string, path: string) => {
  const res = await fetch(`${base}/relay/v1/data/bidtraces/${path}`)
  return { status: res.status, body: (await res.json()) as any }
}

interface StatusBuilder {
  name: string
  url: string
  coinbase: Address
  pubkey: Hex
}

describe('a broadcaster sends to each builder\'s own URL; the relay data API says who won', () => {
  const harness = useTestHarness({
    builders: [
      { name: 'titan', algorithms: ['builder-payment'] },
      { name: 'beaver', algorithms: ['builder-payment'], fields: ['blockNumber', 'revertingTxHashes'], maxRefundPercent: 0, stats: ['titan_getBundleStats'] },
      { name: 'rsync', algorithms: ['builder-payment'], fields: ['blockNumber', 'refundPercent'], maxRefundPercent: 50, rateLimit: 2 },
    ],
  })

  it('lists each builder with its URL, coinbase and pubkey; a bundle sent to one builder is seen by it only; the relay and the chain agree', async () => {
    const status = await call(harness.rpcUrl, 'harness_status')
    const builders: StatusBuilder[] = status.builders
    expect(builders.map((b) => b.name)).toEqual(['titan', 'beaver', 'rsync'])
    for (const b of builders) {
      expect(b.url).toBe(`${harness.rpcUrl}builders/${b.name}`)
      expect(b.pubkey).toMatch(/^0x[89ab][0-9a-f]{95}$/)
      expect(b.coinbase).toMatch(/^0x[0-9a-f]{40}$/)
    }
    expect(new Set(builders.map((b) => b.pubkey)).size).toBe(3)
    const [titan, beaver, rsync] = builders as [StatusBuilder, StatusBuilder, StatusBuilder]

    // The broadcaster: one bundle to titan alone, another to every builder's URL.
    const onlyTitanTx = await signTx({ key: DEV_KEYS[0], nonce: await nonceOf(harness, DEV_KEYS[0]), maxPriorityFeePerGas: parseGwei('3') })
    const toAllTx = await signTx({ key: DEV_KEYS[1], nonce: await nonceOf(harness, DEV_KEYS[1]), maxPriorityFeePerGas: parseGwei('2') })
    const onlyTitan: Hash = (await call(titan.url, 'eth_sendBundle', [{ txs: [onlyTitanTx] }])).bundleHash
    const toAll: Hash[] = await Promise.all(builders.map(async (b) => (await call(b.url, 'eth_sendBundle', [{ txs: [toAllTx] }])).bundleHash))
    expect(new Set(toAll).size).toBe(1)

    const [report] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    const slot = report.blockNumber as number

    // Traces: who saw what, each as it was sent.
    const titanOnlyStats = await stats(harness, onlyTitan)
    expect(titanOnlyStats.builders.map((v: any) => v.name)).toEqual(['titan'])
    const toAllStats = await stats(harness, toAll[0]!)
    expect(toAllStats.builders.map((v: any) => v.name)).toEqual(['titan', 'beaver', 'rsync'])
    // Titan's block holds both bundles, beaver's one: titan's bid is higher and wins.
    expect(report.builder).toBe('titan')
    expect(titanOnlyStats).toMatchObject({ status: 'landed', builder: 'titan' })
    expect(toAllStats).toMatchObject({ status: 'landed', builder: 'titan' })
    expect(toAllStats.builders.find((v: any) => v.name === 'beaver')).toMatchObject({ status: 'submitted', errorKind: 'AuctionLost' })

    // Each builder's own stats answer its own view: beaver never saw titan's bundle.
    const atBeaver = await rpc(beaver.url, 'titan_getBundleStats', [{ bundleHash: onlyTitan }])
    expect(atBeaver.body.error).toMatchObject({ code: -32004, message: 'bundle not found' })
    const toAllAtBeaver = await call(beaver.url, 'titan_getBundleStats', [{ bundleHash: toAll[0] }])
    expect(toAllAtBeaver).toMatchObject({ status: 'Submitted', errorKind: 'AuctionLost' })
    expect(await call(titan.url, 'titan_getBundleStats', [{ bundleHash: onlyTitan }])).toMatchObject({ status: 'Landed' })
    // Beaver serves no flashbots_getBundleStatsV2; titan does, signed, with its own pubkey.
    expect((await signedRpc(beaver.url, 'flashbots_getBundleStatsV2', [{ bundleHash: toAll[0], blockNumber: `0x${slot.toString(16)}` }], DEV_KEYS[1])).body.error?.code).toBe(-32601)
    const v2 = await signedRpc(titan.url, 'flashbots_getBundleStatsV2', [{ bundleHash: toAll[0], blockNumber: `0x${slot.toString(16)}` }], DEV_KEYS[1])
    expect(v2.body.result).toBeDefined()

    // The relay data API: both bids of the slot, the delivered payload is the winner's, and both match the chain.
    const received = await relay(status.relayUrl, `builder_blocks_received?slot=${slot}`)
    expect(received.status).toBe(200)
    expect(received.body.map((bid: any) => bid.builder_pubkey).sort()).toEqual([titan.pubkey, beaver.pubkey, rsync.pubkey].sort())
    const delivered = await relay(status.relayUrl, `proposer_payload_delivered?slot=${slot}`)
    expect(delivered.body).toHaveLength(1)
    const payload = delivered.body[0]
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${slot.toString(16)}`, false])
    const gain = (await balanceAt(harness, titan.coinbase, slot)) - (await balanceAt(harness, titan.coinbase, slot - 1))
    expect(payload).toEqual({
      slot: String(slot),
      parent_hash: block.parentHash,
      block_hash: block.hash,
      builder_pubkey: titan.pubkey,
      proposer_pubkey: expect.stringMatching(/^0x[89ab][0-9a-f]{95}$/),
      proposer_fee_recipient: titan.coinbase,
      gas_limit: BigInt(block.gasLimit).toString(),
      gas_used: BigInt(block.gasUsed).toString(),
      value: gain.toString(),
      block_number: String(slot),
      num_tx: String(block.transactions.length),
    })
    expect(payload.value).toBe(report.value)
    const winningBid = received.body.find((bid: any) => bid.builder_pubkey === titan.pubkey)
    expect(winningBid).toMatchObject({ block_hash: block.hash, value: payload.value, optimistic_submission: false })
    expect(winningBid.timestamp_ms).toMatch(/^\d+$/)
    const losingBid = received.body.find((bid: any) => bid.builder_pubkey === beaver.pubkey)
    expect(BigInt(losingBid.value)).toBeLessThan(BigInt(payload.value))
    expect(losingBid.block_hash).not.toBe(block.hash)
    // Filters as mev-boost-relay takes them, and its error style.
    expect((await relay(status.relayUrl, `builder_blocks_received?builder_pubkey=${beaver.pubkey}`)).body.map((b: any) => b.slot)).toEqual([String(slot)])
    expect((await relay(status.relayUrl, `proposer_payload_delivered?cursor=${slot}&limit=1`)).body).toEqual([payload])
    expect(await relay(status.relayUrl, 'builder_blocks_received')).toEqual({ status: 400, body: { code: 400, message: 'need to query for specific slot or block_hash or block_number or builder_pubkey' } })
    expect(await relay(status.relayUrl, `proposer_payload_delivered?slot=${slot}&cursor=${slot}`)).toEqual({ status: 400, body: { code: 400, message: 'cannot specify both slot and cursor' } })
    expect((await relay(status.relayUrl, 'proposer_payload_delivered?slot=abc')).body).toEqual({ code: 400, message: 'invalid slot argument' })
  })

  it('a builder refuses the fields it does not take, refunds over its ceiling, and requests over its rate limit', async () => {
    const [, beaver, rsync] = (await call(harness.rpcUrl, 'harness_status')).builders as StatusBuilder[]
    const tx = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(harness, DEV_KEYS[2]) })
    const refused = await rpc(beaver!.url, 'eth_sendBundle', [{ txs: [tx], replacementUuid: '8f6a4b7e-1111-4e3a-9c1d-2b3c4d5e6f70', refundPercent: 50 }])
    expect(refused.body.error?.code).toBe(-32602)
    expect(refused.body.error?.message).toBe(
      'replacementUuid: not accepted by builder beaver (it takes txs, blockNumber, revertingTxHashes); refundPercent: not accepted by builder beaver (it takes txs, blockNumber, revertingTxHashes)',
    )
    const overCeiling = await rpc(rsync!.url, 'eth_sendBundle', [{ txs: [tx], refundPercent: 90 }])
    expect(overCeiling.body.error).toMatchObject({ code: -32602, message: "refundPercent: 90 is over builder rsync's maximum of 50" })
    // Over rsync's 2 requests a second: HTTP 429 with Retry-After, as on the shared URL.
    const answers = []
    for (let i = 0; i < 8; i++) answers.push((await rpc(rsync!.url, 'eth_sendBundle', [{ txs: [tx] }])).status)
    expect(answers).toContain(429)
  })
})

describe('bloXroute\'s gateway: blxr_submit_bundle', () => {
  const harness = useTestHarness({ builders: [{ name: 'titan' }, { name: 'beaver' }] })
  const submit = async (params: unknown, auth: string | null = 'dGVzdDp0ZXN0') => {
    const { gatewayUrl } = await call(harness.rpcUrl, 'harness_status')
    return rpc(gatewayUrl, 'blxr_submit_bundle', params, auth === null ? {} : { authorization: auth })
  }

  it('forwards to the builders mev_builders names, answering { bundleHash }', async () => {
    const tx = await signTx({ key: DEV_KEYS[3], nonce: await nonceOf(harness, DEV_KEYS[3]) })
    const head = Number(await call(harness.rpcUrl, 'eth_blockNumber'))
    const sent = await submit({ transaction: [tx.slice(2)], block_number: `0x${(head + 1).toString(16)}`, mev_builders: { beaver: '' } })
    expect(sent.body.error).toBeUndefined()
    const { bundleHash } = sent.body.result as { bundleHash: Hash }
    expect(bundleHash).toMatch(/^0x[0-9a-f]{64}$/)
    await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    const trace = await stats(harness, bundleHash)
    expect(trace).toMatchObject({ status: 'landed', builder: 'beaver' })
    expect(trace.builders.map((v: any) => v.name)).toEqual(['beaver'])
  })

  it('answers a wrong field, a bad value, an unknown builder and a missing Authorization as bloXroute does, naming each', async () => {
    const block = `0x${(Number(await call(harness.rpcUrl, 'eth_blockNumber')) + 1).toString(16)}`
    const tx = (await signTx({ key: DEV_KEYS[4], nonce: 0 })).slice(2)
    const typo = await submit({ transactions: [tx], block_number: block })
    expect(typo.body.error).toMatchObject({ code: -32602, message: 'Invalid params' })
    expect(typo.body.error?.data).toContain('unknown field transactions (did you mean transaction?)')
    const badBlock = await submit({ transaction: [tx], block_number: 12 })
    expect(badBlock.body.error?.data).toContain('block_number:')
    const badTx = await submit({ transaction: ['zz'], block_number: block })
    expect(badTx.body.error?.data).toContain('transaction[0]: expected raw transaction bytes as hex without 0x')
    const nobody = await submit({ transaction: [tx], block_number: block, mev_builders: { rsync: '' } })
    expect(nobody.body.error?.data).toMatch(/^mev_builders: no builder named rsync .*\(known: all, titan, beaver\)$/)
    const anonymous = await submit({ transaction: [tx], block_number: block }, null)
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.error).toMatchObject({ code: -32001, message: 'Unauthorized', data: expect.stringContaining('Authorization: required header missing') })
  })
})
