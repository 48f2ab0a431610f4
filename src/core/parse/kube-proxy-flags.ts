// kube-proxy's command line as the DaemonSet/Pod spec gives it, and how flags combine with --config.
// Flags: kubernetes/kubernetes cmd/kube-proxy/app/options.go (AddFlags). Precedence (Options.Complete): with
// --config the file replaces every flag value except logging flags and --hostname-override; without
// --config the flags apply over the defaults (the opposite of the kubelet, whose flags override its file).
import {isMap, isScalar, isSeq, type Node as YamlNode} from 'yaml'
import {ParseError} from '../../errors.js'
import {type ConfigIssue, getAt, type JsonValue, loadYaml, nodeLine, type Origin, parseMinorVersion, pointer, setOwn} from './component-config.js'
import {applyKubeProxyDefaults, emptyKubeProxyConfig, type KubeProxyConfig, withKubeProxySetting} from './kube-proxy-config.js'
import {
  type ArgToken,
  type FlagSpec,
  type FlagValueType,
  type ParsedFlag,
  parseGoBool,
  parseGoInt,
  parsePflags,
  splitCsv,
  splitShellWords,
  validateFlagValue,
} from './pflag.js'

export interface KubeProxyFlagSpec extends FlagSpec {
  configPath?: string
  /** Still applied when --config is given (logging flags, --hostname-override, --master). */
  appliesWithConfig?: boolean
  deprecated?: string
}

const f = (name: string, type: FlagValueType, path?: string, extra: Partial<KubeProxyFlagSpec> = {}): KubeProxyFlagSpec => ({
  name,
  type,
  ...(path === undefined ? {} : {configPath: pointer(...path.split('.'))}),
  ...extra,
})
const always = {appliesWithConfig: true}

