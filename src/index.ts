/**
 * bundlesim's programmatic API: start a harness inside your own test suite.
 *
 * @example
 * import { startHarness } from 'bundlesim'
 * const harness = await startHarness({ clock: 'manual', port: 0, statsPort: 0, anvilPort: 0 })
 */
export { startHarness, type Harness } from './service.js'
export { DEFAULT_CONFIG, type BundlesimConfig } from './config.js'
export { bundleHash, txHash } from './bundle/hash.js'
export { BUNDLE_STATES, type BundleState } from './bundle/types.js'
export type { BundleStats } from './bundle/stats.js'
export type { SlotReport } from './builder/slotReport.js'
export type { HarnessStatus } from './rpc/harnessMethods.js'
export { RpcErrorCode } from './rpc/errors.js'
