// KubeProxyConfiguration (kubeproxy.config.k8s.io/v1alpha1), raw or inside the kube-proxy ConfigMap as
// `kubectl get cm -n kube-system <name> -o yaml|json` prints it, with line numbers and upstream defaulting.
// Schema: kubernetes/kube-proxy config/v1alpha1/types.go (field versions from its release tags).
// Defaults: kubernetes/kubernetes pkg/proxy/apis/config/v1alpha1/defaults.go and platformApplyDefaults in
// cmd/kube-proxy/app/server_linux.go; the IPVS scheduler default from pkg/proxy/ipvs/proxier.go.
import {isMap, isScalar, type Node as YamlNode} from 'yaml'
import {ParseError} from '../../errors.js'
import {
  type AppliedDefault,
  applyDefaultSpecs,
  type ConfigIssue,
  configMapDocument,
  configMapParseError,
  decodeWithSchema,
  type DefaultSpec,
  type FieldSpec,
  getAt,
  type JsonObject,
  type JsonValue,
  loadYaml,
  nodeLine,
  type Origin,
  parseMinorVersion,
  pointer,
  type Schema,
  setAt,
} from './component-config.js'
import {LOGGING_SCHEMA} from './kubelet-config.js'

export const KUBE_PROXY_API_VERSION = 'kubeproxy.config.k8s.io/v1alpha1'
export const KUBE_PROXY_KIND = 'KubeProxyConfiguration'

/**
 * Keys under which distributions store the configuration in the ConfigMap, in the order they are tried:
 * kubeadm `kube-proxy`/`config.conf`; EKS `kube-proxy-config`/`config`; Gardener and other addon charts
 * `kube-proxy-config`/`config.yaml`; kubeasz-style `kube-proxy-config.yaml`.
 */
export const KUBE_PROXY_CONFIGMAP_KEYS = ['config.conf', 'config', 'config.yaml', 'kube-proxy-config.yaml', 'kubeproxy.config'] as const

export interface KubeProxyConfig {
  format: 'yaml' | 'json'
  /** `configmap`: extracted from a ConfigMap's data. */
  container: 'raw' | 'configmap'
  configMap?: {name?: string; namespace?: string; key: string}
  source?: string
  apiVersion?: string
  kind?: string
  values: JsonObject
  origins: Record<string, Origin>
  issues: ConfigIssue[]
  defaults: AppliedDefault[]
}

// ---------------------------------------------------------------------------------------------------------------
// Schema

const str: FieldSpec = {type: 'string'}
const bool: FieldSpec = {type: 'bool'}
const dur: FieldSpec = {type: 'duration'}
const int32Ptr: FieldSpec = {type: 'int32', pointer: true}

export const PROXY_MODES = ['iptables', 'ipvs', 'nftables', 'kernelspace'] as const
export type ProxyMode = (typeof PROXY_MODES)[number]

export const KUBE_PROXY_SCHEMA: Schema = {
  featureGates: {type: {map: 'bool'}},
  clientConnection: {
    type: {struct: {kubeconfig: str, acceptContentTypes: str, contentType: str, qps: {type: 'float'}, burst: {type: 'int32'}}},
  },
  logging: {type: {struct: LOGGING_SCHEMA}, since: 28},
  hostnameOverride: str,
  bindAddress: str,
  healthzBindAddress: str,
  metricsBindAddress: str,
  bindAddressHardFail: {type: 'bool', since: 19},
  enableProfiling: bool,
  showHiddenMetricsForVersion: {type: 'string', since: 18},
  mode: {type: 'string', enum: PROXY_MODES},
  iptables: {
    type: {
      struct: {
        masqueradeBit: int32Ptr,
        masqueradeAll: bool,
        localhostNodePorts: {type: 'bool', pointer: true, since: 26},
        syncPeriod: dur,
        minSyncPeriod: dur,
      },
    },
  },
  ipvs: {
    type: {
      struct: {
        syncPeriod: dur,
        minSyncPeriod: dur,
        scheduler: str,
        excludeCIDRs: {type: {list: 'string'}},
        strictARP: {type: 'bool', since: 15},
        tcpTimeout: {type: 'duration', since: 18},
        tcpFinTimeout: {type: 'duration', since: 18},
        udpTimeout: {type: 'duration', since: 18},
      },
    },
  },
  nftables: {type: {struct: {masqueradeBit: int32Ptr, masqueradeAll: bool, syncPeriod: dur, minSyncPeriod: dur}}, since: 29},
  winkernel: {
    type: {
      struct: {
        networkName: str,
        sourceVip: str,
        enableDSR: bool,
        rootHnsEndpointName: {type: 'string', since: 24},
        forwardHealthCheckVip: {type: 'bool', since: 24},
      },
    },
    since: 14,
  },
  detectLocalMode: {type: 'string', since: 18, enum: ['ClusterCIDR', 'NodeCIDR', 'BridgeInterface', 'InterfaceNamePrefix']},
  detectLocal: {type: {struct: {bridgeInterface: str, interfaceNamePrefix: str}}, since: 24},
  clusterCIDR: str,
  nodePortAddresses: {type: {list: 'string'}},
  oomScoreAdj: int32Ptr,
  conntrack: {
    type: {
      struct: {
        maxPerCore: int32Ptr,
        min: int32Ptr,
        tcpEstablishedTimeout: {type: 'duration', pointer: true},
        tcpCloseWaitTimeout: {type: 'duration', pointer: true},
        tcpBeLiberal: {type: 'bool', since: 29},
        udpTimeout: {type: 'duration', since: 29},
        udpStreamTimeout: {type: 'duration', since: 29},
        max: {type: 'int32', pointer: true, removedIn: 15},
      },
    },
  },
  configSyncPeriod: dur,
  portRange: str,
  windowsRunAsService: {type: 'bool', since: 31},
  udpIdleTimeout: {type: 'duration', removedIn: 26},
  resourceContainer: {type: 'string', removedIn: 16},
}

