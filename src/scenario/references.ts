import { zeroAddress, type Address } from 'viem'
import { WIRE_PATTERNS } from '../protocol/wireRules.js'
import { scenarioAccount, unsignableMessage } from './accounts.js'
import type { ContractCode, PathIssue } from './contracts.js'
import { AbiValueError, toAbiValue, toAbiValues } from './core/abiValues.js'
import { AddressBook } from './core/addressBook.js'
import { nameList } from './core/errors.js'
import { BUILDER } from './core/fields.js'
import type { Path } from './core/sourceMap.js'
import type { Scenario } from './schema.js'
import type { ReferenceCheck } from './steps/definition.js'
import { checkStepReferences } from './steps/index.js'
import { TemplateError, templateCalldata } from './txTemplates.js'

/**
 * Every name a scenario uses must exist where it is used: accounts, contracts, templates,
 * bundle ids (defined by an earlier step's `as`). Also encodes every call and constructor
 * argument once, so a bad value is refused before anything runs. Each step kind checks its
 * own value's names (its definition's `references`) through the checks here.
 */
export function checkReferences(scenario: Scenario, codes: ReadonlyMap<string, ContractCode>, accountAddresses: ReadonlyMap<string, Address>): PathIssue[] {
  const issues: PathIssue[] = []
  const issue = (path: Path, message: string) => issues.push({ path, message })
  const contractNames = Object.keys(scenario.contracts)
  const book = new AddressBook(accountAddresses, new Map(contractNames.map((n) => [n, zeroAddress])), zeroAddress)
  const templates = new Set(Object.keys(scenario.txs))

  const account = (ref: string, path: Path) => {
    if (!(ref in scenario.accounts)) issue(path, `unknown account "${ref}" (expected one of: ${nameList(Object.keys(scenario.accounts))})`)
  }
  const address = (ref: string | undefined, path: Path) => {
    if (ref !== undefined && !book.has(ref)) issue(path, `unknown name "${ref}" (expected ${book.expected})`)
  }
  const template = (ref: string, path: Path) => {
    if (!templates.has(ref)) issue(path, `unknown template "${ref}" (expected one of: ${nameList(templates)})`)
    return scenario.txs[ref]
  }
  /** The account's problem when a tx from it must be signed (it is an address: impersonated or watched), else null. */
  const unsignable = (accountName: string): string | null => {
    const spec = scenario.accounts[accountName]
    return spec?.address === undefined ? null : unsignableMessage(scenarioAccount(accountName, undefined, spec.address as Address, spec.impersonate))
  }
  /** Encodes values once to find bad ones (`encode` throws AbiValueError with a relative path). */
  const checkValues = (encode: () => unknown, at: Path) => {
    try {
      encode()
    } catch (error) {
      if (error instanceof AbiValueError) issue([...at, ...error.path], error.message)
      else throw error
    }
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
    const args = spec.args
    if (!code || args === undefined) continue
    const constructor = code.abi.find((item) => item.type === 'constructor')
    if (code.abi.length === 0) issue([...at, 'args'], 'raw bytecode has no ABI to encode arguments with (expected source, sourceFile or artifact)')
    else checkValues(() => toAbiValues(constructor && 'inputs' in constructor ? constructor.inputs : [], args, book), [...at, 'args'])
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
      if (!templates.has(next)) {
        template(next, path)
        return
      }
      if (seen.has(next)) return issue(path, `nonce references loop back to "${start}" (expected a chain ending in a number or an automatic nonce)`)
      seen.add(next)
      next = scenario.txs[next]!.nonce
    }
  }

  const builderNames = (scenario.builders ?? []).map((b) => b.name)
  const bundles = new Set<string>()
  const steps: ReferenceCheck = {
    issue,
    address,
    template,
    txOrRaw(ref, path) {
      if (WIRE_PATTERNS.hexDigits.test(ref)) return
      template(ref, path)
      const problem = templates.has(ref) ? unsignable(scenario.txs[ref]!.from) : null
      if (problem) issue(path, `template "${ref}": ${problem}`)
    },
    txOrHash(ref, path) {
      if (ref === null || ref === undefined) return
      if (ref.startsWith('0x')) {
        if (!WIRE_PATTERNS.hash32.test(ref)) issue(path, `"${ref}" is not a 32-byte 0x hash (expected a template name or a tx hash)`)
      } else template(ref, path)
    },
    bundle(id, path) {
      if (!bundles.has(id)) issue(path, `unknown bundle "${id}" (expected one named by an earlier step's "as": ${nameList(bundles)})`)
    },
    newBundleId(id, path) {
      if (id === undefined) return
      if (bundles.has(id)) issue(path, `bundle id "${id}" is already taken (expected a new name)`)
      bundles.add(id)
    },
    // An expectation or a destination (`to`, `gateway`) names one of `builders:`; a bundle's own `builders` list may name any.
    builderName(name, path) {
      if (name === null || name === undefined || builderNames.includes(name)) return
      issue(path, scenario.builders ? `unknown builder "${name}" (expected one of: ${nameList(builderNames)})` : `"${name}": the scenario declares no builders (expected a top-level builders: list)`)
    },
    abiValue(param, value, path) {
      checkValues(() => toAbiValue(param, value, book), path)
    },
  }
  scenario.steps.forEach((step, i) => checkStepReferences(step, i, steps))
  return issues
}
