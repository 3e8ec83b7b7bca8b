import { chromiumExecutable } from './browser.js'

/**
 * Runs once before any test file: unpacks the npm-shipped Chromium (a few seconds the first
 * time, nothing after), so the browser tests in parallel workers only find it in place.
 */
export default async function setup(): Promise<void> {
  await chromiumExecutable()
}
