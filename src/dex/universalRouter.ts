import { decodeAbiParameters, decodeFunctionData, encodeAbiParameters, encodeFunctionData, encodePacked, getAddress, hexToBytes, hexToNumber, isAddressEqual, keccak256, parseAbi, parseAbiParameters, size, slice, toHex, zeroAddress, type Address, type Hex } from 'viem'

// Sources quoted below: @uniswap/universal-router@2.0.0 (the router at 0x66a9893cc07d91d95644aedd05d03f95e1dba8af),
// @uniswap/v4-periphery@1.0.3, @uniswap/v4-core@1.0.2. Universal Router 2.1 adds fields to the V4 swap structs: not this one.

/** Command bytes (universal-router contracts/libraries/Commands.sol). */
export const UNIVERSAL_ROUTER_COMMANDS = { V3_SWAP_EXACT_IN: 0x00, V2_SWAP_EXACT_IN: 0x08, WRAP_ETH: 0x0b, UNWRAP_WETH: 0x0c, V4_SWAP: 0x10 } as const
/** V4_SWAP's action bytes (v4-periphery src/libraries/Actions.sol). SETTLE and TAKE serve the router-custody cases. */
export const V4_ACTIONS = { SWAP_EXACT_IN_SINGLE: 0x06, SETTLE: 0x0b, SETTLE_ALL: 0x0c, TAKE: 0x0e, TAKE_ALL: 0x0f } as const
/** Sentinels the router maps at run time (v4-periphery src/libraries/ActionConstants.sol; mapped by Dispatcher.map and BaseActionsRouter._mapRecipient). */
export const ACTION_CONSTANTS = {
  MSG_SENDER: '0x0000000000000000000000000000000000000001' as Address, // the locker: the EOA that called execute
  ADDRESS_THIS: '0x0000000000000000000000000000000000000002' as Address, // the router itself
  OPEN_DELTA: 0n, // SETTLE/TAKE: the whole open debt/credit on the PoolManager (DeltaResolver._mapSettleAmount/_mapTakeAmount)
  CONTRACT_BALANCE: 1n << 255n, // the router's whole balance (Payments.wrapETH, V3SwapRouter.v3SwapExactInput)
} as const
const { MSG_SENDER, ADDRESS_THIS, OPEN_DELTA, CONTRACT_BALANCE } = ACTION_CONSTANTS
const C = UNIVERSAL_ROUTER_COMMANDS
const A = V4_ACTIONS

/** UniversalRouter.execute with a deadline (contracts/UniversalRouter.sol), and Dispatcher's deadline-less overload, which calls also use. */
export const universalRouterAbi = parseAbi([
  'function execute(bytes commands, bytes[] inputs, uint256 deadline) payable',
  'function execute(bytes commands, bytes[] inputs) payable',
])

// Command inputs as Dispatcher.sol reads them with calldataload at 0x00, 0x20, 0x40, 0x80 and the dynamic
// arg 3: V2_SWAP_EXACT_IN's path is read by toAddressArray(3), so it is address[] despite the comment's "bytes".
const V2_INPUT = parseAbiParameters('address recipient, uint256 amountIn, uint256 amountOutMin, address[] path, bool payerIsUser')
const V3_INPUT = parseAbiParameters('address recipient, uint256 amountIn, uint256 amountOutMin, bytes path, bool payerIsUser') // path: inputs.toBytes(3)
const RECIPIENT_AMOUNT = parseAbiParameters('address recipient, uint256 amount') // WRAP_ETH (amount), UNWRAP_WETH (amountMin)
const V4_INPUT = parseAbiParameters('bytes actions, bytes[] params') // CalldataDecoder.decodeActionsRouterParams (strict abi.encode)
// IV4Router.ExactInputSingleParams, read as abi.decode(params, (ExactInputSingleParams)): a dynamic struct behind an offset word.
const POOL_KEY = '(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks)' // v4-core src/types/PoolKey.sol
const EXACT_IN_SINGLE = parseAbiParameters(`(${POOL_KEY} poolKey, bool zeroForOne, uint128 amountIn, uint128 amountOutMinimum, bytes hookData)`)
const CURRENCY_AMOUNT = parseAbiParameters('address currency, uint256 amount') // SETTLE_ALL (maxAmount), TAKE_ALL (minAmount): V4Router.sol
const SETTLE_PARAMS = parseAbiParameters('address currency, uint256 amount, bool payerIsUser') // SETTLE: V4Router.sol
const TAKE_PARAMS = parseAbiParameters('address currency, address recipient, uint256 amount') // TAKE: V4Router.sol

/** A Uniswap V4 pool's key (v4-core src/types/PoolKey.sol): currency0 < currency1 numerically. */
export interface PoolKey { currency0: Address; currency1: Address; fee: number; tickSpacing: number; hooks: Address }

