import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Table } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { toString } from 'mdast-util-to-string'
import { gfm } from 'micromark-extension-gfm'
import { describe, expect, it } from 'vitest'
import { STEP_KINDS } from '../src/scenario/steps/definition.js'
import { STEP_DEFINITIONS } from '../src/scenario/steps/index.js'
import { REPO_ROOT } from './support/cli.js'

/*
 * A step kind is one file of src/scenario/steps/ (its schema, its reference checks, its
 * execution), registered in steps/index.ts and documented in docs/scenarios.md's step table.
 * The compiler checks the registry against STEP_KINDS; these check the files and the docs.
 */

const STEPS_DIR = path.join(REPO_ROOT, 'src/scenario/steps')
/** The modules of steps/ that are no step kind: the registry, the definition's types, the helpers several kinds share. */
const NOT_KINDS = ['index.ts', 'definition.ts', 'shared.ts']

/** The step kinds docs/scenarios.md's "Steps" table lists: the key its first cell's code starts with (`submit: { txs, … }`). */
function documentedKinds(): string[] {
  const tree = fromMarkdown(readFileSync(path.join(REPO_ROOT, 'docs/scenarios.md'), 'utf8'), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
  const start = tree.children.findIndex((node) => node.type === 'heading' && node.depth === 2 && toString(node) === 'Steps')
  const section = tree.children.slice(start + 1)
  const table = section.slice(0, section.findIndex((node) => node.type === 'heading')).find((node): node is Table => node.type === 'table')
  if (start === -1 || !table) throw new Error('docs/scenarios.md has no table under "## Steps"')
  return table.children.slice(1).map((row) => {
    const [cell] = row.children
    const code = cell?.children.find((node) => node.type === 'inlineCode')
    const kind = code && /^(\w+):/.exec(code.value)?.[1]
    if (!kind) throw new Error(`a row of the steps table names no step kind: ${toString(row)}`)
    return kind
  })
}

describe('step kinds: one file each, registered, documented', () => {
  const kindFiles = readdirSync(STEPS_DIR).filter((file) => file.endsWith('.ts') && !NOT_KINDS.includes(file))

  it('every file of src/scenario/steps/ is a registered step kind, and every kind has its file', () => {
    expect(kindFiles.map((file) => path.basename(file, '.ts')).sort()).toEqual([...STEP_KINDS].sort())
    expect(Object.keys(STEP_DEFINITIONS).sort()).toEqual([...STEP_KINDS].sort())
  })

  it('each kind file defines its own kind, and that definition is the one registered', async () => {
    for (const file of kindFiles) {
      const kind = STEP_KINDS.find((known) => `${known}.ts` === file)
      if (!kind) throw new Error(`${file} is no step kind`)
      const module: Record<string, unknown> = await import(path.join(STEPS_DIR, file))
      const definitions = Object.values(module).filter((value) => typeof value === 'object' && value !== null && 'kind' in value && 'execute' in value)
      expect(definitions, `${file} exports one step definition`).toHaveLength(1)
      expect(definitions[0], `${file} defines ${kind}, the definition registered under ${kind}`).toBe(STEP_DEFINITIONS[kind])
    }
  })

  it("every kind is in docs/scenarios.md's step table, and the table documents no other", () => {
    expect(documentedKinds().sort()).toEqual([...STEP_KINDS].sort())
  })
})
