import http from 'node:http'
import { numberToHex, type Address, type Hex } from 'viem'
import type { TouchedState } from './stateSnapshot.js'
import { WIRE_PATTERNS } from '../protocol/wireRules.js'
import { normalizeAddress } from '../protocol/normalize.js'

/**
 * Anvil's ten dev accounts (mnemonic `test test … junk`). A fork reads them from the remote
 * at start and then overwrites them with 10,000 ETH each — as a fresh Anvil has them — so
 * their remote state never matters and is not recorded.
 */
export const ANVIL_DEV_ACCOUNTS: ReadonlySet<Address> = new Set([
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
  '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
  '0x976ea74026e726554db657fa54763abd0c3a0aa9',
  '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
  '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
  '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
])

/** Requests by which a fork loads an account (address first), and the one for a storage slot. */
const ACCOUNT_METHODS = new Set(['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getAccountInfo', 'eth_getProof'])
const STORAGE_METHOD = 'eth_getStorageAt'

/** Adds an account (and a slot, 32-byte hex) to a touched set. */
export function touch(touched: TouchedState, address: string, slot?: string): void {
  const key = normalizeAddress(address)
  const slots = touched.get(key) ?? new Set<Hex>()
  touched.set(key, slots)
  if (slot !== undefined) slots.add(numberToHex(BigInt(slot), { size: 32 }))
}

/**
 * A JSON-RPC proxy between a forking Anvil and its remote that records every account and
 * storage slot Anvil fetches — exactly the state the fork touched, simulations and reverted
 * blocks included. Anvil's own `anvil_dumpState` of a fork holds none of it (see
 * stateSnapshot.ts). The proxy must be the only way to the remote, so Anvil's on-disk fork
 * cache is off for it (it is a loopback URL: launchAnvil turns the cache off for those).
 */
export class ForkRecorder {
  readonly touched: TouchedState = new Map()

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(remoteUrl: string): Promise<ForkRecorder> {
    let recorder: ForkRecorder | undefined
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', async () => {
        const body = Buffer.concat(chunks)
        recorder?.record(body)
        try {
          const answer = await fetch(remoteUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
          res.end(Buffer.from(await answer.arrayBuffer()))
        } catch (error) {
          res.writeHead(502, { 'content-type': 'text/plain' }).end(`fork recorder: the remote did not answer: ${(error as Error).message}`)
        }
      })
    })
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()))
    const { port } = server.address() as { port: number }
    recorder = new ForkRecorder(server, `http://127.0.0.1:${port}`)
    return recorder
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
  }

  private record(body: Buffer): void {
    let parsed: unknown
    try {
      parsed = JSON.parse(body.toString('utf8'))
    } catch {
      return
    }
    for (const request of [parsed].flat() as Array<{ method?: string; params?: unknown[] }>) {
      const [address, slot] = Array.isArray(request?.params) ? request.params : []
      if (typeof address !== 'string' || !WIRE_PATTERNS.address.test(address) || ANVIL_DEV_ACCOUNTS.has(normalizeAddress(address))) continue
      if (request.method === STORAGE_METHOD && typeof slot === 'string') touch(this.touched, address, slot)
      else if (ACCOUNT_METHODS.has(request.method ?? '')) touch(this.touched, address)
    }
  }
}
