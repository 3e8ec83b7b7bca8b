import type { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0'
import { METHODS, type MethodName, type MethodParamsOut, type MethodResult } from '../protocol/methodTable.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'

/** A method's handler: its params as its row of the method table reads them, its answer as the row types it. */
export type MethodHandler<M extends MethodName> = (params: MethodParamsOut<M>, context: RequestContext) => MethodResult<M> | Promise<MethodResult<M>>

/** A handler given what its method's `before` check found (the signing key, the connection). */
export type CheckedMethodHandler<M extends MethodName, Checked> = (params: MethodParamsOut<M>, context: RequestContext, checked: Checked) => MethodResult<M> | Promise<MethodResult<M>>

export interface RegisterOptions {
  /** How a params problem is answered (default: `-32602` with the message; bloXroute words it its own way). */
  refuse?(message: string): JSONRPCErrorException
}

export interface CheckedRegisterOptions<Checked> extends RegisterOptions {
  /**
   * Runs on the request as sent, before its params are read: what a method refuses first
   * (an unsigned request, a missing API key, a field this builder does not take), so that
   * answer does not depend on the params. What it returns is the handler's `checked`.
   */
  before(params: unknown, context: RequestContext): Checked
}

/** The methods each server registered through `registerMethod`, by server. */
const registered = new WeakMap<object, Set<MethodName>>()

/** The methods registered on a server, in registration order (what its unknown-method answers suggest from). */
export function registeredMethods(rpc: object): readonly MethodName[] {
  return [...(registered.get(rpc) ?? [])]
}

/**
 * The one way a server registers a method: by its name in `protocol/methodTable.ts`, whose row
 * reads the params (a problem is `-32602` naming the field) and types the handler and its
 * answer, so server and typed client cannot drift apart. With `before`, a check of the request
 * as sent runs first and hands what it found to the handler.
 *
 * @example registerMethod(rpc, 'eth_cancelBundle', ({ replacementUuid }) => ingest.cancel(replacementUuid))
 * @example registerMethod(rpc, 'mev_sendBundle', (bundle, _, searcher) => submit(bundle, searcher), { before: (_, context) => signerOf(context) })
 */
export function registerMethod<M extends MethodName>(rpc: JSONRPCServer<RequestContext>, name: M, handler: MethodHandler<M>, options?: RegisterOptions): void
export function registerMethod<M extends MethodName, Checked>(rpc: JSONRPCServer<RequestContext>, name: M, handler: CheckedMethodHandler<M, Checked>, options: CheckedRegisterOptions<Checked>): void
export function registerMethod(
  rpc: JSONRPCServer<RequestContext>,
  name: MethodName,
  handler: (params: unknown, context: RequestContext, checked: unknown) => unknown,
  options: RegisterOptions & { before?(params: unknown, context: RequestContext): unknown } = {},
): void {
  const spec = METHODS[name].params
  const refuse = options.refuse ?? invalidParams
  let names = registered.get(rpc)
  if (!names) registered.set(rpc, (names = new Set()))
  names.add(name)
  rpc.addMethod(name, (params, context) => {
    const checked = options.before?.(params, context)
    const read = spec.read(params)
    if (!read.ok) throw refuse(read.message)
    return handler(read.value, context, checked)
  })
}
