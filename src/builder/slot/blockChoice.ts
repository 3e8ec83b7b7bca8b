/**
 * The block to submit among candidates: the most valuable; among equals the first, so the
 * first algorithm wins ties and the choice is deterministic. Undefined when there is none.
 *
 * @example chooseBlock([{ algorithm: 'a', value: 2n }, { algorithm: 'b', value: 2n }]) // the 'a' one
 */
export function chooseBlock<T extends { value: bigint }>(candidates: readonly T[]): T | undefined {
  let best: T | undefined
  for (const candidate of candidates) if (!best || candidate.value > best.value) best = candidate
  return best
}
