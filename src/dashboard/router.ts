import express, { type Request, type Response } from 'express'
import type { SlotReport } from '../protocol/slotReport.js'
import { assetBody } from './assets.js'
import { LiveEvents } from './liveEvents.js'
import { dashboardHtml } from './page.js'
import { reportHtml } from './reportPage.js'
import { reportData } from './staticReport.js'
import { DashboardQueries, type DashboardData } from './queries.js'
import { SlotLog } from './slotLog.js'
import { normalizeHash } from '../protocol/normalize.js'

export interface DashboardOptions extends Omit<DashboardData, 'slots'> {
  /** Calls `listener` after every slot (its block on chain, its traces final). */
  onSlot(listener: (report: SlotReport) => void): void
}

export interface Dashboard {
  /** `GET /` (the page), `/assets/…`, `/api/…`, `/api/events` (SSE) and `/report.html`; anything else falls through. */
  router: express.Router
  queries: DashboardQueries
  /** Ends the open event streams. */
  close(): void
}

const HASH = /^0x[0-9a-fA-F]{64}$/
const NO_MARKET = 'no market in this run: start with --world dex --flow default'

/** The live dashboard: read-only, GET only, what the public methods tell plus disclosed bundles. */
export function createDashboard(options: DashboardOptions): Dashboard {
  const slots = new SlotLog()
  const queries = new DashboardQueries({ ...options, slots })
  const live = new LiveEvents()
  options.onSlot((report) => {
    slots.add(report)
    queries.slotRan()
    live.send('slot', { blockNumber: report.blockNumber, won: report.won })
  })

  const router = express.Router()
  const html = dashboardHtml()
  router.get('/', (_req, res) => {
    res.type('html').set('cache-control', 'no-store').send(html)
  })
  router.get('/assets/:name', (req, res, next) => {
    const asset = assetBody(String(req.params.name))
    if (!asset) return next()
    res.type(asset.type).set('cache-control', 'no-cache').send(asset.body)
  })
  // The whole view as one self-contained HTML file (what `bundlesim run --report` saves).
  router.get('/report.html', async (_req, res) => {
    res.type('html').set('cache-control', 'no-store').send(reportHtml(await reportData(queries), 'bundlesim report'))
  })
  router.get('/api/events', (_req, res) => live.attach(res))
  router.get('/api/slots', (req, res) => {
    res.json(queries.slots(clamp(intParam(req, 'limit') ?? 50, 1, 500), intParam(req, 'before')))
  })
  router.get('/api/bundles', (req, res) => {
    const block = intParam(req, 'slot')
    if (block === undefined) return badRequest(res, 'slot=<block number> is required')
    res.json(queries.bundles(block, intParam(req, 'page') ?? 0, typeof req.query.state === 'string' ? req.query.state : undefined))
  })
  router.get('/api/bundle/:hash', async (req, res) => {
    const hash = String(req.params.hash)
    if (!HASH.test(hash)) return badRequest(res, 'a bundle hash is 0x and 64 hex digits')
    try {
      const page = await queries.bundle(normalizeHash(hash))
      res.status(page.shown ? 200 : 404).json(page)
    } catch (error) {
      res.status(503).json({ error: `the chain could not be read: ${(error as Error).message}` })
    }
  })
  router.get('/api/competition', (_req, res) => {
    const view = queries.competition()
    if (!view) return res.status(404).json({ error: NO_MARKET })
    res.json(view)
  })
  router.get('/api/competition/opportunities', (req, res) => {
    const page = queries.opportunities(intParam(req, 'page') ?? 0)
    if (!page) return res.status(404).json({ error: NO_MARKET })
    res.json(page)
  })
  router.get('/api/search', (req, res) => {
    res.json(queries.search(typeof req.query.q === 'string' ? req.query.q : ''))
  })
  return { router, queries, close: () => live.close() }
}

function intParam(req: Request, name: string): number | undefined {
  const value = req.query[name]
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value))
}

function badRequest(res: Response, message: string): void {
  res.status(400).json({ error: message })
}
