import { chromiumExecutable } from './browser.js'
import { ensureFreshBuild } from './freshBuild.js'

/**
 * Runs once before any test file: unpacks the npm-shipped Chromium (a few seconds the first
 * time, nothing after), so the browser tests in parallel workers only find it in place; and
 * builds dist/ if src/ changed since, so every spawned `bundlesim` runs the built CLI
 * (`BUNDLESIM_RUN_BUILD`, set in vitest.config.ts) and nothing rebuilds it while tests run.
 */
export default async function setup(): Promise<void> {
  ensureFreshBuild()
  await chromiumExecutable()
}
