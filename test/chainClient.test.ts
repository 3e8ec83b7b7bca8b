import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { keccak256, parseEther, parseGwei, toHex, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { launchAnvil, type LaunchedAnvil } from '../src/chain/launchAnvil.js'
import { ChainClient } from '../src/chain/chainClient.js'
import { DEV_KEYS, REVERTER_CODE, accountOf, signTx } from './support/harness.js'

const REVERTER = '0x0000000000000000000000000000000000000bad'
/** Init code whose constructor reverts: PUSH1 0 PUSH1 0 REVERT. */
const REVERTING_INIT: Hex = '0x60006000fd'
/** Init code that deploys an empty contract: PUSH1 0 PUSH1 0 RETURN. */
const EMPTY_INIT: Hex = '0x60006000f3'
/** Runtime code that loops until it runs out of gas: JUMPDEST PUSH1 0 JUMP. */
const SPINNER = '0x000000000000000000000000000000000000591e'
const SPINNER_CODE: Hex = '0x5b600056'

let anvil: LaunchedAnvil
let chain: ChainClient

beforeAll(async () => {
  anvil = await launchAnvil({ host: '127.0.0.1', port: 0, gasLimit: 100_000_000n })
  chain = new ChainClient(anvil.url)
  await chain.test.setCode({ address: REVERTER, bytecode: REVERTER_CODE })
  await chain.test.setCode({ address: SPINNER, bytecode: SPINNER_CODE })
  await chain.test.mine({ blocks: 1 })
})
afterAll(() => anvil?.stop())
beforeEach(() => chain.dropAllTransactions())

describe('ChainClient', () => {
  it('txs sent in order are mined in that order, across many senders', async () => {
    const keys = Array.from({ length: 150 }, (_, i) => keccak256(toHex(`chain client order ${i}`)))
    for (const key of keys) await chain.setBalance(privateKeyToAccount(key).address, parseEther('1'))
    // Senders interleaved against their natural order: first nonce 0 backwards, then nonce 1 forwards.
    const firsts = await Promise.all(keys.map((key) => signTx({ key, nonce: 0 })))
    const seconds = await Promise.all(keys.map((key) => signTx({ key, nonce: 1 })))
    const raws = [...firsts.reverse(), ...seconds]

    const answers = await chain.sendRawTransactionsInOrder(raws)
    expect(answers.every((a) => a.accepted)).toBe(true)
    const block = await chain.mine((await chain.latestBlock()).timestamp + 12n)
    expect([...block.txs.keys()]).toEqual(raws.map((raw) => keccak256(raw)))
  })

  it('each refusal comes back in its place, with the node’s reason', async () => {
    const nonce = await chain.nonce(accountOf(DEV_KEYS[1]).address, await chain.blockNumber())
    const answers = await chain.sendRawTransactionsInOrder([
      await signTx({ key: DEV_KEYS[1], nonce }),
      await signTx({ key: DEV_KEYS[1], nonce, value: 9n }),
      await signTx({ key: '0x1111111111111111111111111111111111111111111111111111111111111111', nonce: 0 }),
      await signTx({ key: DEV_KEYS[1], nonce: nonce + 1 }),
    ])
    expect(answers.map((a) => a.accepted)).toEqual([true, false, false, true])
    expect(answers[1]).toMatchObject({ accepted: false, reason: expect.stringMatching(/underpriced/i) })
    expect(answers[2]).toMatchObject({ accepted: false, reason: expect.stringMatching(/insufficient funds/i) })
  })

  it('a mined block reports each tx’s status as its receipt does: success, revert, out of gas, failed and good creation', async () => {
    const key = DEV_KEYS[2]
    const from = accountOf(key)
    let nonce = await chain.nonce(from.address, await chain.blockNumber())
    const create = (data: Hex) =>
      from.signTransaction({ type: 'eip1559', chainId: 31337, nonce: nonce++, data, gas: 100_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n })
    const raws = [
      await signTx({ key, nonce: nonce++ }),
      await signTx({ key, nonce: nonce++, to: REVERTER, gas: 50_000n }),
      await signTx({ key, nonce: nonce++, to: SPINNER, gas: 60_000n }),
      await create(REVERTING_INIT),
      await create(EMPTY_INIT),
    ]
    for (const answer of await chain.sendRawTransactionsInOrder(raws)) expect(answer).toEqual({ accepted: true })
    const block = await chain.mine((await chain.latestBlock()).timestamp + 12n)

    const statuses = [...block.txs.values()].map((tx) => tx.status)
    expect(statuses).toEqual(['success', 'reverted', 'reverted', 'reverted', 'success'])
    const receipts = await Promise.all(raws.map((raw) => chain.public.getTransactionReceipt({ hash: keccak256(raw) })))
    expect(statuses).toEqual(receipts.map((r) => r.status))
  })
})
