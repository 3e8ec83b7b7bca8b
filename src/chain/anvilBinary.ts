import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import path from 'node:path'

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
}

/**
 * Path of the native Anvil binary shipped by `@foundry-rs/anvil` for this platform.
 * Not `node_modules/.bin/anvil`: that is a Node wrapper, and killing it orphans Anvil.
 *
 * @example resolveAnvilBinary() // '/repo/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil'
 */
export function resolveAnvilBinary(): string {
  const key = `${process.platform}-${process.arch}`
  const pkg = PLATFORM_PACKAGES[key]
  if (!pkg) throw new Error(`no Anvil binary is published for platform ${key}`)
  const require = createRequire(import.meta.url)
  let pkgJson: string
  try {
    pkgJson = require.resolve(`${pkg}/package.json`)
  } catch {
    throw new Error(`${pkg} is not installed: run npm install (it is an optional dependency of @foundry-rs/anvil)`)
  }
  const binary = path.join(path.dirname(pkgJson), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
  if (!existsSync(binary)) throw new Error(`Anvil binary missing at ${binary}`)
  return binary
}
