import type { Hex } from 'viem'

/** Hardforks in order, lowercase, as Anvil names them (`anvil_nodeInfo`'s `hardFork`). */
const FORKS = [
  'frontier', 'homestead', 'dao', 'tangerine', 'spuriousdragon', 'byzantium', 'constantinople', 'petersburg',
  'istanbul', 'muirglacier', 'berlin', 'london', 'arrowglacier', 'grayglacier', 'paris', 'shanghai', 'cancun',
  'prague', 'osaka',
] as const

/** The typed txs (EIP-2718) and the hardfork that brought each in. */
const TX_TYPES: Record<string, { name: string; since: (typeof FORKS)[number] }> = {
  '01': { name: 'access-list (EIP-2930)', since: 'berlin' },
  '02': { name: 'EIP-1559', since: 'london' },
  '03': { name: 'blob (EIP-4844)', since: 'cancun' },
  '04': { name: 'set-code (EIP-7702)', since: 'prague' },
}

/**
 * Why a signed tx's type is not allowed under `hardfork`, or `undefined` when it is (legacy
 * txs always are; so is anything under a fork this list does not know, such as a later one).
 *
 * @example txTypeNotAllowed('0x03…', 'Shanghai') // 'type 3 (blob (EIP-4844)) tx: not allowed under hardfork Shanghai (from Cancun on)'
 */
export function txTypeNotAllowed(raw: Hex, hardfork: string): string | undefined {
  const type = TX_TYPES[raw.slice(2, 4)]
  const fork = FORKS.indexOf(hardfork.toLowerCase() as (typeof FORKS)[number])
  if (!type || fork < 0 || fork >= FORKS.indexOf(type.since)) return undefined
  const since = type.since[0]!.toUpperCase() + type.since.slice(1)
  return `type ${Number(`0x${raw.slice(2, 4)}`)} (${type.name}) tx: not allowed under hardfork ${hardfork} (from ${since} on)`
}

/**
 * Is `hardfork` (as `--hardfork` names it) before `fork`? False for a name this list does
 * not know (a later fork, most likely).
 *
 * @example hardforkBefore('shanghai', 'cancun') // true
 */
export function hardforkBefore(hardfork: string, fork: (typeof FORKS)[number]): boolean {
  const index = FORKS.indexOf(hardfork.toLowerCase() as (typeof FORKS)[number])
  return index >= 0 && index < FORKS.indexOf(fork)
}
