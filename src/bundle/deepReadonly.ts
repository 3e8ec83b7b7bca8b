/**
 * `T` with every property, array, set and map read-only all the way down: what a trace shows
 * of an object the builder computes with mutable fields (`BuilderPayments`).
 */
export type DeepReadonly<T> = T extends string | number | bigint | boolean | symbol | null | undefined | ((...args: never[]) => unknown)
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<K, DeepReadonly<V>>
    : T extends ReadonlySet<infer V>
      ? ReadonlySet<DeepReadonly<V>>
      : { readonly [K in keyof T]: DeepReadonly<T[K]> }
