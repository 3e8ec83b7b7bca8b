import type { Request, Response } from 'express'
import type { HintHistory, HintHistoryQuery } from './hintHistory.js'

const QUERY_PARAMS = ['blockStart', 'blockEnd', 'timestampStart', 'timestampEnd', 'limit', 'offset'] as const

/**
 * `GET /api/v1/history?blockStart&blockEnd&timestampStart&timestampEnd&limit&offset`: the
 * history's matching entries as JSON. A parameter that is not a non-negative integer is a 400
 * naming it.
 */
export function historyHandler(history: HintHistory) {
  return (req: Request, res: Response): void => {
    const query: HintHistoryQuery = {}
    for (const name of QUERY_PARAMS) {
      const raw = req.query[name]
      if (raw === undefined) continue
      if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
        res.status(400).json({ error: `${name}: expected a non-negative integer, got ${JSON.stringify(raw)}` })
        return
      }
      query[name] = Number(raw)
    }
    res.json(history.query(query))
  }
}
