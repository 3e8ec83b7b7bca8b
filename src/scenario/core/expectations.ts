import { decodeEventLog, type Abi, type Address, type GetEventArgs, type Hash, type Hex } from 'viem'
import type { BundleStats } from '../../protocol/bundleStats.js'
import { JsonRpcError } from '../../protocol/jsonRpcError.js'
import type { CallBundleResponse } from '../../protocol/methods.js'
import { searcherRecords, type CompetitionReport } from '../../protocol/competition.js'
import { canonicalAbiValue, toAbiValue } from './abiValues.js'
import { balanceOf, bundleName, headStatus, locate, type RunContext } from './context.js'
import type { SlotReport } from '../../protocol/slotReport.js'
import { ExpectationFailed } from './errors.js'
import { describeBounds, plainNumber, textMatcher, withinBounds } from './match.js'
import type { BalanceExpectation, BundleExpectation, CallBundleExpectations, DelayedRefundExpectation, EventExpectation, Expectations } from './expectationSchema.js'
import { parseEvent, type Bounds } from './fields.js'
import { formatPath, type Path } from './sourceMap.js'
import { formatAmount } from './units.js'
import { hintEventMismatches } from './hintEvents.js'
import { normalizeHash } from '../../protocol/normalize.js'

/** Collects the failed checks of one step, each at its own place in the file. */
export class Failures {
  readonly list: ExpectationFailed[] = []

  constructor(
    private readonly context: RunContext,
    /** Path of the step's expectation block in the file. */
    private readonly at: Path,
  ) {}

  add(path: Path, expected: string, actual: string, trace?: BundleStats | null): void {
    this.list.push(new ExpectationFailed(locate(this.context, [...this.at, ...path]), formatPath(path), expected, actual, trace))
  }

  bounds(path: Path, actual: bigint, bounds: Bounds | undefined, format = formatAmount, trace?: BundleStats | null): void {
    if (bounds && !withinBounds(actual, bounds)) this.add(path, describeBounds(bounds, format), format(actual), trace)
  }

  text(path: Path, actual: string | null | undefined, pattern: string | null | undefined, trace?: BundleStats | null): void {
    if (pattern === undefined) return
    if (pattern === null) {
      if (actual !== null && actual !== undefined) this.add(path, 'no error', JSON.stringify(actual), trace)
      return
    }
    const matcher = textMatcher(pattern)
    if (actual === null || actual === undefined || !matcher.test(actual)) this.add(path, matcher.describe, actual == null ? 'no error' : JSON.stringify(actual), trace)
  }
}

/** A template name or a 0x hash as the hash it stands for (undefined: never signed). */
async function hashOf(context: RunContext, ref: string): Promise<Hash | undefined> {
  return ref.startsWith('0x') ? normalizeHash(ref) : context.signer.hashOf(ref)
}

const describeTx = (context: RunContext, hash: string | null | undefined): string => {
  if (hash === null || hash === undefined) return 'null'
  const name = context.signer.templateOf(hash)
  return name ? `${name} (${hash})` : hash
}

