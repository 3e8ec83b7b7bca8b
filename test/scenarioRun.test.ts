import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ExpectationFailed, StepFailed, runScenario, runScenarios, type ScenarioResult } from '../src/index.js'
import { call, rpc, useTestHarness } from './support/harness.js'

/*
 * Every step kind and expectation kind, passing and failing, through the real runner: small
 * inline scenarios written to a tmp dir and run in parallel (one harness each). A failing
 * expectation must fail the run at its own line with expected vs actual (and the trace).
 */

const HEAD = `accounts:
  alice: 10 ether
  bob: 0
  carol: 1 ether
contracts:
  pinger:
    from: carol
    source: |
      // SPDX-License-Identifier: MIT
      pragma solidity ^0.8.20;
      contract Pinger {
        event Ping(address indexed who, uint256 n);
        function ping(uint256 n) external payable { emit Ping(msg.sender, n); }
        function fail() external pure { revert("nope"); }
      }
txs:
  pay: { from: alice, to: bob, value: 1 ether }
  ping: { from: alice, to: pinger, call: { fn: ping, args: [7] } }
  tip: { from: alice, to: builder, value: 0.01 ether }
  fail: { from: carol, to: pinger, call: { fn: fail } }
  far: { from: alice, to: bob, nonce: 99 }
  dup: { from: alice, to: bob, value: 2 wei, nonce: pay }
steps:
`
/** Line of the first step in every case: after the name line and HEAD. */
const FIRST_STEP_LINE = HEAD.split('\n').length + 1

const CASES = {
  'passes-every-kind': `
  - submit:
      txs: [pay, ping, tip]
      blockNumber: +1
      minTimestamp: +12
      maxTimestamp: +100
      refundPercent: 10
      refundRecipient: carol
      refundTxHashes: [tip]
      replacementUuid: 8f6a4b7e-1c2d-4e5f-8a9b-000000000001
      replacementSeqNumber: 1
      as: b
  - submit: { txs: [pay], refundPercent: 150, expectError: /refundPercent/ }
  - boost: { txs: [pay], apiKey: wrong, expectError: unauthorized }
  - cancel: { replacementUuid: nothing-pending, cancelled: [] }
  - callBundle: { txs: [fail], expect: { results: { fail: { revert: nope, error: /revert/ } } } }
  - callBundle: { txs: [far], expect: { error: '/txs\\[0\\] 0x[0-9a-f]+ cannot be included: nonce too high: nonce 99 of 0x[0-9a-f]{40} leaves a gap/' } }
  - competitorBid: 1 wei
  - timeInSlot: 1000
  - advance: { slots: 1 }
  - competitorBid: null
  - expect:
      bundles:
        b: { status: LANDED, refund: { recipient: carol, amount: { min: 1 wei } }, revertingHash: null, sponsorships: [], blockNumber: 2 }
      balances:
        bob: { equals: 1 ether, min: 1 ether, max: 1 ether }
        carol: { delta: { min: 1 wei } }
        builder: { min: 1 ether }
      receipts: { pay: success, ping: success, fail: absent }
      events:
        ping: { event: "Ping(address indexed who, uint256 n)", args: { who: alice, n: 7 }, address: pinger }
      block: { bundles: [b], txs: [pay, ping, tip], won: true, mempoolTxs: [] }
  - sendTx: { tx: dup, expectError: nonce too low }
  - sendTx: { tx: dup, expectErrorKind: NonceTooLow }
  - advance: 1
  - expect:
      balances:
        bob: { delta: 0, since: previous }
        alice: { delta: { max: -1 ether } }
`,
  'fails-bundle-fields': `
  - submit: { txs: [pay], as: b }
  - advance: 1
  - expect:
      bundles:
        b:
          status: SimulationFail
          error: boom
          revertingHash: pay
          builderPayment: { max: 1 wei }
          refund: { recipient: alice }
          sponsorships: [{ tx: pay }]
          blockNumber: 5
  - advance: 1
`,
  'fails-chain-state': `
  - submit: { txs: [pay, ping], as: b }
  - advance: 1
  - expect:
      balances:
        bob: 2 ether
        alice: { delta: { min: 0 } }
      receipts: { pay: reverted, fail: success }
      events:
        ping: { event: "Ping(address indexed who, uint256 n)", args: { n: 8 } }
        pay: { event: "Ping(address indexed who, uint256 n)" }
      block: { bundles: [], txs: [ping, pay], won: false, mempoolTxs: [fail] }
`,
  'fails-call-bundle': `
  - callBundle:
      txs: [pay, fail]
      expect:
        error: nope
        totalGasUsed: { max: 21000 }
        coinbaseDiff: { min: 1 ether }
        results:
          pay: { gasUsed: 1, error: something }
          fail: { error: null, value: "0x01" }
`,
  'fails-call-bundle-refused': `
  - callBundle: { txs: [far] }
`,
  'fails-submit-refused': `
  - submit: { txs: [pay], refundPercent: 150 }
  - advance: 1
`,
  'fails-expect-error-unmet': `
  - submit: { txs: [pay], expectError: nope }
`,
  'fails-expect-error-text': `
  - submit: { txs: [pay], refundPercent: 150, expectError: something else }
`,
  'fails-boost-unauthorized': `
  - boost: { txs: [pay], apiKey: wrong }
`,
  'fails-cancel': `
  - submit: { txs: [pay], replacementUuid: mine, as: b }
  - cancel: { replacementUuid: other, cancelled: [b] }
`,
  'fails-send-tx': `
  - sendTx: pay
  - advance: 1
  - sendTx: dup
`,
  'fails-time-in-slot': `
  - timeInSlot: 99999
`,
  'fails-trace-not-yet': `
  - submit: { txs: [pay], blockNumber: +2, as: b }
  - expect: { bundles: { b: { status: landed } } }
`,
} as const
type CaseName = keyof typeof CASES

