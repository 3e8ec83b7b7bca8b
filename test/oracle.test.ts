import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Hash } from 'viem'
import { checkEvidence, collectSlotEvidence, watchPublicView, type OracleOrder, type SlotEvidence } from '../oracle/index.js'
import { DEV_KEYS, REVERTER_CODE, sendBundle, setCode, signTx, useTestHarness } from './support/harness.js'

describe('the oracle imports nothing of the builder', () => {
  it('every import of oracle/ from src/ is of src/protocol/', () => {
    const files = readdirSync('oracle', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(3)
    const outside: string[] = []
    for (const file of files) {
      const source = readFileSync(path.join('oracle', file), 'utf8')
      for (const match of source.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
        const specifier = match[1] ?? match[2]!
        if (!specifier.startsWith('.')) continue
        const target = path.normalize(path.join('oracle', path.dirname(file), specifier))
        if (!target.startsWith('oracle') && !target.startsWith(path.join('src', 'protocol') + path.sep)) outside.push(`oracle/${file} -> ${target}`)
      }
    }
    expect(outside).toEqual([])
  })
})

const REVERTER = '0x00000000000000000000000000000000000dead1'

describe('the oracle on a real slot', () => {
  const harness = useTestHarness({}, (h) => setCode(h, REVERTER, REVERTER_CODE))
  let evidence: SlotEvidence
  let refunded: Hash
  let reverting: Hash
  let revertTx: Hash

  it('finds nothing wrong in a slot the builder got right, and each doctored fact breaks its rule', async () => {
    const watcher = await watchPublicView({ rpcUrl: harness.rpcUrl })
    const pay = await signTx({ key: DEV_KEYS[1], nonce: 0, to: harness.coinbase, value: 10n ** 16n })
    const revert = await signTx({ key: DEV_KEYS[2], nonce: 0, to: REVERTER, data: '0x01', gas: 50_000n })
    const tip = await signTx({ key: DEV_KEYS[2], nonce: 1, to: harness.coinbase, value: 10n ** 15n })
    const orders: OracleOrder[] = []
    const refundParams = { txs: [pay], refundPercent: 50 }
    refunded = await sendBundle(harness, refundParams)
    orders.push({ kind: 'bundle', bundleHash: refunded, params: refundParams })
    revertTx = (await import('viem')).keccak256(revert)
    const revertParams = { txs: [revert, tip], revertingTxHashes: [revertTx] }
    reverting = await sendBundle(harness, revertParams)
    orders.push({ kind: 'bundle', bundleHash: reverting, params: revertParams })
    await watcher.probe([revertTx])
    const [report] = await harness.advanceSlot()
    evidence = await collectSlotEvidence({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl, anvilUrl: harness.anvilUrl, blockNumber: report!.blockNumber, orders, publicSightings: watcher.sightings() })
    await watcher.stop()
    expect(report!.bundles.sort()).toEqual([refunded, reverting].sort())
    expect(checkEvidence(evidence)).toEqual([])

    // A refund one wei too high.
    const refundOffByOne = structuredClone(evidence)
    const trace = refundOffByOne.traces[refunded]!
    trace.refund = { ...trace.refund!, amount: String(BigInt(trace.refund!.amount) + 1n) }
    expect(checkEvidence(refundOffByOne).map((v) => [v.rule, v.bundleHash])).toEqual([
      ['refund', refunded],
      ['refund', refunded],
    ])

    // The reverting tx allowed without its hash.
    const notAllowed = structuredClone(evidence)
    notAllowed.orders.find((order) => order.hash === reverting)!.txs[0]!.mayRevert = false
    expect(checkEvidence(notAllowed).map((v) => [v.rule, v.txHash])).toEqual([['revertNotAllowed', revertTx]])

    // A builderPayment that is not the coinbase change, and a private tx seen before it landed.
    const leaky = structuredClone(evidence)
    leaky.traces[reverting]!.builderPayment = '1'
    leaky.publicSightings.push({ txHash: revertTx, via: 'newPendingTransactions', headBlock: 0 })
    expect(checkEvidence(leaky).map((v) => v.rule)).toEqual(['builderPayment', 'privateLeak'])

    // A tx of a bundle in the middle of another, and the block over its gas limit.
    const broken = structuredClone(evidence)
    const payTx = broken.orders.find((order) => order.hash === refunded)!.txs[0]!.hash
    const moved = broken.txs.find((tx) => tx.hash === payTx)!
    const others = broken.txs.filter((tx) => tx !== moved)
    const revertAt = others.findIndex((tx) => tx.hash === revertTx)
    broken.txs = [...others.slice(0, revertAt + 1), moved, ...others.slice(revertAt + 1)]
    broken.block.gasLimit = broken.block.gasUsed - 1n
    expect(checkEvidence(broken).map((v) => [v.rule, v.bundleHash ?? null])).toEqual([
      ['atomicity', reverting],
      ['refund', refunded],
      ['gasLimit', null],
    ])
  })

  it('an excluded bundle that would still succeed at the end of the block is reported', async () => {
    const doctored = structuredClone(evidence)
    doctored.traces[reverting] = { ...doctored.traces[reverting]!, status: 'excludedfromblock', errorKind: 'NotChosenByAnyAlgorithm', blockNumber: null }
    doctored.endOfBlock[reverting] = { succeeded: true, coinbaseDelta: 5n, gasUsed: 21_000n, failure: null }
    expect(checkEvidence(doctored).filter((v) => v.rule === 'excludedButValid').map((v) => v.bundleHash)).toEqual([reverting])
    doctored.endOfBlock[reverting] = { succeeded: false, coinbaseDelta: 0n, gasUsed: 21_000n, failure: 'reverts' }
    expect(checkEvidence(doctored).filter((v) => v.rule === 'excludedButValid')).toEqual([])
  })
})
