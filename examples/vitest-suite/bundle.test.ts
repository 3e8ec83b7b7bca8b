/**
 * A searcher's own test suite with `bundlesim/vitest`: each test gets a fresh harness (its own
 * Anvil and builder, manual clock, traces served at once) and `bundlesim`, a helper on it.
 *
 *   npx vitest run --root examples/vitest-suite
 */
import { test } from 'bundlesim/vitest'
import { expect } from 'vitest'
import { keccak256, parseEther, type Address } from 'viem'

/** Runtime code that always reverts: PUSH1 0 PUSH1 0 REVERT. */
const REVERTER: Address = '0x00000000000000000000000000000000000dead1'
const REVERTER_CODE = '0x60006000fd'

test('a bundle that pays the builder lands in the next block', async ({ bundlesim }) => {
  const searcher = await bundlesim.account('searcher', parseEther('1')) // funded, with a signer
  const trade = await bundlesim.sign(searcher, { to: '0x00000000000000000000000000000000000c0ffe', value: parseEther('0.1') })
  const tip = await bundlesim.sign(searcher, { to: bundlesim.harness.coinbase as Address, value: parseEther('0.01') })
  const bundle = await bundlesim.sendBundle([trade, tip]) // eth_sendBundle

  const [slot] = await bundlesim.advanceSlot()
  const trace = await bundlesim.expectBundle(bundle).toLand() // svc_getBundleStats: status landed
  expect(trace.blockNumber).toBe(slot!.blockNumber)
  expect(BigInt(trace.builderPayment)).toBeGreaterThan(parseEther('0.01'))
  // On chain, in that block, in the bundle's order.
  const block = await bundlesim.client.request<{ transactions: string[] }>('eth_getBlockByNumber', [`0x${slot!.blockNumber.toString(16)}`, false])
  expect(block.transactions).toEqual(bundle.txs.map((tx) => keccak256(tx)))
})

test('a bundle whose tx reverts does not land: its trace says BundleReverted and names the tx', async ({ bundlesim }) => {
  await bundlesim.client.request('anvil_setCode', [REVERTER, REVERTER_CODE]) // a contract that always reverts
  const searcher = await bundlesim.account('searcher', parseEther('1'))
  const call = await bundlesim.sign(searcher, { to: REVERTER, data: '0x01' })
  const bundle = await bundlesim.sendBundle([call])

  await bundlesim.advanceSlot()
  const trace = await bundlesim.expectBundle(bundle).toFail({ errorKind: 'BundleReverted' }) // invalid, simulationfail or excludedfromblock
  expect(trace.revertingHash).toBe(keccak256(call))
  expect(await bundlesim.client.request('eth_getTransactionReceipt', [keccak256(call)])).toBeNull()
})

test('each test starts on an untouched chain', async ({ harness }) => {
  expect(harness.status().blockNumber).toBe(0)
})
