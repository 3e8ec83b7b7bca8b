import type { z } from 'zod'
import { JsonRpcError } from '../../protocol/jsonRpcError.js'
import { locate, type RunContext } from '../core/context.js'
import { StepFailed, type ScenarioFailure } from '../core/errors.js'
import type { Path } from '../core/sourceMap.js'
import { advanceStep } from './advance.js'
import { boostStep } from './boost.js'
import { bottomOfBlockStep } from './bottomOfBlock.js'
import { callBundleStep } from './callBundle.js'
import { cancelStep } from './cancel.js'
import { cancelPrivateTxStep } from './cancelPrivateTx.js'
import { competitorBidStep } from './competitorBid.js'
import { movePriceStep } from './movePrice.js'
import type { ReferenceCheck, StepDefinition, StepKind } from './definition.js'
import { expectStep } from './expect.js'
import { mevSendBundleStep } from './mevSendBundle.js'
import { replayBlockStep } from './replayBlock.js'
import { sendBlobsStep } from './sendBlobs.js'
import { sendPrivateTxStep } from './sendPrivateTx.js'
import { sendTxStep } from './sendTx.js'
import { submitStep } from './submit.js'
import { submitEndOfBlockStep } from './submitEndOfBlock.js'
import { timeInSlotStep } from './timeInSlot.js'

/** Each kind's definition under its own key: exactly the kinds of STEP_KINDS, each under the key it defines. */
const DEFINITIONS = {
  submit: submitStep,
  boost: boostStep,
  submitEndOfBlock: submitEndOfBlockStep,
  bottomOfBlock: bottomOfBlockStep,
  sendPrivateTx: sendPrivateTxStep,
  sendBlobs: sendBlobsStep,
  cancelPrivateTx: cancelPrivateTxStep,
  mevSendBundle: mevSendBundleStep,
  cancel: cancelStep,
  sendTx: sendTxStep,
  replayBlock: replayBlockStep,
  advance: advanceStep,
  timeInSlot: timeInSlotStep,
  competitorBid: competitorBidStep,
  movePrice: movePriceStep,
  callBundle: callBundleStep,
  expect: expectStep,
} satisfies { [K in StepKind]: { kind: K } }

/** Each kind's value schema. */
type StepSchemas = { [K in StepKind]: (typeof DEFINITIONS)[K]['schema'] }
/** A step's value as its kind's schema parses it: `StepValue<'advance'>` is `{ slots: number }`. */
export type StepValue<K extends StepKind> = z.output<StepSchemas[K]>

/**
 * Every step kind's definition, by kind: what the step schema (`schema.ts`), the reference
 * check (`checkReferences`) and the runner (`executeStep`) dispatch through.
 */
export const STEP_DEFINITIONS: { readonly [K in StepKind]: StepDefinition<K, StepSchemas[K]> } = DEFINITIONS

/**
 * A parsed step: its kind, and that kind's value (`{ kind: 'advance', value: { slots: 2 } }`
 * for `- advance: 2`). `Step` is any kind; `Step<K>` one of the kinds `K`.
 */
export type Step<K extends StepKind = StepKind> = { [P in K]: { kind: P; value: StepValue<P> } }[K]

/** A step from its kind and value (the one place a value is tagged). */
export function taggedStep<K extends StepKind>(kind: K, value: StepValue<K>): Step<K> {
  return { kind, value }
}

/** Checks the names the `index`-th step uses (see ReferenceCheck). */
export function checkStepReferences<K extends StepKind>(step: Step<K>, index: number, check: ReferenceCheck): void {
  STEP_DEFINITIONS[step.kind].references?.(step.value, check, ['steps', index, step.kind])
}

/** Runs one step; returns failed expectations, throws StepFailed when the step cannot run. */
export async function executeStep<K extends StepKind>(context: RunContext, step: Step<K>, index: number): Promise<ScenarioFailure[]> {
  const at: Path = ['steps', index, step.kind]
  try {
    return await STEP_DEFINITIONS[step.kind].execute(context, step.value, at)
  } catch (error) {
    if (error instanceof StepFailed) throw error
    const reason = error instanceof JsonRpcError ? `${error.method} refused: ${error.code} ${error.rpcMessage}` : (error as Error).message
    throw new StepFailed(locate(context, at), step.kind, reason, error instanceof JsonRpcError ? error.data : undefined)
  }
}
