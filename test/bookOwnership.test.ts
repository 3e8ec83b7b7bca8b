import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API, ObjectFlags, type Checker, type NodeHandle, type Project, type Symbol, type Type } from 'typescript/unstable/sync'
import {
  SyntaxKind,
  isArrayLiteralExpression,
  isAsExpression,
  isBinaryExpression,
  isCallExpression,
  isDeleteExpression,
  isElementAccessExpression,
  isExpression,
  isForInStatement,
  isForOfStatement,
  isIdentifier,
  isInterfaceDeclaration,
  isNoSubstitutionTemplateLiteral,
  isNonNullExpression,
  isNumericLiteral,
  isObjectLiteralExpression,
  isOmittedExpression,
  isParenthesizedExpression,
  isPostfixUnaryExpression,
  isPrefixUnaryExpression,
  isPropertyAccessExpression,
  isPropertyAssignment,
  isSatisfiesExpression,
  isSpreadAssignment,
  isSpreadElement,
  isStringLiteral,
  isTypeAssertion,
  type Expression,
  type Node,
  type SourceFile,
} from 'typescript/unstable/ast'

// "The book is the only writer of a trace" (ARCHITECTURE.md), checked on the code: the trace
// types are read-only, so the compiler refuses a plain write, but TypeScript lets a read-only
// object be assigned to a writable type, and `Object.assign` ignores `readonly`. This test
// finds, with the type checker, every write to a trace in src/ outside the book.
// TypeScript 7 has no in-process `ts.createProgram`: its API (`typescript/unstable/sync`) opens a
// project in the native compiler and answers over IPC, so the checker's questions go in batches.
// The src/-only tsconfig and the fixture are handed to it in memory; nothing is written to disk.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const BOOK = `${ROOT}/src/bundle/book.ts`

/** The interfaces whose properties are a trace's: the trace, its bundle, the bundle's txs. */
const TRACE_TYPES = new Map([
  [`${ROOT}/src/bundle/trace.ts`, ['BundleTrace']],
  // An order of any kind: the fields every kind has (OrderBase) and each kind's own.
  [`${ROOT}/src/bundle/types.ts`, ['OrderBase', 'PlainBundle', 'EndOfBlockBundle', 'ShareBundle', 'PrivateTxOrder', 'BundleTx']],
])

/** Array methods that change the array they are called on. */
const MUTATING_METHODS = new Set(['push', 'splice', 'pop', 'shift', 'unshift', 'sort', 'reverse', 'fill', 'copyWithin'])

/** A program over src/ only (tsconfig.json's options): the tests and scripts would double the time for nothing. */
const SRC_CONFIG = `${ROOT}/tsconfig.bookOwnership.json`

/** The detector's own check: a fixture that only exists in memory, with a write of each kind. */
const FIXTURE_DIR = `${ROOT}/test/.bookOwnershipFixture`
const FIXTURE_CONFIG = `${FIXTURE_DIR}/tsconfig.json`
const FIXTURE = `${FIXTURE_DIR}/writes.ts`

