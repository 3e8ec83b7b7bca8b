import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API } from 'typescript/unstable/sync'
import { createVirtualFileSystem } from 'typescript/unstable/fs'
import { SyntaxKind, isAsExpression, isParenthesizedExpression, isTypeAssertion, type AsExpression, type Node, type SourceFile } from 'typescript/unstable/ast'

/**
 * The code of `src/` keeps the compiler's word: no `any` type (it switches checking off for
 * whatever it touches), no assertion to `never` (assignable to everything, so `x as never`
 * silences any mismatch), and no double assertion through `unknown` (`x as unknown as T` makes
 * anything a `T`: a type that does not fit is to be fixed where it comes from). Found by TypeScript's own parser, so prose in comments and strings
 * never counts and every spelling of the type does (`any[]`, `Array<any>`, `Record<string, any>`).
 * TypeScript 7's compiler API parses in its native process: the files are handed to it as a
 * virtual project (no type checking, no imports followed), parsed once.
 */

/** Where the files are laid in the virtual project (a path nothing on disk has). */
const ROOT = '/bundlesim-type-discipline'
/** A small source with one of each escape (lines 1, 2, 3, 5) and their look-alikes that are not. */
const PROBE = [
  'export const loose: any = 1',
  'export const silenced = loose as never',
  'export const old = <never>loose',
  'export const fine: unknown = loose as unknown // any, as never: words in a comment',
  'export type Rows = Array<Record<string, any>>',
  "export const text = 'x as never, y: any'",
  'export function unreachable(value: never): never { return value }',
  'export const forced = loose as unknown as string',
  'export const widened = (loose as unknown) satisfies unknown',
].join('\n')

/** A way out of the type checker: where it is, and which. */
interface Escape {
  /** Path under `src/` (or the probe's name). */
  file: string
  line: number
  kind: 'any' | 'as never' | '<never>' | 'as unknown as'
}

/** The expression inside any parentheses (`(x as unknown) as T` is `x as unknown as T`). */
function unparenthesized(node: Node): Node {
  return isParenthesizedExpression(node) ? unparenthesized(node.expression) : node
}

/** Every `any` type node and every assertion to `never` of one parsed file, in source order. */
function escapesIn(sourceFile: SourceFile, file: string): Escape[] {
  const found: Escape[] = []
  const lineOf = (node: Node) => sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1
  const visit = (node: Node): void => {
    if (node.kind === SyntaxKind.AnyKeyword) found.push({ file, line: lineOf(node), kind: 'any' })
    else if (isAsExpression(node) && node.type.kind === SyntaxKind.NeverKeyword) found.push({ file, line: lineOf(node), kind: 'as never' })
    else if (isTypeAssertion(node) && node.type.kind === SyntaxKind.NeverKeyword) found.push({ file, line: lineOf(node), kind: '<never>' })
    else if (isAsExpression(node) && isAsExpression(unparenthesized(node.expression)) && (unparenthesized(node.expression) as AsExpression).type.kind === SyntaxKind.UnknownKeyword) found.push({ file, line: lineOf(node), kind: 'as unknown as' })
    node.forEachChild(visit)
  }
  visit(sourceFile)
  return found
}

/** The TypeScript files of a folder, recursively, as paths relative to it (`/` separated). */
function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.[cm]?ts$/.test(file))
    .map((file) => file.split('\\').join('/'))
    .sort()
}

describe('type discipline', () => {
  const sources = typeScriptFiles('src')
  let api: API
  /** Each parsed file's escapes, by its path under `src/` (the probe as `probe.ts`). */
  const escapes = new Map<string, Escape[]>()

  beforeAll(() => {
    const files: Record<string, string> = {
      [`${ROOT}/tsconfig.json`]: JSON.stringify({ compilerOptions: { noLib: true, noResolve: true, types: [] }, include: ['src/**/*', 'probe.ts'] }),
      [`${ROOT}/probe.ts`]: PROBE,
    }
    for (const file of sources) files[`${ROOT}/src/${file}`] = readFileSync(join('src', file), 'utf8')
    api = new API({ cwd: ROOT, fs: createVirtualFileSystem(files) })
    const program = api.updateSnapshot({ openProject: `${ROOT}/tsconfig.json` }).getProject(`${ROOT}/tsconfig.json`)!.program
    for (const path of program.getSourceFileNames()) {
      const name = path.slice(`${ROOT}/`.length).replace(/^src\//, '')
      escapes.set(name, escapesIn(program.getSourceFile(path)!, name))
    }
  })

  afterAll(() => api?.close())

  it('the detector finds an any, an assertion to never and a double assertion through unknown, each where it is, and nothing in prose or strings', () => {
    expect(escapes.get('probe.ts')).toEqual([
      { file: 'probe.ts', line: 1, kind: 'any' },
      { file: 'probe.ts', line: 2, kind: 'as never' },
      { file: 'probe.ts', line: 3, kind: '<never>' },
      { file: 'probe.ts', line: 5, kind: 'any' },
      { file: 'probe.ts', line: 8, kind: 'as unknown as' },
    ])
  })

  it('every TypeScript file of src/ was parsed', () => {
    expect(sources.length).toBeGreaterThan(200)
    expect([...escapes.keys()].filter((name) => name !== 'probe.ts').sort()).toEqual(sources)
  })

  it('no file of src/ has an any type, an assertion to never or a double assertion through unknown', () => {
    const found = [...escapes.entries()].filter(([name]) => name !== 'probe.ts').flatMap(([, list]) => list)
    expect(found.map(({ file, line, kind }) => `src/${file}:${line} ${kind}`)).toEqual([])
  })
})
