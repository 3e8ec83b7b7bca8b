import { createPublicClient, createTestClient, encodeAbiParameters, encodeFunctionData, erc20Abi, http, keccak256, numberToHex, pad, type Address, type Hex } from 'viem'
import { storageKey, type StateWrite } from '../chain/stateWrites.js'
import { nodeClient } from '../chain/nodeRpc.js'
import { MAINNET } from '../dex/mainnet.js'

/** Funding an account outside blocks (storage writes): what the world offers its users. */
export interface TokenFunding {
  /** Sets `holder`'s balance of a world token (raw units); what it wrote. */
  setTokenBalance(token: Address, holder: Address, raw: bigint): Promise<StateWrite[]>
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

/** The storage slot of `holder`'s balance in a Solidity `mapping(address => uint256)` at `mappingSlot`. */
export function balanceSlot(holder: Address, mappingSlot: bigint): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, mappingSlot]))
}

/**
 * Where a token keeps what a cheat writes, found from the token's own code (a prestate trace
 * of `balanceOf`, `allowance` and `totalSupply`), as Foundry's `deal` finds it: the world's
 * tokens (WETH9, OpenZeppelin's ERC20) and mainnet's on a fork (USDC keeps balances in slot 9
 * behind its proxy, Vyper tokens hash the other way round) alike.
 */
export interface TokenLayout {
  balanceSlot(holder: Address): Hex
  allowanceSlot(owner: Address, spender: Address): Hex
  /** The total supply's slot, kept in step with a balance written; null when the token has none in storage (WETH9's is its ether). */
  supplySlot: Hex | null
}

/** A token whose storage does not show where it keeps a balance (a rebasing token's shares, a balance computed). */
export class TokenLayoutNotFound extends Error {
  constructor(token: Address, what: string) {
    super(`token ${token}: cannot find where it keeps ${what} (its balanceOf/allowance read no slot that is a mapping of the holder): set it with anvil_setStorageAt`)
    this.name = 'TokenLayoutNotFound'
  }
}

const layouts = new Map<string, Promise<TokenLayout>>()
const PROBE_OWNER: Address = '0x00000000000000000000000000000000b0b0b0b0'
const PROBE_SPENDER: Address = '0x00000000000000000000000000000000c0c0c0c0'
/** Mapping indexes searched: a token's declared state rarely runs past a few dozen slots. */
const MAX_MAPPING_INDEX = 256n

const solidityKey = (key: Hex, index: Hex | bigint) => keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }], [pad(key, { size: 32 }), typeof index === 'bigint' ? pad(numberToHex(index), { size: 32 }) : index]))
const vyperKey = (key: Hex, index: Hex | bigint) => keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }], [typeof index === 'bigint' ? pad(numberToHex(index), { size: 32 }) : index, pad(key, { size: 32 })]))

/**
 * The token's layout on the chain at `anvilUrl` (found once per token and URL).
 *
 * @example (await tokenLayout(anvilUrl, USDC)).balanceSlot(alice) // USDC's balances mapping (slot 9) at alice
 */
export function tokenLayout(anvilUrl: string, token: Address): Promise<TokenLayout> {
  const key = `${anvilUrl}|${token.toLowerCase()}`
  let found = layouts.get(key)
  if (!found) {
    found = findTokenLayout(anvilUrl, token)
    found.catch(() => layouts.delete(key))
    layouts.set(key, found)
  }
  return found
}

async function findTokenLayout(anvilUrl: string, token: Address): Promise<TokenLayout> {
  const node = nodeClient(http(anvilUrl))
  const slotsRead = async (data: Hex): Promise<Set<Hex>> => {
    const trace = await node.request({ method: 'debug_traceCall', params: [{ to: token, data }, 'latest', { tracer: 'prestateTracer' }] })
    const account = Object.entries(trace).find(([address]) => address.toLowerCase() === token.toLowerCase())?.[1]
    return new Set(Object.keys(account?.storage ?? {}).map((slot) => slot.toLowerCase() as Hex))
  }
  const [balanceReads, allowanceReads, supplyReads] = await Promise.all([
    slotsRead(encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [PROBE_OWNER] })),
    slotsRead(encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [PROBE_OWNER, PROBE_SPENDER] })),
    slotsRead(encodeFunctionData({ abi: erc20Abi, functionName: 'totalSupply' })),
  ])
  const owner = pad(PROBE_OWNER, { size: 32 })
  const spender = pad(PROBE_SPENDER, { size: 32 })
  let balances: ((holder: Address) => Hex) | null = null
  let allowances: ((owner: Address, spender: Address) => Hex) | null = null
  for (let index = 0n; index < MAX_MAPPING_INDEX && (balances === null || allowances === null); index++) {
    for (const hash of [solidityKey, vyperKey]) {
      const at = index
      if (balances === null && balanceReads.has(hash(owner, at))) balances = (holder) => hash(pad(holder, { size: 32 }), at)
      if (allowances === null && allowanceReads.has(hash(spender, hash(owner, at)))) allowances = (o, s) => hash(pad(s, { size: 32 }), hash(pad(o, { size: 32 }), at))
    }
  }
  if (balances === null) throw new TokenLayoutNotFound(token, 'balances')
  if (allowances === null) throw new TokenLayoutNotFound(token, 'allowances')
  // What totalSupply reads beyond what every call reads (a proxy's implementation slot): its one slot, if it has one.
  const ownSupplyReads = [...supplyReads].filter((slot) => !balanceReads.has(slot))
  return { balanceSlot: balances, allowanceSlot: allowances, supplySlot: ownSupplyReads.length === 1 ? ownSupplyReads[0]! : null }
}