const OTHER_CASES: Record<string, string> = {
  'fails-deploy': `accounts: { alice: 1 ether }
contracts:
  broken: { from: alice, source: "contract B { constructor() { revert(\\"no\\"); } }" }
steps:
  - advance: 1
`,
  'fails-harness-start': `builder: { algorithms: [no-such-algorithm] }
steps:
  - advance: 1
`,
}

let results: Map<string, ScenarioResult>
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bundlesim-run-'))
  const files: string[] = []
  for (const [name, steps] of Object.entries(CASES)) {
    files.push(path.join(dir, `${name}.yaml`))
    await writeFile(files.at(-1)!, `name: ${name}\n${HEAD}${steps.replace(/^\n/, '')}`)
  }
  for (const [name, text] of Object.entries(OTHER_CASES)) {
    files.push(path.join(dir, `${name}.yaml`))
    await writeFile(files.at(-1)!, `name: ${name}\n${text}`)
  }
  const all = await runScenarios(files, { concurrency: 2 })
  results = new Map(all.map((r) => [r.name, r]))
}, 120_000)

function result(name: CaseName | keyof typeof OTHER_CASES): ScenarioResult {
  return results.get(name)!
}

/** The failed checks of a case as `check: expected → actual`. */
function checks(name: CaseName): Record<string, { expected: string; actual: string; line: number; trace: unknown }> {
  const r = result(name)
  expect(r.status).toBe('failed')
  return Object.fromEntries(
    r.failures.map((f) => {
      expect(f).toBeInstanceOf(ExpectationFailed)
      const e = f as ExpectationFailed
      return [e.check, { expected: e.expected, actual: e.actual, line: e.location.line, trace: e.trace }]
    }),
  )
}

function stepFailure(name: CaseName | keyof typeof OTHER_CASES): StepFailed {
  const r = result(name)
  expect(r.status).toBe('failed')
  expect(r.failures).toHaveLength(1)
  expect(r.failures[0]).toBeInstanceOf(StepFailed)
  return r.failures[0] as StepFailed
}

describe('every step and expectation kind, passing', () => {
  it('submit (every field), boost, cancel, callBundle, competitorBid, timeInSlot, advance, sendTx, expect all pass', () => {
    const r = result('passes-every-kind')
    expect(r.failures.map((f) => f.message)).toEqual([])
    expect(r.status).toBe('passed')
    expect(r.steps.map((s) => s.kind)).toEqual([
      'submit', 'submit', 'boost', 'cancel', 'callBundle', 'callBundle', 'competitorBid', 'timeInSlot', 'advance', 'competitorBid', 'expect', 'sendTx', 'sendTx', 'advance', 'expect',
    ])
    expect(r.steps.every((s) => s.status === 'passed')).toBe(true)
    expect(r.steps[0]!.line).toBe(FIRST_STEP_LINE)
  })
})