export const KUBE_PROXY_FLAGS: readonly KubeProxyFlagSpec[] = [
  f('config', 'string', undefined, always),
  f('write-config-to', 'string', undefined, always),
  f('cleanup', 'bool', undefined, always),
  f('init-only', 'bool', undefined, always),
  f('master', 'string', undefined, always),
  f('hostname-override', 'string', 'hostnameOverride', always),
  f('feature-gates', 'mapStringBool', 'featureGates'),
  f('kubeconfig', 'string', 'clientConnection.kubeconfig'),
  f('kube-api-content-type', 'string', 'clientConnection.contentType'),
  f('kube-api-burst', 'int', 'clientConnection.burst'),
  f('kube-api-qps', 'float', 'clientConnection.qps'),
  f('bind-address', 'string', 'bindAddress'),
  f('healthz-bind-address', 'string', 'healthzBindAddress'),
  f('metrics-bind-address', 'string', 'metricsBindAddress'),
  f('bind-address-hard-fail', 'bool', 'bindAddressHardFail'),
  f('profiling', 'bool', 'enableProfiling'),
  f('show-hidden-metrics-for-version', 'string', 'showHiddenMetricsForVersion'),
  f('proxy-mode', 'string', 'mode'),
  f('iptables-masquerade-bit', 'int', 'iptables.masqueradeBit'),
  f('masquerade-all', 'bool', 'iptables.masqueradeAll'),
  f('iptables-localhost-nodeports', 'bool', 'iptables.localhostNodePorts'),
  f('iptables-sync-period', 'duration', 'iptables.syncPeriod'),
  f('iptables-min-sync-period', 'duration', 'iptables.minSyncPeriod'),
  f('ipvs-sync-period', 'duration', 'ipvs.syncPeriod'),
  f('ipvs-min-sync-period', 'duration', 'ipvs.minSyncPeriod'),
  f('ipvs-scheduler', 'string', 'ipvs.scheduler'),
  f('ipvs-exclude-cidrs', 'stringSlice', 'ipvs.excludeCIDRs'),
  f('ipvs-strict-arp', 'bool', 'ipvs.strictARP'),
  f('ipvs-tcp-timeout', 'duration', 'ipvs.tcpTimeout'),
  f('ipvs-tcpfin-timeout', 'duration', 'ipvs.tcpFinTimeout'),
  f('ipvs-udp-timeout', 'duration', 'ipvs.udpTimeout'),
  f('detect-local-mode', 'string', 'detectLocalMode'),
  f('pod-bridge-interface', 'string', 'detectLocal.bridgeInterface'),
  f('pod-interface-name-prefix', 'string', 'detectLocal.interfaceNamePrefix'),
  f('cluster-cidr', 'string', 'clusterCIDR'),
  f('nodeport-addresses', 'stringSlice', 'nodePortAddresses'),
  f('oom-score-adj', 'int', 'oomScoreAdj'),
  f('conntrack-max-per-core', 'int', 'conntrack.maxPerCore'),
  f('conntrack-min', 'int', 'conntrack.min'),
  f('conntrack-tcp-timeout-established', 'duration', 'conntrack.tcpEstablishedTimeout'),
  f('conntrack-tcp-timeout-close-wait', 'duration', 'conntrack.tcpCloseWaitTimeout'),
  f('conntrack-tcp-be-liberal', 'bool', 'conntrack.tcpBeLiberal'),
  f('conntrack-udp-timeout', 'duration', 'conntrack.udpTimeout'),
  f('conntrack-udp-timeout-stream', 'duration', 'conntrack.udpStreamTimeout'),
  f('config-sync-period', 'duration', 'configSyncPeriod'),
  f('healthz-port', 'int', undefined, {deprecated: 'use --healthz-bind-address (and it is ignored with --config)'}),
  f('metrics-port', 'int', undefined, {deprecated: 'use --metrics-bind-address (and it is ignored with --config)'}),
  f('proxy-port-range', 'string', 'portRange', {deprecated: 'has no effect since the userspace proxy was removed'}),
  {name: 'v', type: 'int', shorthand: 'v', configPath: '/logging/verbosity', appliesWithConfig: true},
  f('vmodule', 'other', undefined, always),
  f('logging-format', 'string', 'logging.format', always),
  f('log-flush-frequency', 'duration', 'logging.flushFrequency', always),
  f('log-json-split-stream', 'bool', 'logging.options.json.splitStream', always),
  f('log-json-info-buffer-size', 'string', 'logging.options.json.infoBufferSize', always),
  f('log-text-split-stream', 'bool', 'logging.options.text.splitStream', always),
  f('log-text-info-buffer-size', 'string', 'logging.options.text.infoBufferSize', always),
  {name: 'help', type: 'bool', shorthand: 'h'},
  {name: 'version', type: 'string', optionalValue: true},
]

export interface RemovedKubeProxyFlag {
  name: string
  type: FlagValueType
  removedIn: number
  replacement: string
}

/** Removed kube-proxy flags (version = first release whose types.go/options.go lacks them). Not exhaustive. */
export const REMOVED_KUBE_PROXY_FLAGS: readonly RemovedKubeProxyFlag[] = [
  {name: 'conntrack-max', type: 'int', removedIn: 15, replacement: '--conntrack-max-per-core and --conntrack-min'},
  {name: 'resource-container', type: 'string', removedIn: 16, replacement: 'none'},
  {name: 'udp-timeout', type: 'duration', removedIn: 26, replacement: 'none (the userspace proxy it configured was removed)'},
  ...['add-dir-header', 'alsologtostderr', 'log-dir', 'log-file', 'logtostderr', 'one-output', 'skip-headers', 'skip-log-headers'].map((name) => ({
    name,
    type: (['log-dir', 'log-file'].includes(name) ? 'string' : 'bool') as FlagValueType,
    removedIn: 26,
    replacement: 'only -v and --vmodule remain (KEP-2845)',
  })),
  {name: 'log-file-max-size', type: 'int', removedIn: 26, replacement: 'only -v and --vmodule remain (KEP-2845)'},
  {name: 'stderrthreshold', type: 'string', removedIn: 26, replacement: 'only -v and --vmodule remain (KEP-2845)'},
]

const INDEX = new Map(KUBE_PROXY_FLAGS.map((s) => [s.name, s]))
const REMOVED = new Map(REMOVED_KUBE_PROXY_FLAGS.map((s) => [s.name, s]))

export function lookupKubeProxyFlag(name: string): KubeProxyFlagSpec | undefined {
  return INDEX.get(name.replaceAll('_', '-'))
}