/**
 * A V4 pool's PoolId: keccak256(abi.encode(key)) (v4-core src/types/PoolId.sol hashes the key's 5 words, 0xa0 bytes).
 * V4 pools have no address; the PoolManager and StateView name them by this id.
 * @example v4PoolId(v4PoolKey(WETH, USDC, 500, 10)) // '0x…' (32 bytes)
 */
export function v4PoolId(key: PoolKey): Hex {
  return keccak256(encodeAbiParameters(parseAbiParameters(`${POOL_KEY} key`), [key]))
}

/**
 * The key of the pool trading tokenA against tokenB: the PoolManager only accepts currency0 < currency1, so sort them.
 * @example v4PoolKey(WETH, USDC, 3000, 60) // { currency0: USDC, currency1: WETH, fee: 3000, tickSpacing: 60, hooks: zeroAddress }
 */
export function v4PoolKey(tokenA: Address, tokenB: Address, fee: number, tickSpacing: number, hooks: Address = zeroAddress): PoolKey {
  const [currency0, currency1] = BigInt(tokenA) < BigInt(tokenB) ? [tokenA, tokenB] : [tokenB, tokenA]
  return { currency0, currency1, fee, tickSpacing, hooks }
}

export type UniversalRouterVenue = 'uniswap-v2' | 'uniswap-v3' | 'uniswap-v4'
export interface UniversalRouterSwap {
  venue: UniversalRouterVenue
  tokenIn: Address; tokenOut: Address
  amountIn: bigint; amountOutMin: bigint
  fee: number              // V3/V4 fee (hundredths of a bp); V2: 3000
  tickSpacing?: number     // V4 only
  /** true: the sender pays ether (tx value = amountIn), the router wraps it into WETH first (tokenIn must be weth) */
  payWithEther?: boolean
  /** true: tokenOut is WETH and the router unwraps it and sends ether to the sender */
  receiveEther?: boolean
  weth: Address
  deadline: bigint
}

/**
 * The calldata of execute(commands, inputs, deadline) for a one-hop exact-input swap, and the tx value.
 * ERC-20 in: the swap pulls amountIn from the sender through Permit2 (payerIsUser; V4: SETTLE_ALL). Ether in:
 * WRAP_ETH to the router, then the router pays (payerIsUser false; V4: SETTLE from the router). Ether out: the
 * swap pays the router, then UNWRAP_WETH sends ether to the sender (V4: TAKE to the router, not TAKE_ALL).
 * @example encodeUniversalRouterSwap({ venue: 'uniswap-v3', tokenIn: WETH, tokenOut: USDC, amountIn: 10n ** 18n, amountOutMin: 0n, fee: 500, payWithEther: true, weth: WETH, deadline }) // { data, value: 10n ** 18n }
 */