describe('every expectation kind, failing with its place, expected and actual', () => {
  it('bundle fields: status, error, revertingHash, builderPayment, refund, sponsorships, blockNumber (with the trace); later steps do not run', () => {
    const failed = checks('fails-bundle-fields')
    expect(Object.keys(failed)).toEqual([
      'bundles.b.status', 'bundles.b.error', 'bundles.b.revertingHash', 'bundles.b.builderPayment', 'bundles.b.refund', 'bundles.b.sponsorships', 'bundles.b.blockNumber',
    ])
    expect(failed['bundles.b.status']).toMatchObject({ expected: 'SimulationFail', actual: 'landed', line: FIRST_STEP_LINE + 5 })
    expect(failed['bundles.b.error']).toMatchObject({ expected: 'text containing "boom"', actual: 'no error' })
    expect(failed['bundles.b.revertingHash']!.expected).toMatch(/^pay \(0x[0-9a-f]{64}\)$/)
    expect(failed['bundles.b.revertingHash']!.actual).toBe('null')
    expect(failed['bundles.b.builderPayment']!.expected).toBe('≤ 1 wei')
    expect(failed['bundles.b.builderPayment']!.actual).toMatch(/^\d+ wei \([\d.]+ gwei\)$/)
    expect(failed['bundles.b.refund']).toMatchObject({ expected: 'a refund', actual: 'no refund' })
    expect(failed['bundles.b.sponsorships']).toMatchObject({ expected: '1 sponsorship(s)', actual: 'none' })
    expect(failed['bundles.b.blockNumber']).toMatchObject({ expected: '5', actual: '2', line: FIRST_STEP_LINE + 11 })
    expect(failed['bundles.b.status']!.trace).toMatchObject({ status: 'landed', blockNumber: 2, targetBlock: 2, error: null })
    const steps = result('fails-bundle-fields').steps
    expect(steps.map((s) => s.status)).toEqual(['passed', 'passed', 'failed', 'skipped'])
    expect(result('fails-bundle-fields').failures[0]!.message).toMatch(/fails-bundle-fields\.yaml:\d+: expect bundles\.b\.status: expected SimulationFail, got landed$/)
  })

  it('balances, deltas, receipts, events and block contents', () => {
    const failed = checks('fails-chain-state')
    expect(failed['balances.bob']).toMatchObject({ expected: '= 2000000000000000000 wei (2 ether)', actual: '1000000000000000000 wei (1 ether)' })
    expect(failed['balances.alice.delta']!.expected).toBe('≥ 0 wei')
    expect(failed['balances.alice.delta']!.actual).toMatch(/^-\d+ wei \(-1\.\d+ ether\)$/)
    expect(failed['receipts.pay']!.expected).toBe('reverted')
    expect(failed['receipts.pay']!.actual).toMatch(/^success \(0x[0-9a-f]{64}\)$/)
    expect(failed['receipts.fail']).toMatchObject({ expected: 'success', actual: 'absent (never sent)' })
    expect(failed['events.ping[0]']!.expected).toBe('Ping{"n":"8"}')
    expect(failed['events.ping[0]']!.actual).toMatch(/^Ping\{"who":"0x[0-9a-fA-F]{40}","n":"7"\} at 0x/)
    expect(failed['events.pay[0]']).toMatchObject({ expected: 'Ping', actual: 'no Ping log among 0 log(s)' })
    expect(failed['block.bundles']).toMatchObject({ expected: '[]', actual: '[b]' })
    expect(failed['block.won']!.actual).toMatch(/^true \(competitor bid none, block value \d+\)$/)
    expect(failed['block.mempoolTxs']).toMatchObject({ expected: '[fail]', actual: '[]' })
    expect(failed['block.txs']!.actual).toBe('[pay, ping]')
  })

  it('eth_callBundle: the call succeeding when an error was expected, totals, and per-tx results', () => {
    const failed = checks('fails-call-bundle')
    expect(failed.error).toMatchObject({ expected: 'text containing "nope"', actual: 'the call succeeded' })
    expect(failed.totalGasUsed!.expected).toBe('≤ 21000')
    expect(failed.coinbaseDiff!.expected).toBe('≥ 1000000000000000000 wei (1 ether)')
    expect(failed['results.pay.gasUsed']).toMatchObject({ expected: '= 1', actual: '21000' })
    expect(failed['results.pay.error']).toMatchObject({ expected: 'text containing "something"', actual: 'no error' })
    expect(failed['results.fail.error']!.expected).toBe('no error')
    expect(failed['results.fail.value']!.actual).toMatch(/^no value \(error: /)
  })

  it('a step expecting a refusal fails when the call succeeds, or is refused for another reason', () => {
    const unmet = checks('fails-expect-error-unmet')
    expect(unmet.expectError!.expected).toBe('the call to be refused with nope')
    expect(unmet.expectError!.actual).toMatch(/^it succeeded: \{"bundleHash":"0x[0-9a-f]{64}"\}$/)
    const wrong = checks('fails-expect-error-text')
    expect(wrong.expectError!.expected).toBe('text containing "something else"')
    expect(wrong.expectError!.actual).toContain('refundPercent')
  })

  it('cancel: the hashes withdrawn must be the bundles named', () => {
    expect(checks('fails-cancel').cancelled).toMatchObject({ expected: '[b]', actual: '[]', line: FIRST_STEP_LINE + 1 })
  })

  it('expecting a trace before it is served says when it will be', () => {
    // Setup mined block 1 (the contract), so `+2` is block 3.
    expect(checks('fails-trace-not-yet')['bundles.b']!.actual).toMatch(/^-32010 trace not yet available \{"bundleHash":"0x[0-9a-f]{64}","availableAtBlock":3\}$/)
  })
})

describe('steps the service refuses fail the run at the step', () => {
  it('submit refused (-32602) without expectError; the rest is skipped', () => {
    const failure = stepFailure('fails-submit-refused')
    expect(failure.step).toBe('submit')
    expect(failure.location.line).toBe(FIRST_STEP_LINE)
    expect(failure.reason).toMatch(/^eth_sendBundle refused: -32602 refundPercent: /)
    expect(result('fails-submit-refused').steps.map((s) => s.status)).toEqual(['failed', 'skipped'])
  })

  it('boost with a wrong API key, sendTx on a used nonce, timeInSlot past the slot, a callBundle the node refuses', () => {
    expect(stepFailure('fails-boost-unauthorized').reason).toBe('svc_boostBundle refused: -32001 unauthorized: svc_boostBundle needs a valid X-Api-Key header')
    const send = stepFailure('fails-send-tx')
    expect(send.step).toBe('sendTx')
    expect(send.location.line).toBe(FIRST_STEP_LINE + 2)
    expect(send.reason).toMatch(/^eth_sendRawTransaction refused: -32000 nonce too low/)
    expect(stepFailure('fails-time-in-slot').reason).toMatch(/^harness_setTimeInSlot refused: -32602 /)
    expect(stepFailure('fails-call-bundle-refused').reason).toMatch(/^eth_callBundle refused: -32000 txs\[0\] 0x[0-9a-f]+ cannot be included: nonce too high: nonce 99 of 0x[0-9a-f]{40} leaves a gap/)
  })

  it('setup fails at the contract whose deployment reverts, and at a builder the harness refuses', () => {
    const deploy = stepFailure('fails-deploy')
    expect(deploy).toMatchObject({ step: 'setup', reason: 'deploying contract broken reverted' })
    expect(deploy.location.line).toBe(4)
    const start = stepFailure('fails-harness-start')
    expect(start.reason).toMatch(/^the harness did not start: .*no-such-algorithm/)
    expect(start.location.line).toBe(2)
  })
})

describe('runScenario and harness_setBalance', () => {
  const harness = useTestHarness()

  it('harness_setBalance sets a balance on the head state and refuses bad params naming the field', async () => {
    const address = '0x00000000000000000000000000000000000b0b00'
    expect(await call(harness.rpcUrl, 'harness_setBalance', [{ address, wei: '12345' }])).toEqual({ address, wei: '12345' })
    expect(await call(harness.rpcUrl, 'eth_getBalance', [address, 'latest'])).toBe('0x3039')
    const bad = await rpc(harness.rpcUrl, 'harness_setBalance', [{ address, wei: '-1' }])
    expect(bad.body.error?.code).toBe(-32602)
    expect(bad.body.error?.message).toContain('wei')
  })

  it('runScenario loads, runs on its own harness and reports per step', async () => {
    const file = path.join(dir, 'single.yaml')
    await writeFile(file, `name: single\naccounts: { a: 1 ether, b: 0 }\ntxs:\n  t: { from: a, to: b, value: 5 wei }\nsteps:\n  - submit: { txs: [t], as: x }\n  - advance: 1\n  - expect: { bundles: { x: { status: landed } }, balances: { b: 5 wei } }\n`)
    const r = await runScenario(file)
    expect(r).toMatchObject({ name: 'single', status: 'passed', passed: true, failures: [] })
    expect(r.steps.map((s) => [s.kind, s.line])).toEqual([['submit', 6], ['advance', 7], ['expect', 8]])
  })
})
