// `npm run build`: src/ → dist/, what the published package runs. tsc compiles the TypeScript
// (ESM + .d.ts), and every other file under src/ — the plain-JavaScript modules (the
// sender-recovery worker and what it imports, with their hand-written .d.mts types) and the
// dashboard's page (client/*.js, style.css), loaded as they are — is copied beside the compiled
// code; then the CLI is bundled into dist/bin/.
//
// The build is written to a new folder and put in dist/'s place only when it is whole, so a
// deleted source file leaves no stale module behind and nothing running `bundlesim` from the
// checkout meanwhile ever finds dist/ missing or half written. `npx bundlesim` in a checkout
// installs the checkout into npx's cache the first time on a machine, which runs `prepare`: a
// build in the middle of whatever else runs (the test suite's CLI processes failed on it with
// "dist/ is missing").
//
// `--if-stale` (what `prepare` runs, on `npm install`/`npm ci` in a checkout, `npm pack` and
// that npx install) builds only when dist/ is older than a source (bin/buildFreshness.js).
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { isBuildFresh } from '../bin/buildFreshness.js'

const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    'Usage: build [--if-stale]\n\nsrc/ → dist/: tsc (ESM + .d.ts), the plain-JavaScript modules and the dashboard page copied, the CLI bundled into dist/bin/; the whole build replaces dist/ at once.\n\nOptions:\n  --if-stale  build only when dist/ is older than a source (what `prepare` runs)\n  -h, --help  display this help\n',
  )
  process.exit(0)
}
const unknown = args.filter((arg) => arg !== '--if-stale')
if (unknown.length > 0) {
  process.stderr.write(`error: unknown option '${unknown[0]}' (build takes --if-stale; --help says what it does)\n`)
  process.exit(2)
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const src = path.join(root, 'src')
const dist = path.join(root, 'dist')
// Built here, then renamed to dist/ (one folder per build process: two builds never share one).
const next = path.join(root, `dist.next-${process.pid}`)

if (args.includes('--if-stale') && isBuildFresh(root)) process.exit(0)

rmSync(next, { recursive: true, force: true })
const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc')
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', next], { stdio: 'inherit' })
if (compiled.status !== 0) {
  rmSync(next, { recursive: true, force: true })
  process.exit(compiled.status ?? 1)
}

const COMPILED = /(?<!\.d)\.ts$/
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || COMPILED.test(entry.name)) continue
  const from = path.join(entry.parentPath, entry.name)
  cpSync(from, path.join(next, path.relative(src, from)))
}

// The CLI as the installed package runs it: dist/cli.js and everything it imports bundled by
// esbuild into dist/bin/ (a chunk per command, loaded when the command runs). Node loads a
// few large files far faster than the ~1,500 small ES modules of viem and dist/: `bundlesim
// serve` is ready in ~0.7 s instead of ~1.2 s (`npm run bench`: "bundlesim serve → ready").
// Packages with native code, a binary or a compiler stay outside, loaded from node_modules,
// and so do pino, express and ws (CommonJS that resolves files at run time).
const { build } = await import('esbuild')
await build({
  entryPoints: [path.join(next, 'cli.js')],
  outdir: path.join(next, 'bin'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['solc', '@crate-crypto/node-eth-kzg', '@foundry-rs/*', 'pino', 'express', 'ws'],
  // CommonJS code inside the bundle calls require(): give it one.
  banner: { js: "import { createRequire as __bundlesimRequire } from 'node:module'; const require = __bundlesimRequire(import.meta.url);" },
  logLevel: 'warning',
})

// The whole build takes dist/'s place: two renames, microseconds apart (a process reading dist/
// in between would be unlucky; one reading it during the build, which takes tens of seconds,
// sees the previous build whole). The same sources give the same chunk names, so a `bundlesim`
// started on the previous build still finds every chunk it loads later.
const previous = path.join(root, `dist.previous-${process.pid}`)
if (existsSync(dist)) renameSync(dist, previous)
renameSync(next, dist)
rmSync(previous, { recursive: true, force: true })
