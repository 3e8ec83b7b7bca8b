import chromiumBuild from '@sparticuz/chromium'
import { chromium, type Browser } from 'playwright-core'

/** Headless, offline-minded: no background traffic of its own. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/**
 * The Chromium the browser tests and the dashboard bench drive: `CHROMIUM_PATH` when set,
 * else the build shipped inside the npm package `@sparticuz/chromium` (a devDependency),
 * unpacked into the temp dir on first use. So `npm install && npm test` brings its browser on
 * a fresh machine, and every machine runs the same one. `test/support/globalSetup.ts` unpacks
 * it once before the test workers start, so no two workers write it at once.
 */
export async function chromiumExecutable(): Promise<string> {
  return process.env.CHROMIUM_PATH ?? (await chromiumBuild.executablePath())
}

export async function launchChromium(): Promise<Browser> {
  // The page formats with the browser's locale: a POSIX one (`C.UTF-8` → `en-US@posix`) is no tag Intl takes.
  return chromium.launch({ executablePath: await chromiumExecutable(), headless: true, args: CHROMIUM_ARGS, env: { ...process.env, LANG: 'en_US.UTF-8' } })
}
