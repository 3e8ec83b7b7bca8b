import { decodeAbiParameters, size, slice, toFunctionSelector, type Hex } from 'viem'

/**
 * Why a tx reverted, decoded from its return data as Solidity encodes it (docs.soliditylang.org,
 * "Error handling: Assert, Require, Revert and Exceptions"): `Error(string)` from `require`
 * and `revert("…")`, `Panic(uint256)` from the compiler's checks, a custom error's 4-byte
 * selector, a revert without data, or out of gas (no data, every unit of gas used).
 */
export type RevertReason =
  | { kind: 'Error'; message: string }
  | { kind: 'Panic'; code: number; meaning: string }
  | { kind: 'CustomError'; selector: Hex; name: string | null; data: Hex }
  | { kind: 'OutOfGas'; gasLimit?: bigint }
  | { kind: 'NoData' }
  /** Data that is none of the above (e.g. a malformed `Error(string)`). */
  | { kind: 'Undecoded'; data: Hex }
  /** The EVM stopped the call for another reason (an invalid opcode, a stack error), in the node's words. */
  | { kind: 'Halted'; error: string }

const ERROR_SELECTOR = '0x08c379a0'
const PANIC_SELECTOR = '0x4e487b71'

/** Solidity's panic codes and what each means (the compiler's documentation, same section). */
const PANIC_MEANINGS: Record<number, string> = {
  0x00: 'generic compiler panic',
  0x01: 'assert failed',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'conversion to an enum out of range',
  0x22: 'incorrectly encoded storage byte array',
  0x31: 'pop() on an empty array',
  0x32: 'array index out of bounds',
  0x41: 'too much memory allocated',
  0x51: 'call to a zero-initialized internal function',
}

/**
 * Custom errors bundlesim can name: those of the contracts a searcher meets in its world and
 * on mainnet (Uniswap's Universal Router and Permit2, Uniswap V4, OpenZeppelin 5's tokens and
 * access control). Any other custom error is reported by its selector.
 */
const KNOWN_CUSTOM_ERRORS = [
  // Universal Router (Uniswap/universal-router, Dispatcher and the V2/V3 swap routers)
  'V2TooLittleReceived()',
  'V2TooMuchRequested()',
  'V2InvalidPath()',
  'V3TooLittleReceived()',
  'V3TooMuchRequested()',
  'V3InvalidSwap()',
  'V3InvalidAmountOut()',
  'V3InvalidCaller()',
  'TransactionDeadlinePassed()',
  'ExecutionFailed(uint256,bytes)',
  'InsufficientETH()',
  'InsufficientToken()',
  'InvalidCommandType(uint256)',
  'SliceOutOfBounds()',
  // Permit2 (Uniswap/permit2)
  'AllowanceExpired(uint256)',
  'InsufficientAllowance(uint256)',
  'ExcessiveInvalidation()',
  'InvalidNonce()',
  'InvalidSignature()',
  'SignatureExpired(uint256)',
  // Uniswap V4 (PoolManager, hooks, the V4 router)
  'CurrencyNotSettled()',
  'PoolNotInitialized()',
  'PriceLimitAlreadyExceeded(uint160,uint160)',
  'PriceLimitOutOfBounds(uint160)',
  'ManagerLocked()',
  'V4TooLittleReceived(uint256,uint256)',
  'V4TooMuchRequested(uint256,uint256)',
  // OpenZeppelin 5 (ERC-20, Ownable, ReentrancyGuard, SafeERC20)
  'ERC20InsufficientBalance(address,uint256,uint256)',
  'ERC20InsufficientAllowance(address,uint256,uint256)',
  'OwnableUnauthorizedAccount(address)',
  'ReentrancyGuardReentrantCall()',
  'SafeERC20FailedOperation(address)',
]

const NAMES_BY_SELECTOR = new Map<string, string>(KNOWN_CUSTOM_ERRORS.map((signature) => [toFunctionSelector(signature), signature]))

