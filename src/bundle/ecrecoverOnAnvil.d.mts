// Types of ecrecoverOnAnvil.mjs (plain JavaScript: it runs in the recovery worker).
import type { Address, Hex } from 'viem'

/** The precompile's 128-byte input for a signed tx, or null when only the JS recovery can answer it. */
export function ecrecoverInput(raw: Hex): Hex | null

/** Per input, the sender Anvil's precompile recovered, or null (null input, or nothing recovered). */
export function recoverOnAnvil(anvilUrl: string, inputs: ReadonlyArray<Hex | null>, timeoutMs: number): Promise<Array<Address | null>>
