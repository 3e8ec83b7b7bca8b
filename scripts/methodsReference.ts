import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { METHODS, type MethodName, type Surface } from '../src/protocol/methodTable.js'

/** Where the generated table sits in docs/reference/methods.md. */
export const METHODS_PAGE = fileURLToPath(new URL('../docs/reference/methods.md', import.meta.url))
const START = '<!-- every-method:start (generated from src/protocol/methodTable.ts by `npx tsx scripts/methodsReference.ts --write`) -->'
const END = '<!-- every-method:end -->'

const SURFACE_NAMES: Record<Surface, string> = { submission: 'submission', stats: 'stats', builder: 'builder URLs', gateway: 'gateway' }

/**
 * The methods reference's table, one row per method of the method table: its name, where it is
 * served, its params' shape and what it does.
 *
 * @example methodsTable().split('\n')[0] // '| method | served on | params | what it does |'
 */
export function methodsTable(): string {
  const rows = (Object.keys(METHODS) as MethodName[]).map((name) => {
    const { params, served, summary } = METHODS[name]
    return `| \`${name}\` | ${served.map((surface) => SURFACE_NAMES[surface]).join(', ')} | \`${params.shape.replaceAll('|', '\\|')}\` | ${summary.replaceAll('|', '\\|')} |`
  })
  return ['| method | served on | params | what it does |', '|---|---|---|---|', ...rows].join('\n')
}

/** The page with its generated table replaced by `methodsTable()`. */
export function withMethodsTable(page: string): string {
  const start = page.indexOf(START)
  const end = page.indexOf(END)
  if (start < 0 || end < start) throw new Error(`docs/reference/methods.md has no generated table between ${START} and ${END}`)
  return `${page.slice(0, start + START.length)}\n${methodsTable()}\n${page.slice(end)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  writeFileSync(METHODS_PAGE, withMethodsTable(readFileSync(METHODS_PAGE, 'utf8')))
}
