/** Most blocks a builder builds over a slot before the getHeader (and as many after): its re-bids are spread over the arrival times. */
export const MAX_BID_ROUNDS = 6

/**
 * The times (ms into the slot) a builder builds again: `first` (the slot's start) if given,
 * then each distinct arrival time, at most `MAX_BID_ROUNDS` of them spread over the list
 * (the last always kept: every bundle is in some block).
 *
 * @example bidRounds([300, 0, 300, 900], 0) // [0, 300, 900]
 */
export function bidRounds(arrivalMs: readonly number[], first?: number): number[] {
  const distinct = [...new Set([...(first === undefined ? [] : [first]), ...arrivalMs])].sort((a, b) => a - b)
  if (distinct.length <= MAX_BID_ROUNDS) return distinct
  return Array.from({ length: MAX_BID_ROUNDS }, (_, i) => distinct[Math.round(((i + 1) * (distinct.length - 1)) / MAX_BID_ROUNDS)]!).filter((ms, i, all) => all.indexOf(ms) === i)
}
