import { keccak256, parseGwei, parseTransaction, serializeTransaction, type Address, type Hash, type Hex, type TransactionSerializableEIP4844 } from 'viem'
import { labelledSidecars } from '../../src/scenario/blobSidecars.js'
import { accountOf, DEV_KEYS } from './harness.js'

export interface BlobTxSpec {
  key?: Hex
  nonce: number
  /** How many blobs (each carries a short distinct text); default 1. */
  blobs?: number
  /** false: the canonical form (versioned hashes only, no blobs, commitments or proofs). */
  sidecar?: boolean
  to?: Address
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  maxFeePerBlobGas?: bigint
}

/**
 * Signs an EIP-4844 tx, by default in the network form a node's `eth_sendRawTransaction`
 * takes (blobs, commitments and proofs after the signed tx). Defaults: dev key 0, one blob,
 * 21000 gas to a fixed address, 10 gwei fee caps, 2 gwei tip.
 */
export async function signBlobTx(spec: BlobTxSpec): Promise<Hex> {
  const { sidecars, blobVersionedHashes } = await labelledSidecars(`nonce ${spec.nonce}`, spec.blobs ?? 1)
  const account = accountOf(spec.key ?? DEV_KEYS[0])
  const tx = {
    type: 'eip4844',
    chainId: 31337,
    nonce: spec.nonce,
    to: spec.to ?? '0x00000000000000000000000000000000000b10b5',
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: spec.maxFeePerGas ?? parseGwei('10'),
    maxPriorityFeePerGas: spec.maxPriorityFeePerGas ?? parseGwei('2'),
    maxFeePerBlobGas: spec.maxFeePerBlobGas ?? parseGwei('10'),
    blobVersionedHashes,
  } as const
  return account.signTransaction({ ...tx, sidecars: spec.sidecar === false ? (false as const) : sidecars })
}

/** A blob tx's hash as a node computes it: keccak256 of the canonical form (viem's own serializer, sidecar left out). */
export function blobHashOf(raw: Hex): Hash {
  const { sidecars: _sidecars, ...tx } = parseTransaction(raw) as TransactionSerializableEIP4844
  return keccak256(serializeTransaction({ ...tx, sidecars: false }))
}
