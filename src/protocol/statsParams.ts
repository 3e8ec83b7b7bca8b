import { z } from 'zod'
import { hash32 } from './wireRules.js'
import { strictFields } from './strictFields.js'
import { normalizeHash } from './normalize.js'
import { blockNumberParam } from './privateTxParams.js'

const hash = hash32({ type: 'expected a 32-byte 0x hex bundle hash', format: 'expected a 32-byte 0x hex bundle hash' })
/** svc_getBundleStats' object: `bundle_hash` (the spec's), `bundleHash` accepted too; read as the one hash. */
export const statsParams = strictFields({ bundle_hash: hash.optional(), bundleHash: hash.optional() }).transform((p, ctx) => {
  const bundleHash = p.bundle_hash ?? p.bundleHash
  if (bundleHash === undefined) {
    ctx.addIssue({ code: 'custom', message: 'required: the hash returned at submission', path: ['bundle_hash'] })
    return z.NEVER
  }
  return bundleHash
})

/** quasar_getBundleStats' object (snake_case, as Quasar's docs show it). */
export const quasarParams = strictFields({ bundle_hash: hash })

/** titan_getBundleStats' object. */
export const titanParams = strictFields({ bundleHash: hash })

/** flashbots_getBundleStatsV2's object. */
export const bundleStatsV2Params = strictFields({
  bundleHash: hash32({ type: 'required: the bundle hash (or a private tx hash) returned at submission' }).transform((h) => normalizeHash(h)),
  blockNumber: blockNumberParam,
})
/** flashbots_getUserStatsV2's object. */
export const userStatsV2Params = strictFields({ blockNumber: blockNumberParam })

