// One key order for parsed objects whatever the input variant (text or JSON, list or save form), so the JSON
// output, bundles and goldens read the same. Shared by the parsers that need it.

/**
 * `obj` with its keys in `keys` order and no undefined values. An object already like that is returned as it is:
 * parsers mostly build their objects in order, and copying the hundreds of thousands of rules or real servers of a
 * large listing was a good part of its cost.
 */
export function ordered<T extends object>(obj: T, keys: ReadonlyArray<keyof T>): T {
  if (inOrder(obj, keys)) return obj
  const out: Record<string, unknown> = {}
  for (const k of keys) if (obj[k] !== undefined) out[k as string] = obj[k]
  return out as T
}

/** `arr` with each element ordered; `arr` itself when every element already is. */
export function orderedAll<T extends object>(arr: T[], keys: ReadonlyArray<keyof T>): T[] {
  return arr.every((x) => inOrder(x, keys)) ? arr : arr.map((x) => ordered(x, keys))
}

/** Whether `obj`'s own keys come in `keys` order (a subsequence of it) with no undefined value. */
export function inOrder<T extends object>(obj: T, keys: ReadonlyArray<keyof T>): boolean {
  let i = 0
  for (const k in obj) {
    if (obj[k] === undefined) return false
    while (i < keys.length && keys[i] !== k) i++
    if (i === keys.length) return false
    i++
  }
  return true
}
