import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { REPO_ROOT } from './cli.js'

/*
 * bundlesim as a user gets it: `npm pack` (which runs `prepare`, the build), then the
 * tarball installed into an empty project with no network (`npm install --offline`), every
 * package coming from the local npm cache this repository's own install filled.
 *
 * npm resolves a dependency *range* from registry metadata that its cache does not hold in
 * the form an offline install asks for, so the consumer gets a lock file, as any project
 * in CI has: bundlesim's own locked versions of its runtime dependencies (plus @types/node
 * and vitest, the consumer's devDependencies), with their integrity hashes. With a lock file npm fetches
 * only tarballs, by integrity, and those are in the cache.
 */

const run = promisify(execFile)

interface LockEntry {
  version?: string
  dev?: boolean
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  [key: string]: unknown
}

interface Lock {
  packages: Record<string, LockEntry>
}

/** Runs a command to completion; rejects with its output when it fails. */
export async function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 120_000) {
  try {
    return await run(command, args, { cwd, env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 })
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${e.message}\nstdout:\n${e.stdout}\nstderr:\n${e.stderr}`)
  }
}

/** Where node would find `name` from the package installed at `from` (a lock path). */
function resolveLockPath(packages: Lock['packages'], from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`
    if (packages[candidate]) return candidate
    if (!dir) return undefined
  }
}

/** The lock entries `roots` need, transitively (optional ones only where locked). */
function closure(packages: Lock['packages'], roots: string[]): Set<string> {
  const seen = new Set<string>()
  const visit = (lockPath: string) => {
    if (seen.has(lockPath)) return
    seen.add(lockPath)
    const entry = packages[lockPath]!
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
      const found = resolveLockPath(packages, lockPath, name)
      if (found) visit(found)
      else if (!(name in (entry.optionalDependencies ?? {})) && !(name in (entry.peerDependencies ?? {}))) throw new Error(`${lockPath} needs ${name}, which the lock file lacks`)
    }
  }
  roots.forEach(visit)
  return seen
}

export interface PackedPackage {
  /** The `npm pack` tarball. */
  tarball: string
  /** Paths inside the tarball (`package/` stripped). */
  files: string[]
}

/** `npm pack` of this repository into `dir` (runs `prepare`: the build). */
export async function packRepo(dir: string): Promise<PackedPackage> {
  // --ignore-scripts: dist/ is already built (the suite's global set-up); `prepare` would delete
  // and rebuild it while other test files run the CLI from it.
  const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], REPO_ROOT)
  // npm prints the lifecycle scripts' output first; the JSON report is the last thing.
  const report = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[') + 1)) as Array<{ filename: string; files: Array<{ path: string }> }>
  return { tarball: path.join(dir, report[0]!.filename), files: report[0]!.files.map((f) => f.path) }
}

/**
 * An empty project at `dir` with the tarball installed offline from the npm cache (and
 * @types/node and vitest as devDependencies), without the network.
 */
export async function installOffline(dir: string, tarball: string): Promise<void> {
  const own = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8'))
  const lock = JSON.parse(await readFile(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lock
  const spec = `file:${path.relative(dir, tarball).split(path.sep).join('/')}`
  const runtime = closure(lock.packages, Object.keys(own.dependencies).map((name) => `node_modules/${name}`))
  const devNames = ['@types/node', 'vitest']
  const dev = closure(lock.packages, devNames.map((name) => `node_modules/${name}`))
  const devDependencies = Object.fromEntries(devNames.map((name) => [name, own.devDependencies[name]]))
  const consumer = { name: 'bundlesim-consumer', private: true, type: 'module', dependencies: { bundlesim: spec }, devDependencies }
  const integrity = createHash('sha512').update(await readFile(tarball)).digest('base64')
  const packages: Lock['packages'] = {
    '': consumer,
    'node_modules/bundlesim': {
      version: own.version,
      resolved: spec,
      integrity: `sha512-${integrity}`,
      license: own.license,
      dependencies: own.dependencies,
      bin: own.bin,
      engines: own.engines,
    },
  }
  for (const lockPath of [...runtime, ...dev].sort()) {
    const { dev: _dev, ...entry } = lock.packages[lockPath]!
    packages[lockPath] = runtime.has(lockPath) ? entry : { ...entry, dev: true }
  }
  await mkdir(dir, { recursive: true })
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(consumer, null, 2))
  await writeFile(path.join(dir, 'package-lock.json'), JSON.stringify({ name: consumer.name, lockfileVersion: 3, requires: true, packages }, null, 2))
  // --offline: npm's cache mode `only-if-cached`, any request that would reach the network fails.
  // (`npm ci` would refuse: the lock holds only this platform's optional Anvil binary.)
  await sh('npm', ['install', '--offline', '--no-audit', '--no-fund'], dir)
}
