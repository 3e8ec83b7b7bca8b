import { defineConfig } from 'vitest/config'

// Every integration file starts its own Anvil and HTTP servers on free loopback ports, so
// files run in parallel like an Anvil pool. Much of a file's time is spent waiting on Anvil
// (another process) and on the CLI processes it spawns: three workers on 2 cores measured
// 300 s for the suite against 380 s with two.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every `bundlesim` the tests spawn runs dist/bin/ (built by the global set-up when src/
    // changed), as an installed package does: ~0.5 s a process, where compiling the source
    // tree through tsx took ~2.5 s of CPU each time (bin/bundlesim.js).
    env: { BUNDLESIM_RUN_BUILD: '1' },
  },
})