async function checkBundle(context: RunContext, failures: Failures, id: string, expected: BundleExpectation): Promise<void> {
  const at = ['bundles', id]
  const hash = context.bundles.get(id)
  if (!hash) return failures.add(at, 'a submitted bundle', 'the submit step did not return a hash')
  let trace: BundleStats
  try {
    trace = await context.client.getBundleStats(hash)
  } catch (error) {
    const reason = error instanceof JsonRpcError ? `${error.code} ${error.rpcMessage}${error.data ? ` ${JSON.stringify(error.data)}` : ''}` : String(error)
    return failures.add(at, `the trace of ${hash}`, reason)
  }
  if (expected.status !== undefined && expected.status.toLowerCase() !== trace.status.toLowerCase()) {
    failures.add([...at, 'status'], expected.status, trace.status, trace)
  }
  failures.text([...at, 'error'], trace.error, expected.error, trace)
  if (expected.errorKind !== undefined && expected.errorKind !== (trace.errorKind ?? null)) {
    failures.add([...at, 'errorKind'], String(expected.errorKind), `${String(trace.errorKind ?? null)}${trace.error === null ? '' : ` (${JSON.stringify(trace.error)})`}`, trace)
  }
  if (expected.revertingHash !== undefined) {
    const wanted = expected.revertingHash === null ? null : ((await hashOf(context, expected.revertingHash)) ?? null)
    if (wanted !== trace.revertingHash) failures.add([...at, 'revertingHash'], describeTx(context, wanted) + (wanted === null && expected.revertingHash ? ` (${expected.revertingHash} was never sent)` : ''), describeTx(context, trace.revertingHash), trace)
  }
  failures.text([...at, 'revertReason'], trace.revertReason, expected.revertReason, trace)
  failures.bounds([...at, 'builderPayment'], BigInt(trace.builderPayment), expected.builderPayment, formatAmount, trace)
  if (expected.builder !== undefined && expected.builder !== (trace.builder ?? null)) failures.add([...at, 'builder'], String(expected.builder), String(trace.builder ?? null), trace)
  if (expected.seenBy) {
    const actual = trace.builders?.map((b) => b.name) ?? []
    if (JSON.stringify([...actual].sort()) !== JSON.stringify([...expected.seenBy].sort())) {
      failures.add([...at, 'seenBy'], `[${expected.seenBy.join(', ')}]`, `[${actual.join(', ')}] (${trace.builders?.map((b) => `${b.name}: ${b.status}`).join('; ') || 'no builder saw it'})`, trace)
    }
  }
  if (expected.refund === null && trace.refund !== null) failures.add([...at, 'refund'], 'no refund', JSON.stringify(trace.refund), trace)
  if (expected.refund) {
    if (trace.refund === null) failures.add([...at, 'refund'], 'a refund', 'no refund', trace)
    else {
      const recipient = expected.refund.recipient === undefined ? undefined : context.book.resolve(expected.refund.recipient)
      if (recipient && recipient !== trace.refund.recipient.toLowerCase()) failures.add([...at, 'refund', 'recipient'], `${expected.refund.recipient} (${recipient})`, trace.refund.recipient, trace)
      failures.bounds([...at, 'refund', 'amount'], BigInt(trace.refund.amount), expected.refund.amount, formatAmount, trace)
    }
  }
  if (expected.sponsorships) {
    const actual = trace.sponsorships.map((s) => `${describeTx(context, s.txHash)}: ${formatAmount(BigInt(s.amount))}`).join('; ') || 'none'
    if (expected.sponsorships.length !== trace.sponsorships.length) {
      failures.add([...at, 'sponsorships'], `${expected.sponsorships.length} sponsorship(s)`, actual, trace)
    } else {
      for (const [i, s] of expected.sponsorships.entries()) {
        const made = trace.sponsorships[i]!
        if ((await hashOf(context, s.tx)) !== made.txHash) failures.add([...at, 'sponsorships', i, 'tx'], s.tx, describeTx(context, made.txHash), trace)
        failures.bounds([...at, 'sponsorships', i, 'amount'], BigInt(made.amount), s.amount, formatAmount, trace)
      }
    }
  }
  if (expected.blockNumber !== undefined && expected.blockNumber !== trace.blockNumber) {
    failures.add([...at, 'blockNumber'], String(expected.blockNumber), String(trace.blockNumber), trace)
  }
}

async function checkBalance(context: RunContext, failures: Failures, ref: string, expected: BalanceExpectation): Promise<void> {
  const at = ['balances', ref]
  const address = context.book.resolve(ref)
  const balance = await balanceOf(context, address)
  failures.bounds(at, balance, { equals: expected.equals, min: expected.min, max: expected.max })
  if (expected.delta) {
    const base = (expected.since === 'previous' ? context.balances.previous : context.balances.start).get(address) ?? 0n
    failures.bounds([...at, 'delta'], balance - base, expected.delta)
  }
}

type Receipt = { status: Hex; logs: Array<{ address: Address; topics: [Hex, ...Hex[]]; data: Hex }> } | null

