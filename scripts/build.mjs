// `npm run build` (run by `prepare` on `npm install` in a checkout, and before `npm pack`):
// src/ → dist/, what the published package runs. A fresh dist/ each time, so a deleted
// source file leaves no stale module behind; tsc compiles the TypeScript (ESM + .d.ts), and
// every other file under src/ — the plain-JavaScript modules (the sender-recovery worker
// and what it imports, with their hand-written .d.mts types) and the dashboard's page
// (client/*.js, style.css), loaded as they are — is copied beside the compiled code.
import { spawnSync } from 'node:child_process'
import { cpSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const src = path.join(root, 'src')
const dist = path.join(root, 'dist')

rmSync(dist, { recursive: true, force: true })
const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc')
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
if (compiled.status !== 0) process.exit(compiled.status ?? 1)

const COMPILED = /(?<!\.d)\.ts$/
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || COMPILED.test(entry.name)) continue
  const from = path.join(entry.parentPath, entry.name)
  cpSync(from, path.join(dist, path.relative(src, from)))
}

// The CLI as the installed package runs it: dist/cli.js and everything it imports bundled by
// esbuild into dist/bin/ (a chunk per command, loaded when the command runs). Node loads a
// few large files far faster than the ~1,500 small ES modules of viem and dist/: `bundlesim
// serve` is ready in ~0.7 s instead of ~1.2 s (`npm run bench`: "bundlesim serve → ready").
// Packages with native code, a binary or a compiler stay outside, loaded from node_modules,
// and so do pino, express and ws (CommonJS that resolves files at run time).
const { build } = await import('esbuild')
await build({
  entryPoints: [path.join(dist, 'cli.js')],
  outdir: path.join(dist, 'bin'),
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
