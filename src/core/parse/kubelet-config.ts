// KubeletConfiguration (kubelet.config.k8s.io/v1beta1) from YAML, JSON or a /configz body, with line numbers,
// upstream defaulting and --config-dir drop-in merging.
// Schema: kubernetes/kubelet config/v1beta1/types.go (field "since" versions from its release tags).
// Defaults: kubernetes/kubernetes pkg/kubelet/apis/config/v1beta1/defaults.go, plus EvictionHard from
// cmd/kubelet/app/server.go (loadConfigFile), and "Default:" comments of types.go per release.
import {isMap, isScalar, type Node as YamlNode} from 'yaml'
import {ParseError} from '../../errors.js'
import {
  type AppliedDefault,
  applyDefaultSpecs,
  cloneJson,
  type ConfigIssue,
  configMapDocument,
  configMapParseError,
  decodeWithSchema,
  displayPath,
  dropOriginsUnder,
  type FieldSpec,
  getAt,
  isGoZero,
  type JsonObject,
  type JsonValue,
  type LoadedDocument,
  loadYaml,
  nodeLine,
  type Origin,
  type OriginKind,
  parseMinorVersion,
  pointer,
  type Schema,
  setAt,
  setOwn,
} from './component-config.js'
import {defaultEvictionHardFor, KUBELET_DEFAULTS, KUBELET_LEGACY_FLAG_DEFAULTS, kubeletDefaultSpecs} from './kubelet-config/defaults.js'
import {KUBELET_SCHEMA} from './kubelet-config/schema.js'

export const KUBELET_API_VERSION = 'kubelet.config.k8s.io/v1beta1'
export const KUBELET_KIND = 'KubeletConfiguration'

/** A parsed (and possibly merged/defaulted) kubelet configuration. Values use the v1beta1 JSON field names. */
export interface KubeletConfig {
  /** `configz`: the running kubelet's fully merged and defaulted configuration. */
  format: 'yaml' | 'json' | 'configz'
  source?: string
  apiVersion?: string
  kind?: string
  values: JsonObject
  /** Origin of every decoded leaf (and of every list as a whole), keyed by JSON Pointer. */
  origins: Record<string, Origin>
  issues: ConfigIssue[]
  /** Defaults filled in by applyKubeletDefaults, in the order applied. */
  defaults: AppliedDefault[]
  /** Set when the configuration was read from a ConfigMap (kubeadm's kube-system/kubelet-config). */
  configMap?: {name?: string; namespace?: string; key: string}
}

export interface KubeletParseOptions {
  /** File name for origins and issues. */
  source?: string
  /** Kubelet version (`1.29`, `v1.29.3`): warns about fields this version does not know. */
  version?: string
  /** Record fields as coming from a drop-in rather than the main file. */
  originKind?: OriginKind
}

// The schema and the defaults tables are in kubelet-config/schema.ts and kubelet-config/defaults.ts.
export * from './kubelet-config/schema.js'
export * from './kubelet-config/defaults.js'

// ---------------------------------------------------------------------------------------------------------------
// Parsing

