#!/usr/bin/env node
// The `bundlesim` command. An installed package runs its bundled JavaScript (dist/bin/, built
// by `npm run build`: it starts in a fraction of the time the module tree takes). In a
// checkout of the repository (src/ beside bin/, tsx installed as a devDependency) it runs the
// TypeScript source through tsx instead, so `npm start` never runs a stale build — unless
// BUNDLESIM_RUN_BUILD=1: the test suite builds dist/ once when src/ changed
// (test/support/globalSetup.ts) and spawns the CLI as an installed package runs it, ~0.5 s a
// process instead of ~2.5 s of compiling the source tree each time.
import { existsSync } from 'node:fs'

const source = new URL('../src/cli.ts', import.meta.url)
const fromSource = process.env.BUNDLESIM_RUN_BUILD !== '1' && existsSync(source)
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