const UNKNOWN_NOTE =
  'recent kube-proxy releases log "Using lenient decoding as strict decoding failed" and ignore it; older releases refuse to start ("strict decoding error: unknown field")'

// ---------------------------------------------------------------------------------------------------------------
// Defaults

const DEFAULTS_GO = 'pkg/proxy/apis/config/v1alpha1/defaults.go'
const PLATFORM_GO = 'cmd/kube-proxy/app/server_linux.go (platformApplyDefaults)'
const dd = (path: string, value: DefaultSpec['value'], extra: Partial<DefaultSpec> = {}): DefaultSpec => ({
  path: pointer(...path.split('.')),
  value,
  source: DEFAULTS_GO,
  ...extra,
})
const z = {zeroIsUnset: true}

function isIPv4(addr: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(addr)
}

/** Upstream defaults (Linux), in order: the healthz/metrics defaults depend on bindAddress. */
export const KUBE_PROXY_DEFAULTS: readonly DefaultSpec[] = [
  dd('bindAddress', '0.0.0.0', z),
  dd('healthzBindAddress', (v) => `${isIPv4(String(v['bindAddress'] ?? '0.0.0.0')) ? '0.0.0.0' : '[::]'}:10256`, z),
  dd('metricsBindAddress', (v) => `${isIPv4(String(v['bindAddress'] ?? '0.0.0.0')) ? '127.0.0.1' : '[::1]'}:10249`, z),
  dd('oomScoreAdj', -999),
  dd('iptables.syncPeriod', '30s', z),
  dd('iptables.minSyncPeriod', '1s', z),
  dd('iptables.localhostNodePorts', true, {since: 26}),
  dd('ipvs.syncPeriod', '30s', z),
  dd('nftables.syncPeriod', '30s', {...z, since: 29}),
  dd('nftables.minSyncPeriod', '1s', {...z, since: 29}),
  dd('conntrack.maxPerCore', 32768),
  dd('conntrack.min', 131072),
  dd('iptables.masqueradeBit', 14),
  dd('nftables.masqueradeBit', 14, {since: 29}),
  dd('conntrack.tcpEstablishedTimeout', '24h0m0s'),
  dd('conntrack.tcpCloseWaitTimeout', '1h0m0s'),
  dd('configSyncPeriod', '15m0s', z),
  dd('clientConnection.contentType', 'application/vnd.kubernetes.protobuf', z),
  dd('clientConnection.qps', 5, z),
  dd('clientConnection.burst', 10, z),
  dd('udpIdleTimeout', '250ms', {...z, until: 26}),
  // An empty mode is not "auto": on Linux it is iptables.
  dd('mode', 'iptables', {...z, source: PLATFORM_GO}),
  dd('detectLocalMode', 'ClusterCIDR', {...z, since: 18, source: PLATFORM_GO}),
  dd('nodePortAddresses', (v) => (v['mode'] === 'nftables' && !(Array.isArray(v['nodePortAddresses']) && v['nodePortAddresses'].length > 0) ? ['primary'] : undefined), {
    zeroIsUnset: false,
    since: 29,
    source: PLATFORM_GO,
  }),
  dd('ipvs.scheduler', (v) => (v['mode'] === 'ipvs' ? 'rr' : undefined), {...z, source: 'pkg/proxy/ipvs/proxier.go ("IPVS scheduler not specified, use rr by default")'}),
]

/**
 * Returns a copy of `cfg` with kube-proxy's defaults applied (Linux), so that `mode: ""`, `0s`, `null` and
 * omitted fields read as what kube-proxy uses. `version` selects version-specific defaults (newest if unknown).
 * Addresses without a port get the default port appended, as kube-proxy does.
 */
