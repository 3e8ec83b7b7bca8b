/** Bundle states in the order of the flow through the builder (docs/how-the-builder-works.md). */
export const BUNDLE_STATES = [
  'Received',
  'Invalid',
  'SimulationFail',
  'SimulationPass',
  'ExcludedFromBlock',
  'IncludedInBlock',
  'Submitted',
  'Landed',
] as const
export type BundleState = (typeof BUNDLE_STATES)[number]

/** How a state's name is written in stats answers (`--status-case`): `landed` or `Landed`. */
export type StatusCase = 'lower' | 'pascal'
