import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'

/** Relative imports of every module under `root`, keyed by file (paths relative to the cwd). */
export function importGraph(root: string): Map<string, string[]> {
  const files = listModules(root)
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const source = readFileSync(file, 'utf8')
    const targets: string[] = []
    for (const match of source.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
      const specifier = match[1] ?? match[2]!
      const resolved = path.normalize(path.join(path.dirname(file), specifier))
      // Sources import their siblings by the emitted name (`./x.js` for `x.ts`).
      const target = [resolved.replace(/\.js$/, '.ts'), resolved].find((candidate) => known.has(candidate))
      if (target) targets.push(target)
    }
    graph.set(file, targets)
  }
  return graph
}

/** The same graph between folders: an edge wherever a file imports a file of another folder. */
export function folderGraph(files: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>()
  for (const [file, targets] of files) {
    const from = path.dirname(file)
    if (!folders.has(from)) folders.set(from, new Set())
    for (const target of targets) if (path.dirname(target) !== from) folders.get(from)!.add(path.dirname(target))
  }
  return new Map([...folders].map(([folder, targets]) => [folder, [...targets]]))
}

/** Every cycle a depth-first walk meets, each written `a -> b -> a`. */
export function findCycles(graph: Map<string, string[]>): string[] {
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (node: string) => {
    state.set(node, 'open')
    stack.push(node)
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '))
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(node, 'done')
  }
  for (const node of graph.keys()) if (!state.has(node)) visit(node)
  return cycles
}

function listModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return listModules(full)
    return /\.(ts|mts|mjs)$/.test(entry.name) && !/\.d\.m?ts$/.test(entry.name) ? [full] : []
  })
}

// `npx tsx scripts/importCycles.ts [dir]`: prints the cycles, exits 1 if there are any.
if (import.meta.url === `file://${process.argv[1]}`) {
  const files = importGraph(process.argv[2] ?? 'src')
  const cycles = [...findCycles(files).map((c) => `file:   ${c}`), ...findCycles(folderGraph(files)).map((c) => `folder: ${c}`)]
  console.log(cycles.length === 0 ? `no import cycles among ${files.size} modules` : cycles.join('\n'))
  process.exitCode = cycles.length === 0 ? 0 : 1
}