export function applyKubeProxyDefaults(cfg: KubeProxyConfig, version?: string): KubeProxyConfig {
  const minor = parseMinorVersion(version)
  const r = applyDefaultSpecs(cfg.values, cfg.origins, KUBE_PROXY_DEFAULTS, minor)
  const applied = [...r.applied]
  for (const [field, port] of [
    ['healthzBindAddress', 10256],
    ['metricsBindAddress', 10249],
  ] as const) {
    const v = r.values[field]
    if (typeof v === 'string' && v !== '' && !hasPort(v)) {
      const withPort = v.includes(':') ? `[${v}]:${port}` : `${v}:${port}`
      r.values[field] = withPort
      applied.push({path: pointer(field), value: withPort, reason: 'normalized', written: v, source: 'pkg/proxy/util (AppendPortIfNeeded)'})
    }
  }
  return {...cfg, values: r.values, origins: r.origins, issues: [...cfg.issues], defaults: [...cfg.defaults, ...applied]}
}

function hasPort(addr: string): boolean {
  if (addr.startsWith('[')) return /\]:\d+$/.test(addr)
  const colons = addr.split(':').length - 1
  return colons === 1 && /:\d+$/.test(addr)
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

export type KubeProxyDocumentKind = 'kube-proxy-config' | 'configmap' | 'workload'

function rootKind(root: YamlNode | null | undefined): {kind?: string; apiVersion?: string} {
  if (!isMap(root)) return {}
  const get = (k: string): unknown => {
    const p = root.items.find((i) => isScalar(i.key) && i.key.value === k)
    return p && isScalar(p.value) ? p.value.value : undefined
  }
  const kind = get('kind')
  const apiVersion = get('apiVersion')
  return {...(typeof kind === 'string' ? {kind} : {}), ...(typeof apiVersion === 'string' ? {apiVersion} : {})}
}

