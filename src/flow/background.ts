import { createPublicClient, encodeFunctionData, http, keccak256, parseAbi, parseEther, toBytes, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { WorldOnChain } from '../world/deploy.js'
import type { GasSpec } from './flowFile.js'
import { planBackground, type PlannedBackgroundTx } from './gasMarket.js'
import { drawLogNormal, SeededRandom } from './random.js'
import type { MarketCheats } from './users.js'

/**
 * The contract the background flow's contract calls go to: it burns the gas it is given
 * (a loop while more than 5,000 gas is left, then STOP), a stand-in for the contract calls that
 * fill mainnet's blocks. Runtime code, set at `GAS_BURNER` when the market starts:
 * JUMPDEST; PUSH2 5000; GAS; GT; PUSH1 0; JUMPI; STOP.
 */
export const GAS_BURNER_CODE: Hex = '0x5b6113885a1160005700'
/** Where it sits: an address no mainnet contract has (derived from its name). */
export const GAS_BURNER: Address = `0x${keccak256(toBytes('bundlesim gas market burner')).slice(-40)}`

const erc20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)'])
/** Requests per JSON-RPC batch the flow sends (the server takes up to its --max-batch-size). */
const BATCH = 100

/** A slot's background flow as sent: how many txs and how much gas they asked for. */
export interface SentBackground {
  txs: number
  gas: bigint
  refused: number
}

/**
 * The gas market's background public flow: accounts derived from the seed, funded at start,
 * that each slot send ether transfers, token transfers and contract calls into the public
 * mempool — as much gas as `planBackground` asks at the head's base fee — tipping as the
 * flow file's priority-fee distribution draws. The txs go in JSON-RPC batches through the
 * harness's public RPC, like any wallet's.
 */
export class BackgroundFlow {
  readonly accounts: PrivateKeyAccount[]
  private readonly random: SeededRandom
  /** Each account's next nonce, as far as the flow knows (re-read when a tx was refused). */
  private readonly nextNonce = new Map<number, number>()
  private readonly senders: Set<string>
  private readonly sender: PublicClient

  constructor(
    private readonly spec: GasSpec,
    seed: number,
    private readonly world: WorldOnChain,
    rpcUrl: string,
    headers: Readonly<Record<string, string>>,
    private readonly reader: PublicClient,
    private readonly chainId: number,
  ) {
    // Its own stream of draws: users' plans stay what they were without a gas market.
    this.random = new SeededRandom(seed * 7919 + 17)
    this.accounts = Array.from({ length: spec.accounts }, (_, i) => privateKeyToAccount(keccak256(toBytes(`bundlesim gas market ${seed} ${i}`))))
    this.senders = new Set(this.accounts.map((a) => a.address.toLowerCase()))
    this.sender = createPublicClient({ transport: http(rpcUrl, { batch: { batchSize: BATCH }, fetchOptions: { headers: { ...headers } } }) }) as PublicClient
  }

  /** A priority fee drawn from the flow's distribution, in wei a gas (the users' swaps tip this way too). */
  tip(): bigint {
    return BigInt(Math.round(drawLogNormal(this.random, this.spec.priorityFeeGwei) * 1e9))
  }

  /** Was this tx's sender one of the background accounts? */
  isBackgroundSender(address: Address): boolean {
    return this.senders.has(address.toLowerCase())
  }

  /** Ether for gas, a token to transfer, and the burner's code (no tx, no block). */
  async fund(cheats: MarketCheats): Promise<void> {
    await cheats.setCode(GAS_BURNER, GAS_BURNER_CODE)
    const tokens = this.tokens()
    await cheats.setTokenState({
      ether: this.accounts.map((a) => ({ account: a.address, wei: parseEther('100') })),
      balances: this.accounts.flatMap((a) => tokens.map((t) => ({ token: t.address, holder: a.address, amount: 10n ** BigInt(t.decimals) * 1_000_000n }))),
    })
  }

  /** Plans, signs and sends one slot's background txs on the head's base fee. */
  async sendSlot(): Promise<SentBackground> {
    const head = await this.reader.getBlock()
    const nonces = await Promise.all(this.accounts.map((a) => this.reader.getTransactionCount({ address: a.address, blockNumber: head.number })))
    // An account whose txs have all landed is free; one with some pending sits the slot out.
    const free = nonces.flatMap((nonce, i) => ((this.nextNonce.get(i) ?? nonce) <= nonce ? [i] : []))
    for (const i of free) this.nextNonce.set(i, nonces[i]!)
    const baseFee = head.baseFeePerGas ?? 0n
    const planned = planBackground(this.random, this.spec, { gasLimit: head.gasLimit, baseFee }, free)
    const raws = await Promise.all(planned.map((tx) => this.sign(tx, baseFee)))
    const answers = await Promise.allSettled(raws.map((raw) => this.sender.request({ method: 'eth_sendRawTransaction', params: [raw] }) as Promise<Hash>))
    let refused = 0
    answers.forEach((answer, i) => {
      if (answer.status === 'fulfilled') return
      refused++
      // Its nonce is a gap now: read the account's nonce again next slot.
      this.nextNonce.delete(planned[i]!.account)
    })
    return { txs: planned.length - refused, gas: planned.reduce((sum, tx) => sum + tx.gas, 0n), refused }
  }

  private tokens() {
    return this.world.tokens.filter((t) => t.address.toLowerCase() !== this.world.contracts.weth.toLowerCase())
  }

  private sign(tx: PlannedBackgroundTx, baseFee: bigint): Promise<Hex> {
    const account = this.accounts[tx.account]!
    const nonce = this.nextNonce.get(tx.account)!
    this.nextNonce.set(tx.account, nonce + 1)
    const next = this.accounts[(tx.account + 1) % this.accounts.length]!.address
    const tokens = this.tokens()
    const call =
      tx.kind === 'transfer'
        ? { to: next, value: parseEther('0.01'), data: '0x' as Hex }
        : tx.kind === 'token' && tokens.length > 0
          ? { to: tokens[nonce % tokens.length]!.address, value: 0n, data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [next, 10n ** BigInt(tokens[nonce % tokens.length]!.decimals)] }) }
          : { to: GAS_BURNER, value: 0n, data: '0x' as Hex }
    return account.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce, ...call, gas: tx.gas, maxPriorityFeePerGas: tx.tipWei, maxFeePerGas: baseFee * 2n + tx.tipWei })
  }
}
