import { createPublicClient, createTestClient, createWalletClient, http, numberToHex, pad, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import { nodeClient, PRESTATE_DIFF } from '../chain/nodeRpc.js'

/** One tx of a setup: what it does (for the error), where, its calldata, and its gas. */
export interface SetupStep {
  what: string
  to?: Address
  data: Hex
  /** Generous for its kind (measured: V3's factory deploys in 5.1M, a pool in 4.9M). */
  gas: bigint
  /** Sent by this account instead of the sender's owner (impersonated, funded for gas). */
  from?: Address
}

type TestClient = ReturnType<typeof createTestClient>
type NodeClient = ReturnType<typeof nodeClient>

/**
 * The txs of a setup before the first slot (the DEX world, the lending market): sent by an
 * impersonated owner (or a step's own `from`), a block's gas limit of them per block, each block
 * mined 1 s after its parent, so the same setup on the same genesis gives the same chain.
 * Anvil must not automine.
 *
 * @example
 * const setup = await SetupSender.start(anvilUrl, owner, 'lending setup')
 * await setup.run([{ what: 'deploying the Pool', data: deployData, gas: 7_000_000n }])
 * setup.blocks // 1
 */
export class SetupSender {
  /** Blocks mined so far. */
  blocks = 0
  private readonly nonces = new Map<string, number>()
  private readonly impersonated = new Set<string>()

  private constructor(
    readonly anvilUrl: string,
    readonly owner: Address,
    private readonly what: string,
    readonly publicClient: PublicClient,
    readonly test: TestClient,
    readonly node: NodeClient,
  ) {}

  /** Impersonates and funds `owner`, reading its nonce. */
  static async start(anvilUrl: string, owner: Address, what: string): Promise<SetupSender> {
    const transport = http(anvilUrl, { timeout: 60_000 })
    const sender = new SetupSender(anvilUrl, owner, what, createPublicClient({ transport }) as PublicClient, createTestClient({ mode: 'anvil', transport }), nodeClient(transport))
    await sender.account(owner)
    return sender
  }

  /** The owner's next nonce (a deploy's scratch address is the CREATE address of it). */
  get nonce(): number {
    return this.nonces.get(this.owner.toLowerCase())!
  }

  /** Sends `steps` in order and mines them, failing on the first receipt that reverted. */
  async run(steps: readonly SetupStep[]): Promise<Hash[]> {
    const gasLimit = (await this.publicClient.getBlock()).gasLimit
    const hashes: Hash[] = []
    let blockGas = 0n
    for (const step of steps) {
      // A fixed gas limit per kind of step, not an estimate: Anvil estimates against its
      // wall clock, so estimates (and so the txs and the chain) would differ between runs.
      const gas = step.gas
      // Anvil drops, rather than carries over, pool txs that do not fit the block it mines.
      if (blockGas + gas > gasLimit) {
        await this.mine()
        blockGas = 0n
      }
      blockGas += gas
      const from = step.from ?? this.owner
      await this.account(from)
      const nonce = this.nonces.get(from.toLowerCase())!
      this.nonces.set(from.toLowerCase(), nonce + 1)
      const wallet = createWalletClient({ account: from, transport: http(this.anvilUrl, { timeout: 60_000 }) })
      hashes.push(await wallet.sendTransaction({ chain: null, to: step.to ?? null, data: step.data, gas, nonce }))
    }
    await this.mine()
    for (const [i, hash] of hashes.entries()) {
      const receipt = await this.publicClient.getTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`${this.what}: ${steps[i]!.what} reverted (tx ${hash})`)
    }
    return hashes
  }

  /** Mines a block 1 s after the head. */
  async mine(): Promise<void> {
    const head = await this.publicClient.getBlock()
    await this.node.request({ method: 'evm_mine', params: [numberToHex(head.timestamp + 1n)] })
    this.blocks++
  }

  /** Stops impersonating every account the setup sent from. */
  async finish(): Promise<void> {
    for (const address of this.impersonated) await this.test.stopImpersonatingAccount({ address: address as Address })
  }

  private async account(address: Address): Promise<void> {
    const key = address.toLowerCase()
    if (this.impersonated.has(key)) return
    await this.test.impersonateAccount({ address })
    await this.test.setBalance({ address, value: 10n ** 24n })
    this.nonces.set(key, await this.publicClient.getTransactionCount({ address }))
    this.impersonated.add(key)
  }
}

/** Code and the storage `deployTx` wrote at `scratch`, placed at `target`; `scratch` emptied. `scratch` in the code becomes `target`, and each `rewrite` pair of 32-byte words is replaced in the storage. */
export async function moveContract(test: TestClient, node: NodeClient, move: { code: Hex; scratch: Address; target: Address; deployTx: Hash; rewrite?: Array<[Hex, Hex]> }): Promise<void> {
  const { scratch, target } = move
  const moved = move.code.toLowerCase().replaceAll(scratch.slice(2).toLowerCase(), target.slice(2).toLowerCase()) as Hex
  await test.setCode({ address: target, bytecode: moved })
  const storage = await storageWritten(node, move.deployTx, scratch)
  for (const [slot, value] of Object.entries(storage)) {
    const replaced = move.rewrite?.find(([from]) => from.toLowerCase() === value.toLowerCase())?.[1] ?? value
    await test.setStorageAt({ address: target, index: slot as Hex, value: replaced })
  }
  await test.setCode({ address: scratch, bytecode: '0x' })
}

/** In the storage `tx` wrote to `contract`, every word holding address `from` now holds `to` (a factory's record of a moved pair). */
export async function repointStorage(test: TestClient, node: NodeClient, change: { contract: Address; tx: Hash; from: Address; to: Address }): Promise<void> {
  const storage = await storageWritten(node, change.tx, change.contract)
  const from = pad(change.from.toLowerCase() as Hex, { size: 32 })
  for (const [slot, value] of Object.entries(storage)) if (value.toLowerCase() === from) await test.setStorageAt({ address: change.contract, index: slot as Hex, value: pad(change.to, { size: 32 }) })
}

/** The storage `tx` left at `address` (its prestate diff's post side). */
async function storageWritten(node: NodeClient, tx: Hash, address: Address): Promise<Record<string, Hex>> {
  const diff = await node.request({ method: 'debug_traceTransaction', params: [tx, PRESTATE_DIFF] })
  return (Object.entries(diff.post).find(([a]) => a.toLowerCase() === address.toLowerCase())?.[1].storage ?? {}) as Record<string, Hex>
}
