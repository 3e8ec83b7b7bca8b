import { recordBalances } from '../core/context.js'
import { expectations } from '../core/expectationSchema.js'
import { checkExpectations } from '../core/expectations.js'
import { parseEvent } from '../core/fields.js'
import { defineStep } from './definition.js'

/**
 * `expect`: checks what happened so far (bundles' stats, balances, receipts, events, the last
 * block, the hint stream, a searcher's record); `expectations.ts` runs the checks. Balance
 * deltas `since: previous` count from here on.
 */
export const expectStep = defineStep({
  kind: 'expect',
  schema: expectations,
  references(e, check, at) {
    for (const [id, expectation] of Object.entries(e.bundles ?? {})) {
      const here = [...at, 'bundles', id]
      check.bundle(id, here)
      check.txOrHash(expectation.revertingHash, [...here, 'revertingHash'])
      if (expectation.refund) check.address(expectation.refund.recipient, [...here, 'refund', 'recipient'])
      expectation.sponsorships?.forEach((s, j) => check.txOrHash(s.tx, [...here, 'sponsorships', j, 'tx']))
      check.builderName(expectation.builder, [...here, 'builder'])
      expectation.seenBy?.forEach((name, j) => check.builderName(name, [...here, 'seenBy', j]))
    }
    for (const ref of Object.keys(e.balances ?? {})) check.address(ref, [...at, 'balances', ref])
    for (const name of Object.keys(e.receipts ?? {})) check.template(name, [...at, 'receipts', name])
    for (const [name, events] of Object.entries(e.events ?? {})) {
      check.template(name, [...at, 'events', name])
      events.forEach((event, j) => {
        check.address(event.address, [...at, 'events', name, j, 'address'])
        const inputs = parseEvent(event.event).inputs
        for (const [arg, value] of Object.entries(event.args ?? {})) {
          const param = inputs.find((input) => input.name === arg)
          if (param) check.abiValue(param, value, [...at, 'events', name, j, 'args', arg])
        }
      })
    }
    e.block?.bundles?.forEach((id, j) => check.bundle(id, [...at, 'block', 'bundles', j]))
    e.block?.txs?.forEach((name, j) => check.template(name, [...at, 'block', 'txs', j]))
    e.block?.mempoolTxs?.forEach((name, j) => check.template(name, [...at, 'block', 'mempoolTxs', j]))
    check.builderName(e.block?.winner, [...at, 'block', 'winner'])
    e.block?.relay?.bids?.forEach((name, j) => check.builderName(name, [...at, 'block', 'relay', 'bids', j]))
    check.builderName(e.block?.relay?.delivered, [...at, 'block', 'relay', 'delivered'])
    for (const [ref, refunds] of Object.entries(e.delayedRefunds ?? {})) {
      check.address(ref, [...at, 'delayedRefunds', ref])
      refunds.forEach((refund, j) => refund.bundle !== undefined && check.bundle(refund.bundle, [...at, 'delayedRefunds', ref, j, 'bundle']))
    }
    e.hintEvents?.forEach((event, j) => check.template(event.tx, [...at, 'hintEvents', j, 'tx']))
  },
  async execute(context, e, at) {
    const failures = await checkExpectations(context, e, at)
    context.balances.previous = await recordBalances(context)
    return failures
  },
})
