import fc from 'fast-check'
import { stringify } from 'yaml'
import { keccak256, stringToBytes, type Address, type Hash, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createBundlesimClient, type BundlesimClient } from '../../src/protocol/client.js'
import { matchingHashOf } from '../../src/protocol/mevShareHashes.js'
import type { SendBundleParams } from '../../src/protocol/methods.js'
import { checkSlot, watchPublicView, type OracleOrder, type OracleViolation, type PublicViewWatcher } from '../../oracle/index.js'

/**
 * Generated slots (issue #28): a pool of signed txs and the orders built from them, run
 * through a real harness one slot each and judged by the oracle. A model is plain data, so
 * fast-check shrinks it and `slotScenarioYaml` writes it as a scenario that replays it.
 */

/** Accounts: four funded senders and one that holds nothing (its txs need sponsorship). */
export const FUZZ_ACCOUNTS = ['a0', 'a1', 'a2', 'a3', 'poor'] as const
const keyOf = (name: string): Hex => keccak256(stringToBytes(`bundlesim:${name}`))
const addressOfAccount = (name: string): Address => privateKeyToAccount(keyOf(name)).address.toLowerCase() as Address
const RICH_WEI = 10n ** 19n

/** Runtime codes: `payer` forwards msg.value to block.coinbase; `reverter` always reverts. */
const CONTRACTS = {
  payer: { address: '0x00000000000000000000000000000000000c0b01' as Address, runtime: '0x600060006000600034415af100' as Hex },
  reverter: { address: '0x00000000000000000000000000000000000c0b02' as Address, runtime: '0x60006000fd' as Hex },
}
const SINK: Address = '0x00000000000000000000000000000000000c0b03'
const initCode = (runtime: Hex): Hex => {
  const length = (runtime.length - 2) / 2
  const len = length.toString(16).padStart(2, '0')
  return `0x60${len}600c60003960${len}6000f3${runtime.slice(2)}` as Hex
}

export interface TxModel {
  from: (typeof FUZZ_ACCOUNTS)[number]
  /** Added to the sender's nonce at the start of the slot (two txs with one offset conflict). */
  nonceOffset: 0 | 1 | 2
  /** transfer: 1 wei to a sink (pays the tip only); tip: pays the coinbase `tipWei` through `payer`; revert: calls `reverter`. */
  kind: 'transfer' | 'tip' | 'revert'
  tipGwei: 0 | 1 | 3
  tipWei: bigint
}

export type OrderModel =
  | { kind: 'bundle'; txs: number[]; reverting: number[]; dropping: number[]; window: 'none' | 'inside' | 'before' | 'after'; explicitBlock: boolean; uuid: 'u1' | 'u2' | null; seq: number; refundPercent: number | null; builders: string[] | null }
  | { kind: 'privateTx'; tx: number }
  | { kind: 'publicTx'; tx: number }
  | { kind: 'endOfBlock'; txs: number[]; reverting: number[] }
  | { kind: 'backrun'; userTx: number; txs: number[] }
  | { kind: 'cancel'; uuid: 'u1' | 'u2' }

export interface SlotModel {
  txs: TxModel[]
  orders: OrderModel[]
}

const txModel: fc.Arbitrary<TxModel> = fc.record({
  from: fc.constantFrom(...FUZZ_ACCOUNTS),
  nonceOffset: fc.constantFrom(0 as const, 1 as const, 2 as const),
  kind: fc.constantFrom('transfer' as const, 'tip' as const, 'tip' as const, 'revert' as const),
  tipGwei: fc.constantFrom(0 as const, 1 as const, 3 as const),
  tipWei: fc.constantFrom(10n ** 14n, 10n ** 15n, 3n * 10n ** 15n),
})

