import { defineConfig } from 'vitest/config'

// Every integration file starts its own Anvil and HTTP servers on free loopback ports, so
// files run in parallel (one worker per core) like an Anvil pool.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