/** Which kind of kubelet document `text` looks like, without throwing. */
export function detectKubeletDocument(text: string): 'kubelet-config' | 'configz' | undefined {
  try {
    const loaded = loadYaml(text)
    const root = loaded?.doc.contents
    if (!isMap(root)) return undefined
    const keys = root.items.map((p) => (isScalar(p.key) ? p.key.value : undefined))
    if (keys.includes('kubeletconfig') && !keys.includes('kind')) return 'configz'
    const kindPair = root.items.find((p) => isScalar(p.key) && p.key.value === 'kind')
    const kind = kindPair && isScalar(kindPair.value) ? kindPair.value.value : undefined
    if (kind === KUBELET_KIND) return 'kubelet-config'
    if (kind === 'ConfigMap' && isKubeletText(text)) return 'kubelet-config'
    const apiPair = root.items.find((p) => isScalar(p.key) && p.key.value === 'apiVersion')
    const api = apiPair && isScalar(apiPair.value) ? apiPair.value.value : undefined
    if (typeof api === 'string' && api.startsWith('kubelet.config.k8s.io/')) return 'kubelet-config'
    return undefined
  } catch {
    // Malformed YAML: recognise it by its text so the parser can report the line.
    if (/"kubeletconfig"\s*:/.test(text) && !/\bkind\b/.test(text)) return 'configz'
    if (/^\s*"?kind"?\s*:\s*"?KubeletConfiguration\b|^\s*"?apiVersion"?\s*:\s*"?kubelet\.config\.k8s\.io\//m.test(text)) return 'kubelet-config'
    return undefined
  }
}

/**
 * Parses a KubeletConfiguration file (YAML or JSON) or a /configz body (`{"kubeletconfig": {...}}`, detected
 * automatically). Throws ParseError (with the line) only for text that is not YAML/JSON or not a mapping;
 * everything the kubelet would complain about is returned in `issues`.
 */
export function parseKubeletConfig(text: string, options: KubeletParseOptions = {}): KubeletConfig {
  const loaded = loadYaml(text)
  if (!loaded) throw new ParseError('the file is empty: expected a KubeletConfiguration', 1)
  const cm = configMapDocument(loaded, KUBELET_CONFIGMAP_KEYS, isKubeletText, KUBELET_KIND)
  if (!cm) return parseLoaded(loaded, options, 0)
  const source = options.source === undefined ? undefined : cm.lineOffset !== undefined ? options.source : `${options.source}[data.${cm.key}]`
  let cfg: KubeletConfig
  try {
    const inner = loadYaml(cm.text)
    if (!inner) throw new ParseError('the configuration is empty', 1)
    cfg = parseLoaded(inner, {...options, ...(source === undefined ? {} : {source})}, cm.lineOffset ?? 0)
  } catch (err) {
    if (err instanceof ParseError) throw configMapParseError(err, cm)
    throw err
  }
  cfg.configMap = {key: cm.key, ...(cm.name === undefined ? {} : {name: cm.name}), ...(cm.namespace === undefined ? {} : {namespace: cm.namespace})}
  if (options.source !== undefined) cfg.source = options.source
  return cfg
}

/** kubeadm stores the cluster-wide kubelet configuration in ConfigMap kube-system/kubelet-config, key `kubelet`. */
export const KUBELET_CONFIGMAP_KEYS = ['kubelet', 'config', 'kubelet-config', 'config.yaml'] as const

function isKubeletText(text: string): boolean {
  return /kind:\s*["']?KubeletConfiguration|"kind"\s*:\s*"KubeletConfiguration"|kubelet\.config\.k8s\.io\//.test(text)
}

function parseLoaded(loaded: LoadedDocument, options: KubeletParseOptions, lineOffset: number): KubeletConfig {
  const root = loaded.doc.contents
  if (!isMap(root)) {
    throw new ParseError('expected a KubeletConfiguration mapping (kind: KubeletConfiguration)', nodeLine(root, loaded.lines) ?? 1)
  }
  const keys = root.items.map((p) => (isScalar(p.key) ? p.key.value : undefined))
  if (keys.includes('kubeletconfig') && !keys.includes('kind')) return parseConfigzLoaded(loaded, options)

  const version = parseMinorVersion(options.version)
  const decoded = decodeWithSchema(root, loaded.lines, KUBELET_SCHEMA, {
    source: options.source,
    originKind: options.originKind ?? 'file',
    version,
    lineOffset,
    component: 'kubelet',
  })
  const cfg: KubeletConfig = {
    format: loaded.format,
    values: decoded.values,
    origins: decoded.origins,
    issues: decoded.issues,
    defaults: [],
  }
  if (options.source !== undefined) cfg.source = options.source
  const kindPair = root.items.find((p) => isScalar(p.key) && p.key.value === 'kind')
  const apiPair = root.items.find((p) => isScalar(p.key) && p.key.value === 'apiVersion')
  const kind = kindPair && isScalar(kindPair.value) ? kindPair.value.value : undefined
  const api = apiPair && isScalar(apiPair.value) ? apiPair.value.value : undefined
  const at = (line: number | undefined): {line?: number; source?: string} => ({
    ...(line === undefined ? {} : {line: line + lineOffset}),
    ...(options.source === undefined ? {} : {source: options.source}),
  })
  if (typeof kind === 'string') cfg.kind = kind
  if (typeof api === 'string') cfg.apiVersion = api
  if (kind === undefined) {
    cfg.issues.unshift({severity: 'error', code: 'missing-kind', message: `kind is missing: the kubelet refuses the file ("Object 'Kind' is missing"); add kind: ${KUBELET_KIND}`, ...at(1)})
  } else if (kind !== KUBELET_KIND) {
    cfg.issues.unshift({severity: 'error', code: 'wrong-kind', message: `kind is ${JSON.stringify(kind)}, expected ${KUBELET_KIND}`, ...at(nodeLine(kindPair?.value as YamlNode | undefined, loaded.lines))})
  }
  if (api === undefined) {
    cfg.issues.unshift({severity: 'error', code: 'missing-api-version', message: `apiVersion is missing: the kubelet refuses the file; add apiVersion: ${KUBELET_API_VERSION}`, ...at(1)})
  } else if (api !== KUBELET_API_VERSION) {
    cfg.issues.unshift({
      severity: 'error',
      code: 'wrong-api-version',
      message: `apiVersion is ${JSON.stringify(api)}; the kubelet reads ${KUBELET_API_VERSION}`,
      ...at(nodeLine(apiPair?.value as YamlNode | undefined, loaded.lines)),
    })
  }
  if (loaded.documentCount > 1) {
    cfg.issues.push({severity: 'warning', code: 'multiple-documents', message: `the file holds ${loaded.documentCount} YAML documents; only the first is read`, ...at(undefined)})
  }
  return cfg
}

/**
 * Parses `kubectl get --raw /api/v1/nodes/NODE/proxy/configz`: `{"kubeletconfig": {...}}`, the v1beta1 form of
 * the running kubelet's merged and defaulted configuration (durations as Go strings, e.g. "4h0m0s").
 */
export function parseKubeletConfigz(text: string, options: KubeletParseOptions = {}): KubeletConfig {
  const loaded = loadYaml(text)
  if (!loaded) throw new ParseError('the file is empty: expected a /configz body', 1)
  return parseConfigzLoaded(loaded, options)
}

function parseConfigzLoaded(loaded: LoadedDocument, options: KubeletParseOptions): KubeletConfig {
  const root = loaded.doc.contents
  if (!isMap(root)) throw new ParseError('expected a JSON object {"kubeletconfig": {...}}', nodeLine(root, loaded.lines) ?? 1)
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'kubeletconfig')
  if (!pair) throw new ParseError('no "kubeletconfig" key: this is not a kubelet /configz body', 1)
  const inner = pair.value as YamlNode | null
  if (!isMap(inner)) throw new ParseError('"kubeletconfig" is not an object', nodeLine(pair.key as YamlNode | undefined, loaded.lines) ?? 1)
  const decoded = decodeWithSchema(inner, loaded.lines, KUBELET_SCHEMA, {
    source: options.source,
    originKind: 'configz',
    version: parseMinorVersion(options.version),
    component: 'kubelet',
  })
  const cfg: KubeletConfig = {format: 'configz', values: decoded.values, origins: decoded.origins, issues: decoded.issues, defaults: []}
  if (options.source !== undefined) cfg.source = options.source
  return cfg
}

// ---------------------------------------------------------------------------------------------------------------
// Defaulting

/**
 * Returns a copy of `cfg` with the kubelet's v1beta1 defaults applied, so that omitted fields, `null` and the
 * zero values of non-pointer fields (`0s`, `0`, `""`) read as what the kubelet uses. `version` (e.g. `1.29`)
 * selects version-specific defaults; without it, the newest known defaults apply.
 * A /configz body is already defaulted and is returned unchanged.
 * With `legacyFlagDefaults`, models a kubelet started without --config (flag defaults for auth and the
 * read-only port).
 */
export function applyKubeletDefaults(cfg: KubeletConfig, version?: string, options: {legacyFlagDefaults?: boolean} = {}): KubeletConfig {
  if (cfg.format === 'configz') return {...cfg, values: cloneJson(cfg.values), origins: {...cfg.origins}, issues: [...cfg.issues], defaults: [...cfg.defaults]}
  const minor = parseMinorVersion(version)
  let values = cfg.values
  let origins = cfg.origins
  const applied: AppliedDefault[] = []
  if (options.legacyFlagDefaults) {
    const legacy = applyDefaultSpecs(values, origins, KUBELET_LEGACY_FLAG_DEFAULTS, minor)
    values = legacy.values
    origins = legacy.origins
    applied.push(...legacy.applied)
  }
  const r = applyDefaultSpecs(values, origins, kubeletDefaultSpecs(minor), minor)
  applied.push(...r.applied)
  values = r.values
  origins = r.origins
  // mergeDefaultEvictionSettings (1.33+): thresholds that were not set are filled from the defaults.
  if (values['mergeDefaultEvictionSettings'] === true && values['evictionHard'] && typeof values['evictionHard'] === 'object') {
    const hard = values['evictionHard'] as JsonObject
    for (const [k, v] of Object.entries(defaultEvictionHardFor(minor))) {
      if (hard[k] !== undefined) continue
      hard[k] = v
      const path = pointer('evictionHard', k)
      origins[path] = {kind: 'default', detail: 'mergeDefaultEvictionSettings: true'}
      applied.push({path, value: v, reason: 'omitted', source: 'pkg/kubelet/eviction (mergeDefaultEvictionSettings)'})
    }
  }
  return {...cfg, values, origins, issues: [...cfg.issues], defaults: [...cfg.defaults, ...applied]}
}

// ---------------------------------------------------------------------------------------------------------------
// Drop-ins (--config-dir)

/** Whether the kubelet reads a file of this name from --config-dir (Go filepath.Ext(name) == ".conf"). */
export function isKubeletDropInName(name: string): boolean {
  const base = name.split('/').at(-1) ?? name
  const dot = base.lastIndexOf('.')
  return dot !== -1 && base.slice(dot) === '.conf'
}

/** filepath.WalkDir order: lexical per directory level, byte-wise. */
export function compareDropInNames(a: string, b: string): number {
  const as = a.split('/')
  const bs = b.split('/')
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i] ?? ''
    const y = bs[i] ?? ''
    if (x !== y) return x < y ? -1 : 1
  }
  return as.length - bs.length
}

