import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findCycles, folderGraph, importGraph } from '../scripts/importCycles.js'
import { checkLayers, layerTable } from '../scripts/layers.js'

describe('architecture', () => {
  const files = importGraph('src')
  const rows = layerTable(readFileSync('ARCHITECTURE.md', 'utf8'))

  it('no import cycles between files of src/', () => {
    expect(files.size).toBeGreaterThan(50)
    expect(findCycles(files)).toEqual([])
  })

  it('no import cycles between folders of src/', () => {
    expect(findCycles(folderGraph(files))).toEqual([])
  })

  it("every folder of src/ is in ARCHITECTURE.md's layer table, once", () => {
    expect(rows.length).toBeGreaterThan(10)
    const { unlisted, duplicated } = checkLayers(files, rows)
    expect([...unlisted, ...duplicated]).toEqual([])
  })

  it("each folder imports only from its own row or rows above it in ARCHITECTURE.md's table (lower layers)", () => {
    expect(checkLayers(files, rows).violations).toEqual([])
  })

  it('in builder/, only execution/ talks to Anvil to build: simulation, assembly and the slot go through the BlockExecutor', () => {
    const talksToAnvil = readdirSync('src/builder', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.startsWith('execution'))
      .filter((file) => /\bChainClient\b/.test(readFileSync(join('src/builder', file), 'utf8')))
      .sort()
    // The slot runner reads the head, clears the pool between slots and sets the coinbase;
    // asCallsAt and withLogs run calls on a held past state (eth_callBundle, mev_simBundle,
    // the hints), never the block being built.
    expect(talksToAnvil).toEqual(['simulation/asCallsAt.ts', 'simulation/withLogs.ts', 'slot/slotBuilder.ts'])
  })

  it('the layer check finds an import from a lower row, and a folder the table does not list', () => {
    const table = layerTable('## Folders, bottom layer first\n\n| folder | owns |\n|---|---|\n| `protocol/` | wire |\n| `bundle/`, `mempool/` | bundles |\n| `rpc/` | methods |\n\n## Next\n| `ignored/` | x |\n')
    expect(table).toEqual([['protocol'], ['bundle', 'mempool'], ['rpc']])
    const graph = new Map([
      ['src/rpc/a.ts', ['src/bundle/b.ts', 'src/protocol/p.ts']],
      ['src/bundle/b.ts', ['src/mempool/m.ts', 'src/rpc/a.ts']],
      ['src/mempool/m.ts', ['src/flow/f.ts']],
      ['src/protocol/p.ts', []],
    ])
    const report = checkLayers(graph, table)
    expect(report.violations).toEqual(["src/bundle/b.ts -> src/rpc/a.ts: bundle/ (row 2) imports rpc/ (row 3), a row below it in ARCHITECTURE.md's table"])
    expect(report.unlisted).toEqual([expect.stringContaining("src/flow/ is not in ARCHITECTURE.md's layer table: add it to ARCHITECTURE.md's table")])
  })

  it('the cycle checker finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ])
    expect(findCycles(graph)).toEqual(['a -> b -> c -> a'])
  })
})
