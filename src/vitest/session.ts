import { AssertionError } from 'node:assert'
import { parseEther, type Address, type Hash, type Hex } from 'viem'
import type { BundleStats } from '../protocol/bundleStats.js'
import type { ErrorKind } from '../protocol/errorKinds.js'
import type { SlotReport } from '../protocol/slotReport.js'
import { createBundlesimClient, type BundlesimClient } from '../protocol/client.js'
import type { Harness } from '../harness/startHarness.js'
import { scenarioAccount } from '../scenario/accounts.js'
import type { RunningBot } from '../bots/botProcess.js'
import { launchBot } from '../bots/launchBot.js'
import { NonceTracker } from '../scenario/nonces.js'
import { CALL_GAS, DEFAULT_MAX_PRIORITY_FEE_PER_GAS, TRANSFER_GAS, feeCapHeadroom } from '../scenario/txTemplates.js'

/** A funded account with its signer: the key is keccak256("bundlesim:" + name), as in scenarios. */
export interface TestAccount {
  name: string
  address: Address
  key: Hex
  signer: NonNullable<ReturnType<typeof scenarioAccount>['signer']>
}

/** A transaction to sign; every field but `to` has a default (see `sign`). */
export interface TxRequest {
  to?: Address
  value?: bigint
  data?: Hex
  gas?: bigint
  nonce?: number
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
}

/** `startBot`'s options. */
export interface StartBotOptions {
  /** Its searcher name in the competition and the dashboard. */
  name: string
  /** A shell command line, or `[program, ...args]`. */
  command: string | readonly string[]
  /** Its signing account (a `bundlesim.account`): its key is `BOT_KEY`/`PRIVATE_KEY`, its address is named `name`. */
  account?: TestAccount
  env?: Record<string, string>
  cwd?: string
  /** Load the host-map preload (default true). */
  hostMap?: boolean
}

/** What `sendBundle` returns: the hash the stats RPC knows it by, and its txs' hashes. */
export interface SentBundle {
  bundleHash: Hash
  txs: Hex[]
}

/** Extra `eth_sendBundle` fields (`SendBundleParams`), passed as given: `blockNumber`, `revertingTxHashes`, … */
export type BundleFields = Record<string, unknown>

/** States that mean the builder turned the bundle down (its `error` says why). */
const FAILED_STATES = ['invalid', 'simulationfail', 'excludedfromblock']

/**
 * One test's view of a harness: funded accounts, signing with nonces kept the way a bot keeps
 * them, bundles, slots, and assertions that read the bundle's trace (`svc_getBundleStats`).
 */
export class HarnessSession {
  /** The service's typed client (submission and stats URLs). */
  readonly client: BundlesimClient
  private readonly nonces: NonceTracker
  private readonly bots: RunningBot[] = []

