import { REGEX_TEXT, type Bounds } from './fields.js'
import { formatAmount } from './units.js'

/** `/regex/flags` as a RegExp, plain text as a substring to find. */
export function textMatcher(pattern: string): { test(actual: string): boolean; describe: string } {
  const regex = REGEX_TEXT.exec(pattern)
  if (regex) {
    const re = new RegExp(regex[1]!, regex[2])
    return { test: (actual) => re.test(actual), describe: `text matching ${pattern}` }
  }
  return { test: (actual) => actual.includes(pattern), describe: `text containing ${JSON.stringify(pattern)}` }
}

/** How bounds read in a failure message. */
export function describeBounds(bounds: Bounds, format: (n: bigint) => string = formatAmount): string {
  const parts: string[] = []
  if (bounds.equals !== undefined) parts.push(`= ${format(bounds.equals)}`)
  if (bounds.min !== undefined) parts.push(`≥ ${format(bounds.min)}`)
  if (bounds.max !== undefined) parts.push(`≤ ${format(bounds.max)}`)
  return parts.join(' and ') || 'anything'
}

export function withinBounds(actual: bigint, bounds: Bounds): boolean {
  return (
    (bounds.equals === undefined || actual === bounds.equals) &&
    (bounds.min === undefined || actual >= bounds.min) &&
    (bounds.max === undefined || actual <= bounds.max)
  )
}

/** Gas and other plain counts read better without wei units. */
export const plainNumber = (n: bigint): string => n.toString()
