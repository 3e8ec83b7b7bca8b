import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { isBuildFresh } from '../bin/buildFreshness.js'

/*
 * Which code `bundlesim` runs in a checkout (bin/bundlesim.js): the build when it is newer than
 * every source (so `npx bundlesim --help` after `npm install` answers at once), the source
 * through tsx when anything changed since (never a stale build).
 */
describe('the CLI in a checkout runs the build only when it is fresh', () => {
  const checkout = () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bundlesim-fresh-'))
    mkdirSync(path.join(root, 'src/deep/er'), { recursive: true })
    mkdirSync(path.join(root, 'dist/bin'), { recursive: true })
    writeFileSync(path.join(root, 'package.json'), '{}')
    writeFileSync(path.join(root, 'src/cli.ts'), '')
    writeFileSync(path.join(root, 'src/deep/er/module.ts'), '')
    const at = (file: string, seconds: number) => utimesSync(path.join(root, file), seconds, seconds)
    for (const file of ['package.json', 'src/cli.ts', 'src/deep/er/module.ts', 'src/deep/er', 'src/deep', 'src']) at(file, 1_000)
    return { root, at }
  }

  it('no build: the source', () => {
    expect(isBuildFresh(checkout().root)).toBe(false)
  })

  it('a build newer than every source: the build; a source file (however deep) or the package changed since: the source', () => {
    const { root, at } = checkout()
    writeFileSync(path.join(root, 'dist/bin/cli.js'), '')
    at('dist/bin/cli.js', 2_000)
    expect(isBuildFresh(root)).toBe(true)
    at('src/deep/er/module.ts', 3_000)
    expect(isBuildFresh(root)).toBe(false)
    at('src/deep/er/module.ts', 1_000)
    at('package.json', 3_000)
    expect(isBuildFresh(root)).toBe(false)
  })
})
