import express from 'express'
import type { HintHistory } from './hintHistory.js'
import type { HintStream } from './hintStream.js'
import { historyHandler } from './historyRoutes.js'

/**
 * The MEV-Share port, read-only, as the official client reads Flashbots' (`streamUrl`):
 * `GET /` the event stream, `GET /api/v1/history/info` and `GET /api/v1/history`.
 *
 * @example await listen(mevShareApp(stream, history), '127.0.0.1', 8647)
 */
export function mevShareApp(stream: HintStream, history: HintHistory): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.get('/', (_req, res) => stream.attach(res))
  app.get('/api/v1/history/info', (_req, res) => {
    res.json(history.info())
  })
  app.get('/api/v1/history', historyHandler(history))
  app.use((req, res) => {
    res.status(404).json({ error: `${req.method} ${req.path}: not found (the hint stream is GET /, its history GET /api/v1/history and /api/v1/history/info)` })
  })
  return app
}
