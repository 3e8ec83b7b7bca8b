import { encodeFunctionData, keccak256, parseGwei, type AbiFunction, type Hash, type Hex } from 'viem'
import { hashedForm } from '../protocol/blobEnvelope.js'
import { AbiValueError, toAbiValues } from './core/abiValues.js'
import { unsignableMessage, type ScenarioAccount } from './accounts.js'
import type { AddressBook } from './core/addressBook.js'
import { labelledSidecars } from './blobSidecars.js'
import type { ContractCode } from './contracts.js'
import { parseFunction } from './core/fields.js'
import type { TxTemplate } from './core/settings.js'
import type { Path } from './core/sourceMap.js'
import type { SignedTx, TemplateSigning, UnsignedTx } from './core/templateSigning.js'
import type { NonceTracker } from './nonces.js'
import { normalizeHash } from '../protocol/normalize.js'

/**
 * Fee defaults: a 2 gwei tip, and a fee cap 8 gwei above the tip (far above a devnet's base
 * fee) — or twice the base fee above it, when the chain is a fork with a higher base fee.
 */
export const DEFAULT_MAX_PRIORITY_FEE_PER_GAS = parseGwei('2')
export const DEFAULT_FEE_CAP_HEADROOM = parseGwei('8')
/** A blob tx's default blob fee cap: far above a devnet's blob base fee (1 wei until blobs pile up). */
export const DEFAULT_MAX_FEE_PER_BLOB_GAS = parseGwei('10')

/** Fee cap headroom above the tip for a chain whose head has this base fee. */
export function feeCapHeadroom(baseFee: bigint): bigint {
  return 2n * baseFee > DEFAULT_FEE_CAP_HEADROOM ? 2n * baseFee : DEFAULT_FEE_CAP_HEADROOM
}
/** Gas defaults: a plain transfer, or room for a call or a creation. */
export const TRANSFER_GAS = 21_000n
export const CALL_GAS = 1_000_000n

/** A template that cannot be built; `path` is relative to the template. */
export class TemplateError extends Error {
  constructor(
    readonly path: Path,
    message: string,
  ) {
    super(message)
    this.name = 'TemplateError'
  }
}

/**
 * The function a template calls: `fn` as a full signature, or a bare name looked up in the
 * ABI of the contract named by `to`.
 */
export function templateFunction(template: TxTemplate, codes: ReadonlyMap<string, ContractCode>): AbiFunction | undefined {
  const call = template.call
  if (!call) return undefined
  if (call.fn.includes('(')) return parseFunction(call.fn)
  const code = template.to === undefined ? undefined : codes.get(template.to)
  if (!code || code.abi.length === 0) {
    throw new TemplateError(['call', 'fn'], `"${call.fn}" is a bare name, but ${template.to ?? 'the target'} is no contract with an ABI (expected a full signature like "${call.fn}(uint256)")`)
  }
  const matches = code.abi.filter((item): item is AbiFunction => item.type === 'function' && item.name === call.fn)
  const known = code.abi.filter((item): item is AbiFunction => item.type === 'function').map((f) => f.name)
  if (matches.length === 0) throw new TemplateError(['call', 'fn'], `${template.to} has no function "${call.fn}" (expected one of: ${known.join(', ') || 'none'})`)
  const sameArity = matches.filter((f) => f.inputs.length === call.args.length)
  if (sameArity.length !== 1) throw new TemplateError(['call', 'fn'], `"${call.fn}" is overloaded or takes ${matches[0]!.inputs.length} argument(s) (expected a full signature)`)
  return sameArity[0]
}

/** The template's calldata: raw `data`, or the encoded `call`. */
export function templateCalldata(template: TxTemplate, codes: ReadonlyMap<string, ContractCode>, book: AddressBook): Hex | undefined {
  if (template.data !== undefined) return template.data as Hex
  const fn = templateFunction(template, codes)
  if (!fn) return undefined
  try {
    const args = toAbiValues(fn.inputs, template.call!.args, book)
    return encodeFunctionData({ abi: [fn], functionName: fn.name, args })
  } catch (error) {
    if (error instanceof AbiValueError) throw new TemplateError(['call', 'args', ...error.path], error.message)
    throw new TemplateError(['call', 'args'], (error as Error).message.split('\n')[0]!)
  }
}

export interface TemplateContext {
  templates: Readonly<Record<string, TxTemplate>>
  accounts: ReadonlyMap<string, ScenarioAccount>
  codes: ReadonlyMap<string, ContractCode>
  book: AddressBook
  chainId: number
  nonces: NonceTracker
  /** Default fee cap above the tip (`feeCapHeadroom` of the base fee at setup; default 8 gwei). */
  feeCapHeadroom?: bigint
}

