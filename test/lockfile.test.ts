import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from './support/cli.js'

/*
 * The lock is the truth: `npm ci` (what users' CI runs) installs exactly it, and refuses it when
 * a package it locks names an optional dependency the lock lacks ("Missing: … from lock file"):
 * a lock written on one platform can drop the others' prebuilt packages. `.ci/run` installs with
 * `npm ci`, so a drifted lock fails CI; these checks say which entry is missing, at once.
 */

interface LockEntry {
  version?: string
  optional?: boolean
  os?: string[]
  cpu?: string[]
  hasInstallScript?: boolean
  optionalDependencies?: Record<string, string>
}

const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> }
const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> }

/** Where node would find `name` from the package locked at `from`: its own node_modules, then each parent's. */
function resolveFrom(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`
    if (packages[candidate]) return candidate
    if (!dir) return undefined
  }
}

/** `name@version` for every optional dependency the lock names but does not hold. */
function missingOptionals(packages: Record<string, LockEntry>): string[] {
  return Object.entries(packages).flatMap(([at, entry]) =>
    Object.entries(entry.optionalDependencies ?? {})
      .filter(([name]) => resolveFrom(packages, at, name) === undefined)
      .map(([name, range]) => `${name}@${range} (wanted by ${at || 'the project'})`),
  )
}

describe('the lock file', () => {
  it('is npm 7+ (lockfileVersion 3), as npm ci on Node 20 writes and reads it', () => {
    expect(lock.lockfileVersion).toBe(3)
  })

  it('holds every platform package its packages name (npm ci refuses a lock that lacks one), each marked for its platform', () => {
    expect(missingOptionals(lock.packages)).toEqual([])
    // The native KZG library ships one package per platform: all six locked, so macOS, Windows and ARM runners install.
    const kzg = Object.keys(lock.packages).filter((at) => at.startsWith('node_modules/@crate-crypto/node-eth-kzg-'))
    expect(kzg).toHaveLength(6)
    for (const at of kzg) expect(lock.packages[at], at).toMatchObject({ optional: true, os: [expect.any(String)], cpu: [expect.any(String)] })
  })

  it('says what it does with every dependency install script (allowScripts), so a fresh npm ci asks the user nothing', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([at]) => at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length))
    expect(withScripts.length).toBeGreaterThan(0)
    expect(withScripts.filter((name) => !(name in (manifest.allowScripts ?? {})))).toEqual([])
  })

  it('the check names a missing platform package', () => {
    const packages = { 'node_modules/native': { version: '1.0.0', optionalDependencies: { 'native-linux': '1.0.0', 'native-darwin': '1.0.0' } }, 'node_modules/native-linux': { version: '1.0.0' } }
    expect(missingOptionals(packages)).toEqual(['native-darwin@1.0.0 (wanted by node_modules/native)'])
  })
})
