// Pure pieces of `fix kubelet`: `--set FIELD=VALUE` parsing against the KubeletConfiguration schema, the edit of
// a config file with the yaml Document API (comments, key order and layout kept), and the choice of the file that
// owns a field (the last --config-dir drop-in that sets it, else the --config file).
import {isIpLiteral} from '../../core/net/host.js'
import {createTwoFilesPatch, diffArrays} from 'diff'
import {isCollection, isMap, isScalar, parse as parseYaml, parseDocument, type Document, type ToStringOptions} from 'yaml'
import {
  type FieldSpec,
  type FieldType,
  formatValue,
  getAt,
  type JsonObject,
  type JsonValue,
  pointer,
  type Schema,
} from '../../core/parse/component-config.js'
import {compareDropInNames, KUBELET_SCHEMA, type KubeletConfig} from '../../core/parse/kubelet-config.js'
import {UsageError} from '../../errors.js'

/** One requested change: `field` as the user wrote it, `path` its key segments, `ptr` its JSON Pointer. */
export interface KubeletEdit {
  field: string
  path: string[]
  ptr: string
  value: JsonValue
}

/**
 * Splits a dotted field into key segments using the schema: structs take one segment, a map takes the rest as
 * its key (`evictionHard.memory.available` → [evictionHard, memory.available]). Unknown fields are a UsageError.
 */
export function kubeletFieldPath(field: string): {path: string[]; spec: FieldSpec} {
  const words = field.split('.')
  const path: string[] = []
  let schema: Schema | undefined = KUBELET_SCHEMA
  let spec: FieldSpec | undefined
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? ''
    if (!schema) throw new UsageError(`--set ${field}: ${path.join('.')} has no field "${w}"`)
    spec = Object.hasOwn(schema, w) ? schema[w] : undefined
    if (!spec || w === '') {
      throw new UsageError(
        `--set ${field}: unknown KubeletConfiguration field "${[...path, w].join('.')}"`,
        'Fields use the config file\'s names (clusterDNS, cgroupDriver, authentication.anonymous.enabled); see `kubectl node-doctor kubelet show NODE`.',
      )
    }
    path.push(w)
    const t: FieldType = spec.type
    if (typeof t === 'object' && 'map' in t && i + 1 < words.length) {
      path.push(words.slice(i + 1).join('.'))
      spec = {type: t.map}
      break
    }
    schema = typeof t === 'object' && 'struct' in t ? t.struct : undefined
  }
  return {path, spec: spec!}
}

function scalarValue(field: string, type: FieldType, raw: string): JsonValue {
  const bad = (want: string): never => {
    throw new UsageError(`--set ${field}=${raw}: expected ${want}`)
  }
  if (typeof type === 'object') {
    if ('list' in type) {
      const t = raw.trim()
      if (t.startsWith('[')) {
        const v = yamlValue(field, raw)
        if (!Array.isArray(v)) return bad('a list')
        return v.map((x) => scalarValue(field, type.list, typeof x === 'string' ? x : JSON.stringify(x)))
      }
      return t === '' ? [] : t.split(',').map((x) => scalarValue(field, type.list, x.trim()))
    }
    const v = yamlValue(field, raw)
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return bad('a mapping, e.g. {key: value}')
    return v
  }
  switch (type) {
    case 'string':
    case 'duration':
    case 'quantity':
    case 'threshold':
      return raw
    case 'bool':
      if (raw === 'true' || raw === 'false') return raw === 'true'
      return bad('true or false')
    case 'int32':
    case 'int64':
    case 'uint32': {
      if (!/^-?\d+$/.test(raw.trim())) return bad('an integer')
      return Number(raw)
    }
    case 'float': {
      const n = Number(raw)
      if (raw.trim() === '' || !Number.isFinite(n)) return bad('a number')
      return n
    }
    default:
      return yamlValue(field, raw)
  }
}

function yamlValue(field: string, raw: string): JsonValue {
  try {
    return (parseYaml(raw) ?? null) as JsonValue
  } catch (err) {
    throw new UsageError(`--set ${field}: the value is not valid YAML: ${(err as Error).message.split('\n')[0]}`)
  }
}