export interface KubeProxyFlag extends ParsedFlag {
  status: 'ok' | 'deprecated' | 'removed' | 'unknown'
  configPath?: string
  note?: string
}

export interface KubeProxyFlags {
  flags: KubeProxyFlag[]
  issues: ConfigIssue[]
  configFile?: string
}

function where(o: Origin): {source?: string; line?: number} {
  return {...(o.source === undefined ? {} : {source: o.source}), ...(o.line === undefined ? {} : {line: o.line})}
}

/** Classifies kube-proxy's arguments (the words after the executable). */
export function parseKubeProxyArgs(tokens: readonly ArgToken[], options: {version?: string} = {}): KubeProxyFlags {
  const minor = parseMinorVersion(options.version)
  const parsed = parsePflags(
    tokens,
    (name) => {
      const s = lookupKubeProxyFlag(name)
      if (s) return s
      const r = REMOVED.get(name)
      return r ? {name: r.name, type: r.type} : undefined
    },
    {v: 'v', h: 'help'},
  )
  const issues = [...parsed.issues]
  const flags: KubeProxyFlag[] = parsed.flags.map((pf) => {
    const spec = lookupKubeProxyFlag(pf.name)
    const kf: KubeProxyFlag = {...pf, status: 'ok'}
    if (spec) {
      if (spec.configPath) kf.configPath = spec.configPath
      if (spec.deprecated) {
        kf.status = 'deprecated'
        kf.note = spec.deprecated
      }
      const bad = validateFlagValue(spec.type, pf.value)
      if (bad) issues.push({severity: 'error', code: 'invalid-flag-value', ...where(pf.origin), message: `invalid argument for ${pf.written}: ${bad}; kube-proxy exits`})
      return kf
    }
    const removed = REMOVED.get(pf.name)
    if (removed) {
      kf.status = 'removed'
      kf.note = `removed in 1.${removed.removedIn}; ${removed.replacement}`
      const harmless = minor !== undefined && minor < removed.removedIn
      issues.push({
        severity: harmless ? 'warning' : 'error',
        code: 'removed-flag',
        ...where(pf.origin),
        message: `${pf.written}: removed in 1.${removed.removedIn}${harmless ? `; still accepted by 1.${minor}` : '; kube-proxy from that version exits with "unknown flag"'}. Use ${removed.replacement}`,
      })
      return kf
    }
    kf.status = 'unknown'
    kf.note = 'not a kube-proxy flag node-doctor knows'
    issues.push({severity: 'warning', code: 'unknown-flag', ...where(pf.origin), message: `${pf.written}: not a kube-proxy flag node-doctor knows; kube-proxy exits with "unknown flag" if it does not know it`})
    return kf
  })
  for (const p of parsed.positional) {
    issues.push({severity: 'error', code: 'positional-argument', ...where(p.origin), message: `${JSON.stringify(p.text)} is not a flag; kube-proxy takes no arguments`})
  }
  const out: KubeProxyFlags = {flags, issues}
  const config = [...flags].reverse().find((x) => x.name === 'config')
  if (config) out.configFile = config.value
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// From a DaemonSet / Pod manifest

export interface KubeProxyContainer {
  /** Workload kind and name (`DaemonSet kube-system/kube-proxy`). */
  workload: string
  container: string
  image?: string
  executable: string
  args: ArgToken[]
  /** Container env: literal values, or `fieldRef:spec.nodeName` style references. */
  env: Record<string, string>
  issues: ConfigIssue[]
}

function child(node: YamlNode | null | undefined, key: string): YamlNode | undefined {
  if (!isMap(node)) return undefined
  const p = node.items.find((i) => isScalar(i.key) && i.key.value === key)
  return (p?.value ?? undefined) as YamlNode | undefined
}

function str(node: YamlNode | undefined): string | undefined {
  return isScalar(node) && (typeof node.value === 'string' || typeof node.value === 'number') ? String(node.value) : undefined
}

const SHELL_STOP = /^(?:\d?>>?.*|&&|\|\||;|\||&|<.*)$/

/**
 * Finds the kube-proxy container in a DaemonSet, Deployment, Pod or List manifest (YAML or JSON, as
 * `kubectl get ds -n kube-system kube-proxy -o yaml` prints it) and returns its arguments with line numbers.
 * Handles `command: [kube-proxy, ...]` + `args`, hyperkube (`/hyperkube proxy ...`) and `sh -c "kube-proxy ..."`.
 * Throws ParseError when there is no kube-proxy container.
 */
export function kubeProxyFromManifest(text: string, options: {source?: string} = {}): KubeProxyContainer {
  const loaded = loadYaml(text)
  const root = loaded?.doc.contents as YamlNode | null | undefined
  if (!loaded || !isMap(root)) throw new ParseError('expected a DaemonSet, Pod or List manifest', 1)
  const workloads: YamlNode[] = []
  const kindOf = (n: YamlNode | undefined): string | undefined => str(child(n, 'kind'))
  if (kindOf(root) === 'List') {
    const items = child(root, 'items')
    if (isSeq(items)) workloads.push(...(items.items as YamlNode[]))
  } else workloads.push(root)
  const src = options.source === undefined ? {} : {source: options.source}
  for (const w of workloads) {
    const kind = kindOf(w) ?? 'object'
    const meta = child(w, 'metadata')
    const name = `${kind} ${str(child(meta, 'namespace')) ?? ''}${str(child(meta, 'namespace')) ? '/' : ''}${str(child(meta, 'name')) ?? ''}`
    const podSpec = kind === 'Pod' ? child(w, 'spec') : child(child(child(w, 'spec'), 'template'), 'spec')
    const containers = child(podSpec, 'containers')
    if (!isSeq(containers)) continue
    for (const c of containers.items as YamlNode[]) {
      const cname = str(child(c, 'name')) ?? ''
      const command = child(c, 'command')
      const args = child(c, 'args')
      const words: ArgToken[] = []
      for (const list of [command, args]) {
        if (!isSeq(list)) continue
        for (const item of list.items as YamlNode[]) {
          const text = str(item)
          if (text === undefined) continue
          const line = nodeLine(item, loaded.lines)
          words.push({text, origin: {kind: 'file', ...src, ...(line === undefined ? {} : {line})}})
        }
      }
      const mentions = words.some((x) => /(^|\/|\s)kube-proxy(\s|$)/.test(x.text) || /(^|\/)hyperkube$/.test(x.text))
      if (cname !== 'kube-proxy' && !mentions) continue
      const issues: ConfigIssue[] = []
      let tokens = words
      // sh -c "…kube-proxy --flags… 1>>/var/log/kube-proxy.log 2>&1"
      const shIdx = tokens.findIndex((x, i) => x.text === '-c' && /(^|\/)(ba)?sh$/.test(tokens[i - 1]?.text ?? ''))
      if (shIdx !== -1 && tokens[shIdx + 1]) {
        const script = tokens[shIdx + 1] as ArgToken
        const sw = splitShellWords(script.text)
        const start = sw.findIndex((x) => /(^|\/)kube-proxy$/.test(x))
        const rest: ArgToken[] = []
        for (const x of sw.slice(start + 1)) {
          if (SHELL_STOP.test(x)) break
          rest.push({text: x, origin: script.origin})
        }
        tokens = [{text: sw[start] ?? 'kube-proxy', origin: script.origin}, ...rest]
      }
      if (tokens.length > 1 && /(^|\/)hyperkube$/.test(tokens[0]?.text ?? '') && /^(kube-)?proxy$/.test(tokens[1]?.text ?? '')) tokens = tokens.slice(1)
      const env: Record<string, string> = Object.create(null) as Record<string, string>
      const envList = child(c, 'env')
      if (isSeq(envList)) {
        for (const e of envList.items as YamlNode[]) {
          const n = str(child(e, 'name'))
          if (n === undefined) continue
          const value = str(child(e, 'value'))
          const fieldPath = str(child(child(child(e, 'valueFrom'), 'fieldRef'), 'fieldPath'))
          env[n] = value ?? (fieldPath === undefined ? '<valueFrom>' : `fieldRef:${fieldPath}`)
        }
      }
      for (const t of tokens) {
        for (const m of t.text.matchAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g)) {
          const v = env[m[1] ?? '']
          issues.push({
            severity: v === undefined ? 'warning' : 'info',
            code: 'env-reference',
            ...where(t.origin),
            message:
              v === undefined
                ? `${t.text}: $(${m[1]}) is not in the container's env, so the kubelet leaves it as literal text`
                : `${t.text}: $(${m[1]}) is expanded by the kubelet from env ${m[1]} (${v})`,
          })
        }
      }
      const out: KubeProxyContainer = {
        workload: name.trim(),
        container: cname,
        executable: tokens[0]?.text ?? '',
        args: tokens.slice(1),
        env: {...env},
        issues,
      }
      const image = str(child(c, 'image'))
      if (image !== undefined) out.image = image
      return out
    }
  }
  throw new ParseError('no kube-proxy container found in this manifest', 1)
}

