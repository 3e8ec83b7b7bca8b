import { defineConfig } from 'vitest/config'
import { RELEASE_TESTS, suite } from './vitest.config.js'

/** `npm run test:release`: the release's checks (vitest.config.ts says which), with the suite's settings. */
export default defineConfig(suite([RELEASE_TESTS], []))