/** Lines marked `// write:` must be found, every other line must not. */
const FIXTURE_TEXT = `import type { BundleTrace } from '../../src/bundle/trace.js'
import type { Bundle, BundleTx } from '../../src/bundle/types.js'

type Writable<T> = { -readonly [K in keyof T]: T[K] }

export function writes(trace: BundleTrace, bundle: Bundle, tx: BundleTx, record: Writable<BundleTrace>, key: keyof BundleTrace): void {
  trace.state = 'Landed' // write: assignment
  trace.builderPayment += 1n // write: compound assignment
  trace.error ??= 'why' // write: logical assignment
  trace.sequence++ // write: ++
  --trace.receivedMsIntoSlot // write: --
  delete trace.lostTo // write: delete
  trace.bundle.sentTo = ['a'] // write: its bundle's property
  bundle.maxTimestamp = 1 // write: a bundle's property
  trace.bundle.txs[0]!.sender = '0x01' // write: its tx's property
  tx.sender = '0x01' // write: a tx's property
  trace['state'] = 'Received' // write: by element access
  trace[key] = null as never // write: by a computed key
  trace.bundle.txs[0] = tx // write: an element of its txs
  record.live = false // write: through a writable form
  trace.builders![0]!.state = 'Landed' // write: inside a trace
  ;(trace as BundleTrace).live = false // write: through an assertion
  ;[trace.state] = ['Landed'] // write: array destructuring
  ;({ error: trace.error } = { error: 'why' }) // write: object destructuring
  for (trace.error of ['a']) void 0 // write: for-of target
  trace.bundle.txs.push(tx) // write: push
  trace.bundle.txs.splice(0, 1) // write: splice
  trace.builders!.pop() // write: pop
  trace.targets?.shift() // write: shift
  trace.bundle.sentTo!.unshift('a') // write: unshift
  trace.bundle.refundTxHashes.sort() // write: sort
  trace.laterSubmissions!.reverse() // write: reverse
  trace.ignoredBuilders!.fill('a') // write: fill
  trace.bundle.txs.copyWithin(0, 1) // write: copyWithin
  trace.builderPayments.sponsorships.push({ txHash: '0x01', amountWei: 1n, transferHash: '0x02' }) // write: push inside a trace
  Object.assign(trace, { live: false }) // write: Object.assign on a trace
  Object.assign(trace.bundle, { sentTo: [] }) // write: Object.assign on its bundle
  Object.assign(tx, { sender: '0x01' }) // write: Object.assign on a tx
  Object.assign(record, { live: false }) // write: Object.assign on a writable form
}

export function copiesAndReads(trace: BundleTrace, local: { state: string; list: string[] }): void {
  const copy = { ...trace, state: 'Landed' as const }
  copy.error = 'a copy of its fields'
  copy.bundle.sentTo = ['a'] // write: a copy shares its bundle
  copy.builders!.push({ name: 'a', state: 'Landed', error: null, errorKind: null }) // write: a copy shares its arrays
  Object.assign(copy.bundle, { sentTo: [] }) // write: Object.assign on a copy's bundle
  Object.assign(copy, { live: false })
  local.state = trace.state
  local.list.push(trace.bundle.hash)
  const txs = [...trace.bundle.txs]
  txs.sort()
  trace.bundle.txs.slice().reverse()
  trace.bundle.txs.map((t) => t.hash).sort()
  Object.assign({}, trace, { live: false })
  Object.assign(local, { state: trace.state })
}
`

interface TraceWrite {
  file: string
  line: number
  kind: string
  text: string
}

/** Where a write lands: `slot` replaces a property of the target's object (`x.p = v`, `delete x.p`, `x.p++`); `into` changes the target's value itself (`x.push(v)`, `Object.assign(x, v)`). */
interface WriteSite {
  target: Expression
  site: Node
  kind: string
  lands: 'slot' | 'into'
}

/**
 * Every write to a trace in `files` (absolute paths) of the project: an assignment (plain,
 * compound, logical, destructuring, for-of/in target), `++`/`--` or `delete` whose target is a
 * property of a trace, of its bundle or of one of its txs, or anything reached through one
 * (`trace.builders[0].state`, `trace.bundle.txs[0]`); a mutating array method called on such
 * a property; `Object.assign` with such a target first. A copy spread from a trace is not a
 * trace: its own properties may be written, not what it shares with the trace (`copy.bundle`).
 */
function traceWrites(project: Project, files: readonly string[]): TraceWrite[] {
  const { program, checker } = project
  const sites: WriteSite[] = []
  for (const file of files) {
    const source = program.getSourceFile(file)
    if (!source) throw new Error(`${file} is not in the program`)
    const visit = (node: Node): void => {
      sites.push(...writeTargets(node))
      node.forEachChild(visit)
    }
    visit(source)
  }
  // The checker answers over IPC: one batched request for every name on a written path, one for the types it takes.
  const names = new Map<Node, Symbol | undefined>()
  for (const { target } of sites) for (const name of namesOnPath(target)) names.set(name, undefined)
  const nameNodes = [...names.keys()]
  if (nameNodes.length > 0) checker.getSymbolAtLocation(nameNodes).forEach((symbol, i) => names.set(nameNodes[i]!, symbol))
  const isTraceProperty = tracePropertyTest()
  const namesTraceProperty = (expression: Expression): boolean => {
    const name = memberName(expression)
    return name !== undefined && isTraceProperty(names.get(name))
  }
  /** Is the expression a trace's property (`trace.state`), or reached through one (`trace.builders[0].state`)? */
  const throughTrace = (expression: Expression): boolean => {
    const target = unwrapped(expression)
    const object = memberObject(target)
    return namesTraceProperty(target) || (object !== undefined && throughTrace(object))
  }

  /** A write is a trace's (true), not one (false), or one if a value's type says so. */
  const verdictOf = ({ target: written, kind, lands }: WriteSite): boolean | { ifNotCopy: Expression } | { ifTrace: Expression } => {
    const target = unwrapped(written)
    if (lands === 'into') return throughTrace(target) || (kind === 'Object.assign' && { ifTrace: target })
    const object = memberObject(target)
    if (object === undefined) return false
    if (namesTraceProperty(target)) return { ifNotCopy: object }
    if (throughTrace(object)) return true
    // A computed key (`trace[key]`): what it writes to is known by the object's type.
    return isElementAccessExpression(target) && { ifTrace: object }
  }
  const verdicts = sites.map((site) => ({ site, verdict: verdictOf(site) }))
  const typed = verdicts.flatMap(({ verdict }) => (typeof verdict === 'object' ? ['ifTrace' in verdict ? verdict.ifTrace : verdict.ifNotCopy] : []))
  const answers = typed.length > 0 ? checker.getTypeAtLocation(typed) : []
  const typeOf = new Map(typed.map((node, i) => [node, answers[i]]))
  return verdicts
    .filter(({ verdict }) => {
      if (typeof verdict === 'boolean') return verdict
      return 'ifTrace' in verdict ? isTraceObject(checker, typeOf.get(verdict.ifTrace), isTraceProperty) : !isCopy(typeOf.get(verdict.ifNotCopy))
    })
    .map(({ site }) => located(site.site, site.kind))
}

