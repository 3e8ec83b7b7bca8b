// Sender recovery through Anvil's ecrecover precompile, for the recovery worker (recoverWorker.mjs).
// Plain JavaScript so it loads the same way under tsx, vitest and node.
//
// Why: secp256k1 recovery in JS (@noble/curves, through viem) costs ~2 ms per tx; Anvil's
// native precompile costs ~0.04 ms of Anvil's CPU per signature when one `eth_call` runs it
// over a whole chunk of signatures (one `eth_call` per signature costs ~0.1 ms: most of it
// is the call's own overhead). Only the signing hash is computed here, exactly as viem's
// recoverTransactionAddress computes it.
import { createKeccak } from 'hash-wasm'
import { keccak256, pad, parseTransaction, serializeTransaction, toRlp } from 'viem'
import { plainEip1559Fields } from './plainEip1559Fields.mjs'

const keccak = await createKeccak(256)

/**
 * Runtime code put at RECOVERER by a state override of the `eth_call` (nothing is deployed).
 * Calldata is 128-byte ecrecover inputs back to back; it returns one 32-byte word per input:
 * the precompile's answer (the address, left-padded), or zero where it recovered nothing.
 *
 *   i = 0
 *   loop: if !(calldatasize > i) goto end
 *     calldatacopy(0, i, 128)                    input to memory[0:128]
 *     out = 0x80 + i / 4                         its answer's word
 *     mstore(out, 0)                             stays zero if the precompile answers nothing
 *     pop(staticcall(gas, 1, 0, 128, out, 32))
 *     i += 128; goto loop
 *   end: return(0x80, calldatasize / 4)
 */
const RECOVER_LOOP_CODE =
  '0x6000' + // 00 PUSH1 0
  '5b' + //     02 JUMPDEST (loop)
  '80361115' + // 03 DUP1 CALLDATASIZE GT ISZERO
  '61002f57' + // 07 PUSH2 0x2f JUMPI
  '608081600037' + // 0b PUSH1 0x80 DUP2 PUSH1 0 CALLDATACOPY
  '8060021c608001' + // 11 DUP1 PUSH1 2 SHR PUSH1 0x80 ADD
  '60008152' + // 18 PUSH1 0 DUP2 MSTORE
  '6020816080600060015afa' + // 1c PUSH1 0x20 DUP2 PUSH1 0x80 PUSH1 0 PUSH1 1 GAS STATICCALL
  '5050' + //   27 POP POP
  '6080016002' + // 29 PUSH1 0x80 ADD PUSH1 0x02
  '56' + //     2e JUMP
  '5b' + //     2f JUMPDEST (end)
  '3660021c6080f3' // 30 CALLDATASIZE PUSH1 2 SHR PUSH1 0x80 RETURN
const RECOVERER = '0x00000000000000000000000000000000000ec0de'
/** Signatures per `eth_call`: ~6,000 gas each (calldata, precompile, memory), well under any block gas limit. */
const PER_CALL = 250
const GAS_PER_CALL = `0x${(PER_CALL * 10_000 + 100_000).toString(16)}`

/**
 * The precompile's input for a signed tx: signing hash, v (27 or 28), r, s, each one 32-byte
 * word. Null when the tx is not one the precompile can answer (undecodable, no signature,
 * r or s over 32 bytes): the caller recovers it in JS, which also names the problem.
 */
export function ecrecoverInput(raw) {
  return plainEip1559Input(raw) ?? parsedInput(raw)
}

/** Through viem: parse, re-serialize without the signature, hash (any tx type). */
export function parsedInput(raw) {
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
 * The same input for a plain EIP-1559 tx (no access list) in a few µs instead of ~30+: the
 * unsigned payload is its first nine RLP fields re-encoded, which is what viem's
 * re-serialization gives when every integer is canonical (no leading zero byte) and the
 * y-parity is written canonically. Null for anything else (the caller then asks parsedInput).
 */
export function plainEip1559Input(raw) {
  const fields = plainEip1559Fields(raw)
  if (!fields) return null
  const [chainId, nonce, tip, feeCap, gas, , value, , , yParity, r, s] = fields
  if ([chainId, nonce, tip, feeCap, gas, value, yParity].some((n) => n.startsWith('0x00'))) return null
  keccak.init()
  keccak.update(Buffer.from(`02${toRlp(fields.slice(0, 9)).slice(2)}`, 'hex'))
  return `0x${keccak.digest('hex')}${word(yParity === '0x' ? 27 : 28)}${pad(r, { size: 32 }).slice(2)}${pad(s, { size: 32 }).slice(2)}`
}

/**
 * Asks Anvil to recover every input (null inputs are skipped) in one JSON-RPC batch.
 * Returns per input the lowercase sender, or null where the precompile recovered nothing
 * (an invalid signature) or the input was null. Throws when Anvil does not answer.
 */
export async function recoverOnAnvil(anvilUrl, inputs, timeoutMs) {
  const asked = []
  inputs.forEach((input, index) => {
    if (input !== null) asked.push(index)
  })
  const senders = inputs.map(() => null)
  if (asked.length === 0) return senders
  const chunks = []
  for (let i = 0; i < asked.length; i += PER_CALL) chunks.push(asked.slice(i, i + PER_CALL))
  const calls = chunks.map((chunk, id) => ({
    jsonrpc: '2.0',
    id,
    method: 'eth_call',
    params: [{ to: RECOVERER, gas: GAS_PER_CALL, data: `0x${chunk.map((index) => inputs[index].slice(2)).join('')}` }, 'latest', { [RECOVERER]: { code: RECOVER_LOOP_CODE } }],
  }))
  const response = await fetch(anvilUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const answers = await response.json()
  if (!Array.isArray(answers)) throw new Error(`Anvil answered the ecrecover batch with ${JSON.stringify(answers).slice(0, 200)}`)
  for (const { id, result } of answers) {
    // A call that failed leaves its chunk null: recovered in JS by the caller.
    const chunk = chunks[id]
    if (chunk === undefined || typeof result !== 'string' || result.length !== 2 + 64 * chunk.length) continue
    chunk.forEach((index, k) => {
      const answer = result.slice(2 + 64 * k, 2 + 64 * (k + 1))
      if (answer !== ZERO_WORD) senders[index] = `0x${answer.slice(24)}`.toLowerCase()
    })
  }
  return senders
}

const ZERO_WORD = '0'.repeat(64)

function word(n) {
  return n.toString(16).padStart(64, '0')
}