/**
 * Merges --config-dir drop-ins into `base` as the kubelet does (cmd/kubelet/app/server.go
 * mergeKubeletConfigurations): only `*.conf` files, in WalkDir order (by name, subdirectories included), each
 * applied as a JSON merge patch over the result so far. Mappings (featureGates, evictionHard, nested structs)
 * merge key by key; lists are replaced whole (for staticPodURLHeader, per key); a later file wins.
 * `null` in a drop-in removes nothing: the merged JSON is unmarshalled over the already loaded config, so
 * the earlier value stays.
 * Throws ParseError naming the drop-in (`file`) when one is not YAML/JSON.
 */
export function mergeKubeletDropIns(base: KubeletConfig, dropIns: ReadonlyArray<{name: string; text: string}>, options: {version?: string} = {}): KubeletConfig {
  const parsed: KubeletConfig[] = []
  const skipped: ConfigIssue[] = []
  for (const f of dropIns) {
    if (!isKubeletDropInName(f.name)) {
      skipped.push({severity: 'info', code: 'drop-in-ignored', source: f.name, message: `${f.name} is ignored: the kubelet reads only *.conf files from --config-dir`})
      continue
    }
    try {
      parsed.push(parseKubeletConfig(f.text, {source: f.name, originKind: 'drop-in', ...(options.version === undefined ? {} : {version: options.version})}))
    } catch (err) {
      if (err instanceof ParseError) throw new ParseError(err.message, err.line, f.name)
      throw err
    }
  }
  const merged = mergeKubeletConfigs(base, parsed)
  merged.issues.push(...skipped)
  return merged
}