/** Slots of 1–6 txs and 1–6 orders; `builders` names the run's builders (several: orders may pick some). */
export function slotModel(builders: readonly string[] = []): fc.Arbitrary<SlotModel> {
  return fc.array(txModel, { minLength: 1, maxLength: 6 }).chain((txs) => {
    const index = fc.nat({ max: txs.length - 1 })
    const some = fc.uniqueArray(index, { minLength: 1, maxLength: Math.min(3, txs.length) })
    const subsetOf = (chosen: number[]) => fc.subarray(chosen)
    const bundle = some.chain((chosen) =>
      fc.record({
        kind: fc.constant('bundle' as const),
        txs: fc.constant(chosen),
        reverting: subsetOf(chosen),
        dropping: subsetOf(chosen),
        window: fc.constantFrom('none' as const, 'none' as const, 'inside' as const, 'before' as const, 'after' as const),
        explicitBlock: fc.boolean(),
        uuid: fc.constantFrom(null, null, 'u1' as const, 'u2' as const),
        seq: fc.constantFrom(0, 0, 1, 2),
        refundPercent: fc.constantFrom(null, null, 10, 50, 90),
        builders: builders.length > 1 ? fc.constantFrom<string[] | null>(null, null, [builders[1]!], [...builders]) : fc.constant<string[] | null>(null),
      }),
    )
    const order: fc.Arbitrary<OrderModel> = fc.oneof(
      { weight: 6, arbitrary: bundle },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('privateTx' as const), tx: index }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('publicTx' as const), tx: index }) },
      { weight: 1, arbitrary: some.chain((chosen) => fc.record({ kind: fc.constant('endOfBlock' as const), txs: fc.constant(chosen), reverting: subsetOf(chosen) })) },
      {
        // A backrun's own txs are others than the user's (a body holds a tx once).
        weight: txs.length > 1 ? 1 : 0,
        arbitrary: index.chain((userTx) =>
          fc.record({
            kind: fc.constant('backrun' as const),
            userTx: fc.constant(userTx),
            txs: fc.uniqueArray(index.filter((i) => i !== userTx), { minLength: 1, maxLength: Math.min(2, txs.length - 1) }),
          }),
        ),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), uuid: fc.constantFrom('u1' as const, 'u2' as const) }) },
    )
    return fc.record({ txs: fc.constant(txs), orders: fc.array(order, { minLength: 1, maxLength: 6 }) })
  })
}

/** A harness as the fuzz needs it: the three URLs (the oracle reads Anvil directly). */
export interface FuzzTarget {
  rpcUrl: string
  statsUrl: string
  anvilUrl: string
}

export interface SlotRun {
  blockNumber: number
  /** Orders submitted (cancels included) and the bundles among them. */
  orders: number
  bundles: number
  violations: OracleViolation[]
  /** Orders the service refused outright (a generator bug unless the rule says so). */
  refused: string[]
}

/** Installs the fuzz's contracts once on a harness (cheatcodes through the submission RPC). */
export async function prepareFuzzTarget(target: FuzzTarget): Promise<void> {
  const client = createBundlesimClient({ rpcUrl: target.rpcUrl })
  for (const contract of Object.values(CONTRACTS)) await client.request('anvil_setCode', [contract.address, contract.runtime])
}

/**
 * Runs one slot model: funds the accounts, signs the txs on top of the senders' nonces,
 * submits every order, advances one slot and asks the oracle about the mined block.
 */
