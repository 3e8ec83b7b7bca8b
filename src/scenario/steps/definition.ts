import type { z } from 'zod'
import type { AbiParameter } from 'viem'
import type { RunContext } from '../core/context.js'
import type { ScenarioFailure } from '../core/errors.js'
import type { TxTemplate } from '../core/settings.js'
import type { Path } from '../core/sourceMap.js'

/**
 * Every step kind, in the order messages list them. A kind is the step's one key in the file
 * (`- submit: { … }`); each has its definition in `steps/<kind>.ts`, registered in
 * `steps/index.ts` (the compiler refuses a registry that misses one of these) and a row in
 * docs/scenarios.md's step table (test/scenarioSteps.test.ts checks both).
 */
export const STEP_KINDS = [
  'submit',
  'boost',
  'submitEndOfBlock',
  'bottomOfBlock',
  'sendPrivateTx',
  'sendBlobs',
  'cancelPrivateTx',
  'mevSendBundle',
  'cancel',
  'sendTx',
  'replayBlock',
  'advance',
  'timeInSlot',
  'competitorBid',
  'movePrice',
  'callBundle',
  'expect',
] as const
/** A step's kind: its key in the file. */
export type StepKind = (typeof STEP_KINDS)[number]

/**
 * The names a step refers to, checked against the scenario before anything runs (the
 * scenario's `checkReferences` implements it). Each check reports its problem at `path`.
 */
export interface ReferenceCheck {
  /** A problem of the step's own (e.g. a blob step naming a template that has no blobs). */
  issue(path: Path, message: string): void
  /** An account, a contract, `builder` or a 0x address; nothing written is fine. */
  address(ref: string | undefined, path: Path): void
  /** A template's name; answers the template when it is one. */
  template(ref: string, path: Path): TxTemplate | undefined
  /** A tx list entry: a template whose tx can be signed, or a raw signed tx as 0x hex. */
  txOrRaw(ref: string, path: Path): void
  /** A hash list entry: a template, or a 32-byte 0x hash; null or nothing is fine. */
  txOrHash(ref: string | null | undefined, path: Path): void
  /** A bundle id an earlier step named with `as`. */
  bundle(id: string, path: Path): void
  /** A bundle id this step names (`as`): new, and known to the steps after it. */
  newBundleId(id: string | undefined, path: Path): void
  /** A builder of the scenario's `builders:`; null or nothing is fine. */
  builderName(name: string | null | undefined, path: Path): void
  /** A value for an ABI parameter (an event's argument), encoded once to find a bad one. */
  abiValue(param: AbiParameter, value: unknown, path: Path): void
}

/**
 * One step kind: its key, the schema of its value, the names that value refers to, and what
 * running it does. `K` is its kind and `S` its schema: `references` and `execute` receive the
 * value as `S` parses it. `at` is the step's path in the file (`['steps', i, kind]`), for
 * locating what they report.
 */
export interface StepDefinition<K extends StepKind, S extends z.ZodType> {
  kind: K
  schema: S
  /** Checks every name the value uses (absent: it uses none). */
  references?: (value: z.output<S>, check: ReferenceCheck, at: Path) => void
  /**
   * Runs the step through the service's public RPC only: answers the expectations that
   * failed; throws when the step cannot run (the runner reports it as a StepFailed).
   */
  execute: (context: RunContext, value: z.output<S>, at: Path) => Promise<ScenarioFailure[]>
}

/** A step definition, its kind and schema inferred: `defineStep({ kind: 'advance', schema, execute })`. */
export function defineStep<K extends StepKind, S extends z.ZodType>(definition: StepDefinition<K, S>): StepDefinition<K, S> {
  return definition
}
