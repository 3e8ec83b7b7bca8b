import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import GithubSlugger from 'github-slugger'
import type { Root, RootContent } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { toString } from 'mdast-util-to-string'
import { gfm } from 'micromark-extension-gfm'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../src/config/config.js'
import { REPO_ROOT, runCli } from './support/cli.js'
import { startTestHarness } from './support/harness.js'

// The documentation as a user meets it (docs/development.md, "The documentation is tested"):
// links and anchors resolve, every CLI flag is in the flags reference, blocks marked runnable
// run against a real harness, and the front page stays a front page.

const RUNNABLE_MARKER = '<!-- runnable -->'
const FLAGS_REFERENCE = 'docs/reference/flags.md'

/** README.md, docs/**\/*.md and examples/**\/README.md, as paths relative to the repository. */
function documentationFiles(): string[] {
  const below = (dir: string, keep: (file: string) => boolean) =>
    existsSync(path.join(REPO_ROOT, dir))
      ? (readdirSync(path.join(REPO_ROOT, dir), { recursive: true }) as string[])
          .map((file) => path.join(dir, file))
          .filter((file) => !file.split(path.sep).includes('node_modules') && keep(file))
          .sort()
      : []
  const topLevel = readdirSync(REPO_ROOT).filter((file) => file.endsWith('.md')).sort()
  return [...topLevel, ...below('docs', (file) => file.endsWith('.md')), ...below('examples', (file) => path.basename(file) === 'README.md')]
}

const parsed = new Map<string, Root>()
function markdownOf(file: string): Root {
  let tree = parsed.get(file)
  if (!tree) {
    tree = fromMarkdown(readFileSync(path.join(REPO_ROOT, file), 'utf8'), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
    parsed.set(file, tree)
  }
  return tree
}

function* nodesOf(node: Root | RootContent): Generator<Root | RootContent> {
  yield node
  if ('children' in node) for (const child of node.children) yield* nodesOf(child)
}

/** The anchors GitHub gives a page's headings: github-slugger over each heading's text, duplicates numbered in order. */
function anchorsOf(file: string): Set<string> {
  const slugger = new GithubSlugger()
  const anchors = new Set<string>()
  for (const node of nodesOf(markdownOf(file))) if (node.type === 'heading') anchors.add(slugger.slug(toString(node)))
  return anchors
}

/** Every link and image target of a page outside code (code blocks and spans are not parsed as links), with its line. */
function linksOf(file: string): { url: string; line: number }[] {
  const links: { url: string; line: number }[] = []
  for (const node of nodesOf(markdownOf(file))) {
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') links.push({ url: node.url, line: node.position?.start.line ?? 0 })
  }
  return links
}

/** What is wrong with one link of `file`, or null. Web links are not followed (the tests run offline). */
function brokenLink(file: string, url: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return null
  const hashAt = url.indexOf('#')
  const target = decodeURIComponent(hashAt === -1 ? url : url.slice(0, hashAt))
  const anchor = hashAt === -1 ? null : decodeURIComponent(url.slice(hashAt + 1))
  const targetFile = target === '' ? file : path.normalize(path.join(path.dirname(file), target))
  // A clone has only the repository: a link out of it (../shared/…) works on one machine and nowhere else.
  if (targetFile.startsWith('..')) return `${targetFile} is outside the repository (a clone does not have it)`
  if (!existsSync(path.join(REPO_ROOT, targetFile))) return `${targetFile} does not exist`
  if (anchor === null) return null
  if (!targetFile.endsWith('.md') || !statSync(path.join(REPO_ROOT, targetFile)).isFile()) return `#${anchor}: ${targetFile} is not a Markdown file with headings`
  return anchorsOf(targetFile).has(anchor) ? null : `#${anchor} is not a heading of ${targetFile} (its anchors: ${[...anchorsOf(targetFile)].join(', ')})`
}

describe('links', () => {
  it('every relative link of the top-level pages (README.md, ARCHITECTURE.md), docs/ and the examples names a file inside the repository that exists, and every #anchor a heading of it', () => {
    const files = documentationFiles()
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', FLAGS_REFERENCE]))
    const broken = files.flatMap((file) =>
      linksOf(file).flatMap(({ url, line }) => {
        const problem = brokenLink(file, url)
        return problem ? [`${file}:${line}: (${url}) ${problem}`] : []
      }),
    )
    expect(broken).toEqual([])
  })

  it('anchors are slugged as GitHub does, repeated headings numbered (the rules the link check relies on)', () => {
    const slugger = new GithubSlugger()
    const heading = (markdown: string) => slugger.slug(toString(fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })))
    expect(heading('## `errorKind`: why, as data')).toBe('errorkind-why-as-data')
    expect(heading('## Try it: submit → advance a slot → trace')).toBe('try-it-submit--advance-a-slot--trace')
    expect(heading('## Scaling: 100 → 10,000 bundles a slot')).toBe('scaling-100--10000-bundles-a-slot')
    expect(heading('## Decisions')).toBe('decisions')
    expect(heading('## Decisions')).toBe('decisions-1')
    // A link to a heading that is not there is reported, with the page's anchors.
    expect(brokenLink('README.md', 'docs/reference/errors.md#no-such-heading')).toMatch(/^#no-such-heading is not a heading of docs\/reference\/errors\.md/)
    expect(brokenLink('docs/README.md', 'missing.md')).toBe('docs/missing.md does not exist')
    expect(brokenLink('docs/README.md', '../README.md#try-it-submit--advance-a-slot--trace')).toBeNull()
  })
})

