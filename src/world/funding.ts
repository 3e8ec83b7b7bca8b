import { createPublicClient, createTestClient, encodeAbiParameters, http, keccak256, numberToHex, pad, type Address, type Hex } from 'viem'
import { MAINNET } from '../dex/mainnet.js'

/** Funding an account outside blocks (storage writes): what the world offers its users. */
export interface TokenFunding {
  /** Sets `holder`'s balance of a world token (raw units). */
  setTokenBalance(token: Address, holder: Address, raw: bigint): Promise<void>
  /** Sets `owner`'s allowance of a world token for `spender` (raw units). */
  setTokenAllowance(token: Address, owner: Address, spender: Address, raw: bigint): Promise<void>
  /** Many balances, allowances and ether balances at once (`setTokenState`): the market funds hundreds of accounts. */
  setTokenState(state: TokenState): Promise<void>
}

/** Balances and allowances to write at once (raw units), and ether balances (wei). */
export interface TokenState {
  balances?: ReadonlyArray<{ token: Address; holder: Address; amount: bigint }>
  allowances?: ReadonlyArray<{ token: Address; owner: Address; spender: Address; amount: bigint }>
  /** Permit2 allowances (what `Permit2.approve(token, spender, amount, expiration)` leaves): the largest amount, never expiring. The token's own allowance for Permit2 is an `allowances` entry. */
  permit2Allowances?: ReadonlyArray<{ token: Address; owner: Address; spender: Address }>
  ether?: ReadonlyArray<{ account: Address; wei: bigint }>
}

/**
 * The storage slot of Permit2's `allowance[owner][token][spender]` (AllowanceTransfer's mapping,
 * slot 1 after SignatureTransfer's `nonceBitmap`), and the packed word of an allowance of the
 * largest amount (uint160) that never expires (uint48), nonce 0.
 */
export function permit2AllowanceSlot(owner: Address, token: Address, spender: Address): Hex {
  const level1 = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 1n]))
  const level2 = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [token, level1]))
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [spender, level2]))
}
const PERMIT2_UNLIMITED = ((2n ** 48n - 1n) << 160n) | (2n ** 160n - 1n)

/** Where a world token keeps balances and allowances: WETH9's slots 3 and 4, OpenZeppelin 3.4's ERC20's 0 and 1. */
const isWeth = (token: Address) => token.toLowerCase() === MAINNET.weth.toLowerCase()
const balancesSlot = (token: Address) => (isWeth(token) ? 3n : 0n)
const allowancesSlot = (token: Address) => (isWeth(token) ? 4n : 1n)
/** OpenZeppelin 3.4's ERC20 `_totalSupply` slot. */
const TOTAL_SUPPLY_SLOT = 2n

/** The storage slot of `holder`'s balance in a Solidity `mapping(address => uint256)` at `mappingSlot`. */
export function balanceSlot(holder: Address, mappingSlot: bigint): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, mappingSlot]))
}

/**
 * Sets `holder`'s balance of a world token to `amount` (raw units) by writing storage: no tx,
 * no block. The supply follows (WETH9's is its ether, so its ether follows instead).
 *
 * @example await setTokenBalance(anvilUrl, MAINNET_TOKENS.USDC.address, alice, 1000n * 10n ** 6n)
 */
export async function setTokenBalance(anvilUrl: string, token: Address, holder: Address, amount: bigint): Promise<{ previous: bigint }> {
  const transport = http(anvilUrl)
  const publicClient = createPublicClient({ transport })
  const test = createTestClient({ mode: 'anvil', transport })
  const slot = balanceSlot(holder, balancesSlot(token))
  const previous = BigInt((await publicClient.getStorageAt({ address: token, slot })) ?? '0x0')
  await test.setStorageAt({ address: token, index: slot, value: pad(numberToHex(amount), { size: 32 }) })
  if (isWeth(token)) {
    const ether = await publicClient.getBalance({ address: token })
    await test.setBalance({ address: token, value: ether - previous + amount })
  } else {
    const supplySlot = numberToHex(TOTAL_SUPPLY_SLOT, { size: 32 })
    const supply = BigInt((await publicClient.getStorageAt({ address: token, slot: supplySlot })) ?? '0x0')
    await test.setStorageAt({ address: token, index: supplySlot, value: pad(numberToHex(supply - previous + amount), { size: 32 }) })
  }
  return { previous }
}

