import http from 'node:http'
import { HttpRequestError, RpcRequestError, TimeoutError, createTransport, stringify, type Transport } from 'viem'

/** Idle keep-alive sockets are closed well before Anvil's own idle timeout (30 s) could race a request. */
const IDLE_SOCKET_MS = 4_000

/**
 * A viem transport to a local node over `node:http` with a keep-alive agent. The builder
 * makes ~10 sequential RPCs per simulation; through `fetch` and viem's `http` transport each
 * costs ~0.7 ms of client overhead on loopback, through this ~0.2 ms (`npm run bench`).
 * Failures are the errors viem's `http` transport throws: `RpcRequestError` for a JSON-RPC
 * error answer, `TimeoutError` after `timeoutMs` (the request is aborted), `HttpRequestError`
 * for a refused connection or a non-JSON answer.
 */
export function keepAliveTransport(url: string, timeoutMs: number): Transport<'http'> {
  const target = new URL(url)
  const agent = new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS })
  let nextId = 1

  // A JSON-RPC result is whatever the method returns: viem types it per method.
  const post = (body: { method: string; params?: unknown }): Promise<any> =>
    new Promise((resolve, reject) => {
      const payload = stringify({ jsonrpc: '2.0', id: nextId++, ...body })
      const request = http.request(
        {
          hostname: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('error', (error) => fail(new HttpRequestError({ body, cause: error, url })))
          response.on('end', () => {
            clearTimeout(timer)
            const text = Buffer.concat(chunks).toString('utf8')
            let data: { result?: unknown; error?: { code: number; message: string } }
            try {
              data = JSON.parse(text)
            } catch {
              return reject(new HttpRequestError({ body, details: text || response.statusMessage, status: response.statusCode, url }))
            }
            if (data.error && typeof data.error.code === 'number') return reject(new RpcRequestError({ body, error: data.error, status: response.statusCode, url }))
            if ((response.statusCode ?? 0) >= 300) return reject(new HttpRequestError({ body, details: text, status: response.statusCode, url }))
            resolve(data.result)
          })
        },
      )
      const fail = (error: Error) => {
        clearTimeout(timer)
        request.destroy()
        reject(error)
      }
      const timer = setTimeout(() => fail(new TimeoutError({ body, url })), timeoutMs)
      request.on('error', (error) => fail(new HttpRequestError({ body, cause: error, url })))
      request.end(payload)
    })

  const transport = () =>
    createTransport(
      {
        key: 'http',
        name: 'Keep-alive HTTP JSON-RPC',
        request: ({ method, params }) => post({ method, params }),
        retryCount: 0,
        timeout: timeoutMs,
        type: 'http',
      },
      { url, fetchOptions: undefined },
    )
  return transport as unknown as Transport<'http'>
}
