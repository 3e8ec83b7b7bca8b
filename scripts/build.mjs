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
