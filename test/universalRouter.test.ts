import { describe, it, expect } from 'vitest'
import { concat, decodeAbiParameters, decodeFunctionData, encodeAbiParameters, encodeFunctionData, encodePacked, keccak256, pad, parseAbi, parseAbiParameters, size, slice, toHex, zeroAddress, type Address, type Hex } from 'viem'
import { ACTION_CONSTANTS, UNIVERSAL_ROUTER_COMMANDS as C, V4_ACTIONS, decodeUniversalRouterSwap, encodeUniversalRouterSwap, universalRouterAbi, v4PoolId, v4PoolKey, type UniversalRouterSwap, type UniversalRouterVenue } from '../src/dex/universalRouter.js'

const WETH: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const USDC: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' // sorts below WETH: currency0 of their V4 pool
const DAI: Address = '0x6B175474E89094C44Da98b954EedeAC495271d0F'
const HOOKS: Address = '0x00000000000000000000000000000000000000C0'
const { MSG_SENDER, ADDRESS_THIS } = ACTION_CONSTANTS
const deadline = 1_900_000_000n

const venueFee: Record<UniversalRouterVenue, { fee: number; tickSpacing?: number }> = {
  'uniswap-v2': { fee: 3000 },
  'uniswap-v3': { fee: 500 },
  'uniswap-v4': { fee: 3000, tickSpacing: 60 },
}
const cases = {
  'ERC-20 in': { tokenIn: USDC, tokenOut: WETH, amountIn: 2_000_000_000n, amountOutMin: 10n ** 18n - 7n, payWithEther: false, receiveEther: false },
  'ether in': { tokenIn: WETH, tokenOut: USDC, amountIn: 10n ** 18n, amountOutMin: 1_990_000_000n, payWithEther: true, receiveEther: false },
  'ether out': { tokenIn: USDC, tokenOut: WETH, amountIn: 3_000_000_000n, amountOutMin: 15n * 10n ** 17n, payWithEther: false, receiveEther: true },
}
const swapOf = (venue: UniversalRouterVenue, kind: keyof typeof cases): UniversalRouterSwap => ({ venue, ...venueFee[venue], ...cases[kind], weth: WETH, deadline })

/** The commands and inputs of an execute(...) call, read with the ABI the router publishes. */
function executeArgs(data: Hex): { commands: Hex; inputs: readonly Hex[] } {
  const { args } = decodeFunctionData({ abi: parseAbi(['function execute(bytes commands, bytes[] inputs, uint256 deadline)']), data })
  return { commands: args[0], inputs: args[1] }
}
const v4Actions = (input: Hex) => decodeAbiParameters(parseAbiParameters('bytes, bytes[]'), input)
const word = (data: Hex, i: number) => slice(data, 32 * i, 32 * (i + 1))

describe('encodeUniversalRouterSwap / decodeUniversalRouterSwap round trips', () => {
  for (const venue of Object.keys(venueFee) as UniversalRouterVenue[]) {
    for (const kind of Object.keys(cases) as (keyof typeof cases)[]) {
      it(`${venue}, ${kind}`, () => {
        const swap = swapOf(venue, kind)
        const { data, value } = encodeUniversalRouterSwap(swap)
        expect(value).toBe(swap.payWithEther ? swap.amountIn : 0n)
        const { weth: _weth, ...expected } = swap
        expect(decodeUniversalRouterSwap(data, value, WETH)).toEqual(expected)
      })
    }
  }
})

