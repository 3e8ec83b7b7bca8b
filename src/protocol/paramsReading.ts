import { z } from 'zod'

/** What reading a request's `params` gave: the typed value, or the message of `-32602` naming the field and the problem. */
export type ParamsReading<Out> = { ok: true; value: Out } | { ok: false; message: string }

/**
 * How one method's positional `params` are read: what a client sends (`In`, the type the typed
 * client takes) and what the handler gets (`Out`, after the schema's checks and transforms).
 * Failures stay data (`{ ok: false, message }`); the server turns them into its error answer.
 */
export interface ParamsSpec<In extends readonly unknown[], Out> {
  /** How the params look, as the methods reference shows them: `[{ txs, blockNumber?, … }]`. */
  readonly shape: string
  read(params: unknown): ParamsReading<Out>
  /** Never set: carries `In` for the client's types. */
  readonly clientParams?: In
}

/** The params a client sends for a spec. */
export type ParamsIn<Spec> = Spec extends ParamsSpec<infer In, unknown> ? In : never
/** The params a handler gets for a spec. */
export type ParamsOut<Spec> = Spec extends ParamsSpec<readonly unknown[], infer Out> ? Out : never

/** Renders a zod path the way users write it: `txs[1]`, `refundTxHashes[0]`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key)
  return out
}

/** All schema problems, each as `field: problem`, joined for one error message. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = formatPath(issue.path)
      // "unknown field x" names the field itself; a nested object's path goes before it.
      if (issue.code === 'unrecognized_keys') return where ? `${where}: ${issue.message}` : issue.message
      return `${where || 'params'}: ${issue.message}`
    })
    .join('; ')
}

/** A value's problems named under `prefix`, each as `prefix.field: problem`: `params[1].fast: expected a boolean`, `simOptions.timeout: …`. */
export function describeIssuesUnder(prefix: string, error: z.ZodError): string {
  return error.issues.map((issue) => `${[prefix, formatPath(issue.path)].filter(Boolean).join('.')}: ${issue.message}`).join('; ')
}

/** A value's kind as an error message says it: `an array of 2`, `null`, `a string`. */
function describeShape(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (value === null) return 'null'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

const failed = (message: string): { ok: false; message: string } => ({ ok: false, message })

/** Reads one object under `schema`: `-32602` names the field and the problem. */
function readObject<S extends z.ZodType>(schema: S, object: unknown, at = 'params[0]'): ParamsReading<z.output<S>> {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return failed(`${at}: expected an object, got ${describeShape(object)}`)
  const parsed = schema.safeParse(object)
  return parsed.success ? { ok: true, value: parsed.data } : failed(describeIssues(parsed.error))
}

/**
 * `[object]`: an array holding exactly one object valid under `schema` (Flashbots' methods all
 * take this form). Its shape for the reference is read from the schema's fields (optional ones
 * marked `?`, refused ones left out), unless `shape` is given (a schema that is not a plain
 * object, e.g. one that transforms the whole object).
 *
 * @example objectParam(cancelBundleSchema).shape // '[{ replacementUuid }]'
 */
export function objectParam<S extends z.ZodType>(schema: S, shape = `[${objectShape(schema)}]`): ParamsSpec<[z.input<S>], z.output<S>> {
  return {
    shape,
    read(params) {
      if (!Array.isArray(params) || params.length !== 1) return failed(`params: expected an array holding exactly one object, got ${describeShape(params)}`)
      return readObject(schema, params[0])
    },
  }
}

/**
 * An object schema's fields as the reference writes them: `{ txs, blockNumber?, … }`. A field
 * that only accepts its absence (`refusedField`: another builder's field bundlesim cannot
 * honour) is not one the method takes.
 */
function objectShape(schema: z.ZodType): string {
  if (!(schema instanceof z.ZodObject)) throw new Error('objectShape: not an object schema; give the method its shape')
  const fields = Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => !(field instanceof z.ZodOptional && field.unwrap() instanceof z.ZodUndefined))
    .map(([name, field]) => (field.safeParse(undefined).success ? `${name}?` : name))
  return `{ ${fields.join(', ')} }`
}

/**
 * The object by name (`params: { … }`, as bloXroute's docs send it) or wrapped in an array
 * (`[{ … }]`, as JSON-RPC clients do); `notAnObject` answers anything else.
 */