// ---------------------------------------------------------------------------------------------------------------
// Effective configuration

/**
 * What kube-proxy runs with: with --config, the file (defaulted) plus --hostname-override and logging flags,
 * and every other flag reported as ignored; without --config, the flags over the defaults. `config` is the
 * parsed file (e.g. from the ConfigMap); `flags` the parsed arguments (omit when unknown: the file alone).
 */
export function effectiveKubeProxyConfig(input: {config?: KubeProxyConfig; flags?: KubeProxyFlags; version?: string}): KubeProxyConfig {
  const {config, flags} = input
  const issues: ConfigIssue[] = []
  let cfg: KubeProxyConfig
  const usesFile = flags === undefined || flags.configFile !== undefined
  if (usesFile) {
    cfg = config ?? emptyKubeProxyConfig()
    if (!config && flags?.configFile !== undefined) {
      issues.push({severity: 'warning', code: 'config-not-provided', message: `kube-proxy reads --config=${flags.configFile}, which was not provided; showing defaults and flags only`})
    }
  } else {
    cfg = emptyKubeProxyConfig()
    if (config) {
      issues.push({
        severity: 'warning',
        code: 'config-unused',
        ...(config.source === undefined ? {} : {source: config.source}),
        message: 'kube-proxy is started without --config, so this configuration is not used; its flags and the defaults apply',
      })
    }
  }
  cfg = {...cfg, issues: [...cfg.issues, ...(flags?.issues ?? []), ...issues]}
  for (const fl of flags?.flags ?? []) {
    const spec = lookupKubeProxyFlag(fl.name)
    if (!spec?.configPath || validateFlagValue(spec.type, fl.value)) continue
    if (usesFile && !spec.appliesWithConfig) {
      const fileValue = getAt(cfg.values, spec.configPath)
      cfg.issues.push({
        severity: 'warning',
        code: 'flag-ignored',
        ...where(fl.origin),
        message: `${fl.written} is ignored: with --config the file wins (${spec.configPath.slice(1).replaceAll('/', '.')} in the file is ${fileValue === undefined ? 'unset, so the default applies' : JSON.stringify(fileValue)})`,
      })
      continue
    }
    const value = convert(spec.type, fl.value, getAt(cfg.values, spec.configPath))
    if (value === undefined) continue
    cfg = withKubeProxySetting(cfg, spec.configPath, value, {kind: 'flag', ...where(fl.origin), detail: fl.written})
  }
  return applyKubeProxyDefaults(cfg, input.version)
}

function convert(type: FlagValueType, raw: string, _prev: JsonValue | undefined): JsonValue | undefined {
  switch (type) {
    case 'bool':
      return parseGoBool(raw) ?? null
    case 'int':
      return parseGoInt(raw) ?? null
    case 'float':
      return Number(raw)
    case 'string':
    case 'duration':
      return raw
    case 'stringSlice':
      return splitCsv(raw)
    case 'mapStringBool': {
      const m: Record<string, boolean> = {}
      for (const part of raw.split(',')) {
        const eq = part.indexOf('=')
        const b = eq === -1 ? undefined : parseGoBool(part.slice(eq + 1).trim())
        if (b !== undefined) setOwn(m, part.slice(0, eq).trim(), b)
      }
      return m
    }
    default:
      return undefined
  }
}
