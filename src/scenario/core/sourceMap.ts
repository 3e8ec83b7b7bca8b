import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml'
import type { SourceLocation } from './errors.js'

export type Path = readonly PropertyKey[]

/** Where a path points in the file, and how much of it exists there. */
export interface Located extends SourceLocation {
  /** The path as written in the file: shorthand and implied segments dropped. */
  field: string
}

/** Renders a path the way users write it: `steps[2].submit.txs[0]`. */
export function formatPath(path: Path): string {
  let out = ''
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key)
  return out
}

/**
 * Maps paths in the parsed scenario back to line:column through the YAML nodes' ranges, so
 * every error names the place a user must edit.
 */
export class SourceMap {
  constructor(
    readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /**
   * The node at `path`, or the deepest one that exists. Where the schema expanded a
   * shorthand (`advance: 2` → `{ slots: 2 }`), the scalar stands for the missing part; a
   * missing key of a mapping keeps its name in `field`, since that is what must be added.
   */
  locate(path: Path): Located {
    let node: Node | null = this.doc.contents
    const written: PropertyKey[] = []
    for (let i = 0; i < path.length; i++) {
      const segment = path[i]!
      if (isMap(node)) {
        if (typeof segment === 'number') continue // a single item the schema wrapped into a list
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment))
        if (!pair) {
          written.push(...path.slice(i))
          break
        }
        node = (pair.value as Node | null) ?? (pair.key as Node)
      } else if (isSeq(node) && typeof segment === 'number' && node.items[segment]) {
        node = node.items[segment] as Node
      } else {
        break
      }
      written.push(segment)
    }
    return { ...this.position(node), field: formatPath(written) }
  }

  /** The key itself of `path`'s last segment (for an unknown field). */
  locateKey(path: Path, key: string): Located {
    const parent = this.doc.getIn(path, true)
    const pair = isMap(parent) ? parent.items.find((item) => isScalar(item.key) && String(item.key.value) === key) : undefined
    const node = (pair?.key as Node | undefined) ?? (parent as Node | undefined) ?? null
    return { ...this.position(node), field: formatPath([...path, key]) }
  }

  /** Line of a node's start (1-based); the document's start when there is none. */
  position(node: Node | null | undefined): SourceLocation {
    const offset = node?.range?.[0] ?? 0
    const { line, col } = this.lines.linePos(offset)
    return { file: this.file, line, column: col }
  }
}
