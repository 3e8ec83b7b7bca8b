/**
 * The known name a typo most likely meant: the one at the smallest edit distance (letters
 * compared case-insensitively), if it is close enough to be a slip rather than another name.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  const typed = name.toLowerCase()
  const allowed = Math.max(2, Math.floor(typed.length / 3))
  let best: string | undefined
  let bestDistance = allowed + 1
  for (const candidate of known) {
    if (candidate === name) continue
    const distance = editDistance(typed, candidate.toLowerCase())
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  return best
}

/** ` (did you mean X?)` when a known name is close to `name`, else nothing. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const closest = closestName(name, known)
  return closest === undefined ? '' : ` (did you mean ${closest}?)`
}

/** Levenshtein distance: insertions, deletions and substitutions, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return previous[b.length]!
}