/** The storage slot of `owner`'s allowance for `spender` in a world token. */
function allowanceSlot(token: Address, owner: Address, spender: Address): Hex {
  const inner = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, allowancesSlot(token)]))
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [spender, inner]))
}

/**
 * Writes many balances, allowances and ether balances at once, as `setTokenBalance`,
 * `setTokenAllowance` and `anvil_setBalance` would one by one (supplies and WETH's ether
 * follow the balances), in JSON-RPC batches: funding hundreds of accounts takes a few round
 * trips instead of thousands. A holder listed twice for a token keeps the last amount.
 *
 * @example await setTokenState(anvilUrl, { balances: [{ token: USDC, holder: alice, amount: 10n ** 9n }], ether: [{ account: alice, wei: 10n ** 20n }] })
 */
export async function setTokenState(anvilUrl: string, state: TokenState): Promise<void> {
  const transport = http(anvilUrl, { batch: { batchSize: 500 } })
  const publicClient = createPublicClient({ transport })
  const test = createTestClient({ mode: 'anvil', transport })
  const balances = new Map((state.balances ?? []).map((b) => [`${b.token.toLowerCase()}:${b.holder.toLowerCase()}`, { ...b, slot: balanceSlot(b.holder, balancesSlot(b.token)) }]))
  const entries = [...balances.values()]
  const previous = await Promise.all(entries.map((b) => publicClient.getStorageAt({ address: b.token, slot: b.slot })))
  const change = new Map<string, { token: Address; delta: bigint }>()
  entries.forEach((b, i) => {
    const key = b.token.toLowerCase()
    const delta = b.amount - BigInt(previous[i] ?? '0x0')
    change.set(key, { token: b.token, delta: (change.get(key)?.delta ?? 0n) + delta })
  })
  const word = (value: bigint) => pad(numberToHex(value), { size: 32 })
  const supplySlot = numberToHex(TOTAL_SUPPLY_SLOT, { size: 32 })
  const tokens = [...change.values()]
  const [supplies, wethEther] = await Promise.all([
    Promise.all(tokens.map((t) => (isWeth(t.token) ? Promise.resolve(undefined) : publicClient.getStorageAt({ address: t.token, slot: supplySlot })))),
    Promise.all(tokens.map((t) => (isWeth(t.token) ? publicClient.getBalance({ address: t.token }) : Promise.resolve(0n)))),
  ])
  await Promise.all([
    ...entries.map((b) => test.setStorageAt({ address: b.token, index: b.slot, value: word(b.amount) })),
    ...(state.allowances ?? []).map((a) => test.setStorageAt({ address: a.token, index: allowanceSlot(a.token, a.owner, a.spender), value: word(a.amount) })),
    ...(state.permit2Allowances ?? []).map((a) => test.setStorageAt({ address: MAINNET.permit2, index: permit2AllowanceSlot(a.owner, a.token, a.spender), value: word(PERMIT2_UNLIMITED) })),
    ...(state.ether ?? []).map((e) => test.setBalance({ address: e.account, value: e.wei })),
    ...tokens.map((t, i) =>
      isWeth(t.token) ? test.setBalance({ address: t.token, value: wethEther[i]! + t.delta }) : test.setStorageAt({ address: t.token, index: supplySlot, value: word(BigInt(supplies[i] ?? '0x0') + t.delta) }),
    ),
  ])
}

/**
 * Sets `owner`'s allowance of a world token for `spender` by writing storage: what an
 * `approve` would leave, without a tx (the market's users and searchers start approved).
 */
export async function setTokenAllowance(anvilUrl: string, token: Address, owner: Address, spender: Address, amount: bigint): Promise<void> {
  const test = createTestClient({ mode: 'anvil', transport: http(anvilUrl) })
  await test.setStorageAt({ address: token, index: allowanceSlot(token, owner, spender), value: pad(numberToHex(amount), { size: 32 }) })
}
