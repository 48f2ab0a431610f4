// kube-proxy's /configz answer (`curl http://127.0.0.1:10249/configz`): the configuration the running kube-proxy
// was started with, as JSON under the configz name kube-proxy registers, its API group:
//   {"kubeproxy.config.k8s.io": {...}}
// Verified: kubernetes/kubernetes cmd/kube-proxy/app/server.go registers `configz.New(proxyconfigapi.GroupName)`
// with GroupName "kubeproxy.config.k8s.io" and sets it to the (defaulted, flags-merged) configuration.
// Up to v1.35 the value is the *internal* type (pkg/proxy/apis/config/types.go), whose fields carry no json tags:
// encoding/json writes the Go field names (`BindAddress`, `IPTables.MasqueradeBit`, `Conntrack.MaxPerCore`;
// metav1.Duration as "30s"). From v1.36 (#136044, changelog text in docs/research/kube-proxy-v1.36-v1.37.md §6)
// it is the public v1alpha1 type with apiVersion and kind, camelCase like the ConfigMap.
// The internal names are mapped to v1alpha1's. UNVERIFIED: the internal type field by field in every release
// (v1.31+ moved conntrack, oomScoreAdj and masqueradeAll under `Linux` and the sync periods to the top level; the
// first two are mapped back, the others are dropped). A path missing from the answer is never compared (see
// `presentPaths`), so a field reported under another name reads as "not reported", never as a difference.
import {ParseError} from '../../errors.js'
import type {JsonObject, JsonValue} from './component-config.js'
import {KUBE_PROXY_API_VERSION, KUBE_PROXY_KIND, type KubeProxyConfig, parseKubeProxyConfig} from './kube-proxy-config.js'

/** The key kube-proxy's configz handler serves its configuration under. */
export const KUBE_PROXY_CONFIGZ_KEY = 'kubeproxy.config.k8s.io'

export interface KubeProxyConfigz {
  /** The configuration as kube-proxy runs it, decoded with the KubeProxyConfiguration schema (no line numbers). */
  config: KubeProxyConfig
  /** The public v1alpha1 type (camelCase fields; kube-proxy v1.36+); false for the internal type (Go field names). */
  typed: boolean
  /** JSON Pointers of the leaves (scalars and lists) the answer carried, after schema decoding. */
  presentPaths: string[]
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Leaf pointers of a decoded value tree: scalars, null and lists are leaves; objects are walked. */
export function leafPaths(values: JsonObject, prefix = ''): string[] {
  const out: string[] = []
  for (const [k, v] of Object.entries(values)) {
    const ptr = `${prefix}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`
    if (isObject(v)) out.push(...leafPaths(v, ptr))
    else out.push(ptr)
  }
  return out
}

/**
 * Parses a /configz body. Throws ParseError when the body is not JSON (an error page, "404 page not found") or
 * has no `kubeproxy.config.k8s.io` object.
 */
export function parseKubeProxyConfigz(text: string): KubeProxyConfigz {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    const first = text.trim().split(/\r?\n/)[0] ?? ''
    throw new ParseError(`not a /configz answer (expected JSON): ${first.slice(0, 80) || 'empty'}`, 1)
  }
  if (!isObject(body)) throw new ParseError('not a /configz answer: expected a JSON object', 1)
  const inner: JsonValue | undefined = body[KUBE_PROXY_CONFIGZ_KEY]
  if (!isObject(inner)) {
    const keys = Object.keys(body)
    throw new ParseError(`no "${KUBE_PROXY_CONFIGZ_KEY}" object in the /configz answer${keys.length > 0 ? ` (keys: ${keys.join(', ')})` : ''}`, 1)
  }
  const typed = !Object.keys(inner).some((k) => /^[A-Z]/.test(k))
  const values = typed ? inner : fromInternal(inner)
  // The internal type carries no apiVersion/kind: name them so the decoder does not report a file kube-proxy would refuse.
  const doc: JsonObject = {...values, apiVersion: typeof values['apiVersion'] === 'string' ? values['apiVersion'] : KUBE_PROXY_API_VERSION, kind: typeof values['kind'] === 'string' ? values['kind'] : KUBE_PROXY_KIND}
  const parsed = parseKubeProxyConfig(JSON.stringify(doc), {source: 'kube-proxy /configz'})
  // Line numbers would be those of the re-serialised text: drop them; values come from /configz, not a file.
  const origins = Object.fromEntries(Object.entries(parsed.origins).map(([k, o]) => [k, {...stripLine(o), kind: o.kind === 'file' ? ('configz' as const) : o.kind}]))
  // Not a file kube-proxy reads: an unknown name is a field node-doctor does not map (internal type), not an error.
  const issues = parsed.issues.map((i) =>
    i.code === 'unknown-field' ? {...stripLine(i), severity: 'info' as const, message: `${i.path ?? 'a field'} in /configz has no KubeProxyConfiguration (v1alpha1) name: not compared`} : stripLine(i),
  )
  const config: KubeProxyConfig = {...parsed, origins, issues}
  return {config, typed, presentPaths: leafPaths(config.values)}
}

/** Go field name → v1alpha1 json name: `IPTables` → `iptables`, `OOMScoreAdj` → `oomScoreAdj`, `TCPTimeout` → `tcpTimeout`. */
export function jsonNameOf(goName: string): string {
  const special: Record<string, string> = {IPTables: 'iptables', NFTables: 'nftables'}
  if (special[goName] !== undefined) return special[goName]
  const run = /^[A-Z]+/.exec(goName)?.[0] ?? ''
  if (run.length === 0) return goName
  if (run.length === goName.length) return goName.toLowerCase()
  const keep = run.length === 1 ? 0 : 1
  return goName.slice(0, run.length - keep).toLowerCase() + goName.slice(run.length - keep)
}

function renameKeys(v: JsonValue, mapKeys: boolean): JsonValue {
  if (Array.isArray(v)) return v.map((x) => renameKeys(x, true))
  if (!isObject(v)) return v
  // Map keys (featureGates) are data, not field names.
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [mapKeys ? jsonNameOf(k) : k, renameKeys(x, k !== 'FeatureGates')]))
}

/** The internal type's JSON in v1alpha1 names; `Linux.Conntrack`/`Linux.OOMScoreAdj` back to the top level. */
function fromInternal(inner: JsonObject): JsonObject {
  const out = renameKeys(inner, true) as JsonObject
  const linux = out['linux']
  if (isObject(linux)) {
    if (out['conntrack'] === undefined && linux['conntrack'] !== undefined) out['conntrack'] = linux['conntrack']
    if (out['oomScoreAdj'] === undefined && linux['oomScoreAdj'] !== undefined) out['oomScoreAdj'] = linux['oomScoreAdj']
  }
  // No v1alpha1 place to map them to without knowing the mode's section: not compared.
  for (const k of ['linux', 'windows', 'syncPeriod', 'minSyncPeriod']) delete out[k]
  return out
}

function stripLine<T extends {line?: number}>(o: T): T {
  if (o.line === undefined) return o
  const {line: _line, ...rest} = o
  return rest as T
}
