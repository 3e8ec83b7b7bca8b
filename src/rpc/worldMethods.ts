import { normalizeAddress } from '../protocol/normalize.js'
import type { JSONRPCServer } from 'json-rpc-2.0'
import { parseUnits, type Address } from 'viem'
import type { WorldStatus } from '../protocol/harnessStatus.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface WorldMethodDeps {
  world(): WorldStatus | null
  setTokenBalance(token: Address, holder: Address, amount: bigint): Promise<void>
}

export function registerWorldMethods(rpc: JSONRPCServer<RequestContext>, deps: WorldMethodDeps): void {
  registerMethod(rpc, 'harness_setTokenBalance', async ({ address: holder, token, amount }) => {
    const world = deps.world()
    if (!world) throw invalidParams('token: no DEX world in this run (start bundlesim with --world dex, or a scenario with world: dex)')
    const found = world.tokens.find((t) => t.symbol === token || t.address.toLowerCase() === token.toLowerCase())
    if (!found) throw invalidParams(`token: unknown token "${token}"; the world has ${world.tokens.map((t) => t.symbol).join(', ')} (or their addresses)`)
    const fraction = amount.split('.')[1] ?? ''
    if (fraction.length > found.decimals) throw invalidParams(`amount: ${found.symbol} has ${found.decimals} decimals, "${amount}" has ${fraction.length}`)
    const raw = parseUnits(amount, found.decimals)
    await deps.setTokenBalance(found.address as Address, normalizeAddress(holder), raw)
    return { address: normalizeAddress(holder), token: found.address, symbol: found.symbol, amount, raw: raw.toString() }
  })
}
