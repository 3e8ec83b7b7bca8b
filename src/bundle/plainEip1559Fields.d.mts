// Types of plainEip1559Fields.mjs (plain JavaScript: the recovery worker uses it too).
import type { Hex } from 'viem'

/** An RLP scalar as a bigint: the empty string is zero. */
export function scalar(hex: Hex): bigint

/** The twelve RLP fields of a plain EIP-1559 tx viem would accept (index 8, the access list, is `[]`); null otherwise. */
export function plainEip1559Fields(raw: Hex): [Hex, Hex, Hex, Hex, Hex, Hex, Hex, Hex, [], Hex, Hex, Hex] | null
