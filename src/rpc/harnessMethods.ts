import type { JSONRPCServer } from 'json-rpc-2.0'
import { numberToHex, type Address, type Hash, type Hex } from 'viem'
import { ImpersonationRefused, type ImpersonatedTx } from '../cheats/impersonatedBlock.js'
import type { HarnessStatus } from '../protocol/harnessStatus.js'
import type { SlotReport } from '../protocol/slotReport.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'
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

/** Harness control (docs/reference/methods.md); present in every clock mode. */
export function registerHarnessMethods(rpc: JSONRPCServer<RequestContext>, deps: HarnessDeps): void {
  registerMethod(rpc, 'harness_advanceSlot', ({ slots }) => deps.advanceSlots(slots))
  registerMethod(rpc, 'harness_status', () => deps.status())
  registerMethod(rpc, 'harness_setTimeInSlot', ({ ms }) => {
    try {
      deps.setTimeInSlot(ms)
    } catch (error) {
      throw invalidParams((error as Error).message)
    }
    return deps.status()
  })
  registerMethod(rpc, 'harness_setCompetitorBid', ({ bidWei }) => {
    deps.setCompetitorBid(bidWei === null ? null : BigInt(bidWei))
    return { bidWei }
  })
  registerMethod(rpc, 'harness_sendImpersonatedTx', async ({ from, to, data, ...rest }) => {
    try {
      const mined = await deps.sendImpersonated({ from: normalizeAddress(from), to: normalizeAddress(to), data: data as Hex | undefined, ...rest })
      return { hash: mined.hash, blockNumber: numberToHex(mined.blockNumber), status: mined.status }
    } catch (error) {
      if (error instanceof ImpersonationRefused) throw rpcError(RpcErrorCode.Unavailable, error.message)
      throw error
    }
  })
  registerMethod(rpc, 'harness_setBalance', async ({ address, wei }) => {
    const holder = normalizeAddress(address)
    await deps.setBalance(holder, BigInt(wei))
    return { address: holder, wei }
  })
}
