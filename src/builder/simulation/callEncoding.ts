import { hexToBigInt, pad, parseTransaction, toHex, type Address, type Hex } from 'viem'
import { decodeRevertReason, type RevertReason } from '../../protocol/revertReason.js'
import { BUILDER_TRANSFER_GAS } from '../execution/builderTxs.js'
import type { BundleTx } from '../../bundle/types.js'
import { readPlainEip1559 } from '../../bundle/plainTx.js'
import type { ParentState } from '../execution/parentState.js'
import type { SimulateV1Params, SimulatedCall, SimulationCall } from '../../chain/nodeRpc.js'

export type { SimulatedBlock, SimulatedCall, SimulationCall } from '../../chain/nodeRpc.js'

/**
 * Reads the coinbase balance after the bundle, as the last call of the simulated block:
 * `BALANCE(COINBASE)` returned as one word (COINBASE BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN).
 */
const BALANCE_PROBE_CODE: Hex = '0x413160005260206000f3'
const BALANCE_PROBE: Address = '0x00000000000000000000000000000000b0b0e000'
/** Returns `BALANCE(address in calldata)` as one word (PUSH1 0 CALLDATALOAD BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN). */
const ACCOUNT_BALANCE_PROBE_CODE: Hex = '0x6000353160005260206000f3'
const ACCOUNT_BALANCE_PROBE: Address = '0x00000000000000000000000000000000b0b0e002'
const PROBE_CALLER: Address = '0x00000000000000000000000000000000b0b0e001'
const PROBE_GAS = 50_000n

/** A signed tx as decoded at submission (bundle or public mempool), its sender recovered. */
export type CallableTx = Pick<BundleTx, 'raw' | 'nonce' | 'gas' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'value' | 'to' | 'sender'>

/** What the parent block offers to a call simulation. */
export interface CallSimulationContext {
  parent: ParentState
  timestamp: bigint
}

/**
 * Why a simulated call reverted: its return data, or out of gas when it returned nothing
 * having used its whole limit (`eth_simulateV1` says only "execution failed" for both).
 */
export function revertReasonOfCall(call: SimulatedCall, gasLimit: bigint): RevertReason {
  return decodeRevertReason({ returnData: call.returnData, gasUsed: hexToBigInt(call.gasUsed), gasLimit })
}

/**
 * `eth_simulateV1` params: the calls as the next block on the parent (its number, timestamp,
 * coinbase, base fee, gas limit), then the coinbase balance probe as the last call.
 */
export function probedBlockParams(
  { parent, timestamp }: { parent: Pick<ParentState, 'number' | 'nextBaseFee' | 'coinbase' | 'gasLimit'>; timestamp: bigint },
  calls: readonly SimulationCall[],
): SimulateV1Params {
  return [
    {
      blockStateCalls: [
        {
          blockOverrides: {
            number: toHex(parent.number + 1n),
            time: toHex(timestamp),
            feeRecipient: parent.coinbase,
            baseFeePerGas: toHex(parent.nextBaseFee),
            gasLimit: toHex(parent.gasLimit),
          },
          stateOverrides: {
            [BALANCE_PROBE]: { code: BALANCE_PROBE_CODE },
            [ACCOUNT_BALANCE_PROBE]: { code: ACCOUNT_BALANCE_PROBE_CODE },
            // Enough for a probe after every call (eth_callBundle on a past state reads one per tx).
            [PROBE_CALLER]: { balance: toHex(PROBE_GAS * parent.nextBaseFee * BigInt(calls.length + 1)) },
          },
          calls: [...calls, balanceProbeCall(parent.nextBaseFee)],
        },
      ],
      validation: true,
    },
    toHex(parent.number),
  ]
}

/** A call that reads the coinbase balance at its place in the simulated block (it pays no tip: the coinbase gains nothing from it). */
export function balanceProbeCall(baseFee: bigint): SimulationCall {
  return { from: PROBE_CALLER, to: BALANCE_PROBE, gas: toHex(PROBE_GAS), maxFeePerGas: toHex(baseFee), maxPriorityFeePerGas: '0x0' }
}

/** A call that reads an account's balance at its place in the simulated block (no tip, like the coinbase probe). */
export function accountBalanceProbeCall(account: Address, baseFee: bigint): SimulationCall {
  return { ...balanceProbeCall(baseFee), to: ACCOUNT_BALANCE_PROBE, input: pad(account) }
}

/** A builder transfer as a call: from the coinbase, a plain transfer paying exactly the base fee (`signBuilderTransfer`). */
export function builderTransferCall(parent: Pick<ParentState, 'coinbase' | 'nextBaseFee'>, to: Address, value: bigint, nonce: number): SimulationCall {
  return {
    from: parent.coinbase,
    to,
    value: toHex(value),
    gas: toHex(BUILDER_TRANSFER_GAS),
    nonce: toHex(nonce),
    maxFeePerGas: toHex(parent.nextBaseFee),
    maxPriorityFeePerGas: '0x0',
  }
}

/** The coinbase balance the probe read after the calls, or undefined if the probe failed. */
export function probedCoinbaseBalance(calls: readonly SimulatedCall[]): bigint | undefined {
  const probe = calls.at(-1)
  return probe?.status === '0x1' ? BigInt(probe.returnData) : undefined
}

/**
 * Whether each tx carries its sender's next nonce, in order, as a block needs; `next` (each
 * sender's next nonce) is advanced past the txs that do.
 */
export function followNonces(txs: readonly CallableTx[], next: Map<Address, number | undefined>): boolean {
  for (const tx of txs) {
    if (!tx.sender || tx.nonce !== next.get(tx.sender)) return false
    next.set(tx.sender, tx.nonce + 1)
  }
  return true
}

/** The tx as an `eth_simulateV1` call; undefined for what a call cannot reproduce (or a fee cap under the base fee). */
export function callOf(tx: CallableTx, baseFee: bigint): SimulationCall | undefined {
  if (!tx.sender || tx.maxFeePerGas < baseFee) return undefined
  // A slot values each tx several times (top of block, then in each candidate order).
  let call = callCache.get(tx)
  if (call === undefined) callCache.set(tx, (call = decodedCall(tx, tx.sender) ?? null))
  return call ?? undefined
}

const callCache = new WeakMap<CallableTx, SimulationCall | null>()

function decodedCall(tx: CallableTx, sender: Address): SimulationCall | undefined {
  const common = {
    from: sender,
    ...(tx.to ? { to: tx.to } : {}),
    value: toHex(tx.value),
    gas: toHex(tx.gas),
    nonce: toHex(tx.nonce),
  }
  const fees = { maxFeePerGas: toHex(tx.maxFeePerGas), maxPriorityFeePerGas: toHex(tx.maxPriorityFeePerGas) }
  const plain = readPlainEip1559(tx.raw)
  if (plain) return { ...common, input: plain.data, ...fees }
  const parsed = parseTransaction(tx.raw)
  const input = parsed.data ?? '0x'
  switch (parsed.type) {
    case 'legacy':
      return { ...common, input, gasPrice: toHex(tx.maxFeePerGas) }
    case 'eip2930':
      return { ...common, input, gasPrice: toHex(tx.maxFeePerGas), accessList: parsed.accessList }
    case 'eip1559':
      return { ...common, input, ...fees, accessList: parsed.accessList }
    default:
      return undefined
  }
}