export async function runSlot(target: FuzzTarget, model: SlotModel, watcher?: PublicViewWatcher): Promise<SlotRun> {
  const client = createBundlesimClient({ rpcUrl: target.rpcUrl, statsUrl: target.statsUrl })
  for (const name of FUZZ_ACCOUNTS) await client.setBalance({ address: addressOfAccount(name), wei: name === 'poor' ? '0' : String(RICH_WEI) })
  const status = await client.status()
  const next = status.blockNumber + 1
  const headTime = status.timestamp
  const nonces = new Map<string, number>()
  for (const name of FUZZ_ACCOUNTS) nonces.set(name, Number(BigInt(await client.request<Hex>('eth_getTransactionCount', [addressOfAccount(name), 'latest']))))
  const raws = await Promise.all(model.txs.map((tx) => signModelTx(tx, nonces.get(tx.from)! + tx.nonceOffset)))
  const hashes = raws.map((raw) => keccak256(raw))
  const orders: OracleOrder[] = []
  const refused: string[] = []
  const searcher = privateKeyToAccount(keyOf('searcher'))
  let bundles = 0
  for (const order of model.orders) {
    try {
      await submit(order)
    } catch (error) {
      refused.push(`${order.kind}: ${(error as Error).message}`)
    }
  }
  async function submit(order: OrderModel): Promise<void> {
    switch (order.kind) {
      case 'bundle': {
        const params: SendBundleParams = { txs: order.txs.map((i) => raws[i]!) }
        if (order.explicitBlock) params.blockNumber = `0x${next.toString(16)}`
        if (order.reverting.length) params.revertingTxHashes = order.reverting.map((i) => hashes[i]!)
        if (order.dropping.length) params.droppingTxHashes = order.dropping.map((i) => hashes[i]!)
        if (order.window === 'inside') Object.assign(params, { minTimestamp: headTime + 11, maxTimestamp: headTime + 13 })
        if (order.window === 'before') Object.assign(params, { maxTimestamp: headTime + 11 })
        if (order.window === 'after') Object.assign(params, { minTimestamp: headTime + 13 })
        if (order.uuid) params.replacementUuid = fuzzUuid(order.uuid, next)
        if (order.uuid && order.seq) params.replacementSeqNumber = order.seq
        if (order.refundPercent !== null) params.refundPercent = order.refundPercent
        if (order.builders) params.builders = order.builders
        const result = await client.sendBundle(params)
        bundles++
        orders.push({ kind: 'bundle', bundleHash: result!.bundleHash, params })
        return
      }
      case 'privateTx': {
        const hash = await client.request<Hash>('eth_sendPrivateTransaction', [{ tx: raws[order.tx]!, maxBlockNumber: `0x${next.toString(16)}` }])
        orders.push({ kind: 'privateTx', bundleHash: hash, tx: raws[order.tx]!, maxBlockNumber: next })
        return
      }
      case 'publicTx': {
        if (!isPublicable(model.txs[order.tx]!)) return
        const hash = await client.sendRawTransaction(raws[order.tx]!)
        orders.push({ kind: 'publicTx', txHash: hash, tx: raws[order.tx]! })
        return
      }
      case 'endOfBlock': {
        const params = { txs: order.txs.map((i) => raws[i]!), blockNumber: `0x${next.toString(16)}` as Hex, ...(order.reverting.length ? { revertingTxHashes: order.reverting.map((i) => hashes[i]!) } : {}) }
        const result = await client.sendEndOfBlockBundle(params, searcher)
        bundles++
        orders.push({ kind: 'endOfBlock', bundleHash: result!.bundleHash, params })
        return
      }
      case 'backrun': {
        const user = raws[order.userTx]!
        const userHash = await client.request<Hash>('eth_sendPrivateTransaction', [{ tx: user, maxBlockNumber: `0x${next.toString(16)}`, preferences: { privacy: { hints: ['hash', 'calldata'] } } }])
        orders.push({ kind: 'privateTx', bundleHash: userHash, tx: user, maxBlockNumber: next })
        const matching = matchingHashOf(userHash)
        const params = { version: 'v0.1' as const, inclusion: { block: `0x${next.toString(16)}` as Hex }, body: [{ hash: matching }, ...order.txs.map((i) => ({ tx: raws[i]! }))] }
        const result = await client.signedRequest('mev_sendBundle', [params], searcher)
        bundles++
        orders.push({ kind: 'mevBundle', bundleHash: result!.bundleHash, params, targets: { [matching]: user } })
        return
      }
      case 'cancel': {
        await client.cancelBundle({ replacementUuid: fuzzUuid(order.uuid, next) })
        orders.push({ kind: 'cancel', replacementUuid: fuzzUuid(order.uuid, next) })
        return
      }
    }
  }
  const privateHashes = orders.flatMap((order) => (order.kind === 'bundle' ? order.params.txs : order.kind === 'privateTx' ? [order.tx] : order.kind === 'endOfBlock' ? order.params.txs : [])).map((raw) => keccak256(raw as Hex))
  await watcher?.probe(privateHashes)
  const [report] = await client.advanceSlot()
  const violations = await checkSlot({ ...target, blockNumber: report!.blockNumber, orders, publicSightings: watcher?.sightings() ?? [] })
  watcher?.clear()
  return { blockNumber: report!.blockNumber, orders: orders.length, bundles, violations, refused }
}

/**
 * Only a tx that can be mined goes public: at the sender's current nonce, from a funded
 * account. Any other would wait in the mempool into later slots (and its hash, signed again
 * the same way in a later slot, would look like a leak of that slot's private tx).
 */
const isPublicable = (tx: TxModel) => tx.nonceOffset === 0 && tx.from !== 'poor'

/**
 * A UUID per name and block: the service remembers a uuid's highest replacementSeqNumber
 * across slots, so each slot takes fresh ones (a scenario replays on block 1).
 */
const fuzzUuid = (name: 'u1' | 'u2', block: number) => `0b5e1a1e-0000-4000-8000-${(block * 2 + (name === 'u1' ? 0 : 1)).toString(16).padStart(12, '0')}`

const GWEI = 10n ** 9n
async function signModelTx(tx: TxModel, nonce: number): Promise<Hex> {
  const common = { type: 'eip1559' as const, chainId: 31337, nonce, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: BigInt(tx.tipGwei) * GWEI }
  const account = privateKeyToAccount(keyOf(tx.from))
  if (tx.kind === 'transfer') return account.signTransaction({ ...common, to: SINK, value: tx.from === 'poor' ? 0n : 1n, gas: 21_000n })
  if (tx.kind === 'tip') return account.signTransaction({ ...common, to: CONTRACTS.payer.address, value: tx.from === 'poor' ? 0n : tx.tipWei, gas: 60_000n })
  return account.signTransaction({ ...common, to: CONTRACTS.reverter.address, data: '0x01', gas: 50_000n })
}

