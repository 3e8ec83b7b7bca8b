import type { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0'
import { METHODS, type MethodName, type MethodParamsOut, type MethodResult } from '../protocol/methodTable.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'

/** A method's handler: its params as its row of the method table reads them, its answer as the row types it. */
export type MethodHandler<M extends MethodName> = (params: MethodParamsOut<M>, context: RequestContext) => MethodResult<M> | Promise<MethodResult<M>>

export interface RegisterOptions {
  /**
   * Runs on the request as sent, before its params are read: what a method refuses first
   * (an unsigned request, a missing API key, a field this builder does not take), so that
   * answer does not depend on the params.
   */
  before?(params: unknown, context: RequestContext): void
  /** How a params problem is answered (default: `-32602` with the message; bloXroute words it its own way). */
  refuse?(message: string): JSONRPCErrorException
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
 * answer, so server and typed client cannot drift apart.
 *
 * @example registerMethod(rpc, 'eth_cancelBundle', ({ replacementUuid }) => ingest.cancel(replacementUuid))
 */
export function registerMethod<M extends MethodName>(rpc: JSONRPCServer<RequestContext>, name: M, handler: MethodHandler<M>, options: RegisterOptions = {}): void {
  const spec = METHODS[name].params
  const refuse = options.refuse ?? invalidParams
  let names = registered.get(rpc)
  if (!names) registered.set(rpc, (names = new Set()))
  names.add(name)
  rpc.addMethod(name, (params, context) => {
    options.before?.(params, context)
    const read = spec.read(params)
    if (!read.ok) throw refuse(read.message)
    return handler(read.value as MethodParamsOut<M>, context)
  })
}
