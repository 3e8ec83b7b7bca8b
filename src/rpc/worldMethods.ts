import { z } from 'zod'
import { normalizeAddress } from '../protocol/normalize.js'
import type { JSONRPCServer } from 'json-rpc-2.0'
import { parseUnits, type Address } from 'viem'
import type { WorldStatus } from '../protocol/harnessStatus.js'
import { address } from '../protocol/wireRules.js'
import { strictFields } from '../protocol/strictFields.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { singleObjectParam } from './params.js'

export interface WorldMethodDeps {
  world(): WorldStatus | null
  setTokenBalance(token: Address, holder: Address, amount: bigint): Promise<void>
}

const setTokenBalanceParams = strictFields({
  address: address({ type: 'required: the 20-byte 0x address to fund' }),
  token: z.string({ error: 'required: a token symbol of the world (e.g. USDC) or its address' }),
  amount: z
    .union([z.string(), z.number()], { error: 'required: the balance in token units, e.g. "1000.5"' })
    .transform((v) => String(v))
    .refine((v) => /^\d+(\.\d+)?$/.test(v), { error: 'expected the balance in token units as a plain decimal, e.g. "1000.5"' }),
})

/**
 * The DEX world's cheat: `harness_setTokenBalance` `[{ address, token, amount }]` sets an
 * account's balance of a world token (symbol or address; amount in token units) without a tx.
 */
export function registerWorldMethods(rpc: JSONRPCServer<RequestContext>, deps: WorldMethodDeps): void {
  rpc.addMethod('harness_setTokenBalance', async (params) => {
    const { address: holder, token, amount } = singleObjectParam(params, setTokenBalanceParams)
    const world = deps.world()
    if (!world) throw invalidParams('token: no DEX world in this run (start bundlesim with --world dex, or a scenario with world: dex)')
    const found = world.tokens.find((t) => t.symbol === token || t.address.toLowerCase() === token.toLowerCase())
    if (!found) throw invalidParams(`token: unknown token "${token}"; the world has ${world.tokens.map((t) => t.symbol).join(', ')} (or their addresses)`)
    const fraction = amount.split('.')[1] ?? ''
    if (fraction.length > found.decimals) throw invalidParams(`amount: ${found.symbol} has ${found.decimals} decimals, "${amount}" has ${fraction.length}`)
    const raw = parseUnits(amount, found.decimals)
    await deps.setTokenBalance(found.address as Address, normalizeAddress(holder), raw)
    return { address: holder.toLowerCase(), token: found.address, symbol: found.symbol, amount, raw: raw.toString() }
  })
}
