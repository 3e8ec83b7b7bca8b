import { z } from 'zod'
import { expecting, strict } from './core/fields.js'
import { SETTINGS_FIELDS } from './core/settings.js'
import { STEP_KINDS, type StepKind } from './steps/definition.js'
import { STEP_DEFINITIONS, taggedStep, type Step } from './steps/index.js'

/*
 * The scenario file format (docs/scenarios.md): its settings (`core/settings.ts`) and its
 * steps, each kind's schema from its definition in `steps/`.
 */

/** The step mapping as written: each kind's key, optional. */
type StepFields = { [K in StepKind]: z.ZodOptional<(typeof STEP_DEFINITIONS)[K]['schema']> }

/** The kinds a step mapping holds, each as a step. */
function stepsIn(fields: z.output<z.ZodObject<StepFields>>): Step[] {
  return STEP_KINDS.flatMap((kind): Step[] => {
    const value = fields[kind]
    return value === undefined ? [] : [taggedStep(kind, value)]
  })
}

/** A step: a mapping with exactly one kind's key, parsed into its kind and value (`Step`). */
const step = strict(
  Object.fromEntries(STEP_KINDS.map((kind) => [kind, STEP_DEFINITIONS[kind].schema.optional()])) as StepFields,
  `a step: one of ${STEP_KINDS.join(', ')}`,
).transform((fields, ctx): Step => {
  const steps = stepsIn(fields)
  const [only] = steps
  if (only && steps.length === 1) return only
  ctx.addIssue({ code: 'custom', message: `${steps.length ? `${steps.map((s) => s.kind).join(' and ')} in one step` : 'empty step'} (expected exactly one of: ${STEP_KINDS.join(', ')})` })
  return z.NEVER
})

/** A whole scenario file: settings, then at least one step. */
export const scenarioSchema = strict(
  {
    ...SETTINGS_FIELDS,
    steps: z.array(step, { error: expecting('a list of steps') }).min(1, 'expected at least one step'),
  },
  'a scenario mapping { name, accounts, txs, steps, … }',
)

/** A scenario file as parsed: its settings and its steps. */
export type Scenario = z.output<typeof scenarioSchema>
