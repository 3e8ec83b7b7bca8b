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
  },
})
