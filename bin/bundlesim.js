#!/usr/bin/env node
// The `bundlesim` command. An installed package runs its bundled JavaScript (dist/bin/, built
// by `npm run build`: it starts in a fraction of the time the module tree takes). In a
// checkout of the repository (src/ beside bin/, tsx installed as a devDependency) it runs the
// TypeScript source through tsx instead, so `npm start` and the tests never run a stale build.
import { existsSync } from 'node:fs'

const source = new URL('../src/cli.ts', import.meta.url)
if (existsSync(source) && (await import('tsx/esm/api').then((tsx) => (tsx.register(), true), () => false))) {
  await import(source.href)
} else {
  const bundled = new URL('../dist/bin/cli.js', import.meta.url)
  if (!existsSync(bundled)) {
    process.stderr.write('bundlesim: dist/ is missing; run `npm run build` in the bundlesim checkout\n')
    process.exit(1)
  }
  await import(bundled.href)
}
