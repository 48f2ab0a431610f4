// Shared machinery for Kubernetes component-config files (KubeletConfiguration, KubeProxyConfiguration):
// YAML/JSON loading with line numbers, a field schema that mirrors how the Go components decode
// (sigs.k8s.io/yaml: YAML 1.1 → JSON → case-sensitive json.Unmarshal), Go durations and resource quantities,
// per-field origins, and defaulting. Pure: text in, data out.
import {isMap, isScalar, isSeq, LineCounter, parseAllDocuments, Scalar, type Document, type Node as YamlNode} from 'yaml'
import {ParseError} from '../../errors.js'

export type JsonValue = null | boolean | number | string | JsonValue[] | {[key: string]: JsonValue}
export type JsonObject = {[key: string]: JsonValue}

/** Where a value came from, lowest to highest precedence for the kubelet: default < file < drop-in < flag. */
export type OriginKind = 'default' | 'file' | 'drop-in' | 'configz' | 'flag'

export interface Origin {
  kind: OriginKind
  /** File name as given by the caller; for flags, the file that put the flag on the command line. */
  source?: string
  /** 1-based line in `source`. */
  line?: number
  /** Flags: the flag as written (`--max-pods=250`). Defaults: where upstream sets it. */
  detail?: string
}

export type IssueSeverity = 'error' | 'warning' | 'info'

/**
 * A problem found while reading configuration. Never thrown: parsers collect them so one run reports all.
 * `error` means the component would refuse the file (or fail validation) at startup.
 */
export interface ConfigIssue {
  severity: IssueSeverity
  code: string
  message: string
  /** JSON Pointer of the field (`/authentication/anonymous/enabled`), when the issue is about one. */
  path?: string
  source?: string
  line?: number
}

// ---------------------------------------------------------------------------------------------------------------
// Field schema

/** Value types as the Go decoder sees them. `quantity` is a string holding a resource quantity. */
export type ScalarType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float'
  | 'duration'
  | 'durationOrNumber'
  | 'quantity'
  | 'quantityOrNumber'
  | 'threshold'
  | 'any'

export type FieldType = ScalarType | {list: FieldType} | {map: FieldType} | {struct: Schema}

export interface FieldSpec {
  type: FieldType
  /** Go pointer field: an explicit zero is kept; only omission/null means "unset". */
  pointer?: boolean
  /** First minor version (1.N) whose schema has the field. */
  since?: number
  /** First minor version that no longer has it. */
  removedIn?: number
  /** Accepted values (checked case-sensitively, as the components do). */
  enum?: readonly string[]
}

export type Schema = {readonly [field: string]: FieldSpec}

// ---------------------------------------------------------------------------------------------------------------
// Versions

/** The minor number of a Kubernetes version (`v1.29.3`, `1.29`, `29`), or undefined when it is not one. */
export function parseMinorVersion(version: string | undefined): number | undefined {
  if (version === undefined) return undefined
  const m = /^v?(?:1\.)?(\d{1,3})(?:\.\d+)?(?:[-+].*)?$/.exec(version.trim())
  if (!m) return undefined
  return Number(m[1])
}

// ---------------------------------------------------------------------------------------------------------------
// Go durations (time.ParseDuration) and resource quantities

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n,
  'μs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
}

/** Nanoseconds of a Go duration string, or undefined when time.ParseDuration would reject it. */
export function parseGoDuration(text: string): bigint | undefined {
  let s = text
  if (s === '') return undefined
  let neg = false
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '0') return 0n
  if (s === '') return undefined
  let total = 0n
  while (s !== '') {
    const m = /^(\d*)(?:\.(\d*))?([^\d.]+)/.exec(s)
    if (!m) return undefined
    const [whole, intPart = '', fracPart, unitText = ''] = m
    if (intPart === '' && (fracPart === undefined || fracPart === '')) return undefined
    const unit = Object.hasOwn(DURATION_UNITS, unitText) ? DURATION_UNITS[unitText] : undefined
    if (unit === undefined) return undefined
    let ns = BigInt(intPart === '' ? '0' : intPart) * unit
    if (fracPart !== undefined && fracPart !== '') {
      // Go truncates the fraction to whole nanoseconds.
      ns += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length)
    }
    total += ns
    s = s.slice(whole.length)
  }
  if (total > 9_223_372_036_854_775_807n) return undefined
  return neg ? -total : total
}

