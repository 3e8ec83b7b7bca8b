// Plain regular expressions, no zod: the CLI checks flags with them before loading anything heavy.

/**
 * The text forms values take on the wire. One place for them, so the service, the scenario
 * format and the client agree on what a hash or an address looks like.
 */
export const WIRE_PATTERNS = {
  /** 0x and whole bytes, possibly none (calldata, a tx as written). */
  hexBytes: /^0x([0-9a-fA-F]{2})*$/,
  /** 0x and at least one whole byte (a signed tx). */
  signedTx: /^0x([0-9a-fA-F]{2})+$/,
  /** 0x and any number of hex digits (what YAML must keep as text, not read as a number). */
  hexDigits: /^0x[0-9a-fA-F]*$/,
  /** A tx or bundle hash, or a private key. */
  hash32: /^0x[0-9a-fA-F]{64}$/,
  address: /^0x[0-9a-fA-F]{40}$/,
  /** A JSON-RPC quantity (block number, wei) up to 256 bits. */
  hexQuantity: /^0x[0-9a-fA-F]{1,64}$/,
  /** A uint256 written in decimal (wei); 78 digits hold 2^256 - 1. */
  decimalWei: /^\d{1,78}$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
} as const