/**
 * Decodes why a call reverted. `gasUsed` and `gasLimit` tell out of gas from a revert without
 * data (both return nothing; only out of gas uses every unit of the limit).
 *
 * @example decodeRevertReason({ returnData: '0x08c379a0…', gasUsed: 23_000n, gasLimit: 100_000n }) // { kind: 'Error', message: 'x' }
 */
export function decodeRevertReason({ returnData, gasUsed, gasLimit }: { returnData: Hex; gasUsed?: bigint; gasLimit?: bigint }): RevertReason {
  const data = returnData.toLowerCase() as Hex
  if (size(data) === 0) return gasLimit !== undefined && gasUsed !== undefined && gasUsed >= gasLimit ? { kind: 'OutOfGas', gasLimit } : { kind: 'NoData' }
  if (size(data) < 4) return { kind: 'Undecoded', data }
  const selector = slice(data, 0, 4)
  try {
    if (selector === ERROR_SELECTOR) return { kind: 'Error', message: decodeAbiParameters([{ type: 'string' }], slice(data, 4))[0] }
    if (selector === PANIC_SELECTOR) {
      const code = Number(decodeAbiParameters([{ type: 'uint256' }], slice(data, 4))[0])
      return { kind: 'Panic', code, meaning: PANIC_MEANINGS[code] ?? 'unknown panic code' }
    }
  } catch {
    return { kind: 'Undecoded', data }
  }
  return { kind: 'CustomError', selector, name: NAMES_BY_SELECTOR.get(selector) ?? null, data }
}

/**
 * The reason as a searcher reads it (stats' `revertReason`): the `Error(string)` message as
 * it was written, `Panic(0x11): arithmetic underflow or overflow`, `custom error 0x…` (with
 * its signature when known), `out of gas (gas limit N)`, `reverted without data`.
 */
export function revertReasonText(reason: RevertReason): string {
  switch (reason.kind) {
    case 'Error':
      return reason.message
    case 'Panic':
      return `Panic(0x${reason.code.toString(16).padStart(2, '0')}): ${reason.meaning}`
    case 'CustomError':
      return reason.name ? `custom error ${reason.name} (${reason.selector})` : `custom error ${reason.selector}`
    case 'OutOfGas':
      return reason.gasLimit === undefined ? 'out of gas' : `out of gas (gas limit ${reason.gasLimit})`
    case 'NoData':
      return 'reverted without data'
    case 'Undecoded':
      return `reverted with data ${reason.data}`
    case 'Halted':
      return `halted: ${reason.error}`
  }
}

/** How the node's tracers name a revert and out of gas: parity-style `trace_block` and geth-style `callTracer`. */
const REVERTED_ERRORS = new Set(['Reverted', 'execution reverted'])
const OUT_OF_GAS_ERRORS = new Set(['Out of gas', 'out of gas'])

/**
 * The reason from a traced top-level call of a tx: a parity-style frame (Anvil's `trace_block`,
 * output in `result.output`) or a `callTracer` frame (`output`); a revert with its output, out
 * of gas, or another halt in the node's words.
 *
 * @example revertReasonOfFrame({ error: 'Reverted', result: { output: '0x08c3…' } }, 100_000n)
 */
export function revertReasonOfFrame(frame: { error?: string; output?: Hex; result?: { output?: Hex } | null }, gasLimit?: bigint): RevertReason | undefined {
  if (frame.error === undefined) return undefined
  if (REVERTED_ERRORS.has(frame.error)) return decodeRevertReason({ returnData: frame.result?.output ?? frame.output ?? '0x' })
  if (OUT_OF_GAS_ERRORS.has(frame.error)) return gasLimit === undefined ? { kind: 'OutOfGas' } : { kind: 'OutOfGas', gasLimit }
  return { kind: 'Halted', error: frame.error }
}