/** What kind of kube-proxy input `text` is, without throwing. */
export function detectKubeProxyDocument(text: string): KubeProxyDocumentKind | undefined {
  try {
    const loaded = loadYaml(text)
    const {kind, apiVersion} = rootKind(loaded?.doc.contents as YamlNode | undefined)
    if (kind === KUBE_PROXY_KIND || apiVersion?.startsWith('kubeproxy.config.k8s.io/')) return 'kube-proxy-config'
    if (kind === 'ConfigMap') return 'configmap'
    if (kind === 'DaemonSet' || kind === 'Pod' || kind === 'List' || kind === 'Deployment') return 'workload'
    return undefined
  } catch {
    // Malformed YAML: recognise it by its text so the parser can report the line.
    const kindOf = /^"?kind"?\s*:\s*"?(\w+)/m.exec(text)?.[1]
    if (kindOf === 'ConfigMap') return 'configmap'
    if (kindOf === 'DaemonSet' || kindOf === 'Pod' || kindOf === 'List' || kindOf === 'Deployment') return 'workload'
    if (/KubeProxyConfiguration|kubeproxy\.config\.k8s\.io\//.test(text)) return 'kube-proxy-config'
    return undefined
  }
}

export interface KubeProxyParseOptions {
  source?: string
  version?: string
}

/**
 * Parses a KubeProxyConfiguration, or a ConfigMap holding one (detected from `kind: ConfigMap`; the key is the
 * first of KUBE_PROXY_CONFIGMAP_KEYS present, else any value that is a KubeProxyConfiguration).
 * Line numbers inside a ConfigMap refer to the ConfigMap file when the value is a `|` block; for quoted
 * values (`-o json`) they are lines of the embedded document and the source says so.
 * Throws ParseError for text that is not YAML/JSON, or a ConfigMap without a configuration.
 */
export function parseKubeProxyConfig(text: string, options: KubeProxyParseOptions = {}): KubeProxyConfig {
  const loaded = loadYaml(text)
  if (!loaded) throw new ParseError('the file is empty: expected a KubeProxyConfiguration or the kube-proxy ConfigMap', 1)
  const root = loaded.doc.contents as YamlNode | null
  if (!isMap(root)) throw new ParseError('expected a KubeProxyConfiguration or ConfigMap mapping', nodeLine(root, loaded.lines) ?? 1)
  const cm = configMapDocument(loaded, KUBE_PROXY_CONFIGMAP_KEYS, isKubeProxyText, 'KubeProxyConfiguration', 'kube-proxy may be configured by flags only')
  if (!cm) return parseRaw(text, options, 0, false, options.source)
  const src = options.source === undefined ? undefined : cm.lineOffset !== undefined ? options.source : `${options.source}[data.${cm.key}]`
  let cfg: KubeProxyConfig
  try {
    cfg = parseRaw(cm.text, options, cm.lineOffset ?? 0, false, src)
  } catch (err) {
    if (err instanceof ParseError) throw configMapParseError(err, cm)
    throw err
  }
  cfg.container = 'configmap'
  cfg.configMap = {key: cm.key, ...(cm.name === undefined ? {} : {name: cm.name}), ...(cm.namespace === undefined ? {} : {namespace: cm.namespace})}
  if (options.source !== undefined) cfg.source = options.source
  return cfg
}

function isKubeProxyText(text: string): boolean {
  return /kind:\s*["']?KubeProxyConfiguration|"kind"\s*:\s*"KubeProxyConfiguration"|kubeproxy\.config\.k8s\.io\//.test(text)
}

function parseRaw(text: string, options: KubeProxyParseOptions, lineOffset: number, noLines: boolean, source: string | undefined): KubeProxyConfig {
  const loaded = loadYaml(text)
  if (!loaded) throw new ParseError('the configuration is empty', 1)
  const root = loaded.doc.contents as YamlNode | null
  if (!isMap(root)) throw new ParseError('expected a KubeProxyConfiguration mapping', nodeLine(root, loaded.lines) ?? 1)
  const decoded = decodeWithSchema(root, loaded.lines, KUBE_PROXY_SCHEMA, {
    ...(source === undefined ? {} : {source}),
    originKind: 'file',
    version: parseMinorVersion(options.version),
    lineOffset,
    noLines,
    component: 'kube-proxy',
    unknownFieldNote: UNKNOWN_NOTE,
  })
  const {kind, apiVersion} = rootKind(root)
  const cfg: KubeProxyConfig = {format: loaded.format, container: 'raw', values: decoded.values, origins: decoded.origins, issues: decoded.issues, defaults: []}
  if (source !== undefined) cfg.source = source
  if (kind !== undefined) cfg.kind = kind
  if (apiVersion !== undefined) cfg.apiVersion = apiVersion
  const loc = {...(source === undefined ? {} : {source}), ...(noLines ? {} : {line: 1 + lineOffset})}
  if (kind === undefined) cfg.issues.unshift({severity: 'error', code: 'missing-kind', message: `kind is missing: kube-proxy refuses the file; add kind: ${KUBE_PROXY_KIND}`, ...loc})
  else if (kind !== KUBE_PROXY_KIND) cfg.issues.unshift({severity: 'error', code: 'wrong-kind', message: `kind is ${JSON.stringify(kind)}, expected ${KUBE_PROXY_KIND}`, ...loc})
  if (apiVersion === undefined) cfg.issues.unshift({severity: 'error', code: 'missing-api-version', message: `apiVersion is missing; add apiVersion: ${KUBE_PROXY_API_VERSION}`, ...loc})
  else if (apiVersion !== KUBE_PROXY_API_VERSION) {
    cfg.issues.unshift({
      severity: 'error',
      code: 'wrong-api-version',
      message: `apiVersion is ${JSON.stringify(apiVersion)}; kube-proxy reads ${KUBE_PROXY_API_VERSION}${apiVersion === 'componentconfig/v1alpha1' ? ' (componentconfig/v1alpha1 was dropped long ago)' : ''}`,
      ...loc,
    })
  }
  // kubeadm writes `mode: ""` when its KubeProxyConfiguration document was not picked up (kubernetes/kubeadm#1182).
  if (decoded.values['mode'] === '') {
    const o = decoded.origins['/mode']
    cfg.issues.push({
      severity: 'info',
      code: 'empty-mode',
      path: '/mode',
      ...(source === undefined ? {} : {source}),
      ...(o?.line === undefined ? {} : {line: o.line}),
      message: 'mode is "": kube-proxy runs iptables mode on Linux (an empty mode is not "auto")',
    })
  }
  return cfg
}

/** The value at a dotted path or JSON Pointer and its origin. */
export function kubeProxySetting(cfg: KubeProxyConfig, path: string): {value: JsonValue | undefined; origin?: Origin} {
  const ptr = path.startsWith('/') ? path : pointer(...path.split('.'))
  const value = getAt(cfg.values, ptr)
  const origin = cfg.origins[ptr]
  return origin ? {value, origin} : {value}
}

/** An empty configuration (kube-proxy run with flags only). */
export function emptyKubeProxyConfig(): KubeProxyConfig {
  return {format: 'yaml', container: 'raw', values: {}, origins: {}, issues: [], defaults: []}
}

/** Sets one value with its origin; returns a new config. */
export function withKubeProxySetting(cfg: KubeProxyConfig, ptr: string, value: JsonValue, origin: Origin): KubeProxyConfig {
  const values = structuredClone(cfg.values)
  setAt(values, ptr, value)
  const origins: Record<string, Origin> = {}
  for (const [k, o] of Object.entries(cfg.origins)) if (k !== ptr && !k.startsWith(ptr + '/')) origins[k] = o
  origins[ptr] = origin
  return {...cfg, values, origins}
}
