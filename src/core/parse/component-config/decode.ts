// Decoding against a schema
import {isMap, isScalar, isSeq, type LineCounter, type Node as YamlNode} from 'yaml'
import type {ConfigIssue, JsonObject, JsonValue, Origin, OriginKind} from '../../model/config-issue.js'
import {parseGoDuration} from '../go-duration.js'
import {isThreshold, parseQuantity} from './quantity.js'
import {displayPath, pointer, setOwn} from './json-pointer.js'
import {nodeLine} from './yaml.js'
import type {FieldSpec, ScalarType, Schema} from './schema.js'


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
