import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// The suite of this folder: every *.test.ts here. Each test starts its own harness (a fresh
// Anvil and builder on free loopback ports), so files may run in parallel.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.test.ts'],
    testTimeout: 30_000,
  },
})
