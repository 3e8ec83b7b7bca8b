import { DEFAULT_CONFIG } from '../config/config.js'
import { keccak256, numberToHex, stringToBytes, type Hash, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { JsonRpcError } from '../protocol/jsonRpcError.js'
import { createJsonRpcTransport } from '../protocol/jsonRpcTransport.js'
import { hashedForm } from '../protocol/blobEnvelope.js'
import type { CallBundleParams, CallBundleResponse, ImpersonatedTxParams, MevSendBundleParams, MevShareBodyElement, SendBlobsParams, SendBundleParams, SendEndOfBlockBundleParams, SendPrivateTransactionParams } from '../protocol/methods.js'
import { matchingHashOf } from '../protocol/mevShareHashes.js'
import { WIRE_PATTERNS } from '../protocol/wireRules.js'
import { ordersOf } from '../replay/orders.js'
import { readSourceBlock } from '../replay/sourceBlock.js'
import { submitOrders } from '../replay/submitOrders.js'
import { headStatus, locate, recordBalances, type RunContext } from './context.js'
import { ExpectationFailed, StepFailed, type ScenarioFailure } from './errors.js'
import { Failures, checkCallBundle, checkExpectations } from './expectations.js'
import { stepKind, type BlockRef, type BoostStep, type CancelPrivateTxStep, type EndOfBlockStep, type MevSendBundleStep, type SendBlobsStep, type SendPrivateTxStep, type Step, type StepKind, type SubmitStep } from './schema.js'
import type { Path } from './sourceMap.js'

/** A replacement UUID as given, or a fixed UUID derived from any other name. */
export function toReplacementUuid(name: string): string {
  if (WIRE_PATTERNS.uuid.test(name)) return name
  const h = keccak256(stringToBytes(`bundlesim:uuid:${name}`)).slice(2)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const resolveRef = (ref: BlockRef, head: number): bigint => (ref.relative ? BigInt(head) + ref.value : ref.value)

/** `txs` entries: a template's signed tx, or raw 0x hex as written. Signed in order, for nonces. */
async function rawTxs(context: RunContext, refs: readonly string[]): Promise<Hex[]> {
  const raws: Hex[] = []
  for (const ref of refs) raws.push(ref.startsWith('0x') ? (ref as Hex) : (await context.signer.sign(ref)).raw)
  return raws
}

async function txHashes(context: RunContext, refs: readonly string[] | undefined): Promise<Hash[] | undefined> {
  if (!refs) return undefined
  const hashes: Hash[] = []
  for (const ref of refs) hashes.push(ref.startsWith('0x') ? (ref as Hash) : (await context.signer.sign(ref)).hash)
  return hashes
}

/**
 * The searcher that signs a scenario's `submitEndOfBlock` (`X-Flashbots-Signature`, which the
 * method requires): key = keccak256("bundlesim scenario searcher"), the same in every run.
 */
export const SCENARIO_SEARCHER = privateKeyToAccount(keccak256(stringToBytes('bundlesim scenario searcher')))

/** The eth_sendBundle object a submit step stands for (or the fields an end-of-block step has), every field as the service expects it. */
async function bundleParams(context: RunContext, b: Partial<SubmitStep & EndOfBlockStep> & { txs: string[] }): Promise<SendBundleParams> {
  const head = await headStatus(context)
  const params: SendBundleParams = {
    txs: await rawTxs(context, b.txs),
    blockNumber: b.blockNumber && numberToHex(resolveRef(b.blockNumber, head.blockNumber)),
    minTimestamp: b.minTimestamp && Number(resolveRef(b.minTimestamp, head.timestamp)),
    maxTimestamp: b.maxTimestamp && Number(resolveRef(b.maxTimestamp, head.timestamp)),
    revertingTxHashes: await txHashes(context, b.revertingTxHashes),
    droppingTxHashes: await txHashes(context, b.droppingTxHashes),
    replacementUuid: b.replacementUuid === undefined ? undefined : toReplacementUuid(b.replacementUuid),
    replacementSeqNumber: b.replacementSeqNumber,
    refundPercent: b.refundPercent,
    refundRecipient: b.refundRecipient === undefined ? undefined : context.book.resolve(b.refundRecipient),
    refundTxHashes: await txHashes(context, b.refundTxHashes),
    builders: b.builders,
    ...(b.targetPools && { targetPools: b.targetPools.map((ref) => context.book.resolve(ref)) }),
  }
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as SendBundleParams
}

/**
 * Makes an RPC call a step stands for. With `expectError` the call must be refused with a
 * matching message, with `{ errorKind }` with that kind in the error's `data.errorKind`;
 * without, a refusal fails the step.
 */
async function callExpecting<T>(
  context: RunContext,
  at: Path,
  kind: StepKind,
  expectError: string | { errorKind: string } | undefined,
  call: () => Promise<T>,
): Promise<{ result?: T; failures: ScenarioFailure[] }> {
  const failures = new Failures(context, at)
  const field = typeof expectError === 'object' ? 'expectErrorKind' : 'expectError'
  const wanted = typeof expectError === 'object' ? expectError.errorKind : expectError
  try {
    const result = await call()
    if (wanted !== undefined) failures.add([field], `the call to be refused with ${wanted}`, `it succeeded: ${JSON.stringify(result)}`)
    return { result, failures: failures.list }
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error
    if (wanted === undefined) throw new StepFailed(locate(context, at), kind, `${error.method} refused: ${error.code} ${error.rpcMessage}`, error.data)
    if (typeof expectError === 'object') {
      const actual = (error.data as { errorKind?: unknown } | undefined)?.errorKind
      if (actual !== expectError.errorKind) failures.add([field], expectError.errorKind, `${String(actual ?? 'no errorKind')} (${error.code} ${error.rpcMessage})`)
    } else failures.text([field], error.rpcMessage, expectError)
    return { failures: failures.list }
  }
}

/**
 * An impersonated account's template: `harness_sendImpersonatedTx` mines it at once in a
 * block of its own (it has no signature for the public mempool or a bundle).
 */
async function sendImpersonated(context: RunContext, name: string, expectError: string | undefined, at: Path): Promise<ScenarioFailure[]> {
  const tx = context.signer.unsignedTx(name)
  // Amounts as decimal strings; fields left undefined are not sent (JSON has no undefined).
  const params: ImpersonatedTxParams = { ...tx, value: tx.value.toString(), gas: tx.gas?.toString(), maxFeePerGas: tx.maxFeePerGas.toString(), maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString() }
  const { result, failures } = await callExpecting(context, at, 'sendTx', expectError, () => context.client.sendImpersonatedTx(params))
  if (result) {
    context.signer.recordUnsigned(name, result.hash)
    context.nonces.reset()
  }
  return failures
}

async function submit(context: RunContext, b: SubmitStep | BoostStep | EndOfBlockStep, at: Path, kind: 'submit' | 'boost' | 'submitEndOfBlock'): Promise<ScenarioFailure[]> {
  const params = await bundleParams(context, b)
  const apiKey = kind === 'boost' ? ((b as BoostStep).apiKey ?? context.apiKeys[0]) : undefined
  const step = b as Partial<SubmitStep>
  const send = {
    submit: () => (step.to ? sendToBuilders(context, step.to, params) : step.gateway ? sendThroughGateway(context, step.gateway, params) : context.client.sendBundle(params)),
    boost: () => context.client.boostBundle(params, apiKey),
    submitEndOfBlock: () => context.client.sendEndOfBlockBundle(params as SendEndOfBlockBundleParams, SCENARIO_SEARCHER),
  }[kind]
  const { result, failures } = await callExpecting(context, at, kind, b.expectError, send)
  if (result && b.as !== undefined) context.bundles.set(b.as, result.bundleHash)
  return failures
}

/** A broadcaster's way: the same bundle to each named builder's own URL (`harness_status.builders`); answers the last one's result. */
async function sendToBuilders(context: RunContext, names: readonly string[], params: SendBundleParams): Promise<{ bundleHash: Hash } | null> {
  const { builders } = await headStatus(context)
  let result: { bundleHash: Hash } | null = null
  for (const name of names) {
    const builder = builders.find((b) => b.name === name)
    if (!builder) throw new Error(`to: no builder named ${name} (the run's: ${builders.map((b) => b.name).join(', ')})`)
    result = await createJsonRpcTransport({ url: builder.url }).request<{ bundleHash: Hash } | null>('eth_sendBundle', [params])
  }
  return result
}

/** bloXroute's way: `blxr_submit_bundle` at the gateway, `mev_builders` naming the builders (or `all`). */
async function sendThroughGateway(context: RunContext, names: 'all' | readonly string[], params: SendBundleParams): Promise<{ bundleHash: Hash } | null> {
  const { gatewayUrl, blockNumber } = await headStatus(context)
  const bloxroute = {
    transaction: params.txs.map((tx) => tx.slice(2)),
    block_number: params.blockNumber ?? numberToHex(blockNumber + 1),
    ...(params.minTimestamp !== undefined && { min_timestamp: params.minTimestamp }),
    ...(params.maxTimestamp !== undefined && { max_timestamp: params.maxTimestamp }),
    ...(params.revertingTxHashes?.length && { reverting_hashes: params.revertingTxHashes }),
    ...(params.droppingTxHashes?.length && { dropping_hashes: params.droppingTxHashes }),
    ...(params.replacementUuid !== undefined && { uuid: params.replacementUuid }),
    ...(params.refundRecipient !== undefined && { refund_recipient: params.refundRecipient }),
    mev_builders: Object.fromEntries((names === 'all' ? ['all'] : names).map((name) => [name, ''])),
  }
  return createJsonRpcTransport({ url: gatewayUrl, headers: { authorization: context.apiKeys[0] ?? 'bundlesim-scenario' } }).request('blxr_submit_bundle', bloxroute)
}

/**
 * A template's signed tx as a private transaction, signed by the scenario's searcher key (so
 * `cancelPrivateTx` can cancel it); with `hints` it is shared with MEV-Share. Its id (`as`)
 * traces it by its tx hash.
 */
async function sendPrivateTx(context: RunContext, p: SendPrivateTxStep, at: Path): Promise<ScenarioFailure[]> {
  const [tx] = await rawTxs(context, [p.tx])
  const head = await headStatus(context)
  const refund = p.refund?.map((r) => ({ address: context.book.resolve(r.address), percent: r.percent }))
  const preferences = (p.hints || refund) && { ...(p.hints && { privacy: { hints: p.hints } }), ...(refund && { validity: { refund } }) }
  const params: SendPrivateTransactionParams = {
    tx: tx!,
    ...(p.maxBlockNumber !== undefined && { maxBlockNumber: numberToHex(resolveRef(p.maxBlockNumber, head.blockNumber)) }),
    ...(preferences && { preferences }),
  }
  const { result, failures } = await callExpecting(context, at, 'sendPrivateTx', p.expectError, () => context.client.signedRequest('eth_sendPrivateTransaction', [params], SCENARIO_SEARCHER))
  if (result && p.as !== undefined) context.bundles.set(p.as, result)
  return failures
}

/** A set of blob templates as Titan's eth_sendBlobs; `as` names each permutation's trace (its tx hash). */
async function sendBlobs(context: RunContext, b: SendBlobsStep, at: Path): Promise<ScenarioFailure[]> {
  const head = await headStatus(context)
  const params: SendBlobsParams = { txs: await rawTxs(context, b.txs), ...(b.maxBlockNumber !== undefined && { maxBlockNumber: numberToHex(resolveRef(b.maxBlockNumber, head.blockNumber)) }) }
  const { result, failures } = await callExpecting(context, at, 'sendBlobs', b.expectError, () => context.client.request('eth_sendBlobs', [params]))
  if (result) b.as?.forEach((id, i) => context.bundles.set(id, result[i]!))
  return failures
}

/** eth_cancelPrivateTransaction of an earlier step's private tx, signed by the key that sent it. */
async function cancelPrivateTx(context: RunContext, p: CancelPrivateTxStep, at: Path): Promise<ScenarioFailure[]> {
  const txHash = context.bundles.get(p.tx)!
  return (await callExpecting(context, at, 'cancelPrivateTx', p.expectError, () => context.client.signedRequest('eth_cancelPrivateTransaction', [{ txHash }], SCENARIO_SEARCHER))).failures
}

/** MEV-Share's mev_sendBundle, signed by the scenario's searcher; a backrun names its private tx by the event hash. */
async function mevSendBundle(context: RunContext, m: MevSendBundleStep, at: Path): Promise<ScenarioFailure[]> {
  const head = await headStatus(context)
  const block = resolveRef(m.block ?? { relative: true, value: 1n }, head.blockNumber)
  const canRevert = new Set(await txHashes(context, m.canRevert))
  const body: MevShareBodyElement[] = []
  if (m.backrun !== undefined) body.push({ hash: matchingHashOf(context.bundles.get(m.backrun)!) })
  for (const raw of await rawTxs(context, m.txs)) body.push({ tx: raw, canRevert: canRevert.has(keccak256(hashedForm(raw))) })
  const params: MevSendBundleParams = {
    version: 'v0.1',
    inclusion: { block: numberToHex(block), ...(m.maxBlock && { maxBlock: numberToHex(resolveRef(m.maxBlock, head.blockNumber)) }) },
    body,
    ...((m.refund || m.refundConfig) && {
      validity: {
        ...(m.refund && { refund: m.refund }),
        ...(m.refundConfig && { refundConfig: m.refundConfig.map((r) => ({ address: context.book.resolve(r.address), percent: r.percent })) }),
      },
    }),
  }
  const { result, failures } = await callExpecting(context, at, 'mevSendBundle', m.expectError, () => context.client.signedRequest('mev_sendBundle', [params], SCENARIO_SEARCHER))
  if (result && m.as !== undefined) context.bundles.set(m.as, result.bundleHash)
  return failures
}

type Executor = (context: RunContext, step: Step, at: Path) => Promise<ScenarioFailure[]>

/** One executor per step kind; each drives the service through its public RPC only. */
const EXECUTORS: Record<StepKind, Executor> = {
  submit: (context, step, at) => submit(context, step.submit!, at, 'submit'),
  boost: (context, step, at) => submit(context, step.boost!, at, 'boost'),
  submitEndOfBlock: (context, step, at) => submit(context, step.submitEndOfBlock!, at, 'submitEndOfBlock'),
  sendPrivateTx: (context, step, at) => sendPrivateTx(context, step.sendPrivateTx!, at),
  sendBlobs: (context, step, at) => sendBlobs(context, step.sendBlobs!, at),
  cancelPrivateTx: (context, step, at) => cancelPrivateTx(context, step.cancelPrivateTx!, at),
  mevSendBundle: (context, step, at) => mevSendBundle(context, step.mevSendBundle!, at),

  async cancel(context, step, at) {
    const c = step.cancel!
    const { result, failures } = await callExpecting(context, at, 'cancel', c.expectError, () =>
      context.client.cancelBundle({ replacementUuid: toReplacementUuid(c.replacementUuid) }),
    )
    if (result && c.cancelled) {
      const wanted = c.cancelled.map((id) => context.bundles.get(id)).sort()
      if (JSON.stringify(wanted) !== JSON.stringify([...result].sort())) {
        const names = result.map((h) => [...context.bundles].find(([, known]) => known === h)?.[0] ?? h)
        failures.push(new ExpectationFailed(locate(context, [...at, 'cancelled']), 'cancelled', `[${c.cancelled.join(', ')}]`, `[${names.join(', ')}]`))
      }
    }
    return failures
  },

  async sendTx(context, step, at) {
    const s = step.sendTx!
    if (context.signer.isImpersonated(s.tx)) return sendImpersonated(context, s.tx, s.expectError, at)
    const signed = await context.signer.sign(s.tx)
    const expected = s.expectErrorKind === undefined ? s.expectError : { errorKind: s.expectErrorKind }
    return (await callExpecting(context, at, 'sendTx', expected, () => context.client.sendRawTransaction(signed.raw))).failures
  },

  async advance(context, step) {
    if (context.realtime) {
      await slotsPassed(context, step.advance!.slots)
      context.lastReports = undefined
    } else context.lastReports = await context.client.advanceSlot({ slots: step.advance!.slots })
    context.nonces.reset()
    return []
  },

  async replayBlock(context, step) {
    const fork = context.loaded.scenario.chain?.fork
    if (!fork?.url) throw new Error('replayBlock reads the real block from chain.fork.url, and this run has none (a snapshot holds no blocks)')
    const requested = step.replayBlock!.block
    if (requested === undefined && fork.blockNumber === undefined) throw new Error('replayBlock needs a block when chain.fork.blockNumber is not pinned')
    const source = await readSourceBlock(fork.url, requested === undefined ? BigInt(fork.blockNumber!) + 1n : BigInt(requested))
    const head = await headStatus(context)
    await submitOrders(context.client, ordersOf(source.txs), BigInt(head.blockNumber + 1))
    return []
  },

  async timeInSlot(context, step) {
    await context.client.setTimeInSlot(step.timeInSlot!.ms)
    return []
  },

  async competitorBid(context, step) {
    const wei = step.competitorBid!.wei
    await context.client.setCompetitorBid({ bidWei: wei === null ? null : wei.toString() })
    return []
  },

  async callBundle(context, step, at) {
    const c = step.callBundle!
    const head = await headStatus(context)
    const params: CallBundleParams = {
      txs: await rawTxs(context, c.txs),
      blockNumber: numberToHex(c.blockNumber ? resolveRef(c.blockNumber, head.blockNumber) : BigInt(head.blockNumber + 1)),
      stateBlockNumber: c.stateBlockNumber === undefined || c.stateBlockNumber === 'latest' ? 'latest' : numberToHex(c.stateBlockNumber),
    }
    if (c.timestamp) params.timestamp = Number(resolveRef(c.timestamp, head.timestamp))
    if (c.coinbase !== undefined) params.coinbase = context.book.resolve(c.coinbase)
    if (c.baseFee !== undefined) params.baseFee = numberToHex(c.baseFee)
    let outcome: { result: CallBundleResponse } | { error: JsonRpcError }
    try {
      outcome = { result: await context.client.callBundle(params) }
    } catch (error) {
      if (!(error instanceof JsonRpcError)) throw error
      outcome = { error }
    }
    if (!c.expect) {
      if ('error' in outcome) throw new StepFailed(locate(context, at), 'callBundle', `eth_callBundle refused: ${outcome.error.code} ${outcome.error.rpcMessage}`, outcome.error.data)
      return []
    }
    return checkCallBundle(context, c.expect, outcome, [...at, 'expect'])
  },

  async expect(context, step, at) {
    const failures = await checkExpectations(context, step.expect!, at)
    context.balances.previous = await recordBalances(context)
    return failures
  },
}

/** Runs one step; returns failed expectations, throws StepFailed when the step cannot run. */
export async function executeStep(context: RunContext, step: Step, index: number): Promise<ScenarioFailure[]> {
  const kind = stepKind(step)
  const at: Path = ['steps', index, kind]
  try {
    return await EXECUTORS[kind](context, step, at)
  } catch (error) {
    if (error instanceof StepFailed) throw error
    const reason = error instanceof JsonRpcError ? `${error.method} refused: ${error.code} ${error.rpcMessage}` : (error as Error).message
    throw new StepFailed(locate(context, at), kind, reason, error instanceof JsonRpcError ? error.data : undefined)
  }
}

/**
 * On the realtime clock (a scenario with bots), waits until `slots` more slots have been built,
 * reading the harness's slot count as it moves; it fails if the clock stops (three slot times
 * without a new slot).
 */
async function slotsPassed(context: RunContext, slots: number): Promise<void> {
  const first = await context.client.status()
  const target = first.slot + slots
  const slotMs = (context.loaded.scenario.builder.slotTime ?? DEFAULT_CONFIG.slotTimeSeconds) * 1000
  let last = first.slot
  let lastMovedAt = Date.now()
  for (;;) {
    const { slot } = await context.client.status()
    if (slot >= target) return
    if (slot !== last) [last, lastMovedAt] = [slot, Date.now()]
    else if (Date.now() - lastMovedAt > 3 * slotMs + 5_000) throw new Error(`the realtime clock stopped at slot ${slot} (waiting for slot ${target})`)
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, slotMs / 10)))
  }
}
