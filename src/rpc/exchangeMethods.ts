import type { JSONRPCServer } from 'json-rpc-2.0'
import type { MovePriceResult } from '../protocol/methods.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface ExchangeMethodDeps {
  /** Moves an asset's price from now on; null without an exchange. Throws on an asset it has not. */
  movePrice(asset: string, pct: number): MovePriceResult | null
}

/** The exchange's control (docs/exchange.md): `harness_movePrice`. */
export function registerExchangeMethods(rpc: JSONRPCServer<RequestContext>, deps: ExchangeMethodDeps): void {
  registerMethod(rpc, 'harness_movePrice', ({ asset, pct }) => {
    let moved: MovePriceResult | null
    try {
      moved = deps.movePrice(asset, pct)
    } catch (error) {
      throw invalidParams(`asset: ${(error as Error).message}`)
    }
    if (!moved) throw invalidParams('asset: no exchange in this run (a flow with an exchange: section, e.g. --flow default)')
    return moved
  })
}
