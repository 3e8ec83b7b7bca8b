// Sender recovery through Anvil's ecrecover precompile, for the recovery worker (recoverWorker.mjs).
// Plain JavaScript so it loads the same way under tsx, vitest and node.
//
// Why: secp256k1 recovery in JS (@noble/curves, through viem) costs ~2 ms per tx; the same
// recovery in Anvil's native precompile, asked as a JSON-RPC batch of `eth_call`s, costs
// ~0.1 ms per tx, hashing included. Only the signing hash is computed here, exactly as
// viem's recoverTransactionAddress computes it.
import { keccak256, pad, parseTransaction, serializeTransaction } from 'viem'

const ECRECOVER = '0x0000000000000000000000000000000000000001'

/**
 * The precompile's input for a signed tx: signing hash, v (27 or 28), r, s, each one 32-byte
 * word. Null when the tx is not one the precompile can answer (undecodable, no signature,
 * r or s over 32 bytes): the caller recovers it in JS, which also names the problem.
 */
export function ecrecoverInput(raw) {
  try {
    const tx = parseTransaction(raw)
    if ((tx.yParity !== 0 && tx.yParity !== 1) || tx.r === undefined || tx.s === undefined) return null
    const unsigned = serializeTransaction({ ...tx, r: undefined, s: undefined, v: undefined, yParity: undefined, sidecars: undefined })
    return `${keccak256(unsigned)}${word(27 + tx.yParity)}${pad(tx.r, { size: 32 }).slice(2)}${pad(tx.s, { size: 32 }).slice(2)}`
  } catch {
    return null
  }
}

/**
 * Asks Anvil to recover every input (null inputs are skipped) in one JSON-RPC batch.
 * Returns per input the lowercase sender, or null where the precompile recovered nothing
 * (an invalid signature) or the input was null. Throws when Anvil does not answer.
 */
export async function recoverOnAnvil(anvilUrl, inputs, timeoutMs) {
  const calls = []
  inputs.forEach((data, index) => {
    if (data !== null) calls.push({ jsonrpc: '2.0', id: index, method: 'eth_call', params: [{ to: ECRECOVER, data }, 'latest'] })
  })
  const senders = inputs.map(() => null)
  if (calls.length === 0) return senders
  const response = await fetch(anvilUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const answers = await response.json()
  if (!Array.isArray(answers)) throw new Error(`Anvil answered the ecrecover batch with ${JSON.stringify(answers).slice(0, 200)}`)
  for (const { id, result } of answers) {
    // A recovered address comes back as one 32-byte word; an invalid signature as no output.
    if (typeof result === 'string' && result.length === 66 && typeof id === 'number' && id in senders) senders[id] = `0x${result.slice(26)}`.toLowerCase()
  }
  return senders
}

function word(n) {
  return n.toString(16).padStart(64, '0')
}
