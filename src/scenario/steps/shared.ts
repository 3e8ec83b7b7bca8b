import { keccak256, numberToHex, stringToBytes, type Hash, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { JsonRpcError } from '../../protocol/jsonRpcError.js'
import type { SendBundleParams, SendBundleResult } from '../../protocol/methods.js'
import { WIRE_PATTERNS } from '../../protocol/wireRules.js'
import { headStatus, locate, type RunContext } from '../core/context.js'
import { StepFailed, type ScenarioFailure } from '../core/errors.js'
import { Failures } from '../core/expectations.js'
import type { BlockRef, BundleFields } from '../core/fields.js'
import type { Path } from '../core/sourceMap.js'
import type { ReferenceCheck, StepKind } from './definition.js'

/*
 * What several step kinds share: signing their txs, resolving `+N` blocks, the searcher key
 * that signs their requests, calling the service expecting (or not) a refusal, and the path
 * of a bundle (submit, boost, submitEndOfBlock).
 */

/** A replacement UUID as given, or a fixed UUID derived from any other name. */
export function toReplacementUuid(name: string): string {
  if (WIRE_PATTERNS.uuid.test(name)) return name
  const h = keccak256(stringToBytes(`bundlesim:uuid:${name}`)).slice(2)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** A block (or timestamp) reference as a number: `+N` counts from `head`. */
export const resolveRef = (ref: BlockRef, head: number): bigint => (ref.relative ? BigInt(head) + ref.value : ref.value)

/** A `txs` entry: a template's signed tx, or raw 0x hex as written. */
export async function rawTx(context: RunContext, ref: string): Promise<Hex> {
  return ref.startsWith('0x') ? (ref as Hex) : (await context.signer.sign(ref)).raw
}

/** `txs` entries, signed in order (for nonces). */
export async function rawTxs(context: RunContext, refs: readonly string[]): Promise<Hex[]> {
  const raws: Hex[] = []
  for (const ref of refs) raws.push(await rawTx(context, ref))
  return raws
}

/** Hash list entries: a template's tx hash (signing it if need be), or a 0x hash as written. */
export async function txHashes(context: RunContext, refs: readonly string[] | undefined): Promise<Hash[] | undefined> {
  if (!refs) return undefined
  const hashes: Hash[] = []
  for (const ref of refs) hashes.push(ref.startsWith('0x') ? (ref as Hash) : (await context.signer.sign(ref)).hash)
  return hashes
}

/**
 * The searcher that signs a scenario's requests that need a signature (`X-Flashbots-Signature`:
 * end-of-block bundles, private txs and their cancellation, MEV-Share bundles):
 * key = keccak256("bundlesim scenario searcher"), the same in every run.
 */
export const SCENARIO_SEARCHER = privateKeyToAccount(keccak256(stringToBytes('bundlesim scenario searcher')))

/**
 * Makes an RPC call a step stands for. With `expectError` the call must be refused with a
 * matching message, with `{ errorKind }` with that kind in the error's `data.errorKind`;
 * without, a refusal fails the step.
 */
export async function callExpecting<T>(
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

/** The eth_sendBundle object a bundle step stands for, every field as the service expects it. */
async function bundleParams(context: RunContext, b: BundleFields): Promise<SendBundleParams> {
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
    replacementNonce: b.replacementNonce,
    delayedRefund: b.delayedRefund,
    refundIdentity: b.refundIdentity === undefined ? undefined : context.book.resolve(b.refundIdentity),
    builders: b.builders,
  }
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as SendBundleParams
}

/**
 * A bundle step (submit, boost, submitEndOfBlock): its fields as the eth_sendBundle object,
 * sent by `send` (each kind its method and way); `as` names the hash the service answers.
 */
export async function submitBundle(
  context: RunContext,
  bundle: BundleFields,
  at: Path,
  kind: 'submit' | 'boost' | 'submitEndOfBlock',
  send: (params: SendBundleParams) => Promise<SendBundleResult>,
): Promise<ScenarioFailure[]> {
  const params = await bundleParams(context, bundle)
  const { result, failures } = await callExpecting(context, at, kind, bundle.expectError, () => send(params))
  if (result && bundle.as !== undefined) context.bundles.set(bundle.as, result.bundleHash)
  return failures
}

/**
 * The names every bundle step's fields use: its txs, hash lists and refund recipient. The
 * step's own fields and its `as` are the step's to check, after these.
 */
export function bundleReferences(bundle: BundleFields, check: ReferenceCheck, at: Path): void {
  bundle.txs.forEach((ref, j) => check.txOrRaw(ref, [...at, 'txs', j]))
  for (const field of ['revertingTxHashes', 'droppingTxHashes', 'refundTxHashes'] as const) {
    bundle[field]?.forEach((ref, j) => check.txOrHash(ref, [...at, field, j]))
  }
  check.address(bundle.refundRecipient, [...at, 'refundRecipient'])
  check.address(bundle.refundIdentity, [...at, 'refundIdentity'])
}
