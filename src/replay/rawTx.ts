import { keccak256, serializeTransaction, type Hex, type Transaction, type TransactionSerializable } from 'viem'

/**
 * The signed network form of a tx as a node reports it, for nodes without
 * `eth_getRawTransactionByHash`: viem serializes its fields and signature, and the result must
 * hash to the tx's hash (else a field was lost, e.g. a type viem does not know).
 */
export function rawFromFields(tx: Transaction): Hex {
  // A typed tx always carries its chain id; a legacy one may not (pre-EIP-155).
  const chainId = tx.chainId ?? 0
  const common = { nonce: tx.nonce, to: tx.to ?? undefined, value: tx.value, data: tx.input, gas: tx.gas }
  const fields: TransactionSerializable =
    tx.type === 'legacy'
      ? { ...common, ...(tx.chainId === undefined ? {} : { chainId }), type: 'legacy', gasPrice: tx.gasPrice }
      : tx.type === 'eip2930'
        ? { ...common, chainId, type: 'eip2930', gasPrice: tx.gasPrice, accessList: tx.accessList }
        : tx.type === 'eip7702'
          ? { ...common, chainId, type: 'eip7702', maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas, accessList: tx.accessList, authorizationList: tx.authorizationList }
          : { ...common, chainId, type: 'eip1559', maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas, accessList: tx.accessList }
  const raw = serializeTransaction(fields, { r: tx.r, s: tx.s, v: tx.v, yParity: tx.yParity })
  if (keccak256(raw) !== tx.hash) throw new Error(`tx ${tx.hash} (type ${tx.type}) re-serialized to another hash: the node's fields do not rebuild it`)
  return raw
}