/** Parses one `--set FIELD=VALUE`; the value is typed by the field's schema (lists: `a,b` or `[a, b]`). */
export function parseSetArg(arg: string): KubeletEdit {
  const eq = arg.indexOf('=')
  if (eq <= 0) throw new UsageError(`--set ${arg}: expected FIELD=VALUE`, 'For example --set clusterDNS=10.96.0.10 or --set cgroupDriver=systemd.')
  const field = arg.slice(0, eq).trim()
  const raw = arg.slice(eq + 1)
  if (field === 'apiVersion' || field === 'kind') throw new UsageError(`--set ${field}: ${field} cannot be changed`)
  const {path, spec} = kubeletFieldPath(field)
  const value = scalarValue(field, spec.type, raw)
  if (spec.enum && typeof value === 'string' && !spec.enum.includes(value)) {
    throw new UsageError(`--set ${field}=${raw}: must be one of ${spec.enum.join(', ')}`)
  }
  const ipProblem = IP_FIELDS.has(field) ? ipValuesProblem(value) : undefined
  if (ipProblem !== undefined) throw new UsageError(`--set ${field}=${raw}: ${ipProblem}`, `For example --set ${field}=10.96.0.10.`)
  return {field, path, ptr: pointer(...path), value}
}

/** KubeletConfiguration fields whose values must be IP addresses (the kubelet refuses anything else at start). */
const IP_FIELDS = new Set(['clusterDNS', 'address', 'healthzBindAddress'])

function ipValuesProblem(value: JsonValue): string | undefined {
  const values = Array.isArray(value) ? value : [value]
  if (values.length === 0) return undefined
  for (const v of values) if (typeof v !== 'string' || !isIpLiteral(v) || v.includes('%')) return `${JSON.stringify(v)} is not an IP address`
  return undefined
}

/** An edit built by code (from a finding), with the same path rules as --set. */
export function kubeletEdit(field: string, value: JsonValue): KubeletEdit {
  const {path} = kubeletFieldPath(field)
  return {field, path, ptr: pointer(...path), value}
}

// ---------------------------------------------------------------------------------------------------------------
// Which file owns a field

export interface ConfigFileText {
  path: string
  text: string
  /** Parsed, for finding which fields it sets. */
  config: KubeletConfig
}

/**
 * The file to edit for `ptr`: the last drop-in (the kubelet's WalkDir order) that sets the field or one of its
 * parents, since it wins over the --config file; otherwise the --config file.
 */
export function owningFile(ptr: string, main: ConfigFileText, dropIns: readonly ConfigFileText[]): ConfigFileText {
  const segs = ptr.split('/').slice(1)
  const sets = (c: KubeletConfig) => segs.some((_, i) => {
    const v = getAt(c.values, '/' + segs.slice(0, i + 1).join('/'))
    return v !== undefined && (i === segs.length - 1 || v === null || typeof v !== 'object')
  })
  const ordered = [...dropIns].sort((a, b) => compareDropInNames(a.path, b.path))
  return ordered.reverse().find((d) => sets(d.config)) ?? main
}

// ---------------------------------------------------------------------------------------------------------------
// Editing YAML in place

