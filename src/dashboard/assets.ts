import { createRequire } from 'node:module'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { codeFile } from '../config/codeFiles.js'

const require = createRequire(import.meta.url)
const packageDir = (name: string) => dirname(require.resolve(name))
const clientDir = codeFile('dashboard/client')

/** The page's own ES modules (client/*.js), imported as `dashboard/<name>`. */
export function clientModules(): string[] {
  return Object.keys(assets()).filter((name) => name.endsWith('.js') && assets()[name]!.file.startsWith(clientDir))
}

/** A file the page loads: its type and where it is on disk. */
interface Asset {
  type: string
  file: string
}

const JS = 'text/javascript; charset=utf-8'
const CSS = 'text/css; charset=utf-8'

/**
 * Every file the page loads, under `/assets/`: the libraries straight from the package's
 * node_modules (ES modules, no bundling) and the page's own modules. Nothing else on disk is
 * served. Listed on the first request, not at start: a harness whose dashboard nobody opens
 * never reads the folder.
 */
let listed: Record<string, Asset> | undefined
function assets(): Record<string, Asset> {
  listed ??= {
    'preact.mjs': { type: JS, file: join(packageDir('preact'), 'preact.mjs') },
    'hooks.mjs': { type: JS, file: join(packageDir('preact/hooks'), 'hooks.mjs') },
    'htm.mjs': { type: JS, file: join(packageDir('htm'), 'htm.mjs') },
    'uPlot.esm.js': { type: JS, file: join(packageDir('uplot'), 'uPlot.esm.js') },
    'uPlot.min.css': { type: CSS, file: join(packageDir('uplot'), 'uPlot.min.css') },
    // The page's own modules and styles: every file of client/.
    ...Object.fromEntries(readdirSync(clientDir).map((name) => [name, { type: name.endsWith('.css') ? CSS : JS, file: join(clientDir, name) }])),
  }
  return listed
}

/** The import map that lets the page's modules import the libraries by their package names. */
export const IMPORT_MAP = {
  imports: {
    preact: '/assets/preact.mjs',
    'preact/hooks': '/assets/hooks.mjs',
    htm: '/assets/htm.mjs',
    uplot: '/assets/uPlot.esm.js',
    'dashboard/': '/assets/',
  },
}

/** The asset's bytes (read once, kept). */
const cache = new Map<string, Buffer>()
export function assetBody(name: string): { type: string; body: Buffer } | undefined {
  const asset = Object.hasOwn(assets(), name) ? assets()[name] : undefined
  if (!asset) return undefined
  let body = cache.get(name)
  if (!body) cache.set(name, (body = readFileSync(asset.file)))
  return { type: asset.type, body }
}