/** `--flag` names of the Options section of a commander help text (option lines only, not their descriptions). */
function optionsOfHelp(help: string): string[] {
  const section = help.split(/^Options:\n/m)[1]?.split(/^\S.*:\n/m)[0] ?? ''
  return section
    .split('\n')
    .map((line) => /^ {2}(?:-\w, )?(--[a-z][\w-]*)/.exec(line)?.[1])
    .filter((flag): flag is string => flag !== undefined)
}

/** The commands of the root help (`help` aside: commander's own). */
function commandsOfHelp(help: string): string[] {
  const section = help.split(/^Commands:\n/m)[1] ?? ''
  return section
    .split('\n')
    .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help')
}

/** The `## ` sections of the flags reference, by heading text. */
function sectionsOfFlagsReference(): Map<string, string> {
  const text = readFileSync(path.join(REPO_ROOT, FLAGS_REFERENCE), 'utf8')
  return new Map(text.split(/^(?=## )/m).slice(1).map((section) => [section.slice(3, section.indexOf('\n')), section]))
}

const documents = (section: string, flag: string) => new RegExp('`' + flag.replace(/[-]/g, '\\-') + '(?![\\w-])').test(section)

describe('CLI flags', () => {
  it('every flag --help prints, of every command, is in that command’s section of the flags reference', async () => {
    const root = await runCli(['--help'])
    expect(root.code).toBe(0)
    const commands = commandsOfHelp(root.stdout)
    expect(commands).toEqual(expect.arrayContaining(['serve', 'run', 'init', 'snapshot', 'replay']))
    const globalFlags = optionsOfHelp(root.stdout)
    expect(globalFlags).toContain('--help')

    const sections = sectionsOfFlagsReference()
    const everyCommand = sections.get('Every command')
    expect(everyCommand, `${FLAGS_REFERENCE} has no "## Every command" section`).toBeDefined()
    const missing = globalFlags.filter((flag) => !documents(everyCommand!, flag)).map((flag) => `bundlesim ${flag}: not in "## Every command"`)

    const helps = await Promise.all(commands.map((command) => runCli([command, '--help'])))
    commands.forEach((command, i) => {
      const help = helps[i]!
      expect(help.code, `bundlesim ${command} --help: ${help.stderr}`).toBe(0)
      const flags = optionsOfHelp(help.stdout)
      expect(flags.length, `no options parsed from bundlesim ${command} --help`).toBeGreaterThan(0)
      const heading = [...sections.keys()].find((title) => title.startsWith(`\`bundlesim ${command}\``) || title.startsWith(`\`bundlesim ${command} `))
      if (!heading) {
        missing.push(`bundlesim ${command}: ${FLAGS_REFERENCE} has no "## \`bundlesim ${command} …\`" section`)
        return
      }
      for (const flag of flags) {
        if (!globalFlags.includes(flag) && !documents(sections.get(heading)!, flag)) missing.push(`bundlesim ${command} ${flag}: not in "## ${heading}"`)
      }
    })
    expect(missing).toEqual([])
  })

  it('reads flags from help text as commander prints it, and a flag absent from a section counts as missing', () => {
    const help = 'Usage: x [options]\n\nOptions:\n  --host <address>   bind address (default:\n                     "127.0.0.1"; see --port)\n  -h, --help         display help\n\nCommands:\n  serve [options]    start\n  help [command]     help\n'
    expect(optionsOfHelp(help)).toEqual(['--host', '--help'])
    expect(commandsOfHelp(help)).toEqual(['serve'])
    expect(documents('| `--port` / `--stats-port` | 8645 |', '--port')).toBe(true)
    expect(documents('| `--port` / `--stats-port` | 8645 |', '--stats')).toBe(false)
    expect(documents('listen with --port', '--port')).toBe(false)
  })
})

describe('README.md', () => {
  it('is a front door: at most 300 lines, the two commands first', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
    const firstCode = markdownOf('README.md').children.find((node) => node.type === 'code')
    expect(firstCode?.type === 'code' && firstCode.value.split('\n').map((line) => line.replace(/#.*/, '').trim())).toEqual(['npm install && npm start', 'npm install && npm test'])
  })
})

// ---- runnable blocks ----

interface Step {
  command: string
  expected: string | null
  line: number
}

/** The blocks of a page marked runnable, as steps: commands, each with the `# {…}` answer shown after it, if any. */
function runnableSteps(file: string): Step[] {
  const steps: Step[] = []
  for (const node of nodesOf(markdownOf(file))) {
    if (!('children' in node)) continue
    node.children.forEach((child, i) => {
      if (child.type !== 'html' || child.value.trim() !== RUNNABLE_MARKER) return
      const block = node.children[i + 1]
      if (block?.type !== 'code') throw new Error(`${file}:${child.position?.start.line}: ${RUNNABLE_MARKER} is not followed by a fenced code block`)
      const firstLine = (block.position?.start.line ?? 0) + 1
      let command: string[] = []
      let start = firstLine
      const lines = block.value.split('\n')
      for (let k = 0; k < lines.length; k++) {
        const line = lines[k]!
        if (!/^# [[{]/.test(line)) {
          if (command.length === 0) start = firstLine + k
          command.push(line)
          continue
        }
        const expected = [line.slice(2)]
        while (k + 1 < lines.length && /^#\s{2,}/.test(lines[k + 1]!)) expected.push(lines[++k]!.slice(1).trim())
        steps.push({ command: command.join('\n'), expected: expected.join(''), line: start })
        command = []
      }
      if (command.some((line) => line.trim() !== '')) steps.push({ command: command.join('\n'), expected: null, line: start })
    })
  }
  return steps
}

const ANY = Symbol('any value')

/** The JSON a `# {…}` comment shows, `…` (outside strings) standing for any value. */
function parseShown(text: string): unknown {
  let json = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (inString && char === '\\') {
      json += char + text[++i]
      continue
    }
    if (char === '"') inString = !inString
    json += !inString && char === '…' ? '{"$any":true}' : char
  }
  return JSON.parse(json, (_key, value) => (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && value.$any === true ? ANY : value))
}

/** Where `actual` differs from what a comment shows: the same keys at every level, every value shown equal. */
function differences(shown: unknown, actual: unknown, at = '$'): string[] {
  if (shown === ANY) return []
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual) || actual.length !== shown.length) return [`${at}: expected an array of ${shown.length}, got ${JSON.stringify(actual)}`]
    return shown.flatMap((item, i) => differences(item, actual[i], `${at}[${i}]`))
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: expected an object, got ${JSON.stringify(actual)}`]
    const keys = Object.keys(shown)
    const actualKeys = Object.keys(actual)
    const extra = actualKeys.filter((key) => !keys.includes(key))
    const absent = keys.filter((key) => !actualKeys.includes(key))
    if (extra.length || absent.length) return [`${at}: keys differ (not shown: ${extra.join(', ') || '-'}; shown but absent: ${absent.join(', ') || '-'})`]
    return keys.flatMap((key) => differences((shown as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${at}.${key}`))
  }
  return Object.is(shown, actual) ? [] : [`${at}: expected ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`]
}