describe('command sequences', () => {
  const commandsOf = (venue: UniversalRouterVenue, kind: keyof typeof cases) => executeArgs(encodeUniversalRouterSwap(swapOf(venue, kind)).data).commands
  it('wraps before and unwraps after the swap command', () => {
    expect(commandsOf('uniswap-v2', 'ERC-20 in')).toBe('0x08')
    expect(commandsOf('uniswap-v3', 'ether in')).toBe('0x0b00')
    expect(commandsOf('uniswap-v4', 'ether out')).toBe('0x100c')
  })

  it('wraps into the router and pays from it when ether goes in (V2, V3)', () => {
    for (const venue of ['uniswap-v2', 'uniswap-v3'] as const) {
      const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf(venue, 'ether in')).data)
      expect(decodeAbiParameters(parseAbiParameters('address, uint256'), inputs[0]!)).toEqual([ADDRESS_THIS, 10n ** 18n])
      expect(word(inputs[1]!, 4)).toBe(pad('0x00')) // payerIsUser false: the router pays
    }
  })

  it('V4 pulls from the user with SETTLE_ALL and pays the user with TAKE_ALL for ERC-20s', () => {
    const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf('uniswap-v4', 'ERC-20 in')).data)
    const [actions, params] = v4Actions(inputs[0]!)
    expect(actions).toBe(toHex(Uint8Array.from([V4_ACTIONS.SWAP_EXACT_IN_SINGLE, V4_ACTIONS.SETTLE_ALL, V4_ACTIONS.TAKE_ALL])))
    expect(decodeAbiParameters(parseAbiParameters('address, uint256'), params[1]!)).toEqual([USDC, 2_000_000_000n])
    expect(decodeAbiParameters(parseAbiParameters('address, uint256'), params[2]!)).toEqual([WETH, 10n ** 18n - 7n])
  })

  it('V4 settles from the router (SETTLE, OPEN_DELTA, payerIsUser false) after WRAP_ETH', () => {
    const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf('uniswap-v4', 'ether in')).data)
    const [actions, params] = v4Actions(inputs[1]!)
    expect(actions).toBe('0x060b0f')
    expect(decodeAbiParameters(parseAbiParameters('address, uint256, bool'), params[1]!)).toEqual([WETH, 0n, false])
  })

  it('V4 takes the whole credit into the router (TAKE, ADDRESS_THIS, OPEN_DELTA) before UNWRAP_WETH to the sender', () => {
    const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf('uniswap-v4', 'ether out')).data)
    const [actions, params] = v4Actions(inputs[0]!)
    expect(actions).toBe('0x060c0e')
    expect(decodeAbiParameters(parseAbiParameters('address, address, uint256'), params[2]!)).toEqual([WETH, ADDRESS_THIS, 0n])
    expect(decodeAbiParameters(parseAbiParameters('address, uint256'), inputs[1]!)).toEqual([MSG_SENDER, 15n * 10n ** 17n])
  })

  it('refuses ether in unless tokenIn is WETH, and ether out unless tokenOut is WETH', () => {
    expect(() => encodeUniversalRouterSwap({ ...swapOf('uniswap-v3', 'ether in'), tokenIn: DAI })).toThrow(/WETH/)
    expect(() => encodeUniversalRouterSwap({ ...swapOf('uniswap-v3', 'ether out'), tokenOut: DAI })).toThrow(/WETH/)
    expect(() => encodeUniversalRouterSwap({ ...swapOf('uniswap-v4', 'ERC-20 in'), tickSpacing: undefined })).toThrow(/tickSpacing/)
  })
})

