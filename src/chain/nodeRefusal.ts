/**
 * Why the node (Anvil) refused a transaction, as a stable kind. This is the one place that
 * reads the node's prose: everything else decides on the kind.
 *
 * - `NonceTooLow`: the sender's nonce is already used (on chain, or earlier in the block).
 * - `NonceTooHigh`: a nonce gap the node will not queue.
 * - `LackOfFundForGasLimit`: the sender cannot pay gasLimit × maxFeePerGas + value.
 * - `FeeCapBelowBaseFee`: maxFeePerGas is below the block's base fee.
 * - `IntrinsicGasTooLow`: the gas limit does not cover the tx's intrinsic gas.
 * - `GasLimitAboveBlockLimit`: the gas limit exceeds the block gas limit.
 * - `ReplacementUnderpriced`: a tx with the same sender and nonce is pending and this one does not outbid it.
 * - `AlreadyKnown`: the same tx is already in the pool.
 * - `Other`: any other refusal (the text says what).
 */
export type NodeRefusalKind =
  | 'NonceTooLow'
  | 'NonceTooHigh'
  | 'LackOfFundForGasLimit'
  | 'FeeCapBelowBaseFee'
  | 'IntrinsicGasTooLow'
  | 'GasLimitAboveBlockLimit'
  | 'ReplacementUnderpriced'
  | 'AlreadyKnown'
  | 'Other'

/** Every kind, for schemas and docs. */
export const NODE_REFUSAL_KINDS: readonly NodeRefusalKind[] = [
  'NonceTooLow',
  'NonceTooHigh',
  'LackOfFundForGasLimit',
  'FeeCapBelowBaseFee',
  'IntrinsicGasTooLow',
  'GasLimitAboveBlockLimit',
  'ReplacementUnderpriced',
  'AlreadyKnown',
  'Other',
]

/** The node's texts (Anvil's, and geth's where they differ), first match wins. */
const TEXTS: ReadonlyArray<readonly [RegExp, NodeRefusalKind]> = [
  [/nonce too low/i, 'NonceTooLow'],
  [/nonce too high/i, 'NonceTooHigh'],
  [/insufficient funds/i, 'LackOfFundForGasLimit'],
  [/max fee per gas less than block base fee|fee cap less than block base fee/i, 'FeeCapBelowBaseFee'],
  [/intrinsic gas too low/i, 'IntrinsicGasTooLow'],
  [/intrinsic gas too high|exceeds block gas limit|gas limit reached/i, 'GasLimitAboveBlockLimit'],
  [/replacement transaction underpriced/i, 'ReplacementUnderpriced'],
  [/already imported|already known/i, 'AlreadyKnown'],
]

/**
 * Classifies the node's refusal text once, where it is received.
 *
 * @example classifyNodeRefusal('Insufficient funds for gas * price + value') // 'LackOfFundForGasLimit'
 * @example classifyNodeRefusal('nonce too low') // 'NonceTooLow'
 */
export function classifyNodeRefusal(text: string): NodeRefusalKind {
  for (const [pattern, kind] of TEXTS) if (pattern.test(text)) return kind
  return 'Other'
}
