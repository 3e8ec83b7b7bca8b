import { z } from 'zod'
import type { JSONRPCServer } from 'json-rpc-2.0'
import { numberToHex, type Address, type Hash, type Hex } from 'viem'
import { ImpersonationRefused, type ImpersonatedTx } from '../cheats/impersonatedBlock.js'
import type { HarnessStatus } from '../protocol/harnessStatus.js'
import type { SlotReport } from '../protocol/slotReport.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { address, decimalWei, hexBytes } from '../protocol/wireRules.js'
import { strictFields } from '../protocol/strictFields.js'
import { invalidParams, rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { optionalObjectParam, singleObjectParam } from './params.js'
import { normalizeAddress } from '../protocol/normalize.js'

export interface HarnessDeps {
  advanceSlots(slots: number): Promise<SlotReport[]>
  status(): HarnessStatus
  setTimeInSlot(ms: number): void
  setCompetitorBid(bidWei: bigint | null): void
  /** Sets an account's balance on the head state (a cheat for scenario setup). */
  setBalance(address: Address, wei: bigint): Promise<void>
  /** Mines an impersonated account's unsigned tx at once in a block of its own (cheats/impersonatedBlock.ts). */
  sendImpersonated(tx: ImpersonatedTx): Promise<{ hash: Hash; blockNumber: bigint; status: string }>
}

const advanceParams = strictFields({
  slots: z.number({ error: 'expected an integer from 1 to 1000' }).int('expected an integer from 1 to 1000').min(1, 'expected an integer from 1 to 1000').max(1000, 'expected an integer from 1 to 1000').default(1),
})
const competitorBidParams = strictFields({
  bidWei: z.union([decimalWei({ format: 'expected a decimal string of wei, or null' }), z.null()], {
    error: 'expected a decimal string of wei, or null',
  }),
})
const setBalanceParams = strictFields({
  address: address({ type: 'required: a 20-byte 0x address' }),
  wei: decimalWei({ type: 'required: a decimal string of wei' }),
})
const weiParam = (what: string) => decimalWei({ type: `expected ${what} as a decimal string`, format: `expected ${what} as a decimal string` }).transform(BigInt)
const impersonatedParams = strictFields({
  from: address({ type: 'required: a 20-byte 0x address' }),
  to: address().optional(),
  value: weiParam('wei').optional(),
  data: hexBytes().optional(),
  gas: weiParam('gas').optional(),
  maxFeePerGas: weiParam('wei').optional(),
  maxPriorityFeePerGas: weiParam('wei').optional(),
})
const timeInSlotParams = strictFields({ ms: z.number({ error: 'required: ms into the slot, an integer' }).int('expected an integer number of ms') })

/** Harness control (docs/reference/methods.md); present in every clock mode. */
export function registerHarnessMethods(rpc: JSONRPCServer<RequestContext>, deps: HarnessDeps): void {
  rpc.addMethod('harness_advanceSlot', (params) => deps.advanceSlots(optionalObjectParam(params, advanceParams).slots))
  rpc.addMethod('harness_status', () => deps.status())
  rpc.addMethod('harness_setTimeInSlot', (params) => {
    const { ms } = singleObjectParam(params, timeInSlotParams)
    try {
      deps.setTimeInSlot(ms)
    } catch (error) {
      throw invalidParams((error as Error).message)
    }
    return deps.status()
  })
  rpc.addMethod('harness_setCompetitorBid', (params) => {
    const { bidWei } = singleObjectParam(params, competitorBidParams)
    deps.setCompetitorBid(bidWei === null ? null : BigInt(bidWei))
    return { bidWei }
  })
  rpc.addMethod('harness_sendImpersonatedTx', async (params) => {
    const { from, to, data, ...rest } = singleObjectParam(params, impersonatedParams)
    try {
      const mined = await deps.sendImpersonated({ from: normalizeAddress(from), to: normalizeAddress(to), data: data as Hex | undefined, ...rest })
      return { hash: mined.hash, blockNumber: numberToHex(mined.blockNumber), status: mined.status }
    } catch (error) {
      if (error instanceof ImpersonationRefused) throw rpcError(RpcErrorCode.Unavailable, error.message)
      throw error
    }
  })
  rpc.addMethod('harness_setBalance', async (params) => {
    const { address, wei } = singleObjectParam(params, setBalanceParams)
    await deps.setBalance(normalizeAddress(address), BigInt(wei))
    return { address: address.toLowerCase(), wei }
  })
}