/** Formats nanoseconds like Go's time.Duration.String(): `4h0m0s`, `1m30s`, `100ms`, `0s`. */
export function formatGoDuration(nanos: bigint): string {
  if (nanos === 0n) return '0s'
  const neg = nanos < 0n
  let u = neg ? -nanos : nanos
  const sign = neg ? '-' : ''
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`
    if (u < 1_000_000n) return `${sign}${fraction(u, 1_000n)}µs`
    return `${sign}${fraction(u, 1_000_000n)}ms`
  }
  const h = u / 3_600_000_000_000n
  u -= h * 3_600_000_000_000n
  const m = u / 60_000_000_000n
  u -= m * 60_000_000_000n
  const secs = fraction(u, 1_000_000_000n)
  if (h > 0n) return `${sign}${h}h${m}m${secs}s`
  if (m > 0n) return `${sign}${m}m${secs}s`
  return `${sign}${secs}s`
}

function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit
  const rest = value % unit
  if (rest === 0n) return String(whole)
  const digits = unit.toString().length - 1
  return `${whole}.${rest.toString().padStart(digits, '0').replace(/0+$/, '')}`
}

/** Canonical Go form of a duration string (`"4h"` → `"4h0m0s"`), or undefined when invalid. */
export function normalizeGoDuration(text: string): string | undefined {
  const ns = parseGoDuration(text)
  return ns === undefined ? undefined : formatGoDuration(ns)
}

const QUANTITY_RE = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/
const QUANTITY_SCALE: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
}

/** The numeric value of a Kubernetes resource quantity (`500Mi` → 524288000), or undefined when invalid. */
export function parseQuantity(text: string): number | undefined {
  const m = QUANTITY_RE.exec(text.trim())
  if (!m) return undefined
  const num = Number(m[1])
  const suffix = m[2] ?? ''
  if (/^[eE]/.test(suffix)) return num * 10 ** Number(suffix.slice(1))
  const scale = Object.hasOwn(QUANTITY_SCALE, suffix) ? QUANTITY_SCALE[suffix] : undefined
  return scale === undefined ? undefined : num * scale
}

/** An eviction threshold value: a quantity or a percentage (`10%`). */
export function isThreshold(text: string): boolean {
  return /^\d+(?:\.\d+)?%$/.test(text.trim()) || parseQuantity(text) !== undefined
}

// ---------------------------------------------------------------------------------------------------------------
// JSON Pointers (RFC 6901): the keys of `origins`. Map keys may contain dots (`memory.available`), so dotted
// paths would be ambiguous.

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

// ---------------------------------------------------------------------------------------------------------------
// Loading YAML/JSON with line numbers

export interface LoadedDocument {
  doc: Document.Parsed
  lines: LineCounter
  format: 'yaml' | 'json'
  /** How many non-empty documents the stream held. */
  documentCount: number
}

/**
 * Parses the first non-empty YAML (1.1, as sigs.k8s.io/yaml does) or JSON document of `text`.
 * Throws ParseError with the line of the first syntax error. Returns undefined for an empty stream.
 */
export function loadYaml(text: string): LoadedDocument | undefined {
  const lines = new LineCounter()
  const docs = parseAllDocuments(text, {lineCounter: lines, version: '1.1', uniqueKeys: false, prettyErrors: false})
  const list = Array.isArray(docs) ? docs : []
  for (const d of list) {
    const err = d.errors[0]
    if (err) throw new ParseError(`malformed YAML: ${err.message}`, lines.linePos(err.pos[0]).line)
  }
  const nonEmpty = list.filter((d) => d.contents !== null && !(isScalar(d.contents) && d.contents.value === null))
  const first = nonEmpty[0]
  if (!first) return undefined
  return {doc: first, lines, format: /^\s*[{[]/.test(text) ? 'json' : 'yaml', documentCount: nonEmpty.length}
}

/** The 1-based line where a YAML node starts. */
export function nodeLine(node: YamlNode | null | undefined, lines: LineCounter): number | undefined {
  const start = node?.range?.[0]
  return start === undefined ? undefined : lines.linePos(start).line
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding against a schema

export interface DecodeOptions {
  /** Caller's file name, copied into origins and issues. */
  source?: string
  /** How to record origins of decoded fields. */
  originKind: OriginKind
  /** Minor version of the component, for "field not in this version" warnings. */
  version?: number
  /** Added to every line number (for documents embedded in another file). */
  lineOffset?: number
  /** Lines are not meaningful (a document embedded as a quoted string): omit them. */
  noLines?: boolean
  /** Component name used in messages (`kubelet`, `kube-proxy`). */
  component: string
  /** What the component does with unknown fields; defaults to the kubelet's lenient fallback. */
  unknownFieldNote?: string
}

export interface Decoded {
  values: JsonObject
  origins: Record<string, Origin>
  issues: ConfigIssue[]
}

/**
 * Decodes a YAML map against `schema` the way the Go component would: unknown fields and duplicate keys are
 * strict-decoding errors that the components tolerate (reported as warnings), wrong types are fatal (errors).
 * Only fields that decode cleanly are kept in `values`.
 */
export function decodeWithSchema(root: YamlNode, lines: LineCounter, schema: Schema, opts: DecodeOptions): Decoded {
  const out: Decoded = {values: {}, origins: {}, issues: []}
  const v = decodeStruct(root, schema, '', lines, opts, out)
  if (v !== undefined && v !== null && typeof v === 'object' && !Array.isArray(v)) out.values = v
  return out
}

function lineOf(node: YamlNode | null | undefined, lines: LineCounter, opts: DecodeOptions): number | undefined {
  if (opts.noLines) return undefined
  const l = nodeLine(node, lines)
  return l === undefined ? undefined : l + (opts.lineOffset ?? 0)
}

function issue(out: Decoded, opts: DecodeOptions, i: Omit<ConfigIssue, 'source'>): void {
  const full: ConfigIssue = {...i}
  if (opts.source !== undefined) full.source = opts.source
  if (full.line === undefined) delete full.line
  if (full.path === undefined) delete full.path
  out.issues.push(full)
}

function record(out: Decoded, ptr: string, node: YamlNode | null | undefined, lines: LineCounter, opts: DecodeOptions): void {
  const o: Origin = {kind: opts.originKind}
  if (opts.source !== undefined) o.source = opts.source
  const line = lineOf(node, lines, opts)
  if (line !== undefined) o.line = line
  out.origins[ptr] = o
}

function decodeStruct(
  node: YamlNode | null | undefined,
  schema: Schema,
  ptr: string,
  lines: LineCounter,
  opts: DecodeOptions,
  out: Decoded,
): JsonValue | undefined {
  if (node === null || node === undefined || (isScalar(node) && node.value === null)) return null
  if (!isMap(node)) {
    issue(out, opts, {
      severity: 'error',
      code: 'wrong-type',
      path: ptr === '' ? undefined : ptr,
      line: lineOf(node, lines, opts),
      message: `${ptr === '' ? 'document' : displayPath(ptr)}: expected a mapping (object), got ${describeNode(node)}; the ${opts.component} cannot decode this`,
    })
    return undefined
  }
  const result: JsonObject = {}
  const seen = new Map<string, number | undefined>()
  for (const pair of node.items) {
    const keyNode = pair.key as YamlNode | null
    const keyLine = lineOf(keyNode, lines, opts)
    const key = isScalar(keyNode) ? keyNode.value : undefined
    if (typeof key !== 'string') {
      issue(out, opts, {
        severity: 'error',
        code: 'wrong-type',
        line: keyLine,
        path: ptr === '' ? undefined : ptr,
        message: `${ptr === '' ? 'document' : displayPath(ptr)}: keys must be strings, got ${String(key)}`,
      })
      continue
    }
    const childPtr = ptr + pointer(key)
    if (seen.has(key)) {
      issue(out, opts, {
        severity: 'warning',
        code: 'duplicate-key',
        path: childPtr,
        line: keyLine,
        message: `${displayPath(childPtr)} is set twice (first on line ${seen.get(key) ?? '?'}); the last value wins after the strict decoder fails`,
      })
    }
    seen.set(key, keyLine)
    const spec = Object.hasOwn(schema, key) ? schema[key] : undefined
    if (!spec) {
      if (ptr === '' && (key === 'apiVersion' || key === 'kind')) continue
      const close = Object.keys(schema).find((k) => k.toLowerCase() === key.toLowerCase())
      issue(out, opts, {
        severity: 'warning',
        code: 'unknown-field',
        path: childPtr,
        line: keyLine,
        message:
          `unknown field ${displayPath(childPtr)}: ${opts.unknownFieldNote ?? `the ${opts.component} ignores it (after "strict decoding" fails it falls back to lenient decoding)`}` +
          (close ? `; field names are case-sensitive, did you mean ${close}?` : ''),
      })
      continue
    }
    if (opts.version !== undefined) {
      if (spec.since !== undefined && opts.version < spec.since) {
        issue(out, opts, {
          severity: 'warning',
          code: 'field-too-new',
          path: childPtr,
          line: keyLine,
          message: `${displayPath(childPtr)} was added in 1.${spec.since}; a 1.${opts.version} ${opts.component} does not know it and ignores it`,
        })
      } else if (spec.removedIn !== undefined && opts.version >= spec.removedIn) {
        issue(out, opts, {
          severity: 'warning',
          code: 'field-removed',
          path: childPtr,
          line: keyLine,
          message: `${displayPath(childPtr)} was removed in 1.${spec.removedIn}; a 1.${opts.version} ${opts.component} does not know it: ${opts.unknownFieldNote ?? 'it is ignored'}`,
        })
      }
    } else if (spec.removedIn !== undefined) {
      issue(out, opts, {
        severity: 'warning',
        code: 'field-removed',
        path: childPtr,
        line: keyLine,
        message: `${displayPath(childPtr)} was removed in 1.${spec.removedIn}; on a ${opts.component} 1.${spec.removedIn} or newer it is an unknown field: ${opts.unknownFieldNote ?? 'it is ignored'}`,
      })
    }
    const valueNode = pair.value as YamlNode | null
    const v = decodeValue(valueNode ?? null, spec, childPtr, lines, opts, out, keyNode)
    if (v !== undefined) result[key] = v
  }
  return result
}

function describeNode(node: YamlNode | null | undefined): string {
  if (node === null || node === undefined) return 'nothing'
  if (isMap(node)) return 'a mapping'
  if (isSeq(node)) return 'a list'
  if (isScalar(node)) {
    const v = node.value
    if (v === null) return 'null'
    if (typeof v === 'string') return `string ${JSON.stringify(v)}`
    return `${typeof v} ${String(v)}`
  }
  return 'an unsupported YAML node'
}

function decodeValue(
  node: YamlNode | null,
  spec: FieldSpec,
  ptr: string,
  lines: LineCounter,
  opts: DecodeOptions,
  out: Decoded,
  keyNode: YamlNode | null,
): JsonValue | undefined {
  const type = spec.type
  const at = node ?? keyNode
  if (node === null || (isScalar(node) && node.value === null)) {
    // null decodes to the zero value (or nil pointer): the component treats it as unset.
    record(out, ptr, at, lines, opts)
    return null
  }
  if (typeof type === 'object') {
    if ('struct' in type) return decodeStruct(node, type.struct, ptr, lines, opts, out)
    if ('map' in type) {
      if (!isMap(node)) return wrongType(out, opts, ptr, node, lines, 'a mapping')
      const result: JsonObject = {}
      for (const pair of node.items) {
        const k = isScalar(pair.key) ? pair.key.value : undefined
        if (typeof k !== 'string' && typeof k !== 'number' && typeof k !== 'boolean') continue
        const key = String(k)
        const v = decodeValue((pair.value as YamlNode | null) ?? null, {type: type.map}, ptr + pointer(key), lines, opts, out, pair.key as YamlNode)
        if (v !== undefined) setOwn(result, key, v)
      }
      if (node.items.length === 0) record(out, ptr, node, lines, opts)
      return result
    }
    if (!isSeq(node)) return wrongType(out, opts, ptr, node, lines, 'a list')
    const items: JsonValue[] = []
    node.items.forEach((item, i) => {
      const v = decodeValue((item as YamlNode | null) ?? null, {type: type.list}, ptr + pointer(i), lines, opts, out, node)
      if (v !== undefined) items.push(v)
    })
    // Lists are replaced as a whole by later sources, so the list itself carries the origin.
    for (const k of Object.keys(out.origins)) if (k.startsWith(ptr + '/')) delete out.origins[k]
    record(out, ptr, node, lines, opts)
    return items
  }
  if (!isScalar(node)) {
    if (type === 'any') {
      record(out, ptr, node, lines, opts)
      return node.toJSON() as JsonValue
    }
    return wrongType(out, opts, ptr, node, lines, expected(type))
  }
  const raw = node.value
  const ok = checkScalar(type, raw)
  if (ok !== true) {
    issue(out, opts, {
      severity: 'error',
      code: ok.code,
      path: ptr,
      line: lineOf(node, lines, opts),
      message: `${displayPath(ptr)}: ${ok.message}`,
    })
    return undefined
  }
  if (spec.enum && typeof raw === 'string' && raw !== '' && !spec.enum.includes(raw)) {
    issue(out, opts, {
      severity: 'error',
      code: 'invalid-value',
      path: ptr,
      line: lineOf(node, lines, opts),
      message: `${displayPath(ptr)}: ${JSON.stringify(raw)} is not one of ${spec.enum.map((e) => JSON.stringify(e)).join(', ')}`,
    })
  }
  record(out, ptr, node, lines, opts)
  return raw as JsonValue
}

function wrongType(out: Decoded, opts: DecodeOptions, ptr: string, node: YamlNode, lines: LineCounter, want: string): undefined {
  issue(out, opts, {
    severity: 'error',
    code: 'wrong-type',
    path: ptr,
    line: lineOf(node, lines, opts),
    message: `${displayPath(ptr)}: expected ${want}, got ${describeNode(node)}`,
  })
  return undefined
}

function expected(type: ScalarType): string {
  switch (type) {
    case 'string':
      return 'a string'
    case 'bool':
      return 'true or false'
    case 'int32':
    case 'uint32':
    case 'int64':
      return 'an integer'
    case 'float':
      return 'a number'
    case 'duration':
      return 'a duration string such as "30s"'
    case 'durationOrNumber':
      return 'a duration string or a number of nanoseconds'
    case 'quantity':
    case 'quantityOrNumber':
      return 'a quantity such as "100Mi"'
    case 'threshold':
      return 'a quantity or a percentage such as "10%"'
    case 'any':
      return 'a value'
  }
}

type ScalarCheck = true | {code: string; message: string}

/** Mirrors what encoding/json accepts for each Go type (numbers are never accepted for strings, and so on). */
export function checkScalar(type: ScalarType, raw: unknown): ScalarCheck {
  const got = raw === null ? 'null' : typeof raw === 'string' ? `string ${JSON.stringify(raw)}` : `${typeof raw} ${String(raw)}`
  const wrong = (want: string): ScalarCheck => ({code: 'wrong-type', message: `expected ${want}, got ${got}`})
  switch (type) {
    case 'any':
      return true
    case 'string':
      return typeof raw === 'string' ? true : wrong(`a string (quote the value: "${String(raw)}")`)
    case 'bool':
      return typeof raw === 'boolean' ? true : wrong('true or false')
    case 'int32':
    case 'uint32':
    case 'int64': {
      if (typeof raw !== 'number') return wrong('an integer')
      if (!Number.isInteger(raw)) return wrong('an integer')
      const [min, max] =
        type === 'int32' ? [-(2 ** 31), 2 ** 31 - 1] : type === 'uint32' ? [0, 2 ** 32 - 1] : [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
      if (raw < min || raw > max) return {code: 'out-of-range', message: `${raw} is out of range for ${type}`}
      return true
    }
    case 'float':
      return typeof raw === 'number' ? true : wrong('a number')
    case 'duration':
      if (typeof raw !== 'string') return wrong(`a duration string such as "${String(raw)}s" (a bare number is not accepted)`)
      return parseGoDuration(raw) === undefined ? {code: 'invalid-duration', message: `${JSON.stringify(raw)} is not a valid duration (examples: "30s", "5m", "1h30m")`} : true
    case 'durationOrNumber':
      if (typeof raw === 'number') return Number.isInteger(raw) ? true : wrong('a whole number of nanoseconds')
      if (typeof raw !== 'string') return wrong('a duration')
      return parseGoDuration(raw) === undefined ? {code: 'invalid-duration', message: `${JSON.stringify(raw)} is not a valid duration`} : true
    case 'quantity':
      if (typeof raw !== 'string') return wrong(`a quantity string (quote it: "${String(raw)}")`)
      return parseQuantity(raw) === undefined ? {code: 'invalid-quantity', message: `${JSON.stringify(raw)} is not a valid quantity (examples: "100Mi", "1Gi", "500m")`} : true
    case 'quantityOrNumber':
      if (typeof raw === 'number') return true
      if (typeof raw !== 'string') return wrong('a quantity')
      return parseQuantity(raw) === undefined ? {code: 'invalid-quantity', message: `${JSON.stringify(raw)} is not a valid quantity`} : true
    case 'threshold':
      if (typeof raw !== 'string') return wrong(`a string (quote it: "${String(raw)}")`)
      return isThreshold(raw) ? true : {code: 'invalid-quantity', message: `${JSON.stringify(raw)} is neither a quantity nor a percentage`}
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Defaulting

/** One upstream default. */
export interface DefaultSpec {
  path: string
  /** The default value, or a function of the (partially defaulted) values when upstream computes it. */
  value: JsonValue | ((values: JsonObject) => JsonValue | undefined)
  /** Go non-pointer field: its zero value (0, "", "0s", false) is indistinguishable from "unset". */
  zeroIsUnset?: boolean
  /** Applies from this minor version on (inclusive). */
  since?: number
  /** Applies before this minor version only. */
  until?: number
  /** Where upstream sets it, for the report. */
  source: string
}

/** A default that was filled in, and why. */
export interface AppliedDefault {
  path: string
  value: JsonValue
  /**
   * `omitted`: absent; `null`: written as null; `zero`: written as a zero value that means unset;
   * `normalized`: completed by the component (e.g. a default port appended to an address).
   */
  reason: 'omitted' | 'null' | 'zero' | 'normalized'
  /** The value that was written, for `zero`. */
  written?: JsonValue
  writtenAt?: Origin
  source: string
}

/** Whether `value` is the Go zero value of the field's JSON form. */
export function isGoZero(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true
  if (value === 0 || value === '' || value === false) return true
  if (typeof value === 'string') {
    const ns = parseGoDuration(value)
    return ns === 0n && /[a-zµμ]/i.test(value)
  }
  return false
}

/**
 * Fills defaults into a copy of `values`. `version` (minor) selects version-specific defaults; unknown → newest.
 * Returns the new values, the origins of the defaulted fields, and the list of what was applied.
 */
export function applyDefaultSpecs(
  values: JsonObject,
  origins: Record<string, Origin>,
  specs: readonly DefaultSpec[],
  version: number | undefined,
): {values: JsonObject; origins: Record<string, Origin>; applied: AppliedDefault[]} {
  const next = cloneJson(values)
  const nextOrigins = {...origins}
  const applied: AppliedDefault[] = []
  for (const spec of specs) {
    if (version !== undefined && spec.since !== undefined && version < spec.since) continue
    if (version !== undefined && spec.until !== undefined && version >= spec.until) continue
    if (version === undefined && spec.until !== undefined) continue
    const current = getAt(next, spec.path)
    let reason: AppliedDefault['reason'] | undefined
    if (current === undefined) reason = 'omitted'
    else if (current === null) reason = 'null'
    else if (spec.zeroIsUnset && isGoZero(current)) reason = 'zero'
    if (reason === undefined) continue
    const value = typeof spec.value === 'function' ? spec.value(next) : spec.value
    if (value === undefined) continue
    const a: AppliedDefault = {path: spec.path, value, reason, source: spec.source}
    if (reason === 'zero' && current !== undefined) a.written = current
    const writtenAt = origins[spec.path]
    if (reason !== 'omitted' && writtenAt) a.writtenAt = writtenAt
    applied.push(a)
    setAt(next, spec.path, cloneJson(value))
    dropOriginsUnder(nextOrigins, spec.path)
    nextOrigins[spec.path] = {kind: 'default', detail: spec.source}
  }
  return {values: next, origins: nextOrigins, applied}
}

/** Stable JSON for display: strings as-is, everything else JSON. */
export function formatValue(value: JsonValue | undefined): string {
  if (value === undefined) return '<unset>'
  if (typeof value === 'string') return value === '' ? '""' : value
  if (Array.isArray(value)) return value.length === 0 ? '[]' : value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',')
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    if (entries.length === 0) return '{}'
    return entries.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(',')
  }
  return JSON.stringify(value)
}

/** "file:line" or "file" or undefined. */
export function originLocation(o: Origin | undefined): string | undefined {
  if (!o?.source) return undefined
  return o.line === undefined ? o.source : `${o.source}:${o.line}`
}

// ---------------------------------------------------------------------------------------------------------------
// Component configuration stored in a ConfigMap

/** A configuration document found in a ConfigMap's data. */
export interface ConfigMapDocument {
  key: string
  name?: string
  namespace?: string
  text: string
  /**
   * Add to a line of `text` to get the line in the ConfigMap file; defined only for `|` block values, whose
   * lines map one to one. Quoted values (`-o json`) have no such mapping.
   */
  lineOffset?: number
  /** Line of the data key in the ConfigMap file. */
  keyLine?: number
}

/**
 * If `loaded` is a ConfigMap, returns its data entry holding the wanted document: the first of `keys` whose
 * value passes `wanted`, else any value that passes. Returns undefined when the document is not a ConfigMap;
 * throws ParseError when it is one without a matching entry.
 */
export function configMapDocument(
  loaded: LoadedDocument,
  keys: readonly string[],
  wanted: (text: string) => boolean,
  what: string,
  hint?: string,
): ConfigMapDocument | undefined {
  const root = loaded.doc.contents as YamlNode | null
  const get = (node: YamlNode | null | undefined, key: string): YamlNode | undefined => {
    if (!isMap(node)) return undefined
    const p = node.items.find((i) => isScalar(i.key) && i.key.value === key)
    return (p?.value ?? undefined) as YamlNode | undefined
  }
  const str = (n: YamlNode | undefined): string | undefined => (isScalar(n) && typeof n.value === 'string' ? n.value : undefined)
  if (str(get(root, 'kind')) !== 'ConfigMap') return undefined
  const metadata = get(root, 'metadata')
  const name = str(get(metadata, 'name'))
  const namespace = str(get(metadata, 'namespace'))
  const data = get(root, 'data')
  if (!isMap(data)) throw new ParseError(`ConfigMap ${name ?? ''} has no data`, nodeLine(root, loaded.lines) ?? 1)
  const entries = data.items
    .filter((p) => isScalar(p.key) && isScalar(p.value) && typeof p.value.value === 'string')
    .map((p) => ({key: String((p.key as Scalar).value), node: p.value as Scalar, keyNode: p.key as YamlNode}))
  const chosen = keys.map((k) => entries.find((e) => e.key === k)).find((e) => e !== undefined && wanted(String(e.node.value))) ?? entries.find((e) => wanted(String(e.node.value)))
  if (!chosen) {
    throw new ParseError(
      `ConfigMap ${name ?? ''} holds no ${what} (keys: ${entries.map((e) => e.key).join(', ') || 'none'})${hint ? `; ${hint}` : ''}`,
      nodeLine(data, loaded.lines) ?? 1,
    )
  }
  const out: ConfigMapDocument = {key: chosen.key, text: String(chosen.node.value)}
  if (name !== undefined) out.name = name
  if (namespace !== undefined) out.namespace = namespace
  const keyLine = nodeLine(chosen.keyNode, loaded.lines)
  if (keyLine !== undefined) out.keyLine = keyLine
  // A literal block's content starts on the line after its `|` header.
  if (chosen.node.type === Scalar.BLOCK_LITERAL) out.lineOffset = nodeLine(chosen.node, loaded.lines) ?? 0
  return out
}

/** Re-throws a ParseError from the embedded document with a line of the ConfigMap file. */
export function configMapParseError(err: ParseError, doc: ConfigMapDocument): ParseError {
  if (doc.lineOffset !== undefined) return new ParseError(`data.${doc.key}: ${err.message}`, err.line === undefined ? undefined : err.line + doc.lineOffset)
  return new ParseError(`data.${doc.key} line ${err.line ?? '?'}: ${err.message}`, doc.keyLine)
}
