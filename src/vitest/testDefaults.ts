import type { BundlesimConfig } from '../config/config.js'

/** A harness as tests want it: manual clock, free ports, traces served at once, quiet logs. */
export const TEST_HARNESS_DEFAULTS: Partial<BundlesimConfig> = {
  clock: 'manual',
  port: 0,
  statsPort: 0,
  mevSharePort: 0,
  exchangePort: 0,
  anvilPort: 0,
  statsDelaySlots: 0,
  logLevel: 'silent',
}