/** Starts watching the public view of a target (pass it to every `runSlot`). */
export const watchTarget = (target: FuzzTarget) => watchPublicView({ rpcUrl: target.rpcUrl })

/**
 * The slot as a scenario file (src/scenario/schema.ts) that replays it on a fresh chain:
 * the same accounts, contracts, txs (nonces from 0) and orders, one slot; the oracle's
 * findings as comments. `bundlesim run` on it shows the traces; the fuzz's `--replay` judges it again.
 */
export function slotScenarioYaml(model: SlotModel, violations: readonly OracleViolation[], about: { seed: number; builders: readonly string[] }): string {
  const next = 1
  const txName = (i: number) => `t${i}`
  const txs = Object.fromEntries(
    model.txs.map((tx, i) => {
      const fees = { nonce: tx.nonceOffset, maxFeePerGas: '20 gwei', maxPriorityFeePerGas: `${tx.tipGwei} gwei` }
      if (tx.kind === 'transfer') return [txName(i), { from: tx.from, to: SINK, value: tx.from === 'poor' ? 0 : '1 wei', gas: 21000, ...fees }]
      if (tx.kind === 'tip') return [txName(i), { from: tx.from, to: 'payer', value: tx.from === 'poor' ? 0 : `${tx.tipWei} wei`, gas: 60000, ...fees }]
      return [txName(i), { from: tx.from, to: 'reverter', data: '0x01', gas: 50000, ...fees }]
    }),
  )
  const steps: unknown[] = []
  model.orders.forEach((order, i) => {
    const as = `o${i}`
    if (order.kind === 'bundle') {
      const submit: Record<string, unknown> = { txs: order.txs.map(txName) }
      if (order.explicitBlock) submit.blockNumber = '+1'
      if (order.reverting.length) submit.revertingTxHashes = order.reverting.map(txName)
      if (order.dropping.length) submit.droppingTxHashes = order.dropping.map(txName)
      if (order.window === 'inside') Object.assign(submit, { minTimestamp: '+11', maxTimestamp: '+13' })
      if (order.window === 'before') submit.maxTimestamp = '+11'
      if (order.window === 'after') submit.minTimestamp = '+13'
      if (order.uuid) submit.replacementUuid = fuzzUuid(order.uuid, next)
      if (order.uuid && order.seq) submit.replacementSeqNumber = order.seq
      if (order.refundPercent !== null) submit.refundPercent = order.refundPercent
      if (order.builders) submit.builders = order.builders
      steps.push({ submit: { ...submit, as } })
    } else if (order.kind === 'privateTx') steps.push({ sendPrivateTx: { tx: txName(order.tx), maxBlockNumber: '+1', as } })
    else if (order.kind === 'publicTx') {
      if (isPublicable(model.txs[order.tx]!)) steps.push({ sendTx: txName(order.tx) })
    } else if (order.kind === 'endOfBlock') steps.push({ submitEndOfBlock: { txs: order.txs.map(txName), blockNumber: '+1', ...(order.reverting.length ? { revertingTxHashes: order.reverting.map(txName) } : {}), as } })
    else if (order.kind === 'backrun') {
      steps.push({ sendPrivateTx: { tx: txName(order.userTx), hints: ['hash', 'calldata'], maxBlockNumber: '+1', as: `${as}user` } })
      steps.push({ mevSendBundle: { backrun: `${as}user`, txs: order.txs.map(txName), as } })
    } else steps.push({ cancel: { replacementUuid: fuzzUuid(order.uuid, next) } })
  })
  steps.push({ advance: 1 })
  const scenario = {
    name: `fuzz seed ${about.seed}: ${[...new Set(violations.map((v) => v.rule))].join(', ') || 'no violation'}`,
    ...(about.builders.length > 1 ? { builders: about.builders.map((name) => ({ name })) } : {}),
    accounts: { deployer: '1 ether', ...Object.fromEntries(FUZZ_ACCOUNTS.map((name) => [name, name === 'poor' ? 0 : '10 ether'])) },
    contracts: { payer: { from: 'deployer', bytecode: initCode(CONTRACTS.payer.runtime) }, reverter: { from: 'deployer', bytecode: initCode(CONTRACTS.reverter.runtime) } },
    txs,
    steps,
  }
  const header = [
    `# Generated by npm run fuzz (seed ${about.seed}), shrunk by fast-check. The oracle found:`,
    ...violations.map((v) => `#   ${v.rule}${v.bundleHash ? ` ${v.bundleHash}` : ''}: ${v.detail}`),
    '# (hashes are those of the fuzz run: nonces and balances differ on a fresh chain, the slot is the same)',
  ]
  return `${header.join('\n')}\n${stringify(scenario)}`
}
