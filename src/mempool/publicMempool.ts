import type { Address, Hash, Hex } from 'viem'
import { decodeSignedTx, type DecodedTx, type TxRules } from '../bundle/decode.js'
import type { BundleTx } from '../bundle/types.js'
import { tipPerGas } from './tipPerGas.js'
import { problemMessage } from '../bundle/failure.js'
import type { NodeRefusalKind } from '../chain/nodeRefusal.js'
import { gethTxGasCapMessage } from '../chain/txGasCap.js'
import { gasShortfall } from '../chain/intrinsicGas.js'
import { recoverSenders } from '../bundle/verifySenders.js'
import { recoverInline, type RecoverFn } from '../bundle/senderRecovery.js'
import { normalizeHash } from '../protocol/normalize.js'

export interface MempoolTx extends DecodedTx {
  sender: Address
  sequence: number
}

/** geth's price bump: a tx replacing a pending one (same sender and nonce) must raise both fee caps by this much. */
export const REPLACEMENT_BUMP_PERCENT = 10n

const bumped = (wei: bigint) => wei + (wei * REPLACEMENT_BUMP_PERCENT + 99n) / 100n

/** Whether `tx` may replace `pending` (geth's rule: both caps at least the bump above). */
function outbids(tx: Pick<MempoolTx, 'maxFeePerGas' | 'maxPriorityFeePerGas'>, pending: Pick<MempoolTx, 'maxFeePerGas' | 'maxPriorityFeePerGas'>): boolean {
  return tx.maxFeePerGas * 100n >= pending.maxFeePerGas * (100n + REPLACEMENT_BUMP_PERCENT) && tx.maxPriorityFeePerGas * 100n >= pending.maxPriorityFeePerGas * (100n + REPLACEMENT_BUMP_PERCENT)
}

/** Why the public mempool refuses a raw tx, as a stable kind (the node's kinds where they are the same refusal). */
export type MempoolRejectionKind = Extract<NodeRefusalKind, 'NonceTooLow' | 'ReplacementUnderpriced' | 'AlreadyKnown' | 'IntrinsicGasTooLow'> | 'UndecodableTx' | 'BadSignature' | 'TxGasAboveCap'

/** Why a raw tx was refused at `eth_sendRawTransaction`: `kind` for code, the message names the problem. */
export class MempoolRejection extends Error {
  constructor(
    readonly kind: MempoolRejectionKind,
    message: string,
  ) {
    super(message)
  }
}

/**
 * The public mempool the builder draws from: txs sent with `eth_sendRawTransaction` to the
 * submission RPC. They stay here, out of Anvil's pool, until a block includes them.
 */
export class PublicMempool {
  private readonly txs = new Map<Hash, MempoolTx>()
  /** `sender:nonce` → the pending tx there (one per slot, as in a node's pool). */
  private readonly bySlot = new Map<string, MempoolTx>()
  private readonly addedListeners: Array<(tx: MempoolTx) => void> = []
  private sequence = 0

  /** `recover` does the signature recovery (the service passes its worker thread's). */
  constructor(
    private readonly rules: TxRules,
    private readonly recover: RecoverFn = recoverInline,
  ) {}

  get size(): number {
    return this.txs.size
  }

