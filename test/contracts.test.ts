import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CONTRACTS, compiledArtifact } from '../scripts/compileContracts.js'
import { REPO_ROOT } from './support/cli.js'

describe("bundlesim's own contracts (contracts/*.sol)", () => {
  it('each artifact the code imports is what solc compiles from its source now (run scripts/compileContracts.ts --write after a change)', () => {
    for (const contract of CONTRACTS) {
      expect(readFileSync(path.join(REPO_ROOT, contract.artifact), 'utf8'), contract.artifact).toBe(compiledArtifact(contract))
    }
  })
})
