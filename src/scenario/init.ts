import { access, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** The scenario `bundlesim init` writes: small, passing, and showing the main ideas. */
export const STARTER_SCENARIO = `# A starter scenario: a searcher's bundle lands in the next block.
# Run it with: npx bundlesim run scenarios/
# Format reference: bundlesim's docs/scenarios.md.
name: example — a bundle lands

accounts:                 # named accounts; keys are derived from the names
  searcher: 10 ether
  victim: 1 ether

txs:                      # tx templates, signed by the runner (nonces are automatic)
  pay:
    from: searcher
    to: victim
    value: 0.5 ether
  tip:
    from: searcher
    to: builder           # the builder's coinbase
    value: 0.01 ether

steps:
  - submit: { txs: [pay, tip], as: mine }    # eth_sendBundle for the next block
  - advance: 1                                # build and mine one slot
  - expect:
      bundles:
        mine: { status: landed, builderPayment: { min: 0.01 ether } }
      receipts: { pay: success, tip: success }
      balances:
        victim: 1.5 ether
`

/** The GitHub Actions workflow `bundlesim init` writes: the scenarios in `dir`, split over 4 jobs. */
export function starterWorkflow(dir = 'scenarios'): string {
  const junit = 'bundlesim-junit-${{ matrix.shard }}.xml'
  return `# Written by \`bundlesim init\`: runs the bundlesim scenarios in ${dir}/ on every push and pull
# request, split over 4 parallel jobs (each scenario runs in exactly one). A failing check is
# annotated on its line of the YAML file. Edit freely; see bundlesim's docs/ci.md,
# "In CI: shards and annotations".
name: bundlesim

on:
  push:
  pull_request:

jobs:
  scenarios:
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        shard: [1, 2, 3, 4]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - run: npx bundlesim run ${dir} --shard \${{ matrix.shard }}/4 --junit ${junit}
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: bundlesim-junit-\${{ matrix.shard }}
          path: ${junit}
          if-no-files-found: ignore
`
}

/** Whether `file` exists. */
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  )

/** Writes `text` to `file` (creating its folder) unless the file exists; returns whether it wrote. */
export async function writeNewFile(file: string, text: string): Promise<boolean> {
  if (await exists(file)) return false
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, text, { encoding: 'utf8', flag: 'wx' })
  return true
}

/** Writes `example.yaml` into `dir` (never over an existing file); returns its path. */
export async function writeStarterScenario(dir = 'scenarios'): Promise<string> {
  const file = path.join(dir, 'example.yaml')
  if (!(await writeNewFile(file, STARTER_SCENARIO))) throw new Error(`${file} already exists; not overwriting it`)
  return file
}