async function receiptOf(context: RunContext, template: string): Promise<{ hash?: Hash; receipt: Receipt }> {
  const hash = await context.signer.hashOf(template)
  if (!hash) return { receipt: null }
  return { hash, receipt: await context.client.request<Receipt>('eth_getTransactionReceipt', [hash]) }
}

const receiptStatus = (receipt: Receipt): string => (receipt === null ? 'absent' : receipt.status === '0x1' ? 'success' : 'reverted')

async function checkEvents(context: RunContext, failures: Failures, template: string, expected: EventExpectation[]): Promise<void> {
  const { hash, receipt } = await receiptOf(context, template)
  for (const [i, event] of expected.entries()) {
    const at = ['events', template, i]
    if (!receipt) {
      failures.add(at, `${event.event} emitted`, hash ? 'no receipt (the tx is not on chain)' : 'no receipt (the template was never sent)')
      continue
    }
    const item = parseEvent(event.event)
    const address = event.address === undefined ? undefined : context.book.resolve(event.address)
    const wanted = Object.entries(event.args ?? {}).map(([name, value]) => {
      const param = item.inputs.find((input) => input.name === name)!
      return [name, canonicalAbiValue(toAbiValue(param, value, context.book))] as const
    })
    const decoded: string[] = []
    const found = receipt.logs.some((log) => {
      if (address && log.address.toLowerCase() !== address) return false
      try {
        const { args } = decodeEventLog({ abi: [item], data: log.data, topics: log.topics, strict: true })
        const values: GetEventArgs<Abi, string> = args
        decoded.push(`${item.name}${JSON.stringify(canonicalAbiValue(values))} at ${log.address}`)
        return wanted.every(([name, value]) => JSON.stringify(canonicalAbiValue(values[name])) === JSON.stringify(value))
      } catch {
        return false
      }
    })
    if (!found) {
      const want = `${item.name}${wanted.length ? JSON.stringify(Object.fromEntries(wanted)) : ''}${address ? ` at ${event.address}` : ''}`
      failures.add(at, want, decoded.length ? decoded.join('; ') : `no ${item.name} log among ${receipt.logs.length} log(s)`)
    }
  }
}

async function checkBlock(context: RunContext, failures: Failures, expected: NonNullable<Expectations['block']>): Promise<void> {
  const report = context.lastReports?.at(-1)
  const names = (hashes: readonly string[]) => hashes.map((h) => context.signer.templateOf(h) ?? h)
  if ((expected.bundles || expected.won !== undefined || expected.mempoolTxs || expected.winner !== undefined || expected.relay) && !report) {
    return failures.add(['block'], 'a slot report', 'no advance step has run yet')
  }
  if (report && expected.bundles) {
    const wanted = expected.bundles.map((id) => context.bundles.get(id) ?? `${id} (no hash)`)
    if (JSON.stringify(wanted) !== JSON.stringify(report.bundles)) {
      failures.add(['block', 'bundles'], `[${expected.bundles.join(', ')}]`, `[${report.bundles.map((h) => bundleName(context, h)).join(', ')}]`)
    }
  }
  if (report && expected.won !== undefined && expected.won !== report.won) {
    failures.add(['block', 'won'], String(expected.won), `${report.won} (competitor bid ${report.competitorBid ?? 'none'}, block value ${report.value})`)
  }
  if (report && expected.winner !== undefined && expected.winner !== report.builder) {
    const bids = report.builders?.map((b) => `${b.name} ${b.value}`).join(', ')
    const actual = report.builders ? `${report.builder ?? `the competitor (bid ${report.competitorBid})`}; bids: ${bids} wei` : 'one builder only (declare builders: to have several)'
    failures.add(['block', 'winner'], expected.winner, actual)
  }
  if (report && expected.mempoolTxs) {
    const actual = names(report.mempoolTxs)
    if (JSON.stringify(actual) !== JSON.stringify(expected.mempoolTxs)) failures.add(['block', 'mempoolTxs'], `[${expected.mempoolTxs.join(', ')}]`, `[${actual.join(', ')}]`)
  }
  if (report && expected.relay) await checkRelay(context, failures, expected.relay, report)
  if (expected.txs) {
    const block = await context.client.request<{ number: Hex; transactions: Hash[] }>('eth_getBlockByNumber', ['latest', false])
    // Builder payouts and txs of no template are not the scenario's to order.
    const actual = block.transactions.map((h) => context.signer.templateOf(h)).filter((n): n is string => n !== undefined)
    if (JSON.stringify(actual) !== JSON.stringify(expected.txs)) {
      failures.add(['block', 'txs'], `[${expected.txs.join(', ')}] in block ${Number(block.number)}`, `[${actual.join(', ')}]`)
    }
  }
}

