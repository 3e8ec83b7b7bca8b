import { fileURLToPath } from 'node:url'
import { mergeConfig } from 'vitest/config'
import example from '../../examples/vitest-suite/vitest.config.ts'

/*
 * examples/vitest-suite as the repository's own suite runs it (test/exampleVitestSuite.test.ts):
 * the example's config unchanged, but `bundlesim/vitest` taken from src/ instead of the package
 * build in dist/. Run by hand (`npx vitest run --root examples/vitest-suite`) the example resolves
 * it as a user's repository does, through package.json's exports, to dist/ (built by `npm
 * install`). The suite does not: dist/ is whatever the last build left — stale after an edit of
 * src/ — and a build may replace it while the suite runs.
 */
export default mergeConfig(example, {
  resolve: { alias: { 'bundlesim/vitest': fileURLToPath(new URL('../../src/vitest/index.ts', import.meta.url)) } },
})