/** The expressions a node writes to, with what kind of write it is and where it lands. */
function writeTargets(node: Node): WriteSite[] {
  if (isBinaryExpression(node) && node.operatorToken.kind >= SyntaxKind.FirstAssignment && node.operatorToken.kind <= SyntaxKind.LastAssignment) {
    const kind = node.operatorToken.kind === SyntaxKind.EqualsToken ? 'assignment' : 'compound assignment'
    return destructured(node.left).map((target) => ({ target, site: node, kind, lands: 'slot' }))
  }
  if ((isPrefixUnaryExpression(node) || isPostfixUnaryExpression(node)) && (node.operator === SyntaxKind.PlusPlusToken || node.operator === SyntaxKind.MinusMinusToken)) {
    return [{ target: node.operand, site: node, kind: node.operator === SyntaxKind.PlusPlusToken ? '++' : '--', lands: 'slot' }]
  }
  if (isDeleteExpression(node)) return [{ target: node.expression, site: node, kind: 'delete', lands: 'slot' }]
  if ((isForOfStatement(node) || isForInStatement(node)) && isExpression(node.initializer)) {
    const { initializer } = node
    return destructured(initializer).map((target) => ({ target, site: initializer, kind: 'for-of/in target', lands: 'slot' }))
  }
  if (isCallExpression(node)) {
    const callee = unwrapped(node.expression)
    if (!isPropertyAccessExpression(callee)) return []
    if (MUTATING_METHODS.has(callee.name.text)) return [{ target: callee.expression, site: node, kind: callee.name.text, lands: 'into' }]
    const receiver = unwrapped(callee.expression)
    if (callee.name.text === 'assign' && isIdentifier(receiver) && receiver.text === 'Object' && node.arguments[0]) {
      return [{ target: node.arguments[0], site: node, kind: 'Object.assign', lands: 'into' }]
    }
  }
  return []
}

/** The targets of an assignment's left side: itself, or each element of a destructuring pattern. */
function destructured(left: Expression): Expression[] {
  const target = unwrapped(left)
  if (isArrayLiteralExpression(target)) {
    return target.elements.flatMap((element) => (isOmittedExpression(element) ? [] : destructured(isSpreadElement(element) ? element.expression : element)))
  }
  if (isObjectLiteralExpression(target)) {
    return target.properties.flatMap((property) => {
      if (isPropertyAssignment(property)) return destructured(property.initializer)
      if (isSpreadAssignment(property)) return destructured(property.expression)
      return [] // a shorthand `{ name }` assigns a variable
    })
  }
  return [left]
}

/** Without the parentheses, `!` and type assertions around it. */
function unwrapped(expression: Expression): Expression {
  let current = expression
  while (isParenthesizedExpression(current) || isNonNullExpression(current) || isAsExpression(current) || isSatisfiesExpression(current) || isTypeAssertion(current)) current = current.expression
  return current
}

/** The node naming the member accessed (`p` of `x.p` or `x['p']`); a computed key (`x[k]`) names none. */
function memberName(expression: Expression): Node | undefined {
  if (isPropertyAccessExpression(expression)) return expression.name
  if (!isElementAccessExpression(expression)) return undefined
  const key = expression.argumentExpression
  return isStringLiteral(key) || isNoSubstitutionTemplateLiteral(key) || isNumericLiteral(key) ? key : undefined
}

/** The object whose member is accessed (`x` of `x.p` and `x[k]`). */
function memberObject(expression: Expression): Expression | undefined {
  return isPropertyAccessExpression(expression) || isElementAccessExpression(expression) ? expression.expression : undefined
}

/** Every member name on the path an expression writes to (`a.b[c].d`: `d`, `c`, `b`). */
function namesOnPath(expression: Expression): Node[] {
  const target = unwrapped(expression)
  const name = memberName(target)
  const object = memberObject(target)
  return [...(name ? [name] : []), ...(object ? namesOnPath(object) : [])]
}

