import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from './support/cli.js'

/*
 * Comments in src/ say why the code is as it is, not how it came to be: an issue's number or
 * the fuzz seed that found a bug belongs in the test that reproduces it (test/fuzz.test.ts
 * lists the seeds), where a reader of the test can replay it.
 */

const HISTORY = [
  { kind: 'an issue number', pattern: /\bissues? #\d+/i },
  { kind: 'a fuzz seed', pattern: /\b(fuzz,? )?seed \d{3,}\b/i },
  { kind: 'a past CI run', pattern: /\ban? (earlier )?CI run\b/i },
]

function historyIn(text: string): string[] {
  return text.split('\n').flatMap((line, i) => HISTORY.filter(({ pattern }) => pattern.test(line)).map(({ kind }) => `line ${i + 1}: ${kind}: ${line.trim()}`))
}

describe('src/ comments carry no history', () => {
  it('the rule sees an issue number, a fuzz seed and a past CI run, and not a seed option or a PR citation', () => {
    expect(historyIn('// fixed for issue #28\n// fuzz, seed 13089: the bundle failed\n// a CI run failed on it')).toHaveLength(3)
    expect(historyIn("// the flow's seed 1 makes the same path\n// flashbots-docs PR #638: retired\nconst seed = 42")).toEqual([])
  })

  it('no file under src/ holds one', () => {
    const src = path.join(REPO_ROOT, 'src')
    const found = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(ts|mjs|cjs|js)$/.test(file))
      .flatMap((file) => historyIn(readFileSync(path.join(src, file), 'utf8')).map((hit) => `src/${file} ${hit}`))
    expect(found).toEqual([])
  })
})