function runBash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: REPO_ROOT, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
    })
  })
}

const portOf = (url: string) => new URL(url).port

describe('runnable blocks', () => {
  it('reads steps and answers from a block (the rules the pages rely on)', () => {
    expect(parseShown('{"a":1,"b":…,"c":"x…y"}')).toEqual({ a: 1, b: ANY, c: 'x…y' })
    expect(differences(parseShown('{"status":"landed","at":…}'), { status: 'landed', at: 5 })).toEqual([])
    expect(differences(parseShown('{"status":"landed","at":…}'), { status: 'failed', at: 5 })).toEqual(['$.status: expected "landed", got "failed"'])
    expect(differences(parseShown('{"status":"landed"}'), { status: 'landed', extra: 1 })).toEqual(['$: keys differ (not shown: extra; shown but absent: -)'])
  })

  const pages = documentationFiles()
    .map((file) => ({ file, steps: runnableSteps(file) }))
    .filter(({ steps }) => steps.length > 0)

  it('README.md and some guides have runnable blocks', () => {
    expect(pages.map(({ file }) => file)).toEqual(expect.arrayContaining(['README.md']))
  })

  for (const { file, steps } of pages) {
    it(`${file}: each runnable block exits 0 against a fresh harness and answers what it shows`, async () => {
      // As `npm start -- --clock manual` serves them (traces 2 slots after their block), on free ports.
      const harness = await startTestHarness({ statsDelaySlots: DEFAULT_CONFIG.statsDelaySlots })
      try {
        const ports: Record<string, string> = { 8645: portOf(harness.rpcUrl), 8646: portOf(harness.statsUrl), 8647: portOf(harness.mevShareUrl) }
        for (const step of steps) {
          const command = step.command.replace(/\b(?:localhost|127\.0\.0\.1):(8645|8646|8647)\b/g, (_all, port: string) => `127.0.0.1:${ports[port]}`)
          const where = `${file}:${step.line}: ${command}`
          const run = await runBash(command)
          expect(run.code, `${where}\nexit ${run.code}\n${run.stderr}${run.stdout}`).toBe(0)
          if (step.expected === null) continue
          let answer: unknown
          expect(() => (answer = JSON.parse(run.stdout)), `${where}\nprinted no JSON: ${run.stdout}`).not.toThrow()
          expect(differences(parseShown(step.expected), answer), `${where}\nprinted ${run.stdout}`).toEqual([])
        }
      } finally {
        await harness.stop()
      }
    }, 180_000)
  }
})