/**
 * The relay's data API for the report's slot, read as a searcher reads it: who bid (in the
 * order received) and whose payload was delivered, which must be the mined block paying the
 * report's value.
 */
async function checkRelay(context: RunContext, failures: Failures, expected: NonNullable<NonNullable<Expectations['block']>['relay']>, report: SlotReport): Promise<void> {
  const { relayUrl, builders } = await headStatus(context)
  const nameOf = (pubkey: string) => builders.find((b) => b.pubkey === pubkey)?.name ?? pubkey
  const read = async (path: string) => (await (await fetch(`${relayUrl}/relay/v1/data/bidtraces/${path}?slot=${report.blockNumber}`)).json()) as Array<{ builder_pubkey: string; block_hash: string; value: string }>
  if (expected.bids) {
    const bids = (await read('builder_blocks_received')).reverse()
    const actual = bids.map((bid) => nameOf(bid.builder_pubkey))
    if (JSON.stringify(actual) !== JSON.stringify(expected.bids)) {
      failures.add(['block', 'relay', 'bids'], `[${expected.bids.join(', ')}]`, `[${bids.map((bid) => `${nameOf(bid.builder_pubkey)} ${bid.value}`).join(', ')}] (name and wei of each bid of slot ${report.blockNumber})`)
    }
  }
  if (expected.delivered !== undefined) {
    const [payload] = await read('proposer_payload_delivered')
    const actual = payload ? nameOf(payload.builder_pubkey) : null
    if (actual !== expected.delivered) failures.add(['block', 'relay', 'delivered'], String(expected.delivered), String(actual))
    else if (payload && (payload.block_hash !== report.blockHash || payload.value !== report.value)) {
      failures.add(['block', 'relay', 'delivered'], `the mined block ${report.blockHash} paying ${report.value} wei`, `block ${payload.block_hash} paying ${payload.value} wei`)
    }
  }
}