const isWeth = (token: Address) => token.toLowerCase() === MAINNET.weth.toLowerCase()
const word = (value: bigint) => pad(numberToHex(value), { size: 32 })

/**
 * Sets `holder`'s balance of a token to `amount` (raw units) by writing storage: no tx, no
 * block. The supply follows (WETH9's is its ether, so its ether follows instead; a token whose
 * supply is not one slot keeps it). Returns what it wrote, for the backtest's set-up.
 *
 * @example await setTokenBalance(anvilUrl, MAINNET_TOKENS.USDC.address, alice, 1000n * 10n ** 6n)
 */
export async function setTokenBalance(anvilUrl: string, token: Address, holder: Address, amount: bigint): Promise<{ previous: bigint; wrote: StateWrite[] }> {
  const transport = http(anvilUrl)
  const publicClient = createPublicClient({ transport })
  const test = createTestClient({ mode: 'anvil', transport })
  const layout = await tokenLayout(anvilUrl, token)
  const slot = layout.balanceSlot(holder)
  const previous = BigInt((await publicClient.getStorageAt({ address: token, slot })) ?? '0x0')
  await test.setStorageAt({ address: token, index: slot, value: word(amount) })
  const address = token.toLowerCase() as Address
  const wrote: StateWrite[] = [{ address, field: 'storage', slot: storageKey(slot) }]
  if (isWeth(token)) {
    const ether = await publicClient.getBalance({ address: token })
    await test.setBalance({ address: token, value: ether - previous + amount })
    wrote.push({ address, field: 'balance' })
  } else if (layout.supplySlot !== null) {
    const supply = BigInt((await publicClient.getStorageAt({ address: token, slot: layout.supplySlot })) ?? '0x0')
    await test.setStorageAt({ address: token, index: layout.supplySlot, value: word(supply - previous + amount) })
    wrote.push({ address, field: 'storage', slot: storageKey(layout.supplySlot) })
  }
  return { previous, wrote }
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
  const tokensTouched = [...new Set([...(state.balances ?? []), ...(state.allowances ?? [])].map((b) => b.token.toLowerCase() as Address))]
  const layoutOf = new Map(await Promise.all(tokensTouched.map(async (token) => [token, await tokenLayout(anvilUrl, token)] as const)))
  const layout = (token: Address) => layoutOf.get(token.toLowerCase() as Address)!
  const balances = new Map((state.balances ?? []).map((b) => [`${b.token.toLowerCase()}:${b.holder.toLowerCase()}`, { ...b, slot: layout(b.token).balanceSlot(b.holder) }]))
  const entries = [...balances.values()]
  const previous = await Promise.all(entries.map((b) => publicClient.getStorageAt({ address: b.token, slot: b.slot })))
  const change = new Map<string, { token: Address; delta: bigint }>()
  entries.forEach((b, i) => {
    const key = b.token.toLowerCase()
    const delta = b.amount - BigInt(previous[i] ?? '0x0')
    change.set(key, { token: b.token, delta: (change.get(key)?.delta ?? 0n) + delta })
  })
  const tokens = [...change.values()]
  const supplySlot = (token: Address) => (isWeth(token) ? null : layout(token).supplySlot)
  const [supplies, wethEther] = await Promise.all([
    Promise.all(tokens.map((t) => { const slot = supplySlot(t.token); return slot === null ? Promise.resolve(undefined) : publicClient.getStorageAt({ address: t.token, slot }) })),
    Promise.all(tokens.map((t) => (isWeth(t.token) ? publicClient.getBalance({ address: t.token }) : Promise.resolve(0n)))),
  ])
  await Promise.all([
    ...entries.map((b) => test.setStorageAt({ address: b.token, index: b.slot, value: word(b.amount) })),
    ...(state.allowances ?? []).map((a) => test.setStorageAt({ address: a.token, index: layout(a.token).allowanceSlot(a.owner, a.spender), value: word(a.amount) })),
    ...(state.permit2Allowances ?? []).map((a) => test.setStorageAt({ address: MAINNET.permit2, index: permit2AllowanceSlot(a.owner, a.token, a.spender), value: word(PERMIT2_UNLIMITED) })),
    ...(state.ether ?? []).map((e) => test.setBalance({ address: e.account, value: e.wei })),
    ...tokens.map((t, i) => {
      if (isWeth(t.token)) return test.setBalance({ address: t.token, value: wethEther[i]! + t.delta })
      const slot = supplySlot(t.token)
      return slot === null ? Promise.resolve() : test.setStorageAt({ address: t.token, index: slot, value: word(BigInt(supplies[i] ?? '0x0') + t.delta) })
    }),
  ])
}

/**
 * Sets `owner`'s allowance of a world token for `spender` by writing storage: what an
 * `approve` would leave, without a tx (the market's users and searchers start approved).
 */
export async function setTokenAllowance(anvilUrl: string, token: Address, owner: Address, spender: Address, amount: bigint): Promise<void> {
  const test = createTestClient({ mode: 'anvil', transport: http(anvilUrl) })
  await test.setStorageAt({ address: token, index: (await tokenLayout(anvilUrl, token)).allowanceSlot(owner, spender), value: word(amount) })
}
