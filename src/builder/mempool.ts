import { parseTransaction, recoverTransactionAddress, type Address, type Hash, type Hex } from 'viem'
import { txHash } from '../bundle/hash.js'

export interface MempoolTx {
  raw: Hex
  hash: Hash
  sender: Address
  nonce: number
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
  sequence: number
}

/** Why a raw tx was refused at `eth_sendRawTransaction`; the message names the problem. */
export class MempoolRejection extends Error {}

/**
 * The public mempool the builder draws from: txs sent with `eth_sendRawTransaction` to the
 * submission RPC. They stay here, out of Anvil's pool, until a block includes them.
 */
export class PublicMempool {
  private readonly txs = new Map<Hash, MempoolTx>()
  private sequence = 0

  constructor(private readonly chainId: number) {}

  get size(): number {
    return this.txs.size
  }

  /** Decodes, checks chain id, signature and nonce; returns the tx hash. */
  async add(raw: Hex, chainNonce: (sender: Address) => Promise<number>): Promise<Hash> {
    let tx: ReturnType<typeof parseTransaction>
    try {
      tx = parseTransaction(raw)
    } catch (error) {
      throw new MempoolRejection(`params[0]: undecodable transaction (${((error as Error).message ?? '').split('\n')[0]})`)
    }
    if (tx.chainId !== undefined && tx.chainId !== this.chainId) {
      throw new MempoolRejection(`params[0]: wrong chain id ${tx.chainId}, expected ${this.chainId}`)
    }
    const hash = txHash(raw)
    if (this.txs.has(hash)) throw new MempoolRejection(`already known: ${hash}`)
    let sender: Address
    try {
      sender = (await recoverTransactionAddress({ serializedTransaction: raw as never })).toLowerCase() as Address
    } catch (error) {
      throw new MempoolRejection(`params[0]: bad signature (${((error as Error).message ?? '').split('\n')[0]})`)
    }
    const nonce = tx.nonce ?? 0
    const next = await chainNonce(sender)
    if (nonce < next) throw new MempoolRejection(`nonce too low: ${sender} has next nonce ${next}, tx has ${nonce}`)
    const gasPrice = 'gasPrice' in tx ? tx.gasPrice : undefined
    this.txs.set(hash, {
      raw,
      hash,
      sender,
      nonce,
      maxFeePerGas: tx.maxFeePerGas ?? gasPrice ?? 0n,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? gasPrice ?? 0n,
      sequence: this.sequence++,
    })
    return hash
  }

  /**
   * Pending txs by priority fee (highest first, arrival breaks ties), each sender's txs kept
   * in nonce order by giving them its best positions in turn.
   */
  ordered(baseFee: bigint): MempoolTx[] {
    const tip = (tx: MempoolTx) => {
      const headroom = tx.maxFeePerGas - baseFee
      return headroom < tx.maxPriorityFeePerGas ? headroom : tx.maxPriorityFeePerGas
    }
    const byFee = [...this.txs.values()].sort((a, b) => {
      const diff = tip(b) - tip(a)
      return diff > 0n ? 1 : diff < 0n ? -1 : a.sequence - b.sequence
    })
    const bySender = new Map<Address, MempoolTx[]>()
    for (const tx of byFee) bySender.set(tx.sender, [...(bySender.get(tx.sender) ?? []), tx])
    for (const txs of bySender.values()) txs.sort((a, b) => a.nonce - b.nonce)
    return byFee.map((tx) => bySender.get(tx.sender)!.shift()!)
  }

  remove(hashes: Iterable<Hash>): void {
    for (const hash of hashes) this.txs.delete(hash)
  }
}
