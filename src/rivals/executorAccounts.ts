import { encodeAbiParameters, keccak256, parseEther, toBytes, toHex, type Address } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { WorldOnChain } from '../world/deploy.js'
import type { MarketCheats } from '../flow/users.js'
import { SeededRandom } from '../flow/random.js'
import { RIVAL_OPERATORS } from '../flow/flowFile.js'
import { rivalExecutorCode } from './executorArtifact.js'

/** What the executor contract holds to trade with. */
const EXECUTOR_WETH = parseEther('10000')

/**
 * An emulated rival's keys and contract, derived from the seed and its name (the same every
 * run): its signing identity (`X-Flashbots-Signature`), its operator accounts (the senders of
 * its txs), its executor contract (`contracts/RivalExecutor.sol`: holds its WETH, trades,
 * pays the builder) and its own random draws.
 */
export class ExecutorAccounts {
  readonly identity: PrivateKeyAccount
  readonly operators: PrivateKeyAccount[]
  readonly executor: Address
  readonly random: SeededRandom
  private used = new Set<number>()

  constructor(seed: number, name: string) {
    const key = `bundlesim searcher ${seed} ${name}`
    this.identity = privateKeyToAccount(keccak256(toBytes(key)))
    this.operators = Array.from({ length: RIVAL_OPERATORS }, (_, i) => privateKeyToAccount(keccak256(toBytes(`${key} executor ${i}`))))
    this.executor = `0x${keccak256(toBytes(`${key} executor contract`)).slice(-40)}`
    this.random = new SeededRandom(Number.parseInt(keccak256(toBytes(key)).slice(2, 10), 16))
  }

  /** Every address that is this rival's: its signing key, operators and executor contract. */
  addresses(): Address[] {
    return [this.identity.address, ...this.operators.map((o) => o.address), this.executor]
  }

  isOperator(address: Address): boolean {
    return this.operators.some((o) => o.address.toLowerCase() === address.toLowerCase())
  }

  /** An operator no bundle of this slot uses yet, now taken; null when all are. */
  takeOperator(): PrivateKeyAccount | null {
    const index = [...this.operators.keys()].find((i) => !this.used.has(i))
    if (index === undefined) return null
    this.used.add(index)
    return this.operators[index]!
  }

  /** A new slot: every operator is free again. */
  newSlot(): void {
    this.used.clear()
  }

  /** The executor's code and operators, its WETH and the routers approved (the Universal Router through Permit2), ether for the operators' gas (no tx, no block). */
  async fund(cheats: MarketCheats, world: WorldOnChain): Promise<void> {
    await cheats.setCode(this.executor, rivalExecutorCode)
    // `operators` is the contract's mapping at slot 0: keccak256(operator . 0) is true.
    for (const operator of this.operators) await cheats.setStorageAt(this.executor, keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [operator.address, 0n])), toHex(1n, { size: 32 }))
    const spenders = [world.contracts.uniswapV2Router02, world.contracts.swapRouter, world.contracts.sushiswapRouter, world.contracts.permit2]
    await cheats.setTokenState({
      ether: this.operators.map((o) => ({ account: o.address, wei: parseEther('100') })),
      balances: [{ token: world.contracts.weth, holder: this.executor, amount: EXECUTOR_WETH }],
      allowances: world.tokens.flatMap((t) => spenders.map((spender) => ({ token: t.address, owner: this.executor, spender, amount: 2n ** 256n - 1n }))),
      permit2Allowances: world.tokens.map((t) => ({ token: t.address, owner: this.executor, spender: world.contracts.universalRouter })),
    })
  }
}
