import path from 'node:path'

/**
 * ARCHITECTURE.md's layer table as rows of folder names, bottom layer first: the first
 * backticked names of each row of the table under "Folders, bottom layer first".
 *
 * @example layerTable('## Folders, bottom layer first\n| folder | owns |\n|---|---|\n| `protocol/` | … |') // [['protocol']]
 */
export function layerTable(markdown: string): string[][] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Folders, bottom layer first'))
  if (!section) throw new Error('ARCHITECTURE.md has no "## Folders, bottom layer first" section')
  const rows: string[][] = []
  for (const line of section.split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1]
    if (!cell) continue
    const folders = [...cell.matchAll(/`([a-zA-Z]+)\/`/g)].map((m) => m[1]!)
    if (folders.length > 0) rows.push(folders)
  }
  return rows
}

/** What the layer check found: imports that go against the table, and folders it does not list. */
export interface LayerReport {
  /** `src/a/x.ts -> src/b/y.ts: a/ (row 3) imports b/ (row 5), a row below it`. */
  violations: string[]
  /** Folders of `src/` missing from the table, each with the message to fix it. */
  unlisted: string[]
  /** Folders listed in more than one row. */
  duplicated: string[]
}

/**
 * Checks a file import graph (`importGraph`) against the layer table: a file of a folder
 * imports only files of its own row or of rows above it in the table (lower layers). Files
 * directly in `root` (`cli.ts`, `index.ts`) sit on top of every row.
 */
export function checkLayers(files: Map<string, string[]>, rows: readonly string[][], root = 'src'): LayerReport {
  const rowOf = new Map<string, number>()
  const duplicated: string[] = []
  rows.forEach((folders, row) => {
    for (const folder of folders) {
      if (rowOf.has(folder)) duplicated.push(`${folder}/ is listed in rows ${rowOf.get(folder)! + 1} and ${row + 1} of ARCHITECTURE.md's table: keep one`)
      else rowOf.set(folder, row)
    }
  })
  const folderOf = (file: string): string | null => {
    const parts = path.relative(root, file).split(path.sep)
    return parts.length > 1 ? parts[0]! : null
  }
  const violations: string[] = []
  const unlisted = new Set<string>()
  for (const [file, targets] of files) {
    const from = folderOf(file)
    if (from === null) continue
    if (!rowOf.has(from)) {
      unlisted.add(from)
      continue
    }
    for (const target of targets) {
      const to = folderOf(target)
      if (to === null) {
        violations.push(`${file} -> ${target}: ${from}/ imports the package's top (${path.basename(target)}), which sits above every row`)
        continue
      }
      if (!rowOf.has(to)) {
        unlisted.add(to)
        continue
      }
      if (rowOf.get(to)! > rowOf.get(from)!) {
        violations.push(`${file} -> ${target}: ${from}/ (row ${rowOf.get(from)! + 1}) imports ${to}/ (row ${rowOf.get(to)! + 1}), a row below it in ARCHITECTURE.md's table`)
      }
    }
  }
  return {
    violations,
    unlisted: [...unlisted].sort().map((folder) => `src/${folder}/ is not in ARCHITECTURE.md's layer table: add it to ARCHITECTURE.md's table (a row saying what it owns, placed above every folder that imports it)`),
    duplicated,
  }
}
