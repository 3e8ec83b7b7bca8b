import { mkdtemp, mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { ScenarioSchemaError, findScenarioFiles, parseScenario, toJUnitXml, type ScenarioResult } from '../src/index.js'
import { accountKey, formatAmount, parseAmount } from '../src/scenario/index.js'
import { STEP_KINDS } from '../src/scenario/steps/definition.js'
import { globToRegExp } from '../src/scenario/discover.js'
import { ExpectationFailed } from '../src/scenario/core/errors.js'
import { toReplacementUuid } from '../src/scenario/steps/shared.js'
import { escapeXml } from '../src/scenario/junit.js'

/** Parses inline YAML as scenario `file`; returns the schema error it must throw. */
async function schemaError(yaml: string, env: Record<string, string> = {}): Promise<ScenarioSchemaError> {
  try {
    await parseScenario(yaml, 'bad.yaml', { env })
  } catch (error) {
    if (error instanceof ScenarioSchemaError) return error
    throw error
  }
  throw new Error('expected a ScenarioSchemaError')
}

const VALID_HEAD = `name: ok
accounts:
  alice: 1 ether
  bob: 0
txs:
  pay: { from: alice, to: bob, value: 1 wei }
`

describe('units', () => {
  it('reads ether, gwei, wei and plain integers as wei', () => {
    expect(parseAmount('0.1 ether')).toBe(10n ** 17n)
    expect(parseAmount('2 gwei')).toBe(2_000_000_000n)
    expect(parseAmount('100 wei')).toBe(100n)
    expect(parseAmount(42)).toBe(42n)
    expect(parseAmount('1_000 gwei')).toBe(10n ** 12n)
    expect(parseAmount('-1.5 ether')).toBe(-15n * 10n ** 17n)
    expect(parseAmount('3GWEI')).toBe(3_000_000_000n)
  })

  it('refuses fractions of a wei, unknown units, floats and unsafe integers, saying what it expects', () => {
    expect(() => parseAmount('0.5 wei')).toThrow(/fraction of a wei \(expected an amount like "0.1 ether"/)
    expect(() => parseAmount('1 eth')).toThrow(/unknown unit "eth"/)
    expect(() => parseAmount(0.1)).toThrow(/write it with a unit, e.g. "0.1 ether"/)
    expect(() => parseAmount(2 ** 60)).toThrow(/too large for a YAML number/)
    expect(() => parseAmount('lots')).toThrow(/"lots" is not an amount/)
  })

  it('formats amounts exactly and readably', () => {
    expect(formatAmount(15n * 10n ** 17n)).toBe('1500000000000000000 wei (1.5 ether)')
    expect(formatAmount(2_000_000_000n)).toBe('2000000000 wei (2 gwei)')
    expect(formatAmount(7n)).toBe('7 wei')
  })
})

describe('scenario schema errors: file:line:column: field: problem (expected …)', () => {
  it('a wrong type names the field, its place and what was expected', async () => {
    const error = await schemaError(`${VALID_HEAD}steps:\n  - advance: { slots: many }\n`)
    expect(error.issues).toHaveLength(1)
    expect(error.message).toBe('bad.yaml:8:23: steps[0].advance.slots: got the string "many" (expected a number of slots from 1 to 1000)')
    expect(error).toMatchObject({ file: 'bad.yaml', line: 8, column: 23, field: 'steps[0].advance.slots' })
  })

  it('an unknown field is an error at the key, listing the known fields', async () => {
    const error = await schemaError(`${VALID_HEAD}  tip: { from: alice, to: bob, gass: 5 }\nsteps:\n  - advance: 1\n`)
    expect(error.message).toMatch(/^bad\.yaml:7:32: txs\.tip\.gass: unknown field \(expected one of: from, to, value, call, data, gas, /)
  })

  it('a misspelt step kind is refused once, naming the kinds', async () => {
    const error = await schemaError(`${VALID_HEAD}steps:\n  - sumbit: { txs: [pay] }\n`)
    expect(error.issues).toHaveLength(1)
    expect(error.message).toMatch(/^bad\.yaml:8:5: steps\[0\]\.sumbit: unknown field \(expected one of: submit, boost, .*sendBlobs, .*callBundle, expect\)$/)
    expect(error.message).toContain(STEP_KINDS.join(', '))
  })

  it('two kinds in one step, or none, are refused', async () => {
    const error = await schemaError(`${VALID_HEAD}steps:\n  - { advance: 1, timeInSlot: 5 }\n`)
    expect(error.message).toContain('steps[0]: advance and timeInSlot in one step (expected exactly one of:')
  })

  it('a bad unit names the unit and the amount format', async () => {
    const error = await schemaError(`name: x\naccounts:\n  alice: { balance: 1 eth }\nsteps:\n  - advance: 1\n`)
    expect(error.message).toBe(
      'bad.yaml:3:21: accounts.alice.balance: unknown unit "eth" in "1 eth" (units: wei, gwei, ether) (expected an amount like "0.1 ether", "2 gwei", "100 wei" or an integer of wei)',
    )
  })

  it('a shorthand value is located at the scalar and named by the field as written', async () => {
    const error = await schemaError(`name: x\naccounts:\n  alice: 1 eth\nsteps:\n  - advance: 0\n`)
    expect(error.issues.map((i) => `${i.line}:${i.column} ${i.field}`)).toEqual(['3:10 accounts.alice', '5:14 steps[0].advance'])
  })

  it('unknown account, template, contract-or-address and bundle names are refused with what exists', async () => {
    const error = await schemaError(`name: x
accounts:
  alice: 1 ether
txs:
  pay: { from: alicia, to: bobb, value: 1 }
steps:
  - submit: { txs: [pay, payy], as: b1 }
  - expect:
      bundles: { b2: { status: landed } }
      receipts: { nope: success }
`)
    expect(error.issues.map((i) => `${i.line} ${i.field}: ${i.message}`)).toEqual([
      '5 txs.pay.from: unknown account "alicia" (expected one of: alice)',
      '5 txs.pay.to: unknown name "bobb" (expected an account (alice), a contract (none), builder, or a 0x address)',
      '7 steps[0].submit.txs[1]: unknown template "payy" (expected one of: pay)',
      '9 steps[1].expect.bundles.b2: unknown bundle "b2" (expected one named by an earlier step\'s "as": b1)',
      '10 steps[1].expect.receipts.nope: unknown template "nope" (expected one of: pay)',
    ])
  })

  it('a bundle id must be defined by an earlier step', async () => {
    const error = await schemaError(`${VALID_HEAD}steps:\n  - expect: { block: { bundles: [later] } }\n  - submit: { txs: [pay], as: later }\n`)
    expect(error.message).toContain('steps[0].expect.block.bundles[0]: unknown bundle "later"')
  })

  it('blob templates: a target and EIP-1559 fees; sendBlobs takes blob templates only, one id per tx', async () => {
    const error = await schemaError(`name: blobs
accounts:
  alice: 1 ether
txs:
  creates: { from: alice, blobs: 1 }
  legacy: { from: alice, to: alice, blobs: 1, gasPrice: 1 gwei }
  plain: { from: alice, to: alice, maxFeePerBlobGas: 1 gwei }
  ok: { from: alice, to: alice, blobs: 2 }
steps:
  - sendBlobs: { txs: [ok, plain], as: [one] }
  - sendBlobs: { txs: [ok], as: [two] }
`)
    expect(error.issues.map((i) => `${i.field}: ${i.message.split(' (expected')[0]}`)).toEqual([
      'txs.creates.blobs: a blob tx cannot create a contract',
      'txs.legacy.gasPrice: a blob tx has EIP-1559 fees',
      'txs.plain.maxFeePerBlobGas: only a blob tx has a blob fee',
      'steps[0].sendBlobs.as: 1 id(s) for 2 tx(s)',
    ])
    const references = await schemaError(`name: blobs
accounts:
  alice: 1 ether
txs:
  plain: { from: alice, to: alice }
  ok: { from: alice, to: alice, blobs: 2 }
steps:
  - sendBlobs: { txs: [ok, plain], as: [one, two] }
  - sendBlobs: { txs: [ok], as: [one] }
`)
    expect(references.issues.map((i) => `${i.field}: ${i.message.split(' (expected')[0]}`)).toEqual([
      'steps[0].sendBlobs.txs[1]: template "plain" is not a blob tx',
      'steps[1].sendBlobs.as[0]: bundle id "one" is already taken',
    ])
  })

  it('call arguments are checked against the signature: count, names, amounts', async () => {
    const error = await schemaError(`name: x
accounts: { alice: 1 ether }
txs:
  a: { from: alice, to: alice, call: { fn: "transfer(address,uint256)", args: [alice] } }
  b: { from: alice, to: alice, call: { fn: "transfer(address,uint256)", args: [carol, 1 eth] } }
  c: { from: alice, to: alice, call: { fn: "transfer(address", args: [] } }
steps:
  - advance: 1
`)
    expect(error.issues.map((i) => `${i.field}: ${i.message.split(' (expected')[0]}`)).toEqual([
      'txs.a.call.args: 1 argument(s)',
      'txs.c.call.fn: not a function signature',
    ])
    const second = await schemaError(`name: x
accounts: { alice: 1 ether }
txs:
  b: { from: alice, to: alice, call: { fn: "transfer(address,uint256)", args: [carol, 1 eth] } }
steps:
  - advance: 1
`)
    expect(second.issues.map((i) => i.field)).toEqual(['txs.b.call.args[0]'])
    expect(second.message).toContain('unknown name "carol"')
  })

  it('a nonce reference loop is refused', async () => {
    const error = await schemaError(`name: x
accounts: { alice: 1 ether }
txs:
  a: { from: alice, to: alice, nonce: b }
  b: { from: alice, to: alice, nonce: a }
steps:
  - advance: 1
`)
    expect(error.message).toContain('txs.a.nonce: nonce references loop back to "a"')
  })

  it('an unknown status, a bad regex and a bad event signature are refused before running', async () => {
    const error = await schemaError(`${VALID_HEAD}steps:
  - submit: { txs: [pay], as: b }
  - expect:
      bundles: { b: { status: landd, error: "/(/" } }
      events: { pay: { event: "Ping(uint256 n", args: { n: 1 } } }
`)
    expect(error.issues.map((i) => i.field)).toEqual(['steps[1].expect.bundles.b.status', 'steps[1].expect.bundles.b.error', 'steps[1].expect.events.pay.event'])
    expect(error.issues[0]!.message).toContain('unknown status (expected one of: received, invalid, simulationfail')
    expect(error.issues[1]!.message).toContain('bad regular expression')
  })

  it('an unknown errorKind is refused before running, listing the kinds', async () => {
    const error = await schemaError(`${VALID_HEAD}steps:
  - submit: { txs: [pay], as: b }
  - expect:
      bundles: { b: { errorKind: Reverted } }
`)
    expect(error.issues.map((i) => i.field)).toEqual(['steps[1].expect.bundles.b.errorKind'])
    expect(error.issues[0]!.message).toContain('expected an error kind (one of: BundleReverted, LackOfFundForGasLimit')
  })

  it('MEV-Share: an unknown hint, an unknown hint event field and an unknown template are refused before running', async () => {
    const error = await schemaError(`${VALID_HEAD}steps:
  - sendPrivateTx: { tx: pay, hints: [calldata, everything] }
  - expect:
      hintEvents:
        - { tx: pay, fields: [hash, txs.data] }
        - { tx: pya, fields: [hash] }
`)
    expect(error.issues.map((i) => `${i.field}: ${i.message.split(' (one of')[0]}`)).toEqual([
      'steps[0].sendPrivateTx.hints[1]: expected a MEV-Share hint',
      'steps[1].expect.hintEvents[0].fields[1]: expected a hint event field',
    ])
    const unknown = await schemaError(`${VALID_HEAD}steps:\n  - expect: { hintEvents: [{ tx: pya, fields: [hash] }] }\n`)
    expect(unknown.message).toContain('steps[0].expect.hintEvents[0].tx: unknown template "pya" (expected one of: pay)')
  })

  it('YAML syntax errors carry their place', async () => {
    const error = await schemaError('name: x\nsteps:\n  - advance: [1\n')
    expect(error.issues).toHaveLength(1)
    expect(error.line).toBeGreaterThanOrEqual(3)
    expect(error.message).toMatch(/^bad\.yaml:\d+:\d+: YAML: /)
  })

  it('contracts: exactly one code source, Solidity must compile, args must fit the constructor', async () => {
    const error = await schemaError(`name: x
accounts: { alice: 1 ether }
contracts:
  none: { from: alice }
  broken: { from: alice, source: "contract B { function f( }" }
  c: { from: alice, source: "contract C { constructor(uint256 x) {} }", args: [alice] }
steps:
  - advance: 1
`)
    expect(error.issues[0]).toMatchObject({ field: 'contracts.none', message: 'no code (expected exactly one of: source, sourceFile, artifact, bytecode)' })
    const compiled = await schemaError(`name: x
accounts: { alice: 1 ether }
contracts:
  broken: { from: alice, source: "contract B { function f( }" }
  c: { from: alice, source: "contract C { constructor(uint256 x) {} }", args: [alice] }
steps:
  - advance: 1
`)
    expect(compiled.issues.map((i) => i.field)).toEqual(['contracts.broken.source', 'contracts.c.args[0]'])
    expect(compiled.issues[0]!.message).toMatch(/^Solidity does not compile: .*ParserError/s)
    expect(compiled.issues[1]!.message).toContain('"alice" is not an amount')
  })
})

describe('scenario loading', () => {
  it('${ENV} interpolates values (typed when the whole plain value is one reference), with defaults', async () => {
    const loaded = await parseScenario(
      `name: fork \${NAME}\nchain:\n  fork:\n    url: "\${RPC_URL}"\n    blockNumber: \${BLOCK}\nbuilder:\n  slotTime: \${SLOT:-6}\nsteps:\n  - advance: 1\n`,
      'env.yaml',
      { env: { NAME: 'mainnet', RPC_URL: 'http://127.0.0.1:1/rpc', BLOCK: '19000000' } },
    )
    expect(loaded.name).toBe('fork mainnet')
    expect(loaded.scenario.chain?.fork).toEqual({ url: 'http://127.0.0.1:1/rpc', blockNumber: 19_000_000 })
    expect(loaded.scenario.builder.slotTime).toBe(6)
    const error = await schemaError('name: ${MISSING_NAME}\nsteps:\n  - advance: 1\n')
    expect(error.message).toBe('bad.yaml:1:7: environment variable MISSING_NAME is not set (expected it set, or ${MISSING_NAME:-default})')
    // An unset fork URL is no error: the scenario is skipped, saying why.
    const fork = await parseScenario('name: x\nchain:\n  fork:\n    url: ${MISSING_URL}\nsteps:\n  - advance: 1\n', 'fork.yaml', { env: {} })
    expect(fork.skipReason).toBe('environment variable MISSING_URL is not set (chain.fork.url needs it)')
    const empty = await parseScenario('name: x\nchain:\n  fork:\n    url: ${EMPTY_URL}\nsteps:\n  - advance: 1\n', 'fork.yaml', { env: { EMPTY_URL: '' } })
    expect(empty.skipReason).toBe('environment variable EMPTY_URL is empty (chain.fork.url needs it)')
  })

  it('unquoted 0x… stays text and +N stays relative; defaults apply (statsDelaySlots 0)', async () => {
    const loaded = await parseScenario(
      `${VALID_HEAD}steps:\n  - submit: { txs: [pay], blockNumber: +2, revertingTxHashes: [0x${'ab'.repeat(32)}] }\n`,
      'ok.yaml',
    )
    const [submit] = loaded.scenario.steps
    if (submit?.kind !== 'submit') throw new Error(`expected a submit step, got ${submit?.kind}`)
    expect(submit.value.blockNumber).toEqual({ relative: true, value: 2n })
    expect(submit.value.revertingTxHashes).toEqual([`0x${'ab'.repeat(32)}`])
    expect(loaded.scenario.builder.statsDelaySlots).toBe(0)
    expect(loaded.scenario.accounts.alice!.balance).toBe(10n ** 18n)
  })

  it('account keys derive from the name, or are given', async () => {
    const loaded = await parseScenario(`name: x\naccounts:\n  alice: 1\n  keyed: { key: "0x${'11'.repeat(32)}" }\nsteps:\n  - advance: 1\n`, 'k.yaml')
    expect(loaded.accounts.get('alice')!.key).toBe(accountKey('alice'))
    expect(accountKey('alice')).toBe('0x' + Buffer.from((await import('viem')).keccak256(new TextEncoder().encode('bundlesim:alice')).slice(2), 'hex').toString('hex'))
    expect(loaded.accounts.get('keyed')!.key).toBe(`0x${'11'.repeat(32)}`)
  })

  it('a Foundry artifact supplies bytecode.object and the ABI', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bundlesim-artifact-'))
    await mkdir(path.join(dir, 'out'))
    await writeFile(
      path.join(dir, 'out', 'Thing.json'),
      JSON.stringify({ abi: [{ type: 'function', name: 'poke', inputs: [], outputs: [], stateMutability: 'nonpayable' }], bytecode: { object: '0x6005600c60003960056000f360006000fd' } }),
    )
    const loaded = await parseScenario(
      `name: x\naccounts: { alice: 1 ether }\ncontracts:\n  thing: { from: alice, artifact: out/Thing.json }\ntxs:\n  poke: { from: alice, to: thing, call: { fn: poke } }\nsteps:\n  - sendTx: poke\n`,
      path.join(dir, 'a.yaml'),
    )
    expect(loaded.contracts.get('thing')).toMatchObject({ contractName: 'Thing', bytecode: '0x6005600c60003960056000f360006000fd' })
  })
})

describe('files, globs, uuids and JUnit', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bundlesim-find-'))
    await mkdir(path.join(dir, 'nested'))
    for (const file of ['b.yaml', 'a.yml', 'notes.txt', 'nested/c.yaml']) await writeFile(path.join(dir, file), 'x')
  })

  it('finds scenario files by directory (sorted, recursive), file and glob', async () => {
    expect(await findScenarioFiles([dir])).toEqual(['a.yml', 'b.yaml', 'nested/c.yaml'].map((f) => path.join(dir, f)))
    expect(await findScenarioFiles([`${dir}/*.yaml`])).toEqual([path.join(dir, 'b.yaml')])
    expect(await findScenarioFiles([`${dir}/**/*.yaml`])).toEqual([path.join(dir, 'b.yaml'), path.join(dir, 'nested/c.yaml')])
    await expect(findScenarioFiles([path.join(dir, 'missing.yaml')])).rejects.toThrow(/no scenario files match .*missing\.yaml \(no such file or directory\)/)
    expect(globToRegExp('s/{a,b}.y?ml').test('s/b.yaml')).toBe(true)
  })

  it('any replacementUuid name becomes a fixed UUID; a UUID stays itself', () => {
    const uuid = toReplacementUuid('my-strategy')
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(toReplacementUuid('my-strategy')).toBe(uuid)
    expect(toReplacementUuid('8f6a4b7e-1c2d-4e5f-8a9b-000000000001')).toBe('8f6a4b7e-1c2d-4e5f-8a9b-000000000001')
  })

  it('JUnit XML is valid, escapes what it must, one testcase per scenario', () => {
    const location = { file: 'x<&>.yaml', line: 3, column: 1 }
    const results: ScenarioResult[] = [
      { file: 'a.yaml', name: 'a & "b"', status: 'passed', passed: true, durationMs: 1234, steps: [], failures: [] },
      { file: 'x<&>.yaml', name: "c'd", status: 'failed', passed: false, durationMs: 10, steps: [], failures: [new ExpectationFailed(location, 'bundles.b.status', 'landed', 'simulationfail <\u0001>', null)] },
      { file: 'z.yaml', name: 'z', status: 'skipped', passed: false, durationMs: 0, steps: [], failures: [] },
    ]
    const xml = toJUnitXml(results)
    expect(XMLValidator.validate(xml)).toBe(true)
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml)
    const suite = parsed.testsuites.testsuite
    expect(suite['@_tests']).toBe('3')
    expect(suite['@_failures']).toBe('1')
    expect(suite['@_skipped']).toBe('1')
    expect(suite.testcase.map((c: any) => c['@_name'])).toEqual(['a & "b"', "c'd", 'z'])
    expect(suite.testcase[1].failure['#text']).toContain('expected: landed')
    expect(escapeXml('<a & "b" \u0000>')).toBe('&lt;a &amp; &quot;b&quot; &gt;')
  })
})
