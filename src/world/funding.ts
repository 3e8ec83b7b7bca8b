import { createPublicClient, createTestClient, encodeAbiParameters, http, keccak256, numberToHex, pad, type Address, type Hex } from 'viem'
import { MAINNET } from './mainnet.js'

/** Funding an account outside blocks (storage writes): what the world offers its users. */
export interface TokenFunding {
  /** Sets `holder`'s balance of a world token (raw units). */
  setTokenBalance(token: Address, holder: Address, raw: bigint): Promise<void>
  /** Sets `owner`'s allowance of a world token for `spender` (raw units). */
  setTokenAllowance(token: Address, owner: Address, spender: Address, raw: bigint): Promise<void>
}

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

/**
 * Sets `owner`'s allowance of a world token for `spender` by writing storage: what an
 * `approve` would leave, without a tx (the market's users and searchers start approved).
 */
export async function setTokenAllowance(anvilUrl: string, token: Address, owner: Address, spender: Address, amount: bigint): Promise<void> {
  const test = createTestClient({ mode: 'anvil', transport: http(anvilUrl) })
  const inner = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, allowancesSlot(token)]))
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [spender, inner]))
  await test.setStorageAt({ address: token, index: slot, value: pad(numberToHex(amount), { size: 32 }) })
}
