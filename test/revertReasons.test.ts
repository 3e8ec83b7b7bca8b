import { describe, expect, it } from 'vitest'
import { concat, encodeAbiParameters, encodeErrorResult, keccak256, parseAbi, size, toFunctionSelector, toHex, type Address, type Hex } from 'viem'
import { decodeRevertReason, revertReasonText } from '../src/protocol/revertReason.js'
import { intrinsicGas } from '../src/chain/intrinsicGas.js'
import { DEV_KEYS, addressOf, call, rpc, sendBundle, setCode, signTx, stats, useTestHarness } from './support/harness.js'

const errorString = (message: string) => encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: [message] })
const panic = (code: bigint) => encodeErrorResult({ abi: parseAbi(['error Panic(uint256)']), errorName: 'Panic', args: [code] })

/** Runtime code that reverts with exactly `data` (CODECOPY the data that follows the 12-byte prefix, then REVERT). */
function revertingWith(data: Hex): Hex {
  const length = size(data)
  if (length > 0xff) throw new Error('revert data too long for this fixture')
  const byte = (n: number) => n.toString(16).padStart(2, '0')
  return `0x60${byte(length)}600c600039${`60${byte(length)}6000fd`}${data.slice(2)}` as Hex
}

describe('revert reasons (pure)', () => {
  it('decodes Error(string), Panic with its meaning, custom errors by name or selector, out of gas and a bare revert', () => {
    expect(revertReasonText(decodeRevertReason({ returnData: errorString('x') }))).toBe('x')
    expect(revertReasonText(decodeRevertReason({ returnData: panic(0x11n) }))).toBe('Panic(0x11): arithmetic underflow or overflow')
    expect(revertReasonText(decodeRevertReason({ returnData: panic(0x12n) }))).toBe('Panic(0x12): division or modulo by zero')
    const known = toFunctionSelector('V3TooLittleReceived()')
    expect(revertReasonText(decodeRevertReason({ returnData: known }))).toBe(`custom error V3TooLittleReceived() (${known})`)
    const unknown = concat([toFunctionSelector('NoProfit(uint256,uint256)'), encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [5n, 4n])])
    expect(decodeRevertReason({ returnData: unknown })).toEqual({ kind: 'CustomError', selector: toFunctionSelector('NoProfit(uint256,uint256)'), name: null, data: unknown })
    expect(revertReasonText(decodeRevertReason({ returnData: '0x', gasUsed: 60_000n, gasLimit: 60_000n }))).toBe('out of gas (gas limit 60000)')
    expect(revertReasonText(decodeRevertReason({ returnData: '0x', gasUsed: 21_018n, gasLimit: 60_000n }))).toBe('reverted without data')
    // A truncated Error(string) is shown as the data it is, not guessed at.
    expect(decodeRevertReason({ returnData: errorString('x').slice(0, 20) as Hex })).toMatchObject({ kind: 'Undecoded' })
  })
})

describe('revert reasons on the wire (svc_getBundleStats, eth_callBundle)', () => {
  const harness = useTestHarness()
  const REQUIRE_X: Address = '0x0000000000000000000000000000000000000e01'
  const CUSTOM: Address = '0x0000000000000000000000000000000000000e02'
  const customError = concat([toFunctionSelector('NoProfit(uint256,uint256)'), encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [5n, 4n])])
  const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))

  it('a tx reverting with require(false, "x") carries revertReason "x"; a custom error its selector', async () => {
    await setCode(harness, REQUIRE_X, revertingWith(errorString('x')))
    await setCode(harness, CUSTOM, revertingWith(customError))
    const key = DEV_KEYS[3]
    const nonce = await nonceOf(key)
    const requiring = await signTx({ key, nonce, to: REQUIRE_X, gas: 100_000n })
    const custom = await signTx({ key: DEV_KEYS[4], nonce: await nonceOf(DEV_KEYS[4]), to: CUSTOM, gas: 100_000n })
    const first = await sendBundle(harness, { txs: [requiring] })
    const second = await sendBundle(harness, { txs: [custom] })
    await harness.advanceSlot()

    const x = await stats(harness, first)
    expect(x).toMatchObject({ status: 'simulationfail', errorKind: 'BundleReverted', revertingHash: keccak256(requiring), revertReason: 'x' })
    expect(x.error).toBe(`BundleRevert. Reverting Hash: ${keccak256(requiring)} (txs[0] reverted and is not in revertingTxHashes): x`)
    expect(await stats(harness, second)).toMatchObject({ errorKind: 'BundleReverted', revertReason: `custom error ${toFunctionSelector('NoProfit(uint256,uint256)')}` })

    // eth_callBundle says the same beside Flashbots' `revert`.
    const head = await call(harness.rpcUrl, 'eth_blockNumber')
    const simulated = (await rpc(harness.rpcUrl, 'eth_callBundle', [{ txs: [requiring], blockNumber: toHex(BigInt(head) + 1n), stateBlockNumber: 'latest' }])).body.result
    expect(simulated.results[0]).toMatchObject({ error: 'execution reverted', revert: 'x', revertReason: 'x' })
  })
})

describe('intrinsic gas (why the node leaves a tx out: IntrinsicGasTooLow)', () => {
  it('prices a transfer, calldata by byte, a creation and its init code words, access lists, and the EIP-7623 floor', () => {
    expect(intrinsicGas({ data: '0x', create: false })).toEqual({ intrinsic: 21_000n, floor: 21_000n })
    // 2 zero bytes (4 each) and 2 others (16 each); the floor counts 2 + 2 × 4 = 10 tokens at 10 gas.
    expect(intrinsicGas({ data: '0x0000ffff', create: false })).toEqual({ intrinsic: 21_000n + 8n + 32n, floor: 21_000n + 100n })
    // A creation of 33 bytes: 32,000 more and 2 a word of init code (2 words).
    expect(intrinsicGas({ data: `0x${'ff'.repeat(33)}`, create: true }).intrinsic).toBe(21_000n + 33n * 16n + 32_000n + 4n)
    expect(intrinsicGas({ data: '0x', create: false, accessList: [{ storageKeys: ['0x01', '0x02'] }] }).intrinsic).toBe(21_000n + 2_400n + 3_800n)
  })
})
