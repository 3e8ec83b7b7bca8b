// Types of ecrecoverOnAnvil.mjs (plain JavaScript: it runs in the recovery worker).
import type { Address, Hex } from 'viem'

/** The precompile's 128-byte input for a signed tx, or null when only the JS recovery can answer it. */
export function ecrecoverInput(raw: Hex): Hex | null

/** The same input for a plain EIP-1559 tx (no access list) read from its RLP; null for anything else. */
export function plainEip1559Input(raw: Hex): Hex | null

/** The same input computed through viem's parse and re-serialization only (the reference). */
export function parsedInput(raw: Hex): Hex | null

/** Per input, the sender Anvil's precompile recovered, or null (null input, or nothing recovered). */
export function recoverOnAnvil(anvilUrl: string, inputs: ReadonlyArray<Hex | null>, timeoutMs: number): Promise<Array<Address | null>>
