import { access, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** The scenario `bundlesim init` writes: small, passing, and showing the main ideas. */
export const STARTER_SCENARIO = `# A starter scenario: a searcher's bundle lands in the next block.
# Run it with: npx bundlesim run scenarios/
# Format reference: README.md, "Scenarios".
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

/** Writes `example.yaml` into `dir` (never over an existing file); returns its path. */
export async function writeStarterScenario(dir = 'scenarios'): Promise<string> {
  const file = path.join(dir, 'example.yaml')
  const exists = await access(file).then(
    () => true,
    () => false,
  )
  if (exists) throw new Error(`${file} already exists; not overwriting it`)
  await mkdir(dir, { recursive: true })
  await writeFile(file, STARTER_SCENARIO, 'utf8')
  return file
}
