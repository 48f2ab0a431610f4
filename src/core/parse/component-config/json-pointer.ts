// JSON Pointers (RFC 6901): the keys of `origins`. Map keys may contain dots (`memory.available`), so dotted
// paths would be ambiguous.
import type {JsonObject, JsonValue, Origin} from '../../model/config-issue.js'


export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => '/' + String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('')
}

export function pointerSegments(ptr: string): string[] {
  if (ptr === '') return []
  return ptr
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
}

/** A display form of a pointer: `authentication.anonymous.enabled`, `evictionHard[memory.available]`. */
export function displayPath(ptr: string): string {
  let out = ''
  for (const seg of pointerSegments(ptr)) {
    if (/^\d+$/.test(seg)) out += `[${seg}]`
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) out += out === '' ? seg : `.${seg}`
    else out += `[${seg}]`
  }
  return out
}

export function getAt(root: JsonValue | undefined, ptr: string): JsonValue | undefined {
  let cur: JsonValue | undefined = root
  for (const seg of pointerSegments(ptr)) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined
    if (!Object.hasOwn(cur, seg)) return undefined
    cur = Array.isArray(cur) ? cur[Number(seg)] : cur[seg]
  }
  return cur
}

/** Sets `value` at `ptr`, creating intermediate objects. Mutates `root`. */
export function setAt(root: JsonObject, ptr: string, value: JsonValue): void {
  const segs = pointerSegments(ptr)
  let cur: JsonObject = root
  for (const seg of segs.slice(0, -1)) {
    const next = cur[seg]
    if (next === null || next === undefined || typeof next !== 'object' || Array.isArray(next) || !Object.hasOwn(cur, seg)) {
      const fresh: JsonObject = {}
      setOwn(cur, seg, fresh)
      cur = fresh
    } else cur = next
  }
  const last = segs.at(-1)
  if (last !== undefined) setOwn(cur, last, value)
}

/** Sets an own property, also for the key `__proto__` (which plain assignment would treat as the prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(obj, key, {value, enumerable: true, writable: true, configurable: true})
  else obj[key] = value
}

export function cloneJson<T extends JsonValue>(value: T): T {
  return structuredClone(value)
}

/** Removes the origins of `ptr` and everything under it. */
export function dropOriginsUnder(origins: Record<string, Origin>, ptr: string): void {
  for (const key of Object.keys(origins)) if (key === ptr || key.startsWith(ptr + '/')) delete origins[key]
}

/** The origins recorded at or under `ptr`, most specific first. */
export function originsUnder(origins: Record<string, Origin>, ptr: string): Array<[string, Origin]> {
  return Object.entries(origins).filter(([k]) => k === ptr || k.startsWith(ptr + '/'))
}
