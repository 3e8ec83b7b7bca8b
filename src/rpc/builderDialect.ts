import { createJSONRPCErrorResponse, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0'
import { keccak256, stringToHex, type Address } from 'viem'
import type { BuilderProfile } from '../builder/fleet/profiles.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { WIRE_PATTERNS } from '../protocol/wirePatterns.js'
import { checkFlashbotsSignature, FLASHBOTS_SIGNATURE_HEADER } from './flashbotsSignature.js'
import { registeredMethods } from './registerMethod.js'
import type { RequestAuth, RouteDialect } from './httpServer.js'
import type { IncomingHttpHeaders } from 'node:http'

/** BuilderNet's `version` 1 does not take these (FlowProxy/rbuilder: `Field … not supported by version V1`). */
const NOT_IN_VERSION_1 = ['droppingTxHashes', 'refundPercent', 'refundRecipient', 'refundTxHashes', 'delayedRefund']

/** A problem with a request, answered as the method's own params error would be. */
class DialectRefusal extends Error {}

type BundleObject = Record<string, unknown>

/**
 * The dialect of a builder's URL by its profile; `undefined` for `generic` (bundlesim's own wire).
 * The request is turned into what bundlesim's methods read (fields the builder ignores dropped,
 * its replacement key), the answer into the builder's (Titan's `200`, BuilderNet's
 * `receivedTimestampMs` and bare `Invalid params`), and an error gets the builder's HTTP status.
 * The methods behind it stay bundlesim's own.
 *
 * @example const dialect = builderDialect(BUILDER_PROFILES.buildernet, () => Date.now())
 */
export function builderDialect(profile: BuilderProfile, nowMs: () => number): RouteDialect | undefined {
  if (profile.name === 'generic') return undefined
  const acknowledged = new Set<string>(profile.acknowledgedWith200)
  const signed = new Set<string>(profile.signedMethods)
  const receivedMicros = monotonicMicros(nowMs)
  return {
    async receive(rpc, request, context) {
      // A notification (no id) gets no answer, a refusal neither (JSON-RPC 2.0).
      const refusal = (response: JSONRPCResponse) => (request.id === undefined ? null : response)
      if (signed.has(request.method) && context.searcher === null) {
        return refusal(createJSONRPCErrorResponse(request.id ?? null, RpcErrorCode.Internal, INVALID_SIGNATURE, `${request.method} needs X-Flashbots-Signature (or X-BuilderNet-Signature): "<address>:<personal_sign of keccak256(body)>"`))
      }
      const receivedUs = receivedMicros()
      const receivedMs = receivedUs / 1000
      let read: JSONRPCRequest
      try {
        read = readRequest(profile, request, context.searcher, receivedUs)
      } catch (error) {
        if (!(error instanceof DialectRefusal)) throw error
        return refusal(answerError(profile, request, RpcErrorCode.InvalidParams, error.message))
      }
      // FlowProxy's words for a method it lacks (a method's own -32601, e.g. eth_subscribe over HTTP, keeps its text).
      const lacks = profile.plainInvalidParams && !(registeredMethods(rpc) as readonly string[]).includes(request.method)
      if (lacks) return refusal(createJSONRPCErrorResponse(request.id ?? null, RpcErrorCode.MethodNotFound, `Method not found: ${request.method}`))
      const response = await rpc.receive(read, context)
      if (response === null) return null
      if (response.error) return answerError(profile, request, response.error.code, response.error.message, response.error.data)
      if (acknowledged.has(request.method)) return { ...response, result: 200 }
      if (request.method === 'eth_sendBundle' && profile.bundleAnswer === 'bundleHashAndReceivedTime' && isObject(response.result)) {
        return { ...response, result: { ...response.result, receivedTimestampMs: receivedMs } }
      }
      return response
    },
    httpStatus(code) {
      if (!profile.plainInvalidParams) return undefined
      // FlowProxy's statuses: 400 for params and signatures, 404 for an unknown method.
      // -32603 is its Invalid signature (and its rarer internal errors, 500 there).
      if (code === RpcErrorCode.InvalidParams || code === RpcErrorCode.ParseError || code === RpcErrorCode.InvalidRequest || code === RpcErrorCode.Internal) return 400
      if (code === RpcErrorCode.MethodNotFound) return 404
      return undefined
    },
  }
}

/** An error answer in the builder's words: BuilderNet says only `Invalid params` (bundlesim keeps the detail in `data`). */
function answerError(profile: BuilderProfile, request: JSONRPCRequest, code: number, message: string, data?: unknown): JSONRPCResponse {
  const id = request.id ?? null
  if (profile.plainInvalidParams && code === RpcErrorCode.InvalidParams) return createJSONRPCErrorResponse(id, code, 'Invalid params', message)
  return createJSONRPCErrorResponse(id, code, message, data)
}

/** The request as bundlesim's methods read it. */
function readRequest(profile: BuilderProfile, request: JSONRPCRequest, signer: Address | null, receivedUs: number): JSONRPCRequest {
  const params = request.params
  if (!Array.isArray(params) || !isObject(params[0])) return request
  const object = params[0]
  if (request.method === 'eth_sendBundle') return { ...request, params: [readBundle(profile, object, signer, receivedUs), ...params.slice(1)] }
  if (request.method === 'eth_cancelBundle' || request.method === 'eth_sendEndOfBlockBundle') {
    return { ...request, params: [withReplacementKey(profile, object, signer), ...params.slice(1)] }
  }
  return request
}

/** eth_sendBundle's object as the builder reads it. */
function readBundle(profile: BuilderProfile, sent: BundleObject, signer: Address | null, receivedUs: number): BundleObject {
  let bundle = { ...sent }
  if (profile.otherFields === 'ignore' && profile.bundleFields) {
    const takes = new Set(['txs', ...profile.bundleFields])
    bundle = Object.fromEntries(Object.entries(bundle).filter(([field]) => takes.has(field)))
  }
  if (profile.replacement === 'nonceBySigner') {
    const version = bundle.version ?? 'v2'
    if (version !== 'v1' && version !== 'v2') throw new DialectRefusal(`version: Unsupported version ${JSON.stringify(version)} (v1 or v2)`)
    if (version === 'v1') {
      const refused = NOT_IN_VERSION_1.find((field) => bundle[field] !== undefined)
      if (refused) throw new DialectRefusal(`${refused}: Field not supported by version V1`)
    }
    // BuilderNet reads "0x", null or a missing blockNumber as the next block, a refundPercent of 0 as none.
    if (bundle.blockNumber === '0x' || bundle.blockNumber === null) delete bundle.blockNumber
    if (bundle.refundPercent === 0) delete bundle.refundPercent
    // `uuid` is its other name for replacementUuid, and wins when both are sent (rbuilder's RawBundleMetadata).
    if (bundle.uuid !== undefined) bundle.replacementUuid = bundle.uuid
    delete bundle.uuid
    if (bundle.replacementUuid !== undefined && !(typeof bundle.replacementUuid === 'string' && WIRE_PATTERNS.uuid.test(bundle.replacementUuid))) {
      throw new DialectRefusal(`replacementUuid: expected a UUID like "123e4567-e89b-12d3-a456-426614174000", got ${JSON.stringify(bundle.replacementUuid)}`)
    }
    // FlowProxy gives a bundle with a uuid and no nonce its receive time in µs.
    if (bundle.replacementUuid !== undefined && bundle.replacementNonce === undefined) bundle.replacementNonce = receivedUs
  }
  return withReplacementKey(profile, bundle, signer)
}

/**
 * The `replacementUuid` bundlesim's book keys a replacement by: Titan's "any arbitrary string"
 * as a UUID derived from it (the same string, the same key), BuilderNet's uuid per signing key
 * (FlowProxy keys replacement by uuid and signer). A trace shows that key.
 */
function withReplacementKey(profile: BuilderProfile, object: BundleObject, signer: Address | null): BundleObject {
  const uuid = object.replacementUuid
  if (typeof uuid !== 'string') return object
  if (profile.replacement === 'nonceBySigner') return { ...object, replacementUuid: derivedUuid(`${uuid.toLowerCase()}:${signer ?? 'unsigned'}`) }
  if (profile.uuid === 'anyString' && !WIRE_PATTERNS.uuid.test(uuid)) return { ...object, replacementUuid: derivedUuid(uuid) }
  return object
}

/**
 * A version-4-shaped UUID derived from a text (keccak256 of it), for replacement keys.
 *
 * @example derivedUuid('abcd1234') // the same UUID in every run
 */
export function derivedUuid(text: string): string {
  const hex = keccak256(stringToHex(`bundlesim replacement key ${text}`)).slice(2, 34).split('')
  hex[12] = '4'
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  const h = hex.join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/**
 * BuilderNet's signature check, read from `X-BuilderNet-Signature` or else
 * `X-Flashbots-Signature`: a bad one is refused as FlowProxy refuses it, HTTP 400 `-32603
 * Invalid signature` with the detail in `data`; none is fine here (the dialect refuses the
 * methods that need one).
 *
 * @example route.authenticate = builderNetSignature
 */
export async function builderNetSignature(headers: IncomingHttpHeaders, rawBody: string): Promise<RequestAuth> {
  const checked = await checkFlashbotsSignature(headers['x-buildernet-signature'] ?? headers[FLASHBOTS_SIGNATURE_HEADER], rawBody)
  return checked.ok ? checked : { ok: false, message: INVALID_SIGNATURE, status: 400, code: RpcErrorCode.Internal, data: checked.message }
}

const INVALID_SIGNATURE = 'Invalid signature'

/**
 * Receive times in µs that only rise: FlowProxy fills a missing `replacementNonce` with the
 * receive time in µs, and two requests in one millisecond (a batch, a pipeline) must not get
 * the same one.
 */
function monotonicMicros(nowMs: () => number): () => number {
  let last = 0
  return () => (last = Math.max(last + 1, Math.floor(nowMs() * 1000)))
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
