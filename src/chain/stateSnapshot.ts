import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { numberToHex, stringToHex, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import type { ForkPoint } from './forkCheck.js'

/*
 * An offline snapshot of a fork: the fork block's header and every account and storage slot
 * a fork read from the remote, with their values at that block, in Anvil's own state format
 * (what `anvil_loadState` takes). Loaded into a fresh Anvil started with the snapshot's
 * chain id and timestamp, the chain continues at the same block number, hash, timestamp and
 * base fee, with no network. Anvil's `anvil_dumpState` of a fork cannot serve here: measured
 * on Anvil 1.7.1 it holds neither what the fork fetched nor the fork block (its load fails
 * with "Best hash not found"), so bundlesim writes the state itself.
 */

export const SNAPSHOT_FORMAT = 'bundlesim-snapshot/1'

/** The fork block, decimal strings (JSON has no bigints). */
export interface SnapshotBlock {
  number: string
  hash: Hash
  timestamp: string
  baseFeePerGas: string
  gasLimit: string
  gasUsed: string
}

export interface SnapshotAccount {
  nonce: number
  balance: Hex
  code: Hex
  storage: Record<Hex, Hex>
}

/** Anvil's serialisable state (the JSON inside `anvil_dumpState`), as much as a snapshot needs. */
export interface AnvilState {
  block: Record<string, unknown>
  accounts: Record<Address, SnapshotAccount>
  best_block_number: Hex
  blocks: Array<{ header: Record<string, unknown>; transactions: []; ommers: [] }>
  transactions: []
}

export interface StateSnapshot {
  format: typeof SNAPSHOT_FORMAT
  recordedAt: string
  /** Where it was recorded from: scheme, host and port only (paths hold API keys). */
  source: string
  chainId: number
  block: SnapshotBlock
  touched: { accounts: number; storageSlots: number }
  anvilState: AnvilState
}

/** What a fork read from its remote: addresses, and storage slots per address. */
export type TouchedState = Map<Address, Set<Hex>>

/** Header fields Anvil hashes (alloy's header): with exactly these the loaded block keeps the remote's hash. */
const HEADER_FIELDS = [
  'parentHash', 'sha3Uncles', 'miner', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'difficulty', 'number',
  'gasLimit', 'gasUsed', 'timestamp', 'extraData', 'mixHash', 'nonce', 'baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed',
  'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash',
] as const

/** A snapshot that cannot be used: unreadable, another format, or for another chain. */
export class SnapshotError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SnapshotError'
  }
}

/**
 * Reads every touched account and slot at the fork block from the remote and builds the
 * snapshot. Reads go in batches (the client batches 50 calls to a request).
 */
