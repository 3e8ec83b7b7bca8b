import type { Address } from 'viem'

export interface NonceRead {
  address: Address
  blockNumber: bigint
}

/** Reads nonces in one round trip; per read its nonce, or the error of that read alone. */
export type ReadNonces = (reads: readonly NonceRead[]) => Promise<Array<number | Error>>

/** Most reads in one batch. */
const MAX_BATCH = 500

/**
 * Nonce reads for the deferred sender checks, gathered into one batch per turn of the event
 * loop: the recovery worker answers hundreds of bundles at once, and one HTTP request per
 * read cost the request thread more than the rest of ingest. A read of an address at a block
 * already asked for and not yet answered shares that answer (a canonical block's nonces do
 * not change while the read is in flight).
 */
export class BatchedNonceReads {
  private readonly inFlight = new Map<string, Promise<number>>()
  private queued: Array<NonceRead & { key: string; settle: (result: number | Error) => void }> = []

  constructor(private readonly readNonces: ReadNonces) {}

  readonly read = (address: Address, blockNumber: bigint): Promise<number> => {
    const key = `${address.toLowerCase()}@${blockNumber}`
    const shared = this.inFlight.get(key)
    if (shared) return shared
    const answer = new Promise<number>((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(() => this.flush())
      this.queued.push({ address, blockNumber, key, settle: (result) => (result instanceof Error ? reject(result) : resolve(result)) })
    })
    this.inFlight.set(key, answer)
    return answer
  }

  private flush(): void {
    const queued = this.queued
    this.queued = []
    for (let i = 0; i < queued.length; i += MAX_BATCH) {
      const batch = queued.slice(i, i + MAX_BATCH)
      const settleAll = (results: Array<number | Error>) => {
        batch.forEach((read, index) => {
          this.inFlight.delete(read.key)
          read.settle(results[index] ?? new Error(`no answer for the nonce of ${read.address} at block ${read.blockNumber}`))
        })
      }
      this.readNonces(batch).then(settleAll, (error: unknown) => settleAll(batch.map(() => (error instanceof Error ? error : new Error(String(error))))))
    }
  }
}
