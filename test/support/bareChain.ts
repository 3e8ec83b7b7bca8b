import { afterAll, beforeAll } from 'vitest'
import type { Address } from 'viem'
import { ChainClient } from '../../src/chain/chainClient.js'
import { launchAnvil, type LaunchedAnvil } from '../../src/chain/launchAnvil.js'

/**
 * A bare Anvil on loopback for a file's tests (no harness in front of it), started before
 * them and stopped after, with a client on it; `coinbase` becomes its miner. Read `chain` in
 * a `beforeAll` registered after this call, or in the tests.
 *
 * @example
 * const bare = useBareChain(COINBASE)
 * let chain: ChainClient
 * beforeAll(() => { chain = bare.chain })
 */
export function useBareChain(coinbase?: Address): { readonly chain: ChainClient } {
  let anvil: LaunchedAnvil | undefined
  let chain: ChainClient | undefined
  beforeAll(async () => {
    anvil = await launchAnvil({ host: '127.0.0.1', port: 0 })
    chain = new ChainClient(anvil.url)
    if (coinbase) await chain.setCoinbase(coinbase)
  })
  afterAll(() => anvil?.stop())
  return {
    get chain() {
      if (!chain) throw new Error('useBareChain: Anvil is not started yet (read chain in a beforeAll registered after useBareChain, or in a test)')
      return chain
    },
  }
}
