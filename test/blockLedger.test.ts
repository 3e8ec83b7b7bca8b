import { beforeAll, describe, expect, it, vi } from 'vitest'
import { parseGwei, toHex, type Address, type Hash, type Hex } from 'viem'
import { useBareChain } from './support/bareChain.js'
import type { ChainClient, MinedBlock } from '../src/chain/chainClient.js'
import { BlockLedger, BlockLedgerError, balancesAfter, minerChanges, valueMoves } from '../src/builder/execution/blockLedger.js'
import { BlockStateDiff } from '../src/builder/execution/stateDiff.js'
import { DEV_KEYS, accountOf, addressOf, signTx } from './support/harness.js'
import { signBlobTx } from './support/blobTx.js'

/**
 * The ledger against Anvil's own prestate diffs, on blocks holding every kind of frame that
 * moves value (or looks as if it did): its per-tx figures must be the exact ones.
 */
const at = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`
const push20 = (address: Address) => `73${address.slice(2)}`
/** CALL(gas, to, CALLVALUE, 0, 0, 0, 0) without its target: PUSH1 0 ×4, CALLVALUE. */
const CALL_WITH_VALUE = '6000600060006000' + '34'

const PAYS_COINBASE = at(0xa1) // CALL block.coinbase with the call's value
const REVERTER = at(0xa2) // REVERT
const CALLS_REVERTER = at(0xa3) // CALL REVERTER with value; its failure ignored
const SELF_DESTRUCTS = at(0xa4) // SELFDESTRUCT to block.coinbase
const CREATES = at(0xa5) // CREATE an empty contract with the call's value
const CREATES2 = at(0xa6) // CREATE2 likewise
const DELEGATES = at(0xa7) // DELEGATECALL PAYS_COINBASE: pays the coinbase from itself
const CALLCODES = at(0xa8) // CALLCODE PAYS_COINBASE with value: pays the coinbase from itself
const PAYS_THEN_REVERTS = at(0xa9) // CALL coinbase with value, then REVERT
const CALLS_PAYS_THEN_REVERTS = at(0xaa) // CALL PAYS_THEN_REVERTS with value; its failure ignored
const STATIC_CALLS = at(0xab) // STATICCALL PAYS_COINBASE
const CODE: Record<Address, Hex> = {
  [PAYS_COINBASE]: `0x${CALL_WITH_VALUE}415af100`,
  [REVERTER]: '0x60006000fd',
  [CALLS_REVERTER]: `0x${CALL_WITH_VALUE}${push20(REVERTER)}5af100`,
  [SELF_DESTRUCTS]: '0x41ff',
  [CREATES]: '0x6000600034f000',
  [CREATES2]: '0x60006000600034f500',
  [DELEGATES]: `0x6000600060006000${push20(PAYS_COINBASE)}5af400`,
  [CALLCODES]: `0x${CALL_WITH_VALUE}${push20(PAYS_COINBASE)}5af200`,
  [PAYS_THEN_REVERTS]: `0x${CALL_WITH_VALUE}415af15060006000fd`,
  [CALLS_PAYS_THEN_REVERTS]: `0x${CALL_WITH_VALUE}${push20(PAYS_THEN_REVERTS)}5af100`,
  [STATIC_CALLS]: `0x6000600060006000${push20(PAYS_COINBASE)}5afa00`,
}
/** Holds 42 wei and is named by no tx. */
const UNTOUCHED = at(0x5eed)
/** Init code that self-destructs to itself: a contract created and destroyed in one tx burns what it was sent (EIP-6780). */
const BURNS_ITS_VALUE: Hex = '0x30ff'

/** The coinbase is a dev key, so it also sends a tx of its own (as the builder's transfers do). */
const COINBASE_KEY = DEV_KEYS[3]
const COINBASE = addressOf(COINBASE_KEY)

const bare = useBareChain(COINBASE)
let chain: ChainClient

beforeAll(async () => {
  chain = bare.chain
  // Object.entries forgets that the keys are addresses.
  await chain.batch((Object.entries(CODE) as Array<[Address, Hex]>).map(([address, code]) => ({ method: 'anvil_setCode', params: [address, code] })))
  await chain.setBalance(SELF_DESTRUCTS, 100n)
  await chain.setBalance(UNTOUCHED, 42n)
})

/** Mines the signed txs, in this order, as the next block. */
async function mineBlock(raws: readonly Hex[]): Promise<MinedBlock> {
  const sent = await chain.sendRawTransactionsInOrder(raws)
  expect(sent.filter((s) => !s.accepted)).toEqual([])
  const block = await chain.mine((await chain.latestBlock()).timestamp + 12n)
  expect(block.txs.size).toBe(raws.length)
  return block
}

const nonceOf = async (key: Hex) => chain.nonce(addressOf(key), await chain.blockNumber())

/** Every account the block's frames name but its miner. */
function accountsOf(block: MinedBlock): Address[] {
  const named = block.frames.flatMap(({ action, result }) => [action.from, action.to, action.address, action.refundAddress, result?.address])
  const accounts = new Set(named.filter((a): a is Address => a !== undefined).map((a) => a.toLowerCase() as Address))
  accounts.delete(block.miner.toLowerCase() as Address)
  return [...accounts]
}

/** Receives 5 wei from the legacy tx and 13 from the coinbase's own tx. */
const RECEIVER = at(0xbeef)

/** The ledger's figures for every tx and account against the prestate diffs of every tx, and against the balances. */
async function expectExact(ledger: BlockLedger, block: MinedBlock, accounts: readonly Address[]) {
  const hashes = [...block.txs.keys()]
  const diff = await BlockStateDiff.ofTxs(chain, hashes)
  for (const account of accounts) {
    const parent = await chain.balanceAt(account, block.number - 1n)
    expect(ledger.parentBalance(account), account).toBe(parent)
    let balance = parent
    for (const hash of hashes) {
      expect([account, hash, ledger.balanceChange(hash, account)]).toEqual([account, hash, diff.balanceChange(hash, account)])
      balance += diff.balanceChange(hash, account)
      expect(ledger.balanceAfter(hash, account)).toBe(balance)
    }
    expect(balance, account).toBe(await chain.balanceAt(account, block.number))
  }
}

describe('BlockLedger', () => {
  let block: MinedBlock
  beforeAll(async () => {
    const [key0, key1, key2] = DEV_KEYS
    let nonce = await nonceOf(key0)
    const calls: Hex[] = []
    for (const to of [PAYS_COINBASE, CALLS_REVERTER, SELF_DESTRUCTS, CREATES, CREATES2, DELEGATES, CALLCODES, CALLS_PAYS_THEN_REVERTS, STATIC_CALLS]) {
      calls.push(await signTx({ key: key0, nonce: nonce++, to, value: 1_000n, gas: 200_000n }))
    }
    const reverted = await signTx({ key: key0, nonce: nonce++, to: REVERTER, value: 1_000n, gas: 100_000n })
    const legacy = await accountOf(key1).signTransaction({ type: 'legacy', chainId: 31337, nonce: await nonceOf(key1), to: at(0xbeef), value: 5n, gas: 21_000n, gasPrice: parseGwei('3') })
    const create = await accountOf(key2).signTransaction({ type: 'eip1559', chainId: 31337, nonce: await nonceOf(key2), value: 7n, gas: 100_000n, data: '0x00', maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1') })
    const toCoinbase = await signTx({ key: key2, nonce: (await nonceOf(key2)) + 1, to: COINBASE, value: 11n })
    const fromCoinbase = await signTx({ key: COINBASE_KEY, nonce: await nonceOf(COINBASE_KEY), to: at(0xbeef), value: 13n, maxPriorityFeePerGas: 0n })
    const blob = await signBlobTx({ key: DEV_KEYS[4], nonce: await nonceOf(DEV_KEYS[4]) })
    block = await mineBlock([...calls, reverted, legacy, create, toCoinbase, fromCoinbase, blob])
  })

  it('each tx changes every account its frames name exactly as the prestate diffs say, read in one round trip', async () => {
    const kinds = new Set(block.frames.map((f) => `${f.type}${f.action.callType ? `/${f.action.callType}` : ''}${f.error ? ' (error)' : ''}`))
    expect([...kinds].sort()).toEqual(['call/call', 'call/call (error)', 'call/callcode', 'call/delegatecall', 'call/staticcall', 'create', 'suicide'])
    expect([...block.txs.values()].filter((tx) => tx.status === 'reverted')).toHaveLength(1)

    const accounts = accountsOf(block)
    const batch = vi.spyOn(chain, 'batch')
    const ledger = await BlockLedger.read(chain, block, accounts)
    expect(batch).toHaveBeenCalledTimes(1)
    batch.mockRestore()
    expect(ledger.fallbacks).toEqual([])
    await expectExact(ledger, block, accounts)
  })

  it("the miner's change per tx, from only those txs' receipts, is the prestate diff's; its direct payments bound it from below", async () => {
    const hashes = [...block.txs.keys()]
    const diff = await BlockStateDiff.ofTxs(chain, hashes)
    const batch = vi.spyOn(chain, 'batch')
    const all = await minerChanges(chain, block, hashes)
    const two = await minerChanges(chain, block, hashes.slice(0, 2))
    const methods = batch.mock.calls.flatMap(([calls]) => calls.map((c) => c.method))
    batch.mockRestore()
    expect(methods.filter((m) => m !== 'eth_getTransactionReceipt')).toEqual([])
    expect(methods).toHaveLength(hashes.length + 2)
    const direct = valueMoves(block, COINBASE)
    const fromCoinbase = [...block.txs.keys()].at(-2)!
    for (const hash of hashes) {
      expect([hash, all.get(hash)]).toEqual([hash, diff.balanceChange(hash, COINBASE)])
      // A tip is never negative; only the coinbase's own tx pays gas.
      if (hash !== fromCoinbase) expect(all.get(hash)! >= (direct.get(hash) ?? 0n)).toBe(true)
    }
    expect([...two]).toEqual(hashes.slice(0, 2).map((hash) => [hash, all.get(hash)]))
    expect(all.get(fromCoinbase)! < 0n).toBe(true)
    await expect(BlockLedger.read(chain, block, [COINBASE])).rejects.toMatchObject({ reason: 'MinerNotCheckable' })
    await expect(minerChanges(chain, block, [toHex(1n, { size: 32 }) as Hash])).rejects.toMatchObject({ reason: 'TxNotInBlock' })
  })

  it('a balance mid-block is the prestate diffs\' figure, reading only the receipts of txs the account sent up to there', async () => {
    const sender = addressOf(DEV_KEYS[0])
    const hashes = [...block.txs.keys()]
    const diff = await BlockStateDiff.ofTxs(chain, hashes)
    const exactAfter = async (account: Address, tx: Hash) => {
      let balance = await chain.balanceAt(account, block.number - 1n)
      for (const hash of hashes.slice(0, hashes.indexOf(tx) + 1)) balance += diff.balanceChange(hash, account)
      return balance
    }
    /** The parent balances a ParentState holds, read here from the chain (lowercase keys). */
    const parentBalances = async (accounts: readonly Address[]) =>
      new Map(await Promise.all(accounts.map(async (a) => [a.toLowerCase() as Address, await chain.balanceAt(a, block.number - 1n)] as const)))
    const batch = vi.spyOn(chain, 'batch')
    const held = await balancesAfter(
      chain,
      block,
      [
        { account: sender, tx: hashes[4]! },
        { account: RECEIVER, tx: hashes.at(-2)! },
        { account: UNTOUCHED, tx: hashes[0]! },
      ],
      parentBalances,
    )
    const methods = batch.mock.calls.flatMap(([calls]) => calls.map((c) => c.method))
    batch.mockRestore()
    expect(held).toEqual([await exactAfter(sender, hashes[4]!), await exactAfter(RECEIVER, hashes.at(-2)!), 42n])
    // The sender's first five txs; the receiver sent none.
    expect(methods.filter((m) => m === 'eth_getTransactionReceipt')).toHaveLength(5)
    await expect(balancesAfter(chain, block, [{ account: COINBASE, tx: hashes[0]! }], parentBalances)).rejects.toMatchObject({ reason: 'MinerNotCheckable' })
  })

  it('a sender is read from its own txs\' receipts; an account no tx names has its parent balance throughout', async () => {
    const sender = addressOf(DEV_KEYS[0])
    const batch = vi.spyOn(chain, 'batch')
    const ledger = await BlockLedger.read(chain, block, [sender, UNTOUCHED])
    const methods = batch.mock.calls.flatMap(([calls]) => calls.map((c) => c.method))
    batch.mockRestore()
    const sent = block.frames.filter((f) => f.traceAddress.length === 0 && f.action.from === sender).length
    expect(sent).toBe(10)
    expect(methods.filter((m) => m === 'eth_getTransactionReceipt')).toHaveLength(sent)
    expect(methods).not.toContain('eth_getBlockReceipts')
    expect(ledger.fallbacks).toEqual([])
    await expectExact(ledger, block, [sender])
    const last = [...block.txs.keys()].at(-1)!
    expect([ledger.parentBalance(UNTOUCHED), ledger.balanceChange(last, UNTOUCHED), ledger.balanceAfter(last, UNTOUCHED)]).toEqual([42n, 0n, 42n])
  })

  it('an account the frames do not account for (a contract created and destroyed in one tx burns its value) is read exactly and reported', async () => {
    const key = DEV_KEYS[1]
    const burn = await accountOf(key).signTransaction({ type: 'eip1559', chainId: 31337, nonce: await nonceOf(key), value: 1_000n, gas: 100_000n, data: BURNS_ITS_VALUE, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1') })
    const burnt = await mineBlock([burn, await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(DEV_KEYS[2]), to: PAYS_COINBASE, value: 3n, gas: 100_000n })])
    const created = burnt.frames.find((f) => f.type === 'create')!.result!.address!
    const accounts = accountsOf(burnt)
    expect(accounts).toContain(created)

    const ledger = await BlockLedger.read(chain, burnt, accounts)
    expect(ledger.fallbacks).toEqual([{ account: created, countedWei: 1_000n, actualWei: 0n, tracedTxs: 1, unexplainedWei: 0n }])
    await expectExact(ledger, burnt, accounts)
  })

  it('a frame that misstates a payment makes the account read exactly from the txs naming it', async () => {
    const legacy = block.frames.findIndex((f) => f.traceAddress.length === 0 && f.action.to === RECEIVER && f.action.value === toHex(5n))
    expect(legacy).toBeGreaterThanOrEqual(0)
    const misstated = { ...block, frames: block.frames.map((f, i) => (i === legacy ? { ...f, action: { ...f.action, value: toHex(1n) } } : f)) }
    const naming = new Set(block.frames.filter((f) => [f.action.from, f.action.to].includes(RECEIVER)).map((f) => f.transactionHash))

    const ledger = await BlockLedger.read(chain, misstated, [RECEIVER])
    expect(ledger.fallbacks).toEqual([{ account: RECEIVER, countedWei: 14n, actualWei: 18n, tracedTxs: naming.size, unexplainedWei: 0n }])
    expect(naming.size).toBeLessThan(block.txs.size)
    await expectExact(ledger, block, [RECEIVER])
  })

  it('frames that miss a payment make the account read exactly, every tx traced', async () => {
    const legacy = block.frames.findIndex((f) => f.traceAddress.length === 0 && f.action.to === RECEIVER && f.action.value === toHex(5n))
    const missing = { ...block, frames: block.frames.filter((_, i) => i !== legacy) }

    const ledger = await BlockLedger.read(chain, missing, [RECEIVER])
    expect(ledger.fallbacks).toEqual([{ account: RECEIVER, countedWei: 13n, actualWei: 18n, tracedTxs: block.txs.size, unexplainedWei: 0n }])
    await expectExact(ledger, block, [RECEIVER])
  })

  it('an account not read, or a tx not in the block, is a typed error', async () => {
    const ledger = await BlockLedger.read(chain, block, [RECEIVER])
    const tx = [...block.txs.keys()][0]!
    expect(() => ledger.balanceChange(tx, at(0x5eed))).toThrow(BlockLedgerError)
    expect(() => ledger.balanceAfter(toHex(1n, { size: 32 }) as Hash, RECEIVER)).toThrow(/not in the block/)
  })
})
