import { JSONRPCErrorException } from 'json-rpc-2.0'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { keccak256, recoverMessageAddress, stringToBytes, type Address, type Hex } from 'viem'
import { normalizeAddress } from '../protocol/normalize.js'

export const FLASHBOTS_SIGNATURE_HEADER = 'x-flashbots-signature'

/** The searcher a request speaks for: `null` when it carries no signature header. */
export type SignatureCheck = { ok: true; searcher: Address | null } | { ok: false; message: string }

const HEADER_FORMAT = /^(0x[0-9a-fA-F]{40}):(0x[0-9a-fA-F]{130})$/

/**
 * Checks an `X-Flashbots-Signature: <address>:<signature>` header (docs/reference/methods.md): the signature
 * must be EIP-191 `personal_sign` by that address over the 66-character text `0x…` of
 * keccak256 of the exact request body, which is what `@flashbots/ethers-provider-bundle`
 * sends (`wallet.signMessage(id(body))`). No header is fine: auth is optional.
 *
 * @example await checkFlashbotsSignature(req.headers['x-flashbots-signature'], rawBody)
 */
export async function checkFlashbotsSignature(header: string | string[] | undefined, rawBody: string): Promise<SignatureCheck> {
  if (header === undefined) return { ok: true, searcher: null }
  const value = Array.isArray(header) ? header.join(', ') : header
  const match = HEADER_FORMAT.exec(value.trim())
  if (!match) {
    return {
      ok: false,
      message: 'malformed X-Flashbots-Signature header: expected "<address>:<signature>" (a 20-byte 0x address, a colon, a 65-byte 0x signature)',
    }
  }
  const address = normalizeAddress(match[1]!)
  const signature = match[2] as Hex
  const message = keccak256(stringToBytes(rawBody))
  let signer: Address
  try {
    signer = normalizeAddress(await recoverMessageAddress({ message, signature }))
  } catch {
    return { ok: false, message: `X-Flashbots-Signature: signature is invalid (no signer can be recovered); expected personal_sign of "${message}" by ${address}` }
  }
  if (signer !== address) {
    return {
      ok: false,
      message: `X-Flashbots-Signature: signature does not match the address ${address} (it was made by ${signer}); expected personal_sign over the text of keccak256(body) = ${message}`,
    }
  }
  return { ok: true, searcher: address }
}

/**
 * The searcher a method must be signed by (Flashbots' stats and cancels answer only the key
 * that signs): unsigned → `-32001` (HTTP 401) saying so.
 */
export function requireSearcher(searcher: Address | null, method: string, why: string): Address {
  if (searcher !== null) return searcher
  throw new JSONRPCErrorException(
    `unauthorized: ${method} needs an X-Flashbots-Signature header (${why}); over WebSocket there is none: use HTTP`,
    RpcErrorCode.Unauthorized,
  )
}
