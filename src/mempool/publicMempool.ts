import type { Address, Hash, Hex } from 'viem'
import { decodeSignedTx, type DecodedTx } from '../bundle/decode.js'
import type { BundleTx } from '../bundle/types.js'
import { tipPerGas } from './tipPerGas.js'
import { problemMessage } from '../bundle/failure.js'
import { recoverSenders } from '../bundle/verifySenders.js'
import { recoverInline, type RecoverFn } from '../bundle/senderRecovery.js'

export interface MempoolTx extends DecodedTx {
  sender: Address
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

  /** `recover` does the signature recovery (the service passes its worker thread's). */
  constructor(
    private readonly chainId: number,
    private readonly recover: RecoverFn = recoverInline,
  ) {}

  get size(): number {
    return this.txs.size
  }

  /** Decodes, checks chain id, signature and nonce; returns the tx hash. */
  async add(raw: Hex, chainNonce: (sender: Address) => Promise<number>): Promise<Hash> {
    const decoded = decodeSignedTx(raw, 'params[0]', this.chainId)
    if (typeof decoded === 'string') throw new MempoolRejection(decoded)
    const tx: BundleTx = { ...decoded, index: 0 }
    if (this.txs.has(tx.hash)) throw new MempoolRejection(`already known: ${tx.hash}`)
    const [badSignature] = await recoverSenders({ txs: [tx] }, this.recover)
    if (badSignature) throw new MempoolRejection(problemMessage(badSignature, 'params[0]'))
    const sender = tx.sender!
    const next = await chainNonce(sender)
    if (tx.nonce < next) throw new MempoolRejection(`nonce too low: ${sender} has next nonce ${next}, tx has ${tx.nonce}`)
    this.txs.set(tx.hash, { ...tx, sender, sequence: this.sequence++ })
    return tx.hash
  }

  /**
   * Pending txs by priority fee (highest first, arrival breaks ties), each sender's txs kept
   * in nonce order by giving them its best positions in turn.
   */
  ordered(baseFee: bigint): MempoolTx[] {
    const tip = (tx: MempoolTx) => tipPerGas(tx, baseFee)
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

  /** Forgets every pending tx (they belong to a chain that is gone). */
  clear(): void {
    this.txs.clear()
  }
}
