import { z } from 'zod'
import { address, decimalWei, hexBytes } from './wireRules.js'
import { strictFields } from './strictFields.js'
import { normalizeAddress } from './normalize.js'

export const advanceParams = strictFields({
  slots: z.number({ error: 'expected an integer from 1 to 1000' }).int('expected an integer from 1 to 1000').min(1, 'expected an integer from 1 to 1000').max(1000, 'expected an integer from 1 to 1000').default(1),
})
export const competitorBidParams = strictFields({
  bidWei: z.union([decimalWei({ format: 'expected a decimal string of wei, or null' }), z.null()], {
    error: 'expected a decimal string of wei, or null',
  }),
})
export const setBalanceParams = strictFields({
  address: address({ type: 'required: a 20-byte 0x address' }),
  wei: decimalWei({ type: 'required: a decimal string of wei' }),
})
const weiParam = (what: string) => decimalWei({ type: `expected ${what} as a decimal string`, format: `expected ${what} as a decimal string` }).transform(BigInt)
export const impersonatedParams = strictFields({
  from: address({ type: 'required: a 20-byte 0x address' }),
  to: address().optional(),
  value: weiParam('wei').optional(),
  data: hexBytes().optional(),
  gas: weiParam('gas').optional(),
  maxFeePerGas: weiParam('wei').optional(),
  maxPriorityFeePerGas: weiParam('wei').optional(),
})
export const timeInSlotParams = strictFields({ ms: z.number({ error: 'required: ms into the slot, an integer' }).int('expected an integer number of ms') })

const block = z.number({ error: 'expected a block number' }).int('expected a whole block number').min(0, 'expected a block number ≥ 0')
/** harness_getCompetition's optional range. */
export const competitionParams = strictFields({ fromBlock: block.optional(), toBlock: block.optional() })
/** harness_nameSearcher's object. */
export const nameSearcherParams = strictFields({
  name: z.string({ error: 'expected a name (a string)' }).trim().min(1, 'expected a non-empty name').max(64, 'expected a name of at most 64 characters'),
  addresses: z.array(address().transform((a) => normalizeAddress(a)), { error: 'expected an array of addresses' }).min(1, 'expected at least one address').max(64, 'expected at most 64 addresses'),
})

/** harness_movePrice's object: an exchange asset and the move in percent. */
export const movePriceParams = strictFields({
  asset: z.string({ error: 'required: an exchange asset (e.g. ETH)' }).regex(/^[A-Z0-9]{2,10}$/, 'expected an asset as the exchange spells it, e.g. ETH'),
  pct: z.number({ error: 'required: the move in percent, e.g. -5' }).gt(-100, 'expected a move above -100 %').max(1000, 'expected a move of at most 1000 %'),
})

/** harness_setTokenBalance's object: the amount in token units. */
export const setTokenBalanceParams = strictFields({
  address: address({ type: 'required: the 20-byte 0x address to fund' }),
  token: z.string({ error: 'required: a token symbol of the world (e.g. USDC) or its address' }),
  amount: z
    .union([z.string(), z.number()], { error: 'required: the balance in token units, e.g. "1000.5"' })
    .transform((v) => String(v))
    .refine((v) => /^\d+(\.\d+)?$/.test(v), { error: 'expected the balance in token units as a plain decimal, e.g. "1000.5"' }),
})
