import type { GasSpec } from './flowFile.js'
import { drawLogNormal, type SeededRandom } from './random.js'

/** One background tx of a slot, before it is signed. */
export interface PlannedBackgroundTx {
  kind: 'transfer' | 'token' | 'call'
  /** Which background account sends it (an index into the flow's accounts). */
  account: number
  /** Its gas limit: what it will use, about (a transfer 21,000; a call burns all but < 5,000 of it). */
  gas: bigint
  /** Its priority fee, in wei a gas. */
  tipWei: bigint
}

const KINDS = ['transfer', 'token', 'call'] as const
/** An ether transfer's gas. */
export const TRANSFER_GAS = 21_000n
/** An ERC-20 transfer's gas limit: OpenZeppelin's uses ~34k to a holder, ~51k to a new one. */
export const TOKEN_TRANSFER_GAS = 65_000n
/** The least gas a contract call is given: its 21,000 intrinsic gas and some work (a draw below would never be mined). */
export const CALL_GAS_FLOOR = 30_000
const GWEI = 1_000_000_000

/**
 * The gas the background flow asks for at `baseFee`: `fill` of the block gas limit at the
 * starting base fee, scaled by (start ÷ base fee)^elasticity — demand that falls as gas gets
 * dearer, so the base fee settles where blocks are `fill` full instead of drifting — and by a
 * draw in [0.8, 1.2) so blocks differ. Never more than twice the limit.
 *
 * @example askedGas(random, { ...spec, fill: 0.5 }, 60_000_000n, startWei) // ~30M
 */
export function askedGas(random: SeededRandom, spec: Pick<GasSpec, 'fill' | 'elasticity' | 'baseFeeGwei'>, gasLimit: bigint, baseFee: bigint): bigint {
  const start = spec.baseFeeGwei * GWEI
  const price = Math.max(Number(baseFee), 1)
  const demand = spec.fill * Number(gasLimit) * (start / price) ** spec.elasticity * (0.8 + 0.4 * random.next())
  return BigInt(Math.round(Math.min(demand, 2 * Number(gasLimit))))
}

/**
 * A slot's background txs: kinds drawn by the mix until their gas reaches `askedGas`, each
 * sent by one of the `free` accounts in turn (an account with txs still pending sits the slot
 * out: its next nonce is not known), each tip drawn from the priority-fee distribution.
 *
 * @example planBackground(new SeededRandom(1), spec, { gasLimit: 60_000_000n, baseFee: 500_000_000n }, [0, 1, 2])
 */
export function planBackground(random: SeededRandom, spec: GasSpec, block: { gasLimit: bigint; baseFee: bigint }, free: readonly number[]): PlannedBackgroundTx[] {
  const target = askedGas(random, spec, block.gasLimit, block.baseFee)
  const weights = KINDS.map((k) => spec.mix[k])
  const txs: PlannedBackgroundTx[] = []
  if (free.length === 0) return txs
  for (let gas = 0n; gas < target; ) {
    const kind = KINDS[random.weighted(weights)]!
    const planned = kind === 'transfer' ? TRANSFER_GAS : kind === 'token' ? TOKEN_TRANSFER_GAS : BigInt(Math.max(CALL_GAS_FLOOR, Math.round(drawLogNormal(random, spec.callGas))))
    const tipWei = BigInt(Math.round(drawLogNormal(random, spec.priorityFeeGwei) * GWEI))
    txs.push({ kind, account: free[txs.length % free.length]!, gas: planned, tipWei })
    gas += planned
  }
  return txs
}
