import { describe, expect, it } from 'vitest'
import { findCycles, folderGraph, importGraph } from '../scripts/importCycles.js'

describe('architecture', () => {
  const files = importGraph('src')

  it('no import cycles between files of src/', () => {
    expect(files.size).toBeGreaterThan(50)
    expect(findCycles(files)).toEqual([])
  })

  it('no import cycles between folders of src/ (each folder depends only on layers below it)', () => {
    expect(findCycles(folderGraph(files))).toEqual([])
  })

  it('the checker finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ])
    expect(findCycles(graph)).toEqual(['a -> b -> c -> a'])
  })
})