describe('byte layouts Dispatcher.sol reads', () => {
  it('V2_SWAP_EXACT_IN: recipient, amountIn, amountOutMin at 0x00/0x20/0x40, payerIsUser at 0x80, path = toAddressArray(3)', () => {
    const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf('uniswap-v2', 'ERC-20 in')).data)
    const input = inputs[0]!
    expect(word(input, 0)).toBe(pad(MSG_SENDER))
    expect(BigInt(word(input, 1))).toBe(2_000_000_000n)
    expect(BigInt(word(input, 2))).toBe(10n ** 18n - 7n)
    expect(BigInt(word(input, 3))).toBe(0xa0n) // offset of the address[]: right after the 5 head words
    expect(BigInt(word(input, 4))).toBe(1n) // payerIsUser
    expect(BigInt(word(input, 5))).toBe(2n) // path length
    expect(word(input, 6)).toBe(pad(USDC.toLowerCase() as Hex))
    expect(word(input, 7)).toBe(pad(WETH.toLowerCase() as Hex))
    expect(size(input)).toBe(8 * 32)
    expect(decodeAbiParameters(parseAbiParameters('address, uint256, uint256, address[], bool'), input)).toEqual([MSG_SENDER, 2_000_000_000n, 10n ** 18n - 7n, [USDC, WETH], true])
  })

  it('V3_SWAP_EXACT_IN: same head, path = toBytes(3) packed as tokenIn(20) fee(3) tokenOut(20)', () => {
    const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf('uniswap-v3', 'ether out')).data)
    const [recipient, amountIn, amountOutMin, path, payerIsUser] = decodeAbiParameters(parseAbiParameters('address, uint256, uint256, bytes, bool'), inputs[0]!)
    expect([recipient, amountIn, amountOutMin, payerIsUser]).toEqual([ADDRESS_THIS, 3_000_000_000n, 15n * 10n ** 17n, true])
    expect(size(path)).toBe(43)
    expect(slice(path, 0, 20)).toBe(USDC.toLowerCase())
    expect(slice(path, 20, 23)).toBe('0x0001f4') // 500, big-endian uint24
    expect(slice(path, 23, 43)).toBe(WETH.toLowerCase())
  })

  it('V4 SWAP_EXACT_IN_SINGLE: one dynamic struct behind an offset word (CalldataDecoder.decodeSwapExactInSingleParams)', () => {
    const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf('uniswap-v4', 'ERC-20 in')).data)
    const params = v4Actions(inputs[0]!)[1][0]!
    expect(BigInt(word(params, 0))).toBe(0x20n)
    expect(size(params)).toBeGreaterThanOrEqual(0x140) // the decoder's minimum length
    expect(word(params, 1)).toBe(pad(USDC.toLowerCase() as Hex)) // currency0
    expect(word(params, 2)).toBe(pad(WETH.toLowerCase() as Hex)) // currency1
    expect(BigInt(word(params, 3))).toBe(3000n) // fee
    expect(BigInt(word(params, 4))).toBe(60n) // tickSpacing
    expect(word(params, 5)).toBe(pad(zeroAddress)) // hooks
    expect(BigInt(word(params, 6))).toBe(1n) // zeroForOne: USDC is currency0
    expect(BigInt(word(params, 7))).toBe(2_000_000_000n)
    expect(BigInt(word(params, 8))).toBe(10n ** 18n - 7n)
  })
})

describe('v4PoolKey / v4PoolId', () => {
  it('sorts the currencies and defaults hooks to the zero address', () => {
    const key = v4PoolKey(WETH, USDC, 500, 10)
    expect(key).toEqual({ currency0: USDC, currency1: WETH, fee: 500, tickSpacing: 10, hooks: zeroAddress })
    expect(v4PoolKey(USDC, WETH, 500, 10)).toEqual(key)
    expect(v4PoolKey(DAI, USDC, 100, 1, HOOKS)).toMatchObject({ currency0: DAI, currency1: USDC, hooks: HOOKS })
  })

  it('is keccak256 of the five 32-byte words of abi.encode(PoolKey)', () => {
    const handEncoded = concat([pad(USDC), pad(WETH), pad(toHex(3000)), pad(toHex(60)), pad(HOOKS)])
    expect(v4PoolId(v4PoolKey(WETH, USDC, 3000, 60, HOOKS))).toBe(keccak256(handEncoded))
    expect(v4PoolId(v4PoolKey(WETH, USDC, 3000, 60))).not.toBe(keccak256(handEncoded))
  })

  it('encodes a negative tickSpacing as a sign-extended int24', () => {
    const handEncoded = concat([pad(USDC), pad(WETH), pad(toHex(3000)), toHex(2n ** 256n - 60n), pad(zeroAddress)])
    expect(v4PoolId(v4PoolKey(WETH, USDC, 3000, -60))).toBe(keccak256(handEncoded))
  })
})

