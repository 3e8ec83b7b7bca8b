import { performance } from 'node:perf_hooks'
import { loadScenario } from './dist/scenario/load.js'
import { harnessConfig, runLoadedScenarioOn } from './dist/scenario/runner.js'
import { startHarness } from './dist/harness/startHarness.js'
const t0 = performance.now()
const loaded = await loadScenario('scenarios/dex-win-rate.yaml')
const t1 = performance.now()
const harness = await startHarness({ ...harnessConfig(loaded), logLevel: 'info' })
const t2 = performance.now()
const r = await runLoadedScenarioOn(loaded, harness)
const t3 = performance.now()
await harness.stop()
console.log({ load: t1 - t0, start: t2 - t1, run: t3 - t2, status: r.status, steps: r.steps.map((s) => s.durationMs ?? s) })
