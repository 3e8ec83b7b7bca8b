/**
 * How busy the HTTP servers are: requests in flight and when the last one ended. Background
 * work (the deferred sender checks) asks it whether it may use the CPU now.
 *
 * @example
 * const activity = new RequestActivity()
 * createRpcApp(rpc, { ...options, activity })
 * activity.quietForMs() // 0 while a request is being answered
 */
export class RequestActivity {
  private inFlight = 0
  private lastSeenAt = 0

  /** Counts one request from now until its response is finished or its connection closes. */
  begin(response: { once(event: 'close', listener: () => void): unknown }): void {
    response.once('close', this.start())
  }

  /** Counts one request (e.g. a WebSocket message) from now until the returned function is called. */
  start(): () => void {
    this.inFlight++
    this.lastSeenAt = performance.now()
    let ended = false
    return () => {
      if (ended) return
      ended = true
      this.inFlight--
      this.lastSeenAt = performance.now()
    }
  }

  /** Milliseconds since a request last began or ended, or 0 while one is in flight. */
  quietForMs(): number {
    return this.inFlight > 0 ? 0 : performance.now() - this.lastSeenAt
  }
}
