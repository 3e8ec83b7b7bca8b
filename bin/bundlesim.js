#!/usr/bin/env node
// The `bundlesim` command. An installed package runs its bundled JavaScript (dist/bin/, built
// by `npm run build`: it starts in a fraction of the time the module tree takes). In a checkout
// of the repository (src/ beside bin/) it runs that same build when it is newer than every
// source file (`npm install` builds it: `npx bundlesim --help` answers in well under a second),
// and the TypeScript source through tsx (a devDependency) when src/ changed since — so a checkout
// never runs a stale build. BUNDLESIM_RUN_BUILD=1 insists on the build (the test suite builds it
// once in its global set-up); BUNDLESIM_RUN_SOURCE=1 insists on the source.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isBuildFresh } from './buildFreshness.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const source = new URL('../src/cli.ts', import.meta.url)
const fromSource =
  process.env.BUNDLESIM_RUN_BUILD !== '1' && existsSync(source) && (process.env.BUNDLESIM_RUN_SOURCE === '1' || !isBuildFresh(root))
if (fromSource && (await import('tsx/esm/api').then((tsx) => (tsx.register(), true), () => false))) {
  await import(source.href)
} else {
  const bundled = new URL('../dist/bin/cli.js', import.meta.url)
  if (!existsSync(bundled)) {
    process.stderr.write('bundlesim: dist/ is missing; run `npm run build` in the bundlesim checkout\n')
    process.exit(1)
  }
  await import(bundled.href)
}
