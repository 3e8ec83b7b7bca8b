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
    this.inFlight++
    this.lastSeenAt = performance.now()
    response.once('close', () => {
      this.inFlight--
      this.lastSeenAt = performance.now()
    })
  }

  /** Milliseconds since a request last began or ended, or 0 while one is in flight. */
  quietForMs(): number {
    return this.inFlight > 0 ? 0 : performance.now() - this.lastSeenAt
  }
}