describe('decodeUniversalRouterSwap rejects', () => {
  const execute = (commands: number[], inputs: Hex[]) => encodeFunctionData({ abi: universalRouterAbi, functionName: 'execute', args: [toHex(Uint8Array.from(commands)), inputs, deadline] })
  const v3Input = (path: Hex) => encodeAbiParameters(parseAbiParameters('address, uint256, uint256, bytes, bool'), [MSG_SENDER, 10n, 1n, path, true])

  it('garbage', () => {
    expect(decodeUniversalRouterSwap('0x', 0n, WETH)).toBeNull()
    expect(decodeUniversalRouterSwap('0xdeadbeef', 0n, WETH)).toBeNull()
    const { data } = encodeUniversalRouterSwap(swapOf('uniswap-v3', 'ERC-20 in'))
    expect(decodeUniversalRouterSwap(slice(data, 0, 100), 0n, WETH)).toBeNull() // truncated
    expect(decodeUniversalRouterSwap(execute([C.V3_SWAP_EXACT_IN], ['0x1234']), 0n, WETH)).toBeNull()
  })

  it('a multi-hop V3 path, and a single-hop one it reads', () => {
    const twoHops = encodePacked(['address', 'uint24', 'address', 'uint24', 'address'], [USDC, 500, WETH, 3000, DAI])
    expect(decodeUniversalRouterSwap(execute([C.V3_SWAP_EXACT_IN], [v3Input(twoHops)]), 0n, WETH)).toBeNull()
    const oneHop = encodePacked(['address', 'uint24', 'address'], [USDC, 500, WETH])
    expect(decodeUniversalRouterSwap(execute([C.V3_SWAP_EXACT_IN], [v3Input(oneHop)]), 0n, WETH)).toMatchObject({ venue: 'uniswap-v3', tokenIn: USDC, tokenOut: WETH, fee: 500 })
  })

  it('a non-execute selector', () => {
    const transfer = encodeFunctionData({ abi: parseAbi(['function transfer(address to, uint256 amount)']), functionName: 'transfer', args: [USDC, 1n] })
    expect(decodeUniversalRouterSwap(transfer, 0n, WETH)).toBeNull()
  })

  it('other commands around the swap, or a hooked V4 pool', () => {
    const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf('uniswap-v3', 'ERC-20 in')).data)
    const sweep = encodeAbiParameters(parseAbiParameters('address, address, uint256'), [WETH, MSG_SENDER, 0n])
    expect(decodeUniversalRouterSwap(execute([C.V3_SWAP_EXACT_IN, 0x04], [inputs[0]!, sweep]), 0n, WETH)).toBeNull()
    const v4Input = (hooks: Address) => {
      const swap = encodeAbiParameters(parseAbiParameters('((address, address, uint24, int24, address), bool, uint128, uint128, bytes)'), [[[USDC, WETH, 3000, 60, hooks], true, 10n, 1n, '0x']])
      const settle = encodeAbiParameters(parseAbiParameters('address, uint256'), [USDC, 10n])
      const take = encodeAbiParameters(parseAbiParameters('address, uint256'), [WETH, 1n])
      return encodeAbiParameters(parseAbiParameters('bytes, bytes[]'), ['0x060c0f', [swap, settle, take]])
    }
    expect(decodeUniversalRouterSwap(execute([C.V4_SWAP], [v4Input(zeroAddress)]), 0n, WETH)).toMatchObject({ venue: 'uniswap-v4', tokenIn: USDC, tokenOut: WETH, tickSpacing: 60 })
    expect(decodeUniversalRouterSwap(execute([C.V4_SWAP], [v4Input(HOOKS)]), 0n, WETH)).toBeNull()
  })

  it('ether in without the ether to wrap', () => {
    const { data, value } = encodeUniversalRouterSwap(swapOf('uniswap-v2', 'ether in'))
    expect(decodeUniversalRouterSwap(data, value, WETH)).not.toBeNull()
    expect(decodeUniversalRouterSwap(data, value - 1n, WETH)).toBeNull()
  })

  it('reads the deadline-less execute(commands, inputs) with a null deadline', () => {
    const { inputs } = executeArgs(encodeUniversalRouterSwap(swapOf('uniswap-v2', 'ERC-20 in')).data)
    const data = encodeFunctionData({ abi: universalRouterAbi, functionName: 'execute', args: [toHex(Uint8Array.from([C.V2_SWAP_EXACT_IN])), [...inputs]] })
    expect(decodeUniversalRouterSwap(data, 0n, WETH)).toMatchObject({ venue: 'uniswap-v2', deadline: null })
  })
})