  /** Decodes, checks chain id, signature and nonce; returns the tx hash. */
  async add(raw: Hex, chainNonce: (sender: Address) => Promise<number>): Promise<Hash> {
    const { maxTxGas, ...rules } = this.rules
    const decoded = decodeSignedTx(raw, 'params[0]', rules)
    if (typeof decoded === 'string') throw new MempoolRejection('UndecodableTx', decoded)
    // EIP-7825, in geth's own words (its txpool's check).
    if (maxTxGas !== undefined && decoded.gas > maxTxGas) throw new MempoolRejection('TxGasAboveCap', gethTxGasCapMessage(decoded.gas, maxTxGas))
    // A gas limit below what the tx needs before it runs: geth's txpool refuses it in these words (it could never be mined).
    const short = gasShortfall(raw)
    if (short) throw new MempoolRejection('IntrinsicGasTooLow', `${short.floor ? 'insufficient gas for floor data gas cost' : 'intrinsic gas too low'}: gas ${short.gas}, minimum needed ${short.needed}`)
    const tx: BundleTx = { ...decoded, index: 0 }
    if (this.txs.has(tx.hash)) throw new MempoolRejection('AlreadyKnown', `already known: ${tx.hash}`)
    const { senders, problems: [badSignature] } = await recoverSenders({ txs: [tx] }, this.recover)
    if (badSignature) throw new MempoolRejection('BadSignature', problemMessage(badSignature, 'params[0]'))
    const sender = senders[0]!
    const next = await chainNonce(sender)
    if (tx.nonce < next) throw new MempoolRejection('NonceTooLow', `nonce too low: ${sender} has next nonce ${next}, tx has ${tx.nonce}`)
    const replaced = this.find(sender, tx.nonce)
    if (replaced && !outbids(tx, replaced)) {
      throw new MempoolRejection(
        'ReplacementUnderpriced',
        `replacement transaction underpriced: ${replaced.hash} from ${sender} at nonce ${tx.nonce} is pending; a replacement needs both fee caps at least ${REPLACEMENT_BUMP_PERCENT}% higher (maxFeePerGas ≥ ${bumped(replaced.maxFeePerGas)}, maxPriorityFeePerGas ≥ ${bumped(replaced.maxPriorityFeePerGas)} wei)`,
      )
    }
    if (replaced) this.remove([replaced.hash])
    const added = { ...tx, sender, sequence: this.sequence++ }
    this.txs.set(tx.hash, added)
    this.bySlot.set(slotKey(sender, tx.nonce), added)
    for (const listener of this.addedListeners) listener(added)
    return tx.hash
  }

  /** Tells `listener` of every tx the pool takes from now on (the public view announces them). */
  onAdded(listener: (tx: MempoolTx) => void): void {
    this.addedListeners.push(listener)
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
    const bySender = inNonceOrderBySender(byFee)
    return byFee.map((tx) => bySender.get(tx.sender)!.shift()!)
  }

  get(hash: Hash): MempoolTx | undefined {
    return this.txs.get(normalizeHash(hash))
  }

  /** The pending tx of a sender at a nonce, if any. */
  find(sender: Address, nonce: number): MempoolTx | undefined {
    return this.bySlot.get(slotKey(sender, nonce))
  }

  /** Every pending tx of each sender, in nonce order. */
  bySender(): Map<Address, MempoolTx[]> {
    return inNonceOrderBySender(this.txs.values())
  }

  /**
   * The nonce a sender's next tx should carry, as a node's pending state says: past every
   * pool tx that follows the chain's nonce without a gap (what ethers and viem ask for).
   */
  pendingNonce(sender: Address, chainNonce: number): number {
    let next = chainNonce
    while (this.find(sender, next)) next++
    return next
  }

  remove(hashes: Iterable<Hash>): void {
    for (const hash of hashes) {
      const tx = this.txs.get(hash)
      if (!tx) continue
      this.txs.delete(hash)
      this.bySlot.delete(slotKey(tx.sender, tx.nonce))
    }
  }

  /** Forgets every pending tx (they belong to a chain that is gone). */
  clear(): void {
    this.txs.clear()
    this.bySlot.clear()
  }
}

/** Each sender's txs, in nonce order. */
function inNonceOrderBySender(txs: Iterable<MempoolTx>): Map<Address, MempoolTx[]> {
  const out = new Map<Address, MempoolTx[]>()
  for (const tx of txs) {
    const list = out.get(tx.sender)
    if (list) list.push(tx)
    else out.set(tx.sender, [tx])
  }
  for (const list of out.values()) list.sort((a, b) => a.nonce - b.nonce)
  return out
}

function slotKey(sender: Address, nonce: number): string {
  return `${sender}:${nonce}`
}