export function namedOrWrappedObjectParam<S extends z.ZodType>(schema: S, notAnObject: string, shape = `${objectShape(schema)} (or wrapped: [{ … }])`): ParamsSpec<[z.input<S>], z.output<S>> {
  return {
    shape,
    read(params) {
      const object = Array.isArray(params) && params.length === 1 ? params[0] : params
      if (object === null || typeof object !== 'object' || Array.isArray(object)) return failed(notAnObject)
      return readObject(schema, object)
    },
  }
}

/** `[]`, no params member, or `[object]`: for methods whose one object has only optional fields. */
export function optionalObjectParam<S extends z.ZodType>(schema: S, shape = `[${objectShape(schema)}]`): ParamsSpec<[z.input<S>] | [], z.output<S>> {
  const one = objectParam(schema, shape)
  return {
    shape,
    read(params) {
      if (params === undefined || (Array.isArray(params) && params.length === 0)) return readObject(schema, {})
      return one.read(params)
    },
  }
}

/** `[]`: the method takes nothing (anything sent is ignored, as geth does for its no-argument methods). */
export function noParams(): ParamsSpec<[], void> {
  return { shape: '[]', read: () => ({ ok: true, value: undefined }) }
}

/**
 * Positional values, each under its own schema (`[signedTx]`, `[signedTx, preferences?]`): the
 * first `required` are required, the rest optional (an optional one sent as `null` counts as
 * absent, as JSON-RPC clients send it). A wrong count answers `message`; so does a value's
 * problem, unless `describe` words it (given the value as sent).
 */
export function positionalParams<const Schemas extends readonly z.ZodType[], const Required extends number>(options: {
  schemas: Schemas
  required: Required
  shape: string
  /** The answer to a wrong count, given the params as sent. */
  message: string | ((params: unknown) => string)
  describe?(index: number, error: z.ZodError, value: unknown): string
}): ParamsSpec<PositionalIn<Schemas, Required>, PositionalOut<Schemas, Required>> {
  const { schemas, required, shape, describe } = options
  const message = (params: unknown) => (typeof options.message === 'string' ? options.message : options.message(params))
  return {
    shape,
    read(params) {
      if (params !== undefined && !Array.isArray(params)) return failed(message(params))
      const values: readonly unknown[] = params ?? []
      if (values.length < required || values.length > schemas.length) return failed(message(params))
      const out: unknown[] = []
      for (const [index, value] of values.entries()) {
        if (index >= required && value === null) {
          out.push(undefined)
          continue
        }
        const parsed = schemas[index]!.safeParse(value)
        if (!parsed.success) return failed(describe ? describe(index, parsed.error, value) : message(params))
        out.push(parsed.data)
      }
      return { ok: true, value: out as PositionalOut<Schemas, Required> }
    },
  }
}

/** An object value's problem as `objectParam` words it: `params[i]: expected an object, got a string`, else each field's. */
export function describeObjectValue(index: number, error: z.ZodError, value: unknown): string {
  return value === null || typeof value !== 'object' || Array.isArray(value) ? `params[${index}]: expected an object, got ${describeShape(value)}` : describeIssues(error)
}

/** The values a handler gets from `positionalParams`: each schema's output, the optional ones possibly absent. */
export type PositionalOut<Schemas extends readonly z.ZodType[], Required extends number> = {
  [I in keyof Schemas]: I extends `${Below<Required>}` ? z.output<Schemas[I]> : z.output<Schemas[I]> | undefined
}

/** What a client sends for `positionalParams`: the required values, then any of the optional ones in order. */
export type PositionalIn<Schemas extends readonly z.ZodType[], Required extends number> = Exclude<Prefixes<{ [I in keyof Schemas]: z.input<Schemas[I]> }>, { length: Below<Required> }>

/** Every prefix of a tuple: `[]`, `[A]`, `[A, B]`. */
type Prefixes<T extends readonly unknown[], Acc extends readonly unknown[] = []> = T extends readonly [infer Head, ...infer Tail] ? Acc | Prefixes<Tail, [...Acc, Head]> : Acc
/** The numbers below `N`: `Below<2>` is `0 | 1`. */
type Below<N extends number, Acc extends unknown[] = []> = Acc['length'] extends N ? never : Acc['length'] | Below<N, [...Acc, unknown]>

/**
 * Params bundlesim does not read but hands on as sent: the node reads served by Anvil unless they
 * ask for the pending state (`eth_getTransactionCount [address, "pending"]`…). Anvil answers the
 * shape of the ones it is handed.
 */
export function forwardedParams(shape: string): ParamsSpec<readonly unknown[], readonly unknown[]> {
  return { shape, read: (params) => ({ ok: true, value: Array.isArray(params) ? params : params === undefined ? [] : [params] }) }
}
