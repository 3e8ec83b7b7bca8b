import { numberToHex, parseTransaction, type Address, type Hash, type Hex } from 'viem'

/** A transaction as JSON-RPC answers it (`eth_getTransactionByHash`, `txpool_content`, full pending-tx notifications). */
export type RpcTransaction = Record<string, unknown> & { hash: Hash; from: Address; nonce: Hex; blockNumber: Hex | null }

const TYPE_CODES = { legacy: '0x0', eip2930: '0x1', eip1559: '0x2', eip4844: '0x3', eip7702: '0x4' } as const

/**
 * A signed raw tx that is not in a block yet as a node shows a pending tx: every field of the
 * tx, its hash and sender, and `blockHash`, `blockNumber`, `transactionIndex` null.
 *
 * @example
 * toPendingRpcTransaction(raw, hash, sender).blockNumber // null
 */
export function toPendingRpcTransaction(raw: Hex, hash: Hash, from: Address): RpcTransaction {
  const tx = parseTransaction(raw)
  const type = tx.type ?? 'legacy'
  const quantity = (value: bigint | number | undefined) => (value === undefined ? undefined : numberToHex(value))
  const fields: Record<string, unknown> = {
    type: TYPE_CODES[type as keyof typeof TYPE_CODES] ?? '0x0',
    chainId: quantity(tx.chainId),
    nonce: quantity(tx.nonce ?? 0),
    to: tx.to ?? null,
    gas: quantity(tx.gas ?? 0n),
    value: quantity(tx.value ?? 0n),
    input: tx.data ?? '0x',
    r: tx.r,
    s: tx.s,
    // Typed txs carry their y parity as v (geth).
    v: type === 'legacy' ? quantity(tx.v) : quantity(tx.yParity ?? 0),
    hash,
    from,
    blockHash: null,
    blockNumber: null,
    transactionIndex: null,
  }
  if (type === 'legacy' || type === 'eip2930') fields.gasPrice = quantity(tx.gasPrice)
  else {
    fields.maxFeePerGas = quantity(tx.maxFeePerGas)
    fields.maxPriorityFeePerGas = quantity(tx.maxPriorityFeePerGas)
    // What a pending tx would pay at most, as geth reports it.
    fields.gasPrice = quantity(tx.maxFeePerGas)
  }
  if (type !== 'legacy') {
    fields.accessList = tx.accessList ?? []
    fields.yParity = quantity(tx.yParity ?? 0)
  }
  if (type === 'eip4844') {
    fields.maxFeePerBlobGas = quantity(tx.maxFeePerBlobGas)
    fields.blobVersionedHashes = tx.blobVersionedHashes ?? []
  }
  if (type === 'eip7702') fields.authorizationList = (tx.authorizationList ?? []).map((a) => ({ ...a, chainId: quantity(a.chainId), nonce: quantity(a.nonce), yParity: quantity(a.yParity ?? 0) }))
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key]
  return fields as RpcTransaction
}
