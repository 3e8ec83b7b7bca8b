import { BaseError, HttpRequestError, TimeoutError, createPublicClient, http, zeroAddress, type Hash, type PublicClient } from 'viem'
import { nodeErrorMessage } from './chainClient.js'
import { fetchFromNode, RATE_LIMIT_TRIES } from './rateLimits.js'

/** A fork's source answers within this, or it is reported unreachable (Anvil itself would hang for ~30 s). */
export const FORK_CHECK_TIMEOUT_MS = 5_000

/** The block a fork starts from, as the remote reports it: what the chain continues after. */
export interface ForkBlock {
  number: bigint
  hash: Hash
  timestamp: bigint
  baseFeePerGas: bigint
  gasLimit: bigint
  gasUsed: bigint
}

/** Where a fork starts: the remote's chain id and the (pinned or latest) block. */
export interface ForkPoint {
  chainId: number
  block: ForkBlock
}

/** A fork source that cannot serve the fork: unreachable, or without the block asked for. */
export class ForkSourceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'ForkSourceError'
  }
}

/**
 * A fork URL fit for messages and files: scheme, host and port only. Providers put API keys
 * in the path or the user part (`https://eth-mainnet.g.alchemy.com/v2/KEY`), so those are cut.
 */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 || parsed.search ? '/…' : ''}`
  } catch {
    return '(not a URL)'
  }
}

/**
 * A viem client for a remote node: no retries, a short timeout, batched reads. With
 * `onRateLimited`, an HTTP 429 is waited out and the request sent again (`fetchFromNode`,
 * each try within the timeout), each wait told.
 */
export function remoteClient(url: string, timeoutMs = FORK_CHECK_TIMEOUT_MS, onRateLimited?: () => void): PublicClient {
  if (onRateLimited === undefined) return createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0, batch: { batchSize: 50 } }) })
  const fetchFn = (input: string | URL | Request, init?: RequestInit) => fetchFromNode(input instanceof Request ? input.url : input, init ?? {}, { attemptTimeoutMs: timeoutMs, onWait: onRateLimited })
  // The waits are the provider's to ask: each try has the timeout, not the whole.
  return createPublicClient({ transport: http(url, { timeout: RATE_LIMIT_TRIES * (timeoutMs + 8_000), retryCount: 0, batch: { batchSize: 50 }, fetchFn }) })
}

/** Why a request to the remote failed, in a few words (connection refused, timeout, HTTP status). */
function transportProblem(error: unknown, timeoutMs: number): string | null {
  if (!(error instanceof BaseError)) return null
  if (error.walk((e) => e instanceof TimeoutError)) return `no answer within ${timeoutMs} ms`
  const httpError = error.walk((e) => e instanceof HttpRequestError) as HttpRequestError | null
  if (!httpError) return null
  let cause: unknown = httpError.cause
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause
  if (cause instanceof Error) return cause.message
  return httpError.status ? `HTTP ${httpError.status}` : httpError.details || httpError.shortMessage
}

/**
 * Checks, before Anvil starts forking, that the fork URL answers and can serve the block:
 * fails fast with `fork URL … unreachable: …` or `fork block N is beyond the remote head M`
 * instead of Anvil's long retries. Without a block number the fork starts at the remote head.
 *
 * @example const point = await checkForkSource('http://127.0.0.1:8545', 19_000_000n)
 */
export async function checkForkSource(
  url: string,
  blockNumber?: bigint,
  options: { timeoutMs?: number; checkChain?: (chainId: number) => void; onRateLimited?: () => void } = {},
): Promise<ForkPoint> {
  const timeoutMs = options.timeoutMs ?? FORK_CHECK_TIMEOUT_MS
  const where = describeUrl(url)
  try {
    new URL(url)
  } catch {
    throw new ForkSourceError(`fork URL ${JSON.stringify(url)} is not a URL (expected e.g. https://host/path or http://127.0.0.1:8545)`)
  }
  const client = remoteClient(url, timeoutMs, options.onRateLimited)
  let chainId: number
  let head: bigint
  try {
    ;[chainId, head] = await Promise.all([client.getChainId(), client.getBlockNumber({ cacheTime: 0 })])
  } catch (error) {
    const problem = transportProblem(error, timeoutMs)
    throw new ForkSourceError(`fork URL ${where} unreachable: ${problem ?? `it does not answer eth_chainId / eth_blockNumber (${nodeErrorMessage(error)})`}`, { cause: error })
  }
  // A snapshot of another chain is the first thing to say, before anything about blocks.
  options.checkChain?.(chainId)
  const number = blockNumber ?? head
  if (number > head) throw new ForkSourceError(`fork block ${number} is beyond the remote head ${head} (${where})`)
  try {
    const block = await client.getBlock({ blockNumber: number })
    // A pruned (non-archive) node has the header but not the state: Anvil would fail on the first read.
    await client.getBalance({ address: zeroAddress, blockNumber: number })
    return {
      chainId,
      block: {
        number,
        hash: block.hash,
        timestamp: block.timestamp,
        baseFeePerGas: block.baseFeePerGas ?? 0n,
        gasLimit: block.gasLimit,
        gasUsed: block.gasUsed,
      },
    }
  } catch (error) {
    const problem = transportProblem(error, timeoutMs)
    throw new ForkSourceError(
      problem
        ? `fork URL ${where} unreachable: ${problem}`
        : `fork block ${number} cannot be served by ${where}: ${nodeErrorMessage(error)} (an archive node serves old blocks; a full node only recent ones)`,
      { cause: error },
    )
  }
}
