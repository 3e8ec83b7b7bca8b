import { keccak256, stringToBytes, type Address, type Hex } from 'viem'

/** What signs a request as a searcher: a viem account (`privateKeyToAccount(key)`) will do. */
export interface FlashbotsSigner {
  address: Address
  signMessage(args: { message: string }): Promise<Hex>
}

/**
 * The `X-Flashbots-Signature` header for a request body, as Flashbots clients send it:
 * `<address>:<personal_sign of the text of keccak256(body)>`.
 *
 * @example await transport.signedRequest('eth_sendEndOfBlockBundle', [bundle], flashbotsSignature(account))
 */
export function flashbotsSignature(signer: FlashbotsSigner): (body: string) => Promise<Record<string, string>> {
  return async (body) => {
    const signature = await signer.signMessage({ message: keccak256(stringToBytes(body)) })
    return { 'X-Flashbots-Signature': `${signer.address}:${signature}` }
  }
}
