import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Abi, Hex } from 'viem'
import type { ContractSpec } from './core/settings.js'
import type { Path } from './core/sourceMap.js'

/** Code ready to deploy, and the ABI when there is one (source or artifact). */
export interface ContractCode {
  /** The Solidity contract name, or the scenario's name for raw bytecode. */
  contractName: string
  abi: Abi
  bytecode: Hex
}

/** A problem with one contract, at a path of the scenario. */
export interface PathIssue {
  path: Path
  message: string
}

/** EVM version contracts are compiled for: one every Anvil hardfork we run supports. */
export const EVM_VERSION = 'cancun'

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string; message: string }>
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
}

type Solc = { compile(input: string, callbacks?: { import(path: string): { contents: string } | { error: string } }): string; version(): string }
let solcModule: Promise<Solc> | undefined
/** solc (the npm package, pinned) is loaded only when some scenario has Solidity source. */
function loadSolc(): Promise<Solc> {
  // solc's own types are all `any`: `Solc` says what this file calls.
  solcModule ??= import('solc').then((module): Solc => module.default ?? module)
  return solcModule
}

const compiled = new Map<string, SolcOutput>()

/** Compiles one source unit; imports resolve relative to `baseDir`. Results are cached by input. */
async function compileSolidity(unit: string, content: string, baseDir: string): Promise<SolcOutput> {
  const input = JSON.stringify({
    language: 'Solidity',
    sources: { [unit]: { content } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: EVM_VERSION,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  })
  const key = `${baseDir}\0${input}`
  const cached = compiled.get(key)
  if (cached) return cached
  const solc = await loadSolc()
  const readImport = (importPath: string) => {
    try {
      return { contents: readFileSync(path.resolve(baseDir, importPath), 'utf8') }
    } catch {
      return { error: `import not found: ${importPath} (looked in ${baseDir})` }
    }
  }
  const output = JSON.parse(solc.compile(input, { import: readImport })) as SolcOutput
  compiled.set(key, output)
  return output
}

/** Picks the contract to deploy from a compiled unit: the named one, else the only one. */
function pick(available: Record<string, { abi: Abi; bytecode: string }>, wanted: string | undefined, where: Path): { code?: ContractCode; issue?: PathIssue } {
  const deployable = Object.entries(available).filter(([, c]) => c.bytecode.length > 0)
  const names = deployable.map(([n]) => n).join(', ') || 'none'
  if (wanted !== undefined) {
    const found = deployable.find(([n]) => n === wanted)
    if (!found) return { issue: { path: [...where.slice(0, -1), 'contract'], message: `no deployable contract "${wanted}" (expected one of: ${names})` } }
    return { code: { contractName: wanted, abi: found[1].abi, bytecode: `0x${found[1].bytecode.replace(/^0x/, '')}` as Hex } }
  }
  if (deployable.length !== 1) return { issue: { path: where, message: `${deployable.length} deployable contracts (${names}) (expected a contract field naming one)` } }
  const [[contractName, c]] = deployable as [[string, { abi: Abi; bytecode: string }]]
  return { code: { contractName, abi: c.abi, bytecode: `0x${c.bytecode.replace(/^0x/, '')}` as Hex } }
}

async function fromSolidity(spec: ContractSpec, at: Path, baseDir: string): Promise<{ code?: ContractCode; issue?: PathIssue }> {
  const field: Path = [...at, spec.sourceFile !== undefined ? 'sourceFile' : 'source']
  let content = spec.source
  let unit = 'Scenario.sol'
  let dir = baseDir
  if (spec.sourceFile !== undefined) {
    const file = path.resolve(baseDir, spec.sourceFile)
    try {
      content = readFileSync(file, 'utf8')
    } catch (error) {
      return { issue: { path: field, message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` } }
    }
    unit = path.basename(file)
    dir = path.dirname(file)
  }
  const output = await compileSolidity(unit, content!, dir)
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) {
    return { issue: { path: field, message: `Solidity does not compile: ${errors.map((e) => e.formattedMessage.trim()).join('\n')}` } }
  }
  const contracts = Object.fromEntries(Object.entries(output.contracts?.[unit] ?? {}).map(([n, c]) => [n, { abi: c.abi, bytecode: c.evm.bytecode.object }]))
  return pick(contracts, spec.contract, field)
}

function fromArtifact(spec: ContractSpec, at: Path, baseDir: string): { code?: ContractCode; issue?: PathIssue } {
  const field: Path = [...at, 'artifact']
  const file = path.resolve(baseDir, spec.artifact!)
  let json: { abi?: Abi; bytecode?: string | { object?: string }; contractName?: string }
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    return { issue: { path: field, message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` } }
  }
  // Foundry writes bytecode.object; Hardhat a bytecode string.
  const bytecode = typeof json.bytecode === 'string' ? json.bytecode : json.bytecode?.object
  if (!bytecode || !/^(0x)?([0-9a-fA-F]{2})+$/.test(bytecode)) {
    return { issue: { path: field, message: `${file} has no deployable bytecode (expected a Foundry artifact with bytecode.object)` } }
  }
  const contractName = spec.contract ?? json.contractName ?? path.basename(file, '.json')
  return { code: { contractName, abi: json.abi ?? [], bytecode: `0x${bytecode.replace(/^0x/, '')}` as Hex } }
}

/**
 * Resolves every contract's code: raw bytecode, a Foundry artifact, or Solidity compiled
 * with solc. Paths are relative to the scenario file's folder.
 */
export async function resolveContracts(
  contracts: Record<string, ContractSpec>,
  baseDir: string,
): Promise<{ code: Map<string, ContractCode>; issues: PathIssue[] }> {
  const code = new Map<string, ContractCode>()
  const issues: PathIssue[] = []
  for (const [name, spec] of Object.entries(contracts)) {
    const at: Path = ['contracts', name]
    const result =
      spec.bytecode !== undefined
        ? { code: { contractName: name, abi: [] as Abi, bytecode: spec.bytecode as Hex } }
        : spec.artifact !== undefined
          ? fromArtifact(spec, at, baseDir)
          : await fromSolidity(spec, at, baseDir)
    if (result.issue) issues.push(result.issue)
    if (result.code) code.set(name, result.code)
  }
  return { code, issues }
}