export async function buildSnapshot(client: PublicClient, point: ForkPoint, touched: TouchedState, source: string): Promise<StateSnapshot> {
  const blockNumber = point.block.number
  const rawBlock: Record<string, unknown> | null = await client.request({ method: 'eth_getBlockByNumber', params: [numberToHex(blockNumber), false] })
  if (!rawBlock) throw new SnapshotError(`the remote no longer serves block ${blockNumber}`)
  const header = Object.fromEntries(HEADER_FIELDS.filter((field) => rawBlock[field] !== undefined && rawBlock[field] !== null).map((field) => [field, rawBlock[field]]))
  const accounts: Record<Address, SnapshotAccount> = {}
  let storageSlots = 0
  const sorted = [...touched.keys()].sort()
  await Promise.all(
    sorted.map(async (address) => {
      const slots = [...(touched.get(address) ?? [])].sort()
      const [balance, nonce, code, values] = await Promise.all([
        client.getBalance({ address, blockNumber }),
        client.getTransactionCount({ address, blockNumber }),
        client.getCode({ address, blockNumber }),
        Promise.all(slots.map((slot) => client.getStorageAt({ address, slot, blockNumber }))),
      ])
      const storage: Record<Hex, Hex> = {}
      slots.forEach((slot, i) => {
        storage[slot] = values[i] ?? '0x0'
      })
      storageSlots += slots.length
      accounts[address] = { nonce, balance: numberToHex(balance), code: code ?? '0x', storage }
    }),
  )
  // Object key order follows the sorted addresses, so a refresh of the same state diffs cleanly.
  const ordered = Object.fromEntries(sorted.map((address) => [address, accounts[address]!])) as Record<Address, SnapshotAccount>
  const anvilState: AnvilState = {
    block: {
      number: numberToHex(blockNumber),
      beneficiary: rawBlock.miner,
      timestamp: numberToHex(point.block.timestamp),
      gas_limit: Number(point.block.gasLimit),
      basefee: Number(point.block.baseFeePerGas),
      difficulty: rawBlock.difficulty ?? '0x0',
      prevrandao: rawBlock.mixHash,
    },
    accounts: ordered,
    best_block_number: numberToHex(blockNumber),
    blocks: [{ header, transactions: [], ommers: [] }],
    transactions: [],
  }
  return {
    format: SNAPSHOT_FORMAT,
    recordedAt: new Date().toISOString(),
    source,
    chainId: point.chainId,
    block: {
      number: blockNumber.toString(),
      hash: point.block.hash,
      timestamp: point.block.timestamp.toString(),
      baseFeePerGas: point.block.baseFeePerGas.toString(),
      gasLimit: point.block.gasLimit.toString(),
      gasUsed: point.block.gasUsed.toString(),
    },
    touched: { accounts: sorted.length, storageSlots },
    anvilState,
  }
}

/** Writes the snapshot (one account per line group, stable order: it diffs well in git), atomically. */
export async function writeSnapshot(file: string, snapshot: StateSnapshot): Promise<number> {
  const text = `${JSON.stringify(snapshot, null, 1)}\n`
  await mkdir(path.dirname(path.resolve(file)), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, text)
  await rename(tmp, file)
  return Buffer.byteLength(text)
}

/** Reads and checks a snapshot file; every problem names the file. */
export async function readSnapshot(file: string): Promise<StateSnapshot> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new SnapshotError(`snapshot ${file} cannot be read (${code ?? (error as Error).message})${code === 'ENOENT' ? ': record it with `bundlesim snapshot`' : ''}`)
  }
  let snapshot: StateSnapshot
  try {
    snapshot = JSON.parse(text) as StateSnapshot
  } catch (error) {
    throw new SnapshotError(`snapshot ${file} is not valid JSON (${(error as Error).message})`)
  }
  if (snapshot?.format !== SNAPSHOT_FORMAT) throw new SnapshotError(`snapshot ${file}: unknown format ${JSON.stringify(snapshot?.format)} (expected ${SNAPSHOT_FORMAT}, written by \`bundlesim snapshot\`)`)
  if (!Number.isSafeInteger(snapshot.chainId) || !/^\d+$/.test(snapshot.block?.number ?? '') || typeof snapshot.anvilState?.accounts !== 'object') {
    throw new SnapshotError(`snapshot ${file} is incomplete (chainId, block or anvilState missing)`)
  }
  return snapshot
}

/** Refuses a snapshot recorded on another chain than the run's. */
export function checkSnapshotChain(file: string, snapshot: StateSnapshot, chainId: number, why: string): void {
  if (snapshot.chainId !== chainId) throw new SnapshotError(`snapshot ${file} is for chain ${snapshot.chainId}, this run is chain ${chainId} (${why})`)
}

/**
 * The state for `anvil_loadState`: everything (a fresh Anvil continues at the fork block), or
 * only the accounts (laid over a fork that already has the block).
 */
export function snapshotStateHex(snapshot: StateSnapshot, only: 'everything' | 'accounts'): Hex {
  const { accounts } = snapshot.anvilState
  // Anvil's decoder wants every field present; null / empty ones leave the fork's blocks alone.
  const state = only === 'accounts' ? { block: null, accounts, best_block_number: null, blocks: [], transactions: [] } : snapshot.anvilState
  return stringToHex(JSON.stringify(state))
}
