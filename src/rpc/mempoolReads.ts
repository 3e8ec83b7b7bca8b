import type { JSONRPCServer } from 'json-rpc-2.0'
import { getAddress, hexToBigInt, numberToHex, type Address, type Hash, type Hex } from 'viem'
import { nextBaseFee } from '../chain/baseFee.js'
import type { PublicMempool, MempoolTx } from '../mempool/publicMempool.js'
import type { CanonicalRead } from '../view/chainFeed.js'
import { toPendingRpcTransaction } from '../view/rpcTransaction.js'
import { address } from '../protocol/wireRules.js'
import { invalidParams } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'
import { normalizeAddress } from '../protocol/normalize.js'

export interface MempoolReadsDeps {
  mempool: PublicMempool
  /** Reads the canonical chain (Anvil between slots). */
  read: CanonicalRead
  /** The timestamp the next block will get. */
  nextBlockTimestamp(): bigint
}

/** A sender's pool txs split as a node splits them: `pending` follow the chain's nonce without a gap, `queued` wait behind one. */
interface SenderPool {
  pending: MempoolTx[]
  queued: MempoolTx[]
}

const addressParam = address()

/**
 * The public mempool read as a node's pending state: `eth_getTransactionCount` with
 * `pending`, `eth_fillTransaction`'s nonce, `eth_getTransactionByHash` of a pending tx (`blockNumber` null), the `pending`
 * block, and geth's `txpool_content`, `txpool_contentFrom`, `txpool_status`, `txpool_inspect`.
 * Everything else (and other block tags) reads the canonical chain. Bundles and private txs
 * are not in this pool, so nothing here shows them.
 */
export function registerMempoolReads(rpc: JSONRPCServer<RequestContext>, deps: MempoolReadsDeps): void {
  const { mempool, read } = deps
  const chainNonce = async (sender: Address) => Number(hexToBigInt((await read('eth_getTransactionCount', [sender, 'latest'])) as Hex))
  const pools = async (): Promise<Map<Address, SenderPool>> => {
    // One nonce read per sender, all in flight at once.
    const senders = [...mempool.bySender()]
    const nonces = await Promise.all(senders.map(([sender]) => chainNonce(sender)))
    return new Map(senders.map(([sender, txs], i) => [sender, splitPool(txs, nonces[i]!)]))
  }

  registerMethod(rpc, 'eth_getTransactionCount', async (params) => {
    const [account, tag] = params
    if (tag !== 'pending') return read('eth_getTransactionCount', [...params])
    const parsed = addressParam.safeParse(account)
    if (!parsed.success) throw invalidParams(`params[0]: ${parsed.error.issues[0]!.message}`)
    const sender = normalizeAddress(parsed.data)
    return numberToHex(mempool.pendingNonce(sender, await chainNonce(sender)))
  })

  // viem fills txs with the node (geth's eth_fillTransaction): Anvil would fill the nonce from
  // the chain alone, so a tx sent right after another would reuse its nonce.
  registerMethod(rpc, 'eth_fillTransaction', async (params) => {
    const [request, ...rest] = params
    const from = request !== null && typeof request === 'object' ? (request as { from?: unknown; nonce?: unknown }).from : undefined
    if (typeof from !== 'string' || !addressParam.safeParse(from).success || (request as { nonce?: unknown }).nonce !== undefined) {
      return read('eth_fillTransaction', [...params])
    }
    const sender = normalizeAddress(from)
    const nonce = mempool.pendingNonce(sender, await chainNonce(sender))
    return read('eth_fillTransaction', [{ ...(request as object), nonce: numberToHex(nonce) }, ...rest])
  })

  registerMethod(rpc, 'eth_getTransactionByHash', async (params) => {
    const [hash] = params
    const pending = typeof hash === 'string' ? mempool.get(hash as Hash) : undefined
    return pending ? rpcTxOf(pending) : read('eth_getTransactionByHash', [...params])
  })

  registerMethod(rpc, 'eth_getBlockByNumber', async (params) => {
    const [tag, full] = params
    if (tag !== 'pending') return read('eth_getBlockByNumber', [...params])
    const latest = (await read('eth_getBlockByNumber', ['latest', false])) as Record<string, Hex>
    const txs = [...(await pools()).values()].flatMap((pool) => pool.pending).sort((a, b) => a.sequence - b.sequence)
    const baseFee = nextBaseFee({ baseFeePerGas: hexToBigInt(latest.baseFeePerGas ?? '0x0'), gasUsed: hexToBigInt(latest.gasUsed!), gasLimit: hexToBigInt(latest.gasLimit!) })
    // geth's pending block: the next number on the head, no hash, nonce or miner yet.
    return {
      ...latest,
      number: numberToHex(hexToBigInt(latest.number!) + 1n),
      hash: null,
      nonce: null,
      miner: null,
      parentHash: latest.hash,
      timestamp: numberToHex(deps.nextBlockTimestamp()),
      baseFeePerGas: numberToHex(baseFee),
      gasUsed: numberToHex(txs.reduce((sum, tx) => sum + tx.gas, 0n)),
      transactions: full === true ? txs.map(rpcTxOf) : txs.map((tx) => tx.hash),
      uncles: [],
    }
  })

  const byAddress = <T>(pools: Map<Address, SenderPool>, part: keyof SenderPool, format: (tx: MempoolTx) => T) => {
    const out: Record<string, Record<string, T>> = {}
    for (const [sender, pool] of pools) {
      if (pool[part].length === 0) continue
      out[getAddress(sender)] = Object.fromEntries(pool[part].map((tx) => [String(tx.nonce), format(tx)]))
    }
    return out
  }
  registerMethod(rpc, 'txpool_content', async () => {
    const all = await pools()
    return { pending: byAddress(all, 'pending', rpcTxOf), queued: byAddress(all, 'queued', rpcTxOf) }
  })
  registerMethod(rpc, 'txpool_contentFrom', async ([address]) => {
    const sender = normalizeAddress(address)
    const txs = mempool.bySender().get(sender) ?? []
    const pool = splitPool(txs, await chainNonce(sender))
    const inNonceOrder = (part: MempoolTx[]) => Object.fromEntries(part.map((tx) => [String(tx.nonce), rpcTxOf(tx)]))
    return { pending: inNonceOrder(pool.pending), queued: inNonceOrder(pool.queued) }
  })
  registerMethod(rpc, 'txpool_status', async () => {
    let pending = 0
    let queued = 0
    for (const pool of (await pools()).values()) {
      pending += pool.pending.length
      queued += pool.queued.length
    }
    return { pending: numberToHex(pending), queued: numberToHex(queued) }
  })
  registerMethod(rpc, 'txpool_inspect', async () => {
    const all = await pools()
    return { pending: byAddress(all, 'pending', summaryOf), queued: byAddress(all, 'queued', summaryOf) }
  })
}

function splitPool(txs: readonly MempoolTx[], chainNonce: number): SenderPool {
  const pool: SenderPool = { pending: [], queued: [] }
  let next = chainNonce
  for (const tx of txs) {
    if (tx.nonce === next) {
      pool.pending.push(tx)
      next++
    } else pool.queued.push(tx)
  }
  return pool
}

function rpcTxOf(tx: MempoolTx) {
  return toPendingRpcTransaction(tx.raw, tx.hash, tx.sender)
}

/** geth's one-line summary: `0xTo: 1 wei + 21000 gas × 10000000000 wei`. */
function summaryOf(tx: MempoolTx): string {
  return `${tx.to ? getAddress(tx.to) : 'contract creation'}: ${tx.value} wei + ${tx.gas} gas × ${tx.maxFeePerGas} wei`
}
