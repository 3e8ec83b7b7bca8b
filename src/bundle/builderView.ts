import type { BundleTrace } from './trace.js'

/**
 * A trace as one builder knows it, for the stats methods of that builder's own URL: its own
 * state, error and kind once a slot routed the bundle (`trace.builders`), the trace as it is
 * while it waits (if it may reach that builder), and null when that builder never saw it —
 * a real builder knows nothing of a bundle sent only to others.
 *
 * @example builderViewOf(trace, 'titan')?.state // 'Submitted' while beaver's block landed it
 */
export function builderViewOf(trace: BundleTrace, name: string): BundleTrace | null {
  if (trace.builders) {
    const view = trace.builders.find((v) => v.name === name)
    return view ? { ...trace, state: view.state, error: view.error, errorKind: view.errorKind, builders: [view] } : null
  }
  if (trace.bundle.sentTo && !trace.bundle.sentTo.includes(name)) return null
  return trace
}