/** Is a symbol a property declared by one of the trace's interfaces (directly, or through a mapped type such as `Writable<BundleTrace>`)? */
function tracePropertyTest(): (symbol: Symbol | undefined) => boolean {
  const byDeclaration = new Map<string, boolean>()
  const declaredByTrace = (handle: NodeHandle): boolean => {
    const key = `${handle.path}#${handle.index}`
    let answer = byDeclaration.get(key)
    if (answer === undefined) {
      const owners = [...TRACE_TYPES].find(([file]) => file.toLowerCase() === handle.path.toLowerCase())?.[1]
      const parent = owners && handle.resolve()?.parent
      answer = parent !== undefined && isInterfaceDeclaration(parent) && owners!.includes(parent.name.text)
      byDeclaration.set(key, answer)
    }
    return answer
  }
  return (symbol) => symbol?.declarations.some(declaredByTrace) ?? false
}

/**
 * Is the type an object literal's (a copy spread from a trace), in each of its parts? Such a
 * type is anonymous; a trace's is its interface, or a mapped form of it (`Writable<…>`, `Pick<…>`).
 */
function isCopy(type: Type | undefined): boolean {
  if (!type) return false
  const parts = type.isUnionType() ? type.getTypes() : [type]
  const objects = parts.filter((part) => part.isObjectType())
  return objects.length > 0 && objects.every((part) => part.isObjectType() && (part.objectFlags & ObjectFlags.Anonymous) !== 0 && (part.objectFlags & ObjectFlags.Mapped) === 0)
}

/** Is the value a trace, a bundle or a tx (or a writable form of one), not a copy? */
function isTraceObject(checker: Checker, type: Type | undefined, isTraceProperty: (symbol: Symbol | undefined) => boolean): boolean {
  if (!type || isCopy(type)) return false
  const parts = type.isUnionType() ? type.getTypes() : [type]
  return parts.some((part) => checker.getPropertiesOfType(part).some(isTraceProperty))
}

function located(site: Node, kind: string): TraceWrite {
  const source: SourceFile = site.getSourceFile()
  const text = site.getText(source).replace(/\s+/g, ' ')
  return { file: path.relative(ROOT, source.fileName), line: source.getLineAndCharacterOfPosition(site.getStart(source)).line + 1, kind, text: text.length > 90 ? `${text.slice(0, 87)}...` : text }
}

describe('the book is the only writer of a trace', () => {
  let api: API
  let src: Project
  let fixture: Project
  let setupMs = 0

  beforeAll(() => {
    const started = performance.now()
    const virtual = new Map([
      [SRC_CONFIG, JSON.stringify({ extends: './tsconfig.json', include: ['src'] })],
      [FIXTURE_CONFIG, JSON.stringify({ extends: '../../tsconfig.json', include: [], files: ['writes.ts'] })],
      [FIXTURE, FIXTURE_TEXT],
    ])
    api = new API({
      cwd: ROOT,
      fs: {
        readFile: (file) => virtual.get(file),
        fileExists: (file) => (virtual.has(file) ? true : undefined),
        directoryExists: (dir) => (dir === FIXTURE_DIR ? true : undefined),
      },
    })
    const snapshot = api.updateSnapshot({ openProjects: [SRC_CONFIG, FIXTURE_CONFIG] })
    src = snapshot.getProject(SRC_CONFIG)!
    fixture = snapshot.getProject(FIXTURE_CONFIG)!
    setupMs = performance.now() - started
  }, 120_000)

  afterAll(() => api?.close())

  it('finds a write of each kind, and no read, in a fixture', () => {
    const found = traceWrites(fixture, [FIXTURE])
    const expected = FIXTURE_TEXT.split('\n').flatMap((line, i) => (line.includes('// write:') ? [i + 1] : []))
    expect(expected.length).toBeGreaterThan(30)
    expect(found.map((write) => write.line)).toEqual(expected)
  })

  it('no file of src/ but src/bundle/book.ts writes to a trace', () => {
    const started = performance.now()
    const files = src.program.getSourceFileNames().filter((file) => file.startsWith(`${ROOT}/src/`) && file !== BOOK)
    expect(files.length).toBeGreaterThan(200)
    const writes = traceWrites(src, files)
    console.info(`bookOwnership: program over src/ ${Math.round(setupMs)} ms, ${files.length} files checked in ${Math.round(performance.now() - started)} ms`)
    expect(writes.map((write) => `${write.file}:${write.line} ${write.kind}: ${write.text}`)).toEqual([])
  })
})