  constructor(readonly harness: Harness) {
    this.client = createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })
    this.nonces = new NonceTracker(async (address) => Number(await this.client.request<Hex>('eth_getTransactionCount', [address, 'latest'])))
  }

  /**
   * Starts your own bot against this harness (stopped when the test ends): the harness's URLs
   * and `account`'s key in its environment (`RPC_URL`, `STATS_URL`, `MEV_SHARE_URL`, `BOT_KEY`,
   * `PRIVATE_KEY`, `BUNDLESIM_*`), the host map loaded into its Node processes, `env` over them;
   * named as a searcher under `name` (its account's address), so the competition reports it.
   * Wait on its output with `waitForLine`.
   *
   * @example
   * const me = await bundlesim.account('me', parseEther('200'))
   * const bot = await bundlesim.startBot({ name: 'mine', command: 'npx tsx bot.ts', account: me, env: { BID_SHARE: '0.9' } })
   * await bot.waitForLine(/watching/)
   */
  async startBot({ name, command, account, env = {}, cwd, hostMap = true }: StartBotOptions): Promise<RunningBot> {
    const bot = await launchBot(this.client, { name, command, cwd, key: account?.key, env, hostMap })
    this.bots.push(bot)
    return bot
  }

  /** Stops the bots this session started (the fixture calls it when the test ends). */
  async close(): Promise<void> {
    await Promise.all(this.bots.splice(0).map((bot) => bot.stop()))
  }

  /** A named account funded with `balance` wei (default 100 ether) on the head state. */
  async account(name: string, balance: bigint = parseEther('100')): Promise<TestAccount> {
    const { address, key, signer } = scenarioAccount(name)
    await this.client.setBalance({ address, wei: balance.toString() })
    return { name, address, key: key!, signer: signer! }
  }

  /**
   * Signs an EIP-1559 tx for this chain. Defaults: the account's next nonce (the chain's,
   * then counting up until the next slot), tip 2 gwei, fee cap tip + max(8 gwei, 2 × the
   * head's base fee), gas 21000 for a plain transfer and 1,000,000 otherwise.
   */
  async sign(from: TestAccount, tx: TxRequest): Promise<Hex> {
    const head = await this.client.request<{ baseFeePerGas?: Hex }>('eth_getBlockByNumber', ['latest', false])
    const tip = tx.maxPriorityFeePerGas ?? DEFAULT_MAX_PRIORITY_FEE_PER_GAS
    return from.signer.signTransaction({
      type: 'eip1559',
      chainId: this.harness.status().chainId,
      nonce: tx.nonce ?? (await this.nonces.next(from.address)),
      to: tx.to,
      value: tx.value ?? 0n,
      data: tx.data,
      gas: tx.gas ?? (tx.data === undefined && tx.to !== undefined ? TRANSFER_GAS : CALL_GAS),
      maxPriorityFeePerGas: tip,
      maxFeePerGas: tx.maxFeePerGas ?? tip + feeCapHeadroom(BigInt(head.baseFeePerGas ?? 0)),
    })
  }

  /** `eth_sendBundle` of signed txs (for the next block unless `fields.blockNumber` says otherwise). */
  async sendBundle(txs: Hex[], fields: BundleFields = {}): Promise<SentBundle> {
    const { bundleHash } = await this.client.request<{ bundleHash: Hash }>('eth_sendBundle', [{ txs, ...fields }])
    return { bundleHash, txs }
  }

  /** `eth_sendRawTransaction`: a tx in the public mempool. */
  sendTx(raw: Hex): Promise<Hash> {
    return this.client.sendRawTransaction(raw)
  }

  /** Builds and mines `slots` slots (default 1); pending nonces are forgotten, as after a real slot. */
  async advanceSlot(slots = 1): Promise<SlotReport[]> {
    const reports = await this.harness.advanceSlot(slots)
    this.nonces.reset()
    return reports
  }

  /** The bundle's trace (`svc_getBundleStats`). */
  stats(bundle: SentBundle | Hash): Promise<BundleStats> {
    const bundleHash = typeof bundle === 'string' ? bundle : bundle.bundleHash
    return this.client.getBundleStats(bundleHash)
  }

  /**
   * Assertions on a bundle's trace. `toLand()`: status landed. `toFail(reason?)`: turned down
   * (invalid, simulationfail or excludedfromblock), with `{ errorKind }` its stable kind (prefer
   * it), else its `error` containing `reason` (text) or matching it (RegExp). A failed
   * assertion shows the whole trace.
   *
   * @example await bundlesim.expectBundle(sent).toFail({ errorKind: 'LackOfFundForGasLimit' })
   */
  expectBundle(bundle: SentBundle | Hash) {
    const bundleHash = typeof bundle === 'string' ? bundle : bundle.bundleHash
    const check = async (wanted: string, holds: (stats: BundleStats) => boolean, expected: unknown, actual: (stats: BundleStats) => unknown) => {
      const stats = await this.stats(bundleHash)
      if (!holds(stats)) {
        throw new AssertionError({ message: `expected bundle ${bundleHash} ${wanted}; its trace: ${JSON.stringify(stats, null, 2)}`, expected, actual: actual(stats), operator: wanted })
      }
      return stats
    }
    return {
      toLand: () => check('to land', (stats) => stats.status.toLowerCase() === 'landed', 'landed', (stats) => stats.status),
      toFail: (reason?: string | RegExp | { errorKind: ErrorKind }) => {
        const byKind = typeof reason === 'object' && !(reason instanceof RegExp) ? reason.errorKind : undefined
        const text = byKind === undefined ? (reason as string | RegExp | undefined) : undefined
        return check(
          reason === undefined ? 'to fail' : `to fail with ${byKind ?? text}`,
          (stats) =>
            FAILED_STATES.includes(stats.status.toLowerCase()) &&
            (byKind !== undefined
              ? stats.errorKind === byKind
              : text === undefined || (typeof text === 'string' ? (stats.error ?? '').includes(text) : text.test(stats.error ?? ''))),
          { status: FAILED_STATES.join(' | '), ...(byKind !== undefined ? { errorKind: byKind } : { error: text ?? 'any' }) },
          (stats) => ({ status: stats.status, error: stats.error, errorKind: stats.errorKind }),
        )
      },
    }
  }
}