async function checkCompetition(context: RunContext, failures: Failures, expected: NonNullable<Expectations['competition']>): Promise<void> {
  let report: CompetitionReport
  try {
    report = await context.client.request<CompetitionReport>('harness_getCompetition', [])
  } catch (error) {
    return failures.add(['competition'], 'a market (flow:)', error instanceof JsonRpcError ? error.message : String(error))
  }
  if (expected.kind !== undefined) {
    // One kind's rounds alone: each searcher's record over them (the same sum as the whole report's).
    const list = report.list.filter((o) => o.kind === expected.kind)
    const known = report.searchers.flatMap((s) => (s.name === null ? [] : [{ searcher: s.searcher, name: s.name }]))
    report = { ...report, list, opportunities: list.length, captured: list.filter((o) => o.searcher !== null).length, searchers: searcherRecords(list, known) }
  }
  const ref = expected.searcher
  const address = ref.startsWith('0x') ? ref.toLowerCase() : context.book.has(ref) ? context.book.resolve(ref).toLowerCase() : undefined
  const record = report.searchers.find((s) => s.name === ref || s.searcher.toLowerCase() === address)
  const known = report.searchers.map((s) => s.name ?? s.searcher).join(', ')
  if (!record && !address) return failures.add(['competition', 'searcher'], `a searcher of the market (${known || 'none has captured anything'}) or an account`, JSON.stringify(ref))
  const captured = record?.captured ?? 0
  const rate = report.opportunities === 0 ? 0 : captured / report.opportunities
  const of = `${captured} of ${report.opportunities} opportunities (${(rate * 100).toFixed(1)} %); ${report.searchers.map((s) => `${s.name ?? s.searcher} ${s.captured}`).join(', ')}`
  const outside = (value: number, bounds: { min?: number; max?: number }) => (bounds.min !== undefined && value < bounds.min) || (bounds.max !== undefined && value > bounds.max)
  const describe = (bounds: { min?: number; max?: number }) => [bounds.min !== undefined && `≥ ${bounds.min}`, bounds.max !== undefined && `≤ ${bounds.max}`].filter(Boolean).join(' and ')
  // What became of the rounds it went for and did not capture: a searcher's first question when its captures fall short.
  const failedKinds = (r: typeof record) => Object.entries(r?.failedKinds ?? {}).map(([kind, n]) => `${kind} ${n}`).join(', ')
  const rounds = !record || record.lost + record.failed === 0 ? `${ref} went for no other round` : `${ref} lost ${record.lost}, failed ${record.failed}${record.failed > 0 ? ` (${failedKinds(record)})` : ''}`
  if (expected.captured && outside(captured, expected.captured)) failures.add(['competition', 'captured'], describe(expected.captured), `${of}; ${rounds}`)
  if (expected.captureRate && outside(rate, expected.captureRate)) failures.add(['competition', 'captureRate'], describe(expected.captureRate), `${of}; ${rounds}`)
  const lost = record?.lost ?? 0
  if (expected.lost && outside(lost, expected.lost)) failures.add(['competition', 'lost'], describe(expected.lost), `${lost} lost; ${report.searchers.map((s) => `${s.name ?? s.searcher} ${s.captured} captured, ${s.lost} lost`).join('; ')}`)
  const failed = record?.failed ?? 0
  if (expected.failed && outside(failed, expected.failed)) failures.add(['competition', 'failed'], describe(expected.failed), `${failed} failed (${failedKinds(record) || 'none'})`)
  failures.bounds(['competition', 'profit'], BigInt(record?.profitWei ?? '0'), expected.profit)
  failures.bounds(['competition', 'builderPayment'], BigInt(record?.builderPaymentWei ?? '0'), expected.builderPayment)
  failures.bounds(['competition', 'grossPayment'], BigInt(record?.grossPaymentWei ?? '0'), expected.grossPayment)
}

/** `delayedRefunds.<ref>`: BuilderNet's refunds of a recipient (`buildernet_getDelayedRefunds` on the submission RPC), exactly these, in order. */
async function checkDelayedRefunds(context: RunContext, failures: Failures, ref: string, expected: DelayedRefundExpectation[]): Promise<void> {
  const at = ['delayedRefunds', ref]
  const recipient = context.book.resolve(ref)
  let answer: { refunds: Array<{ amount: string; blockNumber: string; hash: string; status: string }> }
  try {
    answer = await context.client.request('buildernet_getDelayedRefunds', [{ recipient }])
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error
    return failures.add(at, 'buildernet_getDelayedRefunds to answer', `${error.code} ${error.rpcMessage}`)
  }
  const shown = (refund: (typeof answer.refunds)[number]) =>
    `${bundleName(context, refund.hash)}: ${formatAmount(BigInt(refund.amount))}, ${refund.status}, block ${Number(refund.blockNumber)}`
  const all = answer.refunds.map(shown).join('; ') || 'none'
  if (answer.refunds.length !== expected.length) return failures.add(at, `${expected.length} refund(s)`, `${answer.refunds.length}: ${all}`)
  expected.forEach((wanted, j) => {
    const actual = answer.refunds[j]!
    const here = [...at, j]
    if (wanted.bundle !== undefined && context.bundles.get(wanted.bundle) !== normalizeHash(actual.hash)) failures.add([...here, 'bundle'], `${wanted.bundle} (${context.bundles.get(wanted.bundle) ?? 'never sent'})`, shown(actual))
    failures.bounds([...here, 'amount'], BigInt(actual.amount), wanted.amount)
    if (wanted.status !== undefined && wanted.status !== actual.status) failures.add([...here, 'status'], wanted.status, shown(actual))
    if (wanted.blockNumber !== undefined && wanted.blockNumber !== Number(actual.blockNumber)) failures.add([...here, 'blockNumber'], String(wanted.blockNumber), shown(actual))
  })
}

