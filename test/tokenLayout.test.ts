import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, createWalletClient, http, parseAbi, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { launchAnvil, type LaunchedAnvil } from '../src/chain/launchAnvil.js'
import { setTokenBalance, setTokenState, tokenLayout, TokenLayoutNotFound } from '../src/world/funding.js'
import { DEV_KEYS, rpc } from './support/harness.js'

/**
 * Tokens laid out as mainnet's are, not as the world's: balances in slot 9 behind a proxy (as
 * USDC's FiatToken keeps them), a Vyper-style mapping (the slot hashed before the key), and a
 * token whose balance is computed (no slot to write).
 */
const SOURCE = `
pragma solidity ^0.8.20;
contract FiatLike {
  address public owner; address public pauser; address public blacklister; string public name; string public symbol; uint8 public decimals; string public currency; address public masterMinter; bool public initialized;
  mapping(address => uint256) internal balances;
  mapping(address => mapping(address => uint256)) internal allowed;
  uint256 internal totalSupply_;
  function balanceOf(address a) external view returns (uint256) { return balances[a]; }
  function allowance(address o, address s) external view returns (uint256) { return allowed[o][s]; }
  function totalSupply() external view returns (uint256) { return totalSupply_; }
}
contract Proxy {
  bytes32 internal constant IMPLEMENTATION = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
  constructor(address implementation) { assembly { sstore(IMPLEMENTATION, implementation) } }
  fallback() external {
    assembly {
      let implementation := sload(IMPLEMENTATION)
      calldatacopy(0, 0, calldatasize())
      let ok := delegatecall(gas(), implementation, 0, calldatasize(), 0, 0)
      returndatacopy(0, 0, returndatasize())
      if iszero(ok) { revert(0, returndatasize()) }
      return(0, returndatasize())
    }
  }
}
contract VyperLike {
  function balanceOf(address a) external view returns (uint256 v) { assembly { mstore(0, 3) mstore(32, a) v := sload(keccak256(0, 64)) } }
  function allowance(address o, address s) external view returns (uint256 v) { assembly { mstore(0, 4) mstore(32, o) let inner := keccak256(0, 64) mstore(0, inner) mstore(32, s) v := sload(keccak256(0, 64)) } }
  function totalSupply() external pure returns (uint256) { return 0; }
}
contract Computed {
  function balanceOf(address) external view returns (uint256) { return block.number; }
  function allowance(address, address) external pure returns (uint256) { return 0; }
  function totalSupply() external pure returns (uint256) { return 0; }
}`
const abi = parseAbi(['function balanceOf(address) view returns (uint256)', 'function allowance(address, address) view returns (uint256)', 'function totalSupply() view returns (uint256)'])

describe('a token’s layout found from its code, as Foundry’s deal finds it', () => {
  let anvil: LaunchedAnvil
  const tokens: Record<'fiat' | 'proxy' | 'vyper' | 'computed', Address> = {} as never
  beforeAll(async () => {
    anvil = await launchAnvil({ host: '127.0.0.1', port: 0 })
    const { default: solc } = (await import('solc')) as unknown as { default: { compile(input: string): string } }
    const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources: { 'T.sol': { content: SOURCE } }, settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } })))
    const client = createPublicClient({ transport: http(anvil.url) })
    const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEYS[0]!), transport: http(anvil.url) })
    const deploy = async (name: string, args: unknown[] = []) => {
      const { abi: own, evm } = output.contracts['T.sol'][name]
      const hash = await wallet.deployContract({ abi: own, bytecode: `0x${evm.bytecode.object}` as Hex, args, chain: null })
      // This Anvil mines only when told (the builder's way).
      await rpc(anvil.url, 'anvil_mine', ['0x1'])
      return (await client.getTransactionReceipt({ hash })).contractAddress!
    }
    tokens.fiat = await deploy('FiatLike')
    tokens.proxy = await deploy('Proxy', [tokens.fiat])
    tokens.vyper = await deploy('VyperLike')
    tokens.computed = await deploy('Computed')
  }, 60_000)
  afterAll(async () => anvil?.stop())

  const read = (token: Address, functionName: 'balanceOf' | 'totalSupply', args: readonly Address[] = []) =>
    createPublicClient({ transport: http(anvil.url) }).readContract({ address: token, abi, functionName, args } as never) as Promise<bigint>
  const alice: Address = '0x00000000000000000000000000000000000a11ce'
  const bob: Address = '0x0000000000000000000000000000000000000b0b'

  it('balances in slot 9 behind a proxy (USDC’s layout): written under the proxy, the supply following', async () => {
    const { wrote } = await setTokenBalance(anvil.url, tokens.proxy, alice, 1_234_000_000n)
    expect(await read(tokens.proxy, 'balanceOf', [alice])).toBe(1_234_000_000n)
    expect(await read(tokens.proxy, 'totalSupply')).toBe(1_234_000_000n)
    // What it wrote, for the backtest's set-up: the balance's slot and the supply's, both the proxy's.
    expect(wrote.map((w) => w.address)).toEqual([tokens.proxy.toLowerCase(), tokens.proxy.toLowerCase()])
    await setTokenState(anvil.url, { balances: [{ token: tokens.proxy, holder: bob, amount: 5n }], allowances: [{ token: tokens.proxy, owner: bob, spender: alice, amount: 7n }] })
    expect(await read(tokens.proxy, 'balanceOf', [bob])).toBe(5n)
    expect(await read(tokens.proxy, 'totalSupply')).toBe(1_234_000_005n)
    expect(await createPublicClient({ transport: http(anvil.url) }).readContract({ address: tokens.proxy, abi, functionName: 'allowance', args: [bob, alice] })).toBe(7n)
  })

  it('a Vyper-style mapping (the slot hashed before the key)', async () => {
    await setTokenBalance(anvil.url, tokens.vyper, alice, 42n)
    expect(await read(tokens.vyper, 'balanceOf', [alice])).toBe(42n)
    expect((await tokenLayout(anvil.url, tokens.vyper)).supplySlot).toBeNull()
  })

  it('a balance with no slot of its own is refused, naming the token', async () => {
    await expect(setTokenBalance(anvil.url, tokens.computed, alice, 1n)).rejects.toThrow(TokenLayoutNotFound)
    await expect(setTokenBalance(anvil.url, tokens.computed, alice, 1n)).rejects.toThrow(`token ${tokens.computed}: cannot find where it keeps balances`)
  })
})
