import { z } from 'zod'
import { WIRE_PATTERNS, address, hexBytes, hexQuantity } from './wireRules.js'
import { refusedField, strictFields } from './strictFields.js'

const quantity = (what: string) => hexQuantity({ type: `expected ${what} as a hex string like "0x1b4"`, format: `expected ${what} as a hex string like "0x1b4"` })
const integerOrQuantity = (what: string) =>
  z.union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), z.string().regex(WIRE_PATTERNS.hexQuantity)], {
    error: `expected ${what} as a non-negative integer or a hex string like "0x1b4"`,
  })

/**
 * eth_callBundle's object, as Flashbots (mev-geth) defines it: `timeout` is understood and
 * ignored (a simulation here is never cut short), `gasLimit` and `difficulty` cannot be
 * honoured, any other field is refused naming the closest known one.
 */
export const callBundleSchema = strictFields({
  txs: z
    .array(hexBytes({ format: 'expected a signed transaction as 0x hex' }), { error: 'required: an array of signed transactions as 0x hex strings' })
    .min(1, 'must hold at least one signed transaction'),
  blockNumber: quantity('a block number'),
  stateBlockNumber: z.string({ error: 'required: "latest", "pending", "earliest" or a block number as hex' }),
  timestamp: integerOrQuantity('unix seconds').optional(),
  coinbase: address({ type: 'expected a 20-byte 0x address' }).optional(),
  baseFee: integerOrQuantity('wei').optional(),
  timeout: z.number({ error: 'expected a number' }).optional(),
  gasLimit: refusedField("the simulated block has the chain's gas limit"),
  difficulty: refusedField("a post-merge block has no difficulty (its prevrandao is Anvil's)"),
})