/**
 * Signs templates on first use and hands out the same tx afterwards, so a template name
 * means one tx hash everywhere (hash lists, receipts, events, block order).
 */
export class TemplateSigner implements TemplateSigning {
  private readonly signed = new Map<string, Promise<SignedTx>>()
  private readonly names = new Map<Hash, string>()
  /** Impersonated templates already sent, by name: the hash Anvil gave them. */
  private readonly unsigned = new Map<string, Hash>()

  constructor(private readonly context: TemplateContext) {}

  sign(name: string): Promise<SignedTx> {
    let signed = this.signed.get(name)
    if (!signed) {
      signed = this.signNew(name)
      this.signed.set(name, signed)
    }
    return signed
  }

  /** The template's tx hash, if it has been signed (or, impersonated, sent). */
  async hashOf(name: string): Promise<Hash | undefined> {
    if (this.unsigned.has(name)) return this.unsigned.get(name)
    return this.signed.has(name) ? (await this.signed.get(name)!).hash : undefined
  }

  /** Whether the template is from an impersonated account (sent unsigned, never signed). */
  isImpersonated(name: string): boolean {
    const template = this.context.templates[name]
    return template !== undefined && this.context.accounts.get(template.from)?.impersonated === true
  }

  /** The unsigned tx of an impersonated account's template, with the same fee defaults as signed ones. */
  unsignedTx(name: string): UnsignedTx {
    const { templates, accounts, codes, book } = this.context
    const template = templates[name]!
    const tip = template.maxPriorityFeePerGas ?? template.gasPrice ?? DEFAULT_MAX_PRIORITY_FEE_PER_GAS
    return {
      from: accounts.get(template.from)!.address,
      to: template.to === undefined ? undefined : book.resolve(template.to),
      value: template.value ?? 0n,
      data: templateCalldata(template, codes, book),
      gas: template.gas === undefined ? undefined : BigInt(template.gas),
      maxFeePerGas: template.maxFeePerGas ?? template.gasPrice ?? tip + (this.context.feeCapHeadroom ?? DEFAULT_FEE_CAP_HEADROOM),
      maxPriorityFeePerGas: tip,
    }
  }

  /** Records the hash Anvil gave an impersonated template's tx: it is that tx from now on. */
  recordUnsigned(name: string, hash: Hash): void {
    this.unsigned.set(name, normalizeHash(hash))
    this.names.set(normalizeHash(hash), name)
  }

  /** Which template a tx hash is, if any. */
  templateOf(hash: string): string | undefined {
    return this.names.get(normalizeHash(hash))
  }

  /** The template whose tx hash passes the test (e.g. it hashes to a hint event's hash), if any. */
  templateWhere(test: (hash: Hash) => boolean): string | undefined {
    for (const [hash, name] of this.names) if (test(hash)) return name
    return undefined
  }

  private async signNew(name: string): Promise<SignedTx> {
    const { templates, accounts, codes, book, chainId, nonces } = this.context
    const template = templates[name]!
    const account = accounts.get(template.from)!
    const signer = account.signer
    if (!signer) throw new TemplateError(['from'], unsignableMessage(account))
    const to = template.to === undefined ? undefined : book.resolve(template.to)
    const data = templateCalldata(template, codes, book)
    const nonce =
      typeof template.nonce === 'number'
        ? template.nonce
        : typeof template.nonce === 'string'
          ? (await this.sign(template.nonce)).nonce
          : await nonces.next(account.address)
    const toContract = template.to !== undefined && codes.has(template.to)
    const gas = BigInt(template.gas ?? (data !== undefined || to === undefined || toContract ? CALL_GAS : TRANSFER_GAS))
    const common = { chainId: template.chainId ?? chainId, nonce, to, value: template.value ?? 0n, data, gas }
    const tip = template.maxPriorityFeePerGas ?? DEFAULT_MAX_PRIORITY_FEE_PER_GAS
    const fees = { maxFeePerGas: template.maxFeePerGas ?? tip + (this.context.feeCapHeadroom ?? DEFAULT_FEE_CAP_HEADROOM), maxPriorityFeePerGas: tip }
    const raw =
      template.gasPrice !== undefined
        ? await signer.signTransaction({ ...common, type: 'legacy', gasPrice: template.gasPrice })
        : template.blobs !== undefined
          ? await signer.signTransaction({
              ...common,
              ...fees,
              to: to!,
              type: 'eip4844',
              maxFeePerBlobGas: template.maxFeePerBlobGas ?? DEFAULT_MAX_FEE_PER_BLOB_GAS,
              ...(await labelledSidecars(name, template.blobs)),
            })
          : await signer.signTransaction({ ...common, ...fees, type: 'eip1559' })
    const hash = keccak256(hashedForm(raw))
    this.names.set(hash, name)
    return { template: name, raw, hash, from: account.address, nonce }
  }
}