export function encodeUniversalRouterSwap(swap: UniversalRouterSwap): { data: Hex; value: bigint } {
  const { venue, tokenIn, tokenOut, amountIn, amountOutMin, fee, weth, payWithEther = false, receiveEther = false } = swap
  if (isAddressEqual(tokenIn, tokenOut)) throw new Error('tokenIn and tokenOut are the same token')
  if (payWithEther && !isAddressEqual(tokenIn, weth)) throw new Error('payWithEther: tokenIn must be WETH (the router wraps the ether into it)')
  if (receiveEther && !isAddressEqual(tokenOut, weth)) throw new Error('receiveEther: tokenOut must be WETH (the router unwraps it)')
  const commands: number[] = []
  const inputs: Hex[] = []
  // Payments.wrapETH keeps the WETH in the router when the recipient is address(this).
  if (payWithEther) commands.push(C.WRAP_ETH), inputs.push(encodeAbiParameters(RECIPIENT_AMOUNT, [ADDRESS_THIS, amountIn]))
  // Dispatcher: payer = payerIsUser ? msgSender() : address(this); Permit2Payments.payOrPermit2Transfer pays from the router's own balance when payer is the router.
  const payerIsUser = !payWithEther
  const recipient = receiveEther ? ADDRESS_THIS : MSG_SENDER
  if (venue === 'uniswap-v2') {
    commands.push(C.V2_SWAP_EXACT_IN), inputs.push(encodeAbiParameters(V2_INPUT, [recipient, amountIn, amountOutMin, [tokenIn, tokenOut], payerIsUser]))
  } else if (venue === 'uniswap-v3') {
    // modules/uniswap/v3/BytesLib.toPool: tokenIn (20 bytes) fee (uint24, 3 bytes) tokenOut (20 bytes), packed.
    const path = encodePacked(['address', 'uint24', 'address'], [tokenIn, fee, tokenOut])
    commands.push(C.V3_SWAP_EXACT_IN), inputs.push(encodeAbiParameters(V3_INPUT, [recipient, amountIn, amountOutMin, path, payerIsUser]))
  } else {
    if (swap.tickSpacing === undefined) throw new Error('a Uniswap V4 swap needs the pool\'s tickSpacing')
    const poolKey = v4PoolKey(tokenIn, tokenOut, fee, swap.tickSpacing)
    const zeroForOne = isAddressEqual(poolKey.currency0, tokenIn)
    const params = [encodeAbiParameters(EXACT_IN_SINGLE, [{ poolKey, zeroForOne, amountIn, amountOutMinimum: amountOutMin, hookData: '0x' }])]
    // V4Router: SETTLE_ALL always settles from msgSender() (Permit2), so router-held WETH needs SETTLE(currency, OPEN_DELTA, false):
    // _mapPayer(false) = address(this), OPEN_DELTA = the full debt (amountIn); V4SwapRouter._pay then transfers the router's WETH.
    params.push(payWithEther ? encodeAbiParameters(SETTLE_PARAMS, [tokenIn, OPEN_DELTA, false]) : encodeAbiParameters(CURRENCY_AMOUNT, [tokenIn, amountIn]))
    // TAKE_ALL always takes to msgSender(); TAKE(currency, ADDRESS_THIS, OPEN_DELTA) leaves the whole credit in the router for UNWRAP_WETH.
    params.push(receiveEther ? encodeAbiParameters(TAKE_PARAMS, [tokenOut, ADDRESS_THIS, OPEN_DELTA]) : encodeAbiParameters(CURRENCY_AMOUNT, [tokenOut, amountOutMin]))
    const actions = toHex(Uint8Array.from([A.SWAP_EXACT_IN_SINGLE, payWithEther ? A.SETTLE : A.SETTLE_ALL, receiveEther ? A.TAKE : A.TAKE_ALL]))
    commands.push(C.V4_SWAP), inputs.push(encodeAbiParameters(V4_INPUT, [actions, params]))
  }
  // Payments.unwrapWETH9 unwraps the router's whole WETH balance and checks it against amountMin.
  if (receiveEther) commands.push(C.UNWRAP_WETH), inputs.push(encodeAbiParameters(RECIPIENT_AMOUNT, [MSG_SENDER, amountOutMin]))
  const data = encodeFunctionData({ abi: universalRouterAbi, functionName: 'execute', args: [toHex(Uint8Array.from(commands)), inputs, swap.deadline] })
  return { data, value: payWithEther ? amountIn : 0n }
}

/** One swap command read back: who pays (the user via Permit2, or the router) and whether the output stays in the router. */
interface Leg { venue: UniversalRouterVenue; tokenIn: Address; tokenOut: Address; amountIn: bigint; amountOutMin: bigint; fee: number; tickSpacing?: number; payerIsUser: boolean; toRouter: boolean }

const max = (a: bigint, b: bigint) => (a > b ? a : b)
const isRouter = (recipient: Address) => isAddressEqual(recipient, ADDRESS_THIS)

function v2Leg(input: Hex): Leg | null {
  const [recipient, amountIn, amountOutMin, path, payerIsUser] = decodeAbiParameters(V2_INPUT, input)
  if (path.length !== 2) return null // multi-hop
  return { venue: 'uniswap-v2', tokenIn: path[0]!, tokenOut: path[1]!, amountIn, amountOutMin, fee: 3000, payerIsUser, toRouter: isRouter(recipient) }
}

function v3Leg(input: Hex): Leg | null {
  const [recipient, amountIn, amountOutMin, path, payerIsUser] = decodeAbiParameters(V3_INPUT, input)
  if (size(path) !== 43) return null // Constants.V3_POP_OFFSET: one pool exactly; longer paths are multi-hop
  const leg = { tokenIn: getAddress(slice(path, 0, 20)), fee: hexToNumber(slice(path, 20, 23)), tokenOut: getAddress(slice(path, 23, 43)) }
  return { venue: 'uniswap-v3', ...leg, amountIn, amountOutMin, payerIsUser, toRouter: isRouter(recipient) }
}