/** Layout of an existing file, so that a rewrite changes only the edited lines. */
function layoutOf(text: string): ToStringOptions {
  // kubeadm writes block sequences flush with their key ("clusterDNS:\n- 10.96.0.10").
  const flushSeq = /^( *)[^\s#-][^\n]*:[ \t]*\n\1- /m.test(text)
  const indentedSeq = /^( *)[^\s#-][^\n]*:[ \t]*\n\1 +- /m.test(text)
  const indent = /^[^\s#][^\n]*:[ \t]*\n( +)\S/m.exec(text)?.[1]?.length ?? 2
  return {
    lineWidth: 0,
    indent,
    indentSeq: indentedSeq || !flushSeq,
    flowCollectionPadding: /[[{] +[^\s\]}]/.test(text) && !/[[{][^\s\]}]/.test(text),
  }
}

/**
 * Applies edits to a YAML document and returns the new text. Only the edited values change: comments, key order,
 * quoting and layout of everything else are kept (a new key goes at the end of its mapping, an empty `{}` that
 * receives a key becomes a block mapping). Throws UsageError when the text is not one YAML mapping.
 */
export function editYamlText(text: string, edits: readonly KubeletEdit[], file: string): string {
  const doc: Document = parseDocument(text, {keepSourceTokens: false})
  if (doc.errors.length > 0) throw new UsageError(`${file} is not valid YAML (${doc.errors[0]?.message.split('\n')[0]}); fix it by hand first`)
  if (!isMap(doc.contents)) throw new UsageError(`${file} does not hold a YAML mapping; fix it by hand first`)
  for (const e of edits) {
    // Parents that are empty flow mappings (`memorySwap: {}`) become block mappings when they receive a key.
    for (let i = 1; i < e.path.length; i++) {
      const parent = doc.getIn(e.path.slice(0, i), true)
      if (isMap(parent) && parent.flow && parent.items.length === 0) parent.flow = false
      if (parent !== undefined && !isCollection(parent) && !(isScalar(parent) && parent.value === null)) {
        throw new UsageError(`${file}: ${e.path.slice(0, i).join('.')} is not a mapping, so ${e.field} cannot be set in it; fix it by hand`)
      }
      if (isScalar(parent) && parent.value === null) doc.setIn(e.path.slice(0, i), doc.createNode({}))
    }
    const old = doc.getIn(e.path, true)
    const node = doc.createNode(e.value)
    if (isCollection(old) && isCollection(node) && old.flow) node.flow = true
    // The comment after the old value stays with the new one.
    if ((isScalar(old) || isCollection(old)) && old.comment) node.comment = old.comment
    doc.setIn(e.path, node)
  }
  const layout = layoutOf(text)
  const regenerated = doc.toString(layout)
  // Belt and braces: the data must be exactly the old data with the edits applied.
  const expected = JSON.stringify(edits.reduce((root, e) => setPath(root, e.path, e.value), (parseYaml(text) ?? {}) as JsonObject))
  const spliced = keepUntouchedLines(text, parseDocument(text).toString(layout), regenerated)
  for (const out of [spliced, regenerated]) if (JSON.stringify(parseYaml(out)) === expected) return out
  throw new UsageError(`${file}: the edited YAML does not round-trip; edit it by hand`)
}

/**
 * The yaml library re-prints the whole document (e.g. one space before every `#`). Lines the edits did not touch
 * (equal in `baseline`, the unedited document re-printed, and `edited`) are taken from the original text instead.
 */
function keepUntouchedLines(original: string, baseline: string, edited: string): string {
  const o = original.split('\n')
  const b = baseline.split('\n')
  if (o.length !== b.length) return edited
  const out: string[] = []
  let at = 0
  for (const part of diffArrays(b, edited.split('\n'))) {
    if (part.added) out.push(...part.value)
    else if (part.removed) at += part.count ?? part.value.length
    else {
      out.push(...o.slice(at, at + part.value.length))
      at += part.value.length
    }
  }
  return out.join('\n')
}

function setPath(root: JsonObject, path: readonly string[], value: JsonValue): JsonObject {
  let cur = root
  for (const seg of path.slice(0, -1)) {
    const next = cur[seg]
    if (next === null || next === undefined || typeof next !== 'object' || Array.isArray(next)) cur[seg] = {}
    cur = cur[seg] as JsonObject
  }
  cur[path.at(-1)!] = value
  return root
}

/** A unified diff of one file, with `a/` and `b/` labels like git. Empty when nothing changed. */
export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return ''
  return createTwoFilesPatch(path, path, before, after, 'current', 'new', {context: 3})
    .split('\n')
    .filter((l, i) => !(i < 2 && (/^=+$/.test(l) || l.startsWith('Index: '))))
    .join('\n')
}

/** `[10.96.0.10]`, `true`, `<unset>` for plans and audit records. */
export function describeValue(value: JsonValue | undefined): string {
  if (Array.isArray(value)) return `[${value.map((v) => formatValue(v)).join(', ')}]`
  return value === undefined ? '<unset>' : formatValue(value)
}

/** `clusterDNS: [10.96.0.10]`. */
export function describeSetting(field: string, value: JsonValue | undefined): string {
  return `${field}: ${describeValue(value)}`
}
