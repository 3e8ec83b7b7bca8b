import WebSocket from 'ws'

/** One `eth_subscribe` client and what it received. */
export interface SubscriberTally {
  kind: 'newHeads' | 'newPendingTransactions'
  messages: number
  reconnects: number
  /** performance.now() of the last notification. */
  lastAt: number
}

/**
 * WebSocket subscribers on the submission port (`newHeads`, `newPendingTransactions`), as a
 * bot keeps them open for hours: each reconnects and subscribes again if its socket closes.
 *
 * @example
 * const subs = startSubscribers('ws://127.0.0.1:8545/', ['newHeads'])
 * await subs.stop()
 */
export function startSubscribers(wsUrl: string, kinds: ReadonlyArray<SubscriberTally['kind']>): { tallies: SubscriberTally[]; stop(): Promise<void> } {
  let stopping = false
  const sockets = new Set<WebSocket>()
  const tallies = kinds.map((kind) => ({ kind, messages: 0, reconnects: -1, lastAt: 0 }))
  const open = (tally: SubscriberTally) => {
    if (stopping) return
    tally.reconnects++
    const socket = new WebSocket(wsUrl)
    sockets.add(socket)
    socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: [tally.kind] })))
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { method?: string }).method !== 'eth_subscription') return
      tally.messages++
      tally.lastAt = performance.now()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      sockets.delete(socket)
      setTimeout(() => open(tally), 500)
    })
  }
  tallies.forEach(open)
  return {
    tallies,
    async stop() {
      stopping = true
      await Promise.all([...sockets].map((s) => new Promise<void>((resolve) => (s.once('close', () => resolve()), s.close()))))
    },
  }
}