function v4Leg(input: Hex): Leg | null {
  const [actionsHex, params] = decodeAbiParameters(V4_INPUT, input)
  const actions = hexToBytes(actionsHex)
  if (actions.length !== 3 || params.length !== 3 || actions[0] !== A.SWAP_EXACT_IN_SINGLE) return null
  const [swap] = decodeAbiParameters(EXACT_IN_SINGLE, params[0]!)
  const { poolKey: key, zeroForOne, amountIn } = swap
  // Hooked and native-ether pools are other pools than the (fee, tickSpacing) this type names; OPEN_DELTA amountIn spends an earlier credit.
  if (!isAddressEqual(key.hooks, zeroAddress) || isAddressEqual(key.currency0, zeroAddress) || amountIn === OPEN_DELTA) return null
  const [tokenIn, tokenOut] = zeroForOne ? [key.currency0, key.currency1] : [key.currency1, key.currency0]
  let payerIsUser: boolean
  if (actions[1] === A.SETTLE_ALL) {
    const [currency, maxAmount] = decodeAbiParameters(CURRENCY_AMOUNT, params[1]!)
    if (!isAddressEqual(currency, tokenIn) || maxAmount < amountIn) return null
    payerIsUser = true
  } else if (actions[1] === A.SETTLE) {
    const [currency, amount, byUser] = decodeAbiParameters(SETTLE_PARAMS, params[1]!)
    if (!isAddressEqual(currency, tokenIn) || (amount !== OPEN_DELTA && amount !== amountIn)) return null
    payerIsUser = byUser
  } else return null
  let amountOutMin = swap.amountOutMinimum
  let toRouter: boolean
  if (actions[2] === A.TAKE_ALL) {
    const [currency, minAmount] = decodeAbiParameters(CURRENCY_AMOUNT, params[2]!)
    if (!isAddressEqual(currency, tokenOut)) return null
    amountOutMin = max(amountOutMin, minAmount)
    toRouter = false
  } else if (actions[2] === A.TAKE) {
    const [currency, recipient, amount] = decodeAbiParameters(TAKE_PARAMS, params[2]!)
    if (!isAddressEqual(currency, tokenOut) || amount !== OPEN_DELTA) return null
    toRouter = isRouter(recipient)
  } else return null
  return { venue: 'uniswap-v4', tokenIn, tokenOut, amountIn, amountOutMin, fee: key.fee, tickSpacing: key.tickSpacing, payerIsUser, toRouter }
}

/**
 * Reads an execute(...) call built this way (or by another client using the same single-hop commands) back; null for
 * anything else (multi-hop paths, other commands, bad data) — never throws. `value` must cover a WRAP_ETH.
 * deadline is null for the deadline-less execute(commands, inputs).
 * @example decodeUniversalRouterSwap(tx.input, tx.value, WETH) // { venue: 'uniswap-v3', tokenIn: WETH, …, payWithEther: true, receiveEther: false, deadline }
 */
export function decodeUniversalRouterSwap(data: Hex, value: bigint, weth: Address): (Omit<UniversalRouterSwap, 'deadline' | 'weth'> & { deadline: bigint | null }) | null {
  try {
    const { args } = decodeFunctionData({ abi: universalRouterAbi, data })
    const [commandsHex, inputs] = args
    const deadline = args.length === 3 ? args[2] : null
    const commands = hexToBytes(commandsHex)
    if (commands.length !== inputs.length) return null // the router reverts LengthMismatch
    let i = 0
    const wrap = commands[i] === C.WRAP_ETH ? decodeAbiParameters(RECIPIENT_AMOUNT, inputs[i++]!) : null
    const [command, input] = [commands[i], inputs[i++]]
    const unwrap = commands[i] === C.UNWRAP_WETH ? decodeAbiParameters(RECIPIENT_AMOUNT, inputs[i++]!) : null
    if (input === undefined || i !== commands.length) return null
    const leg = command === C.V2_SWAP_EXACT_IN ? v2Leg(input) : command === C.V3_SWAP_EXACT_IN ? v3Leg(input) : command === C.V4_SWAP ? v4Leg(input) : null
    if (!leg || isAddressEqual(leg.tokenIn, leg.tokenOut)) return null
    let { amountIn, amountOutMin } = leg
    if (wrap) {
      // Ether in: the router holds the WETH, so the swap must pay from the router (payerIsUser false).
      const wrapped = wrap[1] === CONTRACT_BALANCE ? value : wrap[1]
      if (amountIn === CONTRACT_BALANCE && leg.venue !== 'uniswap-v4') amountIn = wrapped
      if (!isRouter(wrap[0]) || leg.payerIsUser || !isAddressEqual(leg.tokenIn, weth) || wrapped < amountIn || value < wrapped) return null
    } else if (!leg.payerIsUser || amountIn === CONTRACT_BALANCE) return null // the router would spend WETH it does not hold
    if (unwrap) {
      // Ether out: the swap pays the router, UNWRAP_WETH pays ether on (to anyone but the router) and checks the minimum again.
      if (!leg.toRouter || !isAddressEqual(leg.tokenOut, weth) || isRouter(unwrap[0])) return null
      amountOutMin = max(amountOutMin, unwrap[1])
    } else if (leg.toRouter) return null // the output would stay in the router
    const { venue, tokenIn, tokenOut, fee, tickSpacing } = leg
    return { venue, tokenIn, tokenOut, amountIn, amountOutMin, fee, ...(tickSpacing !== undefined && { tickSpacing }), payWithEther: wrap !== null, receiveEther: unwrap !== null, deadline }
  } catch {
    return null
  }
}
