import { zeroAddress, type Address } from 'viem'
import { WIRE_PATTERNS } from '../protocol/wireRules.js'
import { AbiValueError, toAbiValue, toAbiValues } from './abiValues.js'
import { AddressBook } from './addressBook.js'
import type { ContractCode, PathIssue } from './contracts.js'
import { BUILDER, parseEvent, stepKind, type EndOfBlockStep, type Scenario, type SubmitStep } from './schema.js'
import type { Path } from './sourceMap.js'
import { scenarioAccount, unsignableMessage } from './accounts.js'
import { TemplateError, templateCalldata } from './txTemplates.js'

const list = (names: Iterable<string>) => [...names].join(', ') || 'none'

/**
 * Every name a scenario uses must exist where it is used: accounts, contracts, templates,
 * bundle ids (defined by an earlier step's `as`). Also encodes every call and constructor
 * argument once, so a bad value is refused before anything runs.
 */
export function checkReferences(scenario: Scenario, codes: ReadonlyMap<string, ContractCode>, accountAddresses: ReadonlyMap<string, Address>): PathIssue[] {
  const issues: PathIssue[] = []
  const issue = (path: Path, message: string) => issues.push({ path, message })
  const contractNames = Object.keys(scenario.contracts)
  const book = new AddressBook(accountAddresses, new Map(contractNames.map((n) => [n, zeroAddress])), zeroAddress)
  const templates = new Set(Object.keys(scenario.txs))

  const account = (ref: string, path: Path) => {
    if (!(ref in scenario.accounts)) issue(path, `unknown account "${ref}" (expected one of: ${list(Object.keys(scenario.accounts))})`)
  }
  const address = (ref: string | undefined, path: Path) => {
    if (ref !== undefined && !book.has(ref)) issue(path, `unknown name "${ref}" (expected ${book.expected})`)
  }
  const template = (ref: string, path: Path) => {
    if (!templates.has(ref)) issue(path, `unknown template "${ref}" (expected one of: ${list(templates)})`)
  }
  /** The account's problem when a tx from it must be signed (it is an address: impersonated or watched), else null. */
  const unsignable = (accountName: string): string | null => {
    const spec = scenario.accounts[accountName]
    return spec?.address === undefined ? null : unsignableMessage(scenarioAccount(accountName, undefined, spec.address as Address, spec.impersonate))
  }
  /** A tx list entry: a template, or a raw signed tx as 0x hex. Bundles carry signed txs only. */
  const txOrRaw = (ref: string, path: Path) => {
    if (WIRE_PATTERNS.hexDigits.test(ref)) return
    template(ref, path)
    const problem = templates.has(ref) ? unsignable(scenario.txs[ref]!.from) : null
    if (problem) issue(path, `template "${ref}": ${problem}`)
  }
  /** A hash list entry: a template, or a 32-byte 0x hash. */
  const txOrHash = (ref: string | null | undefined, path: Path) => {
    if (ref === null || ref === undefined) return
    if (ref.startsWith('0x')) {
      if (!WIRE_PATTERNS.hash32.test(ref)) issue(path, `"${ref}" is not a 32-byte 0x hash (expected a template name or a tx hash)`)
    } else template(ref, path)
  }

  for (const [name, refs] of Object.entries(scenario.searchers)) {
    refs.forEach((ref, i) => {
      if (!ref.startsWith('0x')) address(ref, ['searchers', name, i])
      else if (!WIRE_PATTERNS.address.test(ref)) issue(['searchers', name, i], `"${ref}" is not a 20-byte 0x address (expected an account, a contract or an address)`)
    })
  }
  const botNames = new Set<string>()
  scenario.bots.forEach((bot, i) => {
    const at = ['bots', i]
    if (botNames.has(bot.name)) issue([...at, 'name'], `"${bot.name}" is already a bot's name (expected a name of its own)`)
    else if (bot.name in scenario.searchers) issue([...at, 'name'], `"${bot.name}" is already a searcher's name under searchers: (a bot is named as a searcher by itself)`)
    botNames.add(bot.name)
    account(bot.account, [...at, 'account'])
    const problem = unsignable(bot.account)
    if (problem) issue([...at, 'account'], `a bot signs with its account's key: ${problem}`)
    if (bot.ready !== undefined) {
      try {
        new RegExp(bot.ready)
      } catch (error) {
        issue([...at, 'ready'], `not a regular expression: ${(error as Error).message}`)
      }
    }
  })
  for (const name of Object.keys(scenario.accounts)) {
    if (name === BUILDER) issue(['accounts', name], `"${BUILDER}" is reserved for the builder's coinbase (expected another name)`)
  }
  for (const [name, spec] of Object.entries(scenario.contracts)) {
    const at = ['contracts', name]
    if (name === BUILDER || name in scenario.accounts) issue(at, `"${name}" is already ${name === BUILDER ? "the builder's name" : 'an account'} (expected a name of its own)`)
    account(spec.from, [...at, 'from'])
    const deployer = unsignable(spec.from)
    if (deployer) issue([...at, 'from'], `contracts are deployed by a signed tx: ${deployer}`)
    const code = codes.get(name)
    if (!code || spec.args === undefined) continue
    const constructor = code.abi.find((item) => item.type === 'constructor')
    if (code.abi.length === 0) issue([...at, 'args'], 'raw bytecode has no ABI to encode arguments with (expected source, sourceFile or artifact)')
    else checkValues(() => toAbiValues(constructor && 'inputs' in constructor ? constructor.inputs : [], spec.args!, book), [...at, 'args'])
  }

  /** Encodes values once to find bad ones (`encode` throws AbiValueError with a relative path). */
  function checkValues(encode: () => unknown, at: Path) {
    try {
      encode()
    } catch (error) {
      if (error instanceof AbiValueError) issue([...at, ...error.path], error.message)
      else throw error
    }
  }

  for (const [name, spec] of Object.entries(scenario.txs)) {
    const at = ['txs', name]
    account(spec.from, [...at, 'from'])
    const fromSpec = scenario.accounts[spec.from]
    if (fromSpec?.address !== undefined && !fromSpec.impersonate) issue([...at, 'from'], unsignable(spec.from)!)
    address(spec.to, [...at, 'to'])
    if (typeof spec.nonce === 'string') checkNonceChain(name, [...at, 'nonce'])
    try {
      templateCalldata(spec, codes, book)
    } catch (error) {
      if (error instanceof TemplateError) issue([...at, ...error.path], error.message)
      else throw error
    }
  }

  /** `nonce: other` must name a template and never lead back to itself. */
  function checkNonceChain(start: string, path: Path) {
    const seen = new Set([start])
    let next = scenario.txs[start]!.nonce
    while (typeof next === 'string') {
      if (!templates.has(next)) return template(next, path)
      if (seen.has(next)) return issue(path, `nonce references loop back to "${start}" (expected a chain ending in a number or an automatic nonce)`)
      seen.add(next)
      next = scenario.txs[next]!.nonce
    }
  }

  const builderNames = (scenario.builders ?? []).map((b) => b.name)
  /** An expectation naming a builder: it must be one of `builders:` (a bundle's own `builders` list may name any). */
  const builderName = (name: string | null | undefined, path: Path) => {
    if (name === null || name === undefined || builderNames.includes(name)) return
    issue(path, scenario.builders ? `unknown builder "${name}" (expected one of: ${list(builderNames)})` : `"${name}": the scenario declares no builders (expected a top-level builders: list)`)
  }
  const bundles = new Set<string>()
  const bundle = (id: string, path: Path) => {
    if (!bundles.has(id)) issue(path, `unknown bundle "${id}" (expected one named by an earlier step's "as": ${list(bundles)})`)
  }
  const newBundleId = (id: string | undefined, path: Path) => {
    if (id === undefined) return
    if (bundles.has(id)) issue(path, `bundle id "${id}" is already taken (expected a new name)`)
    bundles.add(id)
  }

  scenario.steps.forEach((step, i) => {
    const kind = stepKind(step)
    const at: Path = ['steps', i, kind]
    if (step.submit || step.boost || step.submitEndOfBlock) {
      const b: Partial<SubmitStep & EndOfBlockStep> & { txs: string[] } = (step.submit ?? step.boost ?? step.submitEndOfBlock)!
      b.txs.forEach((ref, j) => txOrRaw(ref, [...at, 'txs', j]))
      for (const field of ['revertingTxHashes', 'droppingTxHashes', 'refundTxHashes'] as const) {
        b[field]?.forEach((ref, j) => txOrHash(ref, [...at, field, j]))
      }
      address(b.refundRecipient, [...at, 'refundRecipient'])
      const sent = b as Partial<SubmitStep>
      sent.to?.forEach((name, j) => builderName(name, [...at, 'to', j]))
      if (Array.isArray(sent.gateway)) sent.gateway.forEach((name, j) => builderName(name, [...at, 'gateway', j]))
      b.targetPools?.forEach((ref, j) => address(ref, [...at, 'targetPools', j]))
      newBundleId(b.as, [...at, 'as'])
    } else if (step.sendPrivateTx) {
      template(step.sendPrivateTx.tx, [...at, 'tx'])
      step.sendPrivateTx.refund?.forEach((r, j) => address(r.address, [...at, 'refund', j, 'address']))
      newBundleId(step.sendPrivateTx.as, [...at, 'as'])
    } else if (step.sendBlobs) {
      step.sendBlobs.txs.forEach((name, j) => {
        template(name, [...at, 'txs', j])
        if (scenario.txs[name] && scenario.txs[name].blobs === undefined) issue([...at, 'txs', j], `template "${name}" is not a blob tx (expected blobs: N in its template)`)
      })
      step.sendBlobs.as?.forEach((id, j) => newBundleId(id, [...at, 'as', j]))
    } else if (step.cancelPrivateTx) {
      bundle(step.cancelPrivateTx.tx, [...at, 'tx'])
    } else if (step.mevSendBundle) {
      const m = step.mevSendBundle
      if (m.backrun !== undefined) bundle(m.backrun, [...at, 'backrun'])
      m.txs.forEach((ref, j) => txOrRaw(ref, [...at, 'txs', j]))
      m.canRevert?.forEach((ref, j) => txOrHash(ref, [...at, 'canRevert', j]))
      m.refundConfig?.forEach((r, j) => address(r.address, [...at, 'refundConfig', j, 'address']))
      newBundleId(m.as, [...at, 'as'])
    } else if (step.cancel) {
      step.cancel.cancelled?.forEach((id, j) => bundle(id, [...at, 'cancelled', j]))
    } else if (step.sendTx) {
      template(step.sendTx.tx, [...at, 'tx'])
    } else if (step.callBundle) {
      const c = step.callBundle
      c.txs.forEach((ref, j) => txOrRaw(ref, [...at, 'txs', j]))
      address(c.coinbase, [...at, 'coinbase'])
      for (const name of Object.keys(c.expect?.results ?? {})) {
        if (!c.txs.includes(name)) issue([...at, 'expect', 'results', name], `"${name}" is not one of this call's txs (expected one of: ${list(c.txs)})`)
      }
    } else if (step.expect) {
      const e = step.expect
      for (const [id, expectation] of Object.entries(e.bundles ?? {})) {
        const here = [...at, 'bundles', id]
        bundle(id, here)
        txOrHash(expectation.revertingHash, [...here, 'revertingHash'])
        if (expectation.refund) address(expectation.refund.recipient, [...here, 'refund', 'recipient'])
        expectation.sponsorships?.forEach((s, j) => txOrHash(s.tx, [...here, 'sponsorships', j, 'tx']))
        builderName(expectation.builder, [...here, 'builder'])
        expectation.seenBy?.forEach((name, j) => builderName(name, [...here, 'seenBy', j]))
      }
      for (const ref of Object.keys(e.balances ?? {})) address(ref, [...at, 'balances', ref])
      for (const name of Object.keys(e.receipts ?? {})) template(name, [...at, 'receipts', name])
      for (const [name, events] of Object.entries(e.events ?? {})) {
        template(name, [...at, 'events', name])
        events.forEach((event, j) => {
          address(event.address, [...at, 'events', name, j, 'address'])
          const inputs = parseEvent(event.event).inputs
          for (const [arg, value] of Object.entries(event.args ?? {})) {
            const param = inputs.find((input) => input.name === arg)
            if (param) checkValues(() => toAbiValue(param, value, book), [...at, 'events', name, j, 'args', arg])
          }
        })
      }
      e.block?.bundles?.forEach((id, j) => bundle(id, [...at, 'block', 'bundles', j]))
      e.block?.txs?.forEach((name, j) => template(name, [...at, 'block', 'txs', j]))
      e.block?.mempoolTxs?.forEach((name, j) => template(name, [...at, 'block', 'mempoolTxs', j]))
      builderName(e.block?.winner, [...at, 'block', 'winner'])
      e.block?.relay?.bids?.forEach((name, j) => builderName(name, [...at, 'block', 'relay', 'bids', j]))
      builderName(e.block?.relay?.delivered, [...at, 'block', 'relay', 'delivered'])
      e.hintEvents?.forEach((event, j) => template(event.tx, [...at, 'hintEvents', j, 'tx']))
    }
  })
  return issues
}