/** Runs every check of an `expect` step; returns the ones that failed. */
export async function checkExpectations(context: RunContext, expected: Expectations, at: Path): Promise<ExpectationFailed[]> {
  const failures = new Failures(context, at)
  for (const [id, bundle] of Object.entries(expected.bundles ?? {})) await checkBundle(context, failures, id, bundle)
  for (const [ref, balance] of Object.entries(expected.balances ?? {})) await checkBalance(context, failures, ref, balance)
  for (const [template, status] of Object.entries(expected.receipts ?? {})) {
    const { receipt, hash } = await receiptOf(context, template)
    const actual = receiptStatus(receipt)
    if (actual !== status) failures.add(['receipts', template], status, hash ? `${actual} (${hash})` : `${actual} (never sent)`)
  }
  for (const [template, events] of Object.entries(expected.events ?? {})) await checkEvents(context, failures, template, events)
  if (expected.block) await checkBlock(context, failures, expected.block)
  for (const [ref, refunds] of Object.entries(expected.delayedRefunds ?? {})) await checkDelayedRefunds(context, failures, ref, refunds)
  if (expected.hintEvents) {
    for (const { path, expected: wanted, actual } of await hintEventMismatches(context, expected.hintEvents)) failures.add(path, wanted, actual)
  }
  if (expected.competition) await checkCompetition(context, failures, expected.competition)
  return failures.list
}

/** Checks an eth_callBundle answer (or its error) against the step's `expect`. */
export async function checkCallBundle(
  context: RunContext,
  expected: CallBundleExpectations,
  outcome: { result: CallBundleResponse } | { error: JsonRpcError },
  at: Path,
): Promise<ExpectationFailed[]> {
  const failures = new Failures(context, at)
  if ('error' in outcome) {
    if (expected.error === undefined) failures.add([], 'eth_callBundle to succeed', `${outcome.error.code} ${outcome.error.rpcMessage}`)
    else failures.text(['error'], outcome.error.rpcMessage, expected.error)
    return failures.list
  }
  const { result } = outcome
  if (expected.error !== undefined) failures.add(['error'], textMatcher(expected.error).describe, 'the call succeeded')
  for (const field of ['coinbaseDiff', 'ethSentToCoinbase', 'gasFees', 'bundleGasPrice'] as const) failures.bounds([field], BigInt(result[field]), expected[field])
  failures.bounds(['totalGasUsed'], BigInt(result.totalGasUsed), expected.totalGasUsed, plainNumber)
  for (const [template, wanted] of Object.entries(expected.results ?? {})) {
    const hash = await context.signer.hashOf(template)
    const tx = result.results.find((r) => r.txHash === hash)
    const here = ['results', template]
    if (!tx) {
      failures.add(here, `a result for ${describeTx(context, hash)}`, `results for ${result.results.map((r) => describeTx(context, r.txHash)).join(', ')}`)
      continue
    }
    failures.text([...here, 'error'], tx.error, wanted.error)
    if (wanted.revert !== undefined) failures.text([...here, 'revert'], tx.revert ?? null, wanted.revert)
    failures.bounds([...here, 'gasUsed'], BigInt(tx.gasUsed), wanted.gasUsed, plainNumber)
    failures.bounds([...here, 'coinbaseDiff'], BigInt(tx.coinbaseDiff), wanted.coinbaseDiff)
    failures.bounds([...here, 'ethSentToCoinbase'], BigInt(tx.ethSentToCoinbase), wanted.ethSentToCoinbase)
    if (wanted.value !== undefined && wanted.value.toLowerCase() !== (tx.value ?? '').toLowerCase()) {
      failures.add([...here, 'value'], wanted.value, tx.value ?? `no value (error: ${tx.error})`)
    }
  }
  return failures.list
}
