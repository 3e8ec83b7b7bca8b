import { concat, decodeAbiParameters, decodeFunctionData, encodeAbiParameters, encodeFunctionData, keccak256, numberToHex, pad, toBytes, toHex, type Hex } from 'viem'
import { privateKeyToAccount, sign, type PrivateKeyAccount } from 'viem/accounts'
import { offchainAggregatorAbi } from './aggregatorArtifact.js'

/**
 * A feed's oracle network: 21 oracles, as Chainlink's docs once listed for ETH / USD ("in the
 * ETH/USD Price Feed, there are 21 oracles"; data.chain.link shows each feed's current set), and
 * the most faulty ones OCR tolerates with them (n > 3f: f = 6), so every report carries at
 * least 13 observations and f + 1 = 7 signatures (libocr's OffchainAggregator checks both).
 */
export const ORACLES = 21
export const FAULTY = 6

/** One feed's oracles: each a signing key and a transmitting account, derived from the feed's name. */
export interface OracleNetwork {
  /** Each oracle's signing key (its address: `privateKeyToAddress`). */
  signerKeys: Hex[]
  transmitters: PrivateKeyAccount[]
  /** The config's digest (16 bytes) every report carries. */
  configDigest: Hex
}

export function oracleNetwork(feedName: string): OracleNetwork {
  const key = (role: string, i: number) => keccak256(toBytes(`bundlesim oracle ${feedName} ${role} ${i}`))
  return {
    signerKeys: Array.from({ length: ORACLES }, (_, i) => key('signer', i)),
    transmitters: Array.from({ length: ORACLES }, (_, i) => privateKeyToAccount(key('transmitter', i))),
    configDigest: keccak256(toBytes(`bundlesim OCR config ${feedName}`)).slice(0, 34) as Hex,
  }
}

/** A round's report as the aggregator takes it (libocr's OffchainAggregator.sol). */
export interface OcrReport {
  configDigest: Hex
  epoch: number
  round: number
  /** Sorted; the answer is the median. */
  observations: bigint[]
  /** Which oracle made each observation (its index). */
  observers: number[]
}

const REPORT_PARAMS = [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'int192[]' }] as const

/**
 * The observations of a round whose median is `answer`: each oracle's reading a hair apart
 * (0.001 % a step), as independent sources differ, sorted as the report requires.
 */
export function observationsFor(answer: bigint, count = ORACLES): bigint[] {
  const step = answer / 100_000n
  const middle = Math.floor(count / 2)
  return Array.from({ length: count }, (_, i) => answer + BigInt(i - middle) * step)
}

/** The report's bytes: `abi.encode(rawReportContext, rawObservers, observations)`. */
export function encodeReport(report: OcrReport): Hex {
  const context = pad(concat([report.configDigest, numberToHex(report.epoch, { size: 4 }), numberToHex(report.round, { size: 1 })]), { size: 32 })
  const observers = pad(toHex(new Uint8Array(report.observers)), { size: 32, dir: 'right' })
  return encodeAbiParameters(REPORT_PARAMS, [context, observers, report.observations])
}

/** A report decoded (a bot reading a transmit tx before it lands): its answer is the median observation. */
export interface DecodedReport extends OcrReport {
  answer: bigint
}

export function decodeReport(report: Hex): DecodedReport {
  const [context, observers, observations] = decodeAbiParameters(REPORT_PARAMS, report)
  const bytes = toBytes(context)
  return {
    configDigest: toHex(bytes.slice(11, 27)),
    epoch: Number(BigInt(toHex(bytes.slice(27, 31)))),
    round: bytes[31]!,
    observations: [...observations],
    observers: [...toBytes(observers).slice(0, observations.length)],
    answer: observations[Math.floor(observations.length / 2)]!,
  }
}

/**
 * The calldata of a transmit: the report and f + 1 signatures of it (over `keccak256(report)`,
 * as libocr's oracles sign), `rawVs` holding each signature's recovery id in its bytes.
 */
export async function transmitCalldata(network: OracleNetwork, report: OcrReport): Promise<Hex> {
  const encoded = encodeReport(report)
  const hash = keccak256(encoded)
  const signatures = await Promise.all(network.signerKeys.slice(0, FAULTY + 1).map((privateKey) => sign({ hash, privateKey })))
  const rs = signatures.map((s) => s.r)
  const ss = signatures.map((s) => s.s)
  const rawVs = pad(toHex(new Uint8Array(signatures.map((s) => s.yParity ?? Number(s.v! - 27n)))), { size: 32, dir: 'right' })
  return encodeFunctionData({ abi: offchainAggregatorAbi, functionName: 'transmit', args: [encoded, rs, ss, rawVs] })
}

/**
 * What a transmit tx's calldata reports: the round's new answer and its observations, readable
 * from the public mempool before the tx lands. Null for any other calldata.
 *
 * @example decodeTransmit(tx.input)?.answer // 301512345678n (ETH at $3,015.12, 8 decimals)
 */
export function decodeTransmit(input: Hex): DecodedReport | null {
  try {
    const call = decodeFunctionData({ abi: offchainAggregatorAbi, data: input })
    return call.functionName === 'transmit' ? decodeReport(call.args[0]) : null
  } catch {
    return null
  }
}
