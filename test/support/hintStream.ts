import http from 'node:http'
import type { MevShareHint } from '../../src/mevshare/hint.js'

/** A raw reader of the hint stream: the bytes as sent, and the `data:` events parsed as they arrive. */
export interface RawHintStream {
  status: number
  contentType: string | undefined
  /** Everything received so far, byte for byte. */
  text(): string
  events: MevShareHint[]
  /** Resolves with the n-th event (0-based) once it arrived; rejects after `timeoutMs`. */
  event(n: number, timeoutMs?: number): Promise<MevShareHint>
  /** Resolves once the received text matches. */
  until(pattern: RegExp, timeoutMs?: number): Promise<void>
  close(): void
}

/** Opens the stream with plain `http.get` (no EventSource), as `curl` would. */
export function openHintStream(url: string): Promise<RawHintStream> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, (res) => {
      res.setEncoding('utf8')
      let text = ''
      let pending = ''
      const events: MevShareHint[] = []
      const waiters = new Set<() => void>()
      res.on('data', (chunk: string) => {
        text += chunk
        pending += chunk
        let end: number
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const message = pending.slice(0, end)
          pending = pending.slice(end + 2)
          const data = message.split('\n').filter((line) => line.startsWith('data: '))
          if (data.length > 0) events.push(JSON.parse(data.map((line) => line.slice(6)).join('\n')))
        }
        for (const wake of [...waiters]) wake()
      })
      const wait = (ready: () => boolean, what: string, timeoutMs: number) =>
        new Promise<void>((done, fail) => {
          if (ready()) return done()
          const timer = setTimeout(() => {
            waiters.delete(check)
            fail(new Error(`hint stream: timed out after ${timeoutMs} ms waiting for ${what}; received so far:\n${text}`))
          }, timeoutMs)
          const check = () => {
            if (!ready()) return
            clearTimeout(timer)
            waiters.delete(check)
            done()
          }
          waiters.add(check)
        })
      resolve({
        status: res.statusCode ?? 0,
        contentType: res.headers['content-type'],
        text: () => text,
        events,
        event: async (n, timeoutMs = 10_000) => {
          await wait(() => events.length > n, `event #${n}`, timeoutMs)
          return events[n]!
        },
        until: (pattern, timeoutMs = 10_000) => wait(() => pattern.test(text), String(pattern), timeoutMs),
        close: () => request.destroy(),
      })
    })
    request.on('error', reject)
  })
}