/** mergeKubeletDropIns over already parsed drop-ins (their `source` is the file name used for ordering). */
export function mergeKubeletConfigs(base: KubeletConfig, dropIns: readonly KubeletConfig[]): KubeletConfig {
  const values = cloneJson(base.values)
  const origins = {...base.origins}
  const issues = [...base.issues]
  const ordered = [...dropIns].sort((a, b) => compareDropInNames(a.source ?? '', b.source ?? ''))
  for (const dropIn of ordered) {
    issues.push(...dropIn.issues)
    mergePatch(values, dropIn.values, '', origins, dropIn, issues)
  }
  return {...base, values, origins, issues}
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v)
}

const ZERO_MEANS_DEFAULT = new Set(KUBELET_DEFAULTS.filter((s) => s.zeroIsUnset).map((s) => s.path))

function mergePatch(target: JsonObject, patch: JsonObject, ptr: string, origins: Record<string, Origin>, dropIn: KubeletConfig, issues: ConfigIssue[]): void {
  for (const [key, pv] of Object.entries(patch)) {
    const childPtr = ptr + pointer(key)
    const at = dropIn.origins[childPtr]
    if (pv === null) {
      issues.push({
        severity: 'info',
        code: 'drop-in-null',
        path: childPtr,
        ...(dropIn.source === undefined ? {} : {source: dropIn.source}),
        ...(at?.line === undefined ? {} : {line: at.line}),
        message: `${displayPath(childPtr)}: null in a drop-in has no effect; the earlier value is kept`,
      })
      continue
    }
    const current = Object.hasOwn(target, key) ? target[key] : undefined
    if (isObject(pv) && isObject(current)) {
      mergePatch(current, pv, childPtr, origins, dropIn, issues)
      continue
    }
    if (ZERO_MEANS_DEFAULT.has(childPtr) && isGoZero(pv)) {
      issues.push({
        severity: 'warning',
        code: 'drop-in-zero',
        path: childPtr,
        ...(dropIn.source === undefined ? {} : {source: dropIn.source}),
        ...(at?.line === undefined ? {} : {line: at.line}),
        message: `${displayPath(childPtr)}: ${JSON.stringify(pv)} in a drop-in is applied literally (defaults were applied to the base file before merging), not as "use the default"`,
      })
    }
    setOwn(target, key, cloneJson(pv))
    dropOriginsUnder(origins, childPtr)
    for (const [k, o] of Object.entries(dropIn.origins)) if (k === childPtr || k.startsWith(childPtr + '/')) origins[k] = o
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Access

/** The value at a dotted path (`authentication.anonymous.enabled`) or JSON Pointer, and where it came from. */
export function kubeletSetting(cfg: KubeletConfig, path: string): {value: JsonValue | undefined; origin?: Origin} {
  const ptr = path.startsWith('/') ? path : pointer(...path.split('.'))
  const value = getAt(cfg.values, ptr)
  const origin = cfg.origins[ptr] ?? Object.entries(cfg.origins).find(([k]) => k.startsWith(ptr + '/'))?.[1]
  return origin ? {value, origin} : {value}
}

/** The kubelet's default `--cert-dir`. */
export const KUBELET_DEFAULT_CERT_DIR = '/var/lib/kubelet/pki'

/**
 * Fields the kubelet fills in at start, after defaulting, and then serves on /configz, so that files compare with
 * the running config like for like. With `serverTLSBootstrap` off and neither `tlsCertFile` nor
 * `tlsPrivateKeyFile` set, the kubelet serves a self-signed certificate it keeps in `--cert-dir` as kubelet.crt and
 * kubelet.key (cmd/kubelet/app/server.go, InitializeTLS; the same in every release since v1.10).
 */
export function applyKubeletStartFills(cfg: KubeletConfig, certDir: string = KUBELET_DEFAULT_CERT_DIR): KubeletConfig {
  const unset = (p: string) => {
    const v = getAt(cfg.values, p)
    return v === undefined || v === null || v === ''
  }
  if (getAt(cfg.values, '/serverTLSBootstrap') === true || !unset('/tlsCertFile') || !unset('/tlsPrivateKeyFile')) return cfg
  const dir = certDir.replace(/\/+$/, '') || '/'
  const origin: Origin = {kind: 'default', detail: `filled in by the kubelet at start: its self-signed serving certificate in --cert-dir ${dir}`}
  const join = (f: string) => (dir === '/' ? `/${f}` : `${dir}/${f}`)
  return withKubeletSetting(withKubeletSetting(cfg, '/tlsCertFile', join('kubelet.crt'), origin), '/tlsPrivateKeyFile', join('kubelet.key'), origin)
}

/** Sets a value with its origin (used when flags override the file). Returns a new config. */
export function withKubeletSetting(cfg: KubeletConfig, ptr: string, value: JsonValue, origin: Origin): KubeletConfig {
  const values = cloneJson(cfg.values)
  const origins = {...cfg.origins}
  setAt(values, ptr, cloneJson(value))
  dropOriginsUnder(origins, ptr)
  origins[ptr] = origin
  return {...cfg, values, origins}
}

/** The schema entry for a JSON Pointer, walking structs, maps and lists. */
export function kubeletFieldSpec(ptr: string): FieldSpec | undefined {
  let schema: Schema | undefined = KUBELET_SCHEMA
  let spec: FieldSpec | undefined
  const segs = ptr.split('/').slice(1)
  for (let i = 0; i < segs.length; i++) {
    if (!schema) return undefined
    const seg = segs[i] ?? ''
    spec = Object.hasOwn(schema, seg) ? schema[seg] : undefined
    if (!spec) return undefined
    let t: FieldSpec['type'] = spec.type
    while (typeof t === 'object' && !('struct' in t) && i + 1 < segs.length) {
      i++
      t = 'map' in t ? t.map : t.list
      spec = {type: t}
    }
    schema = typeof t === 'object' && 'struct' in t ? t.struct : undefined
  }
  return spec
}
