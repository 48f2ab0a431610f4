// `kube-proxy show`: the kube-proxy configuration (raw or from its ConfigMap), optionally the DaemonSet/Pod that
// runs it (flags), and optionally what it really runs (/proxyMode body, startup log, /metrics), turned into the
// effective settings with defaults marked and each value's source. Pure: texts in, result out.
import {UsageError} from '../errors.js'
import {parsingFile} from './input-file.js'
import {type ConfigIssue, formatValue, getAt, isGoZero, type JsonValue, type Origin, parseMinorVersion, pointer} from '../core/parse/component-config.js'
import {detectKubeProxyDocument, KUBE_PROXY_API_VERSION, KUBE_PROXY_CONFIGMAP_KEYS, KUBE_PROXY_KIND, KUBE_PROXY_SCHEMA, type KubeProxyConfig, parseKubeProxyConfig} from '../core/parse/kube-proxy-config.js'
import {type ComponentSpec, isMalformedYaml, readPastedComponentConfig} from '../core/parse/pasted-config.js'
import {effectiveKubeProxyConfig, kubeProxyFromManifest, type KubeProxyFlags, parseKubeProxyArgs} from '../core/parse/kube-proxy-flags.js'
import {kubeProxySyncMetrics, type KubeProxySyncMetrics, parsePrometheusText} from '../core/parse/prom-metrics.js'
import {parseProxierLog, parseProxyModeBody, RUNNING_PROXY_MODES} from '../core/parse/proxy-mode.js'
import type {NamedText} from './kubelet-show.js'
import {type KubeProxyInputKind, type KubeProxyShowResult, SETTINGS_API_VERSION, type ShowFlag, type ShowSetting} from '../core/model/component-settings.js'

const COMMON = ['mode', 'clusterCIDR', 'detectLocalMode', 'detectLocal.bridgeInterface', 'detectLocal.interfaceNamePrefix', 'nodePortAddresses']
const IPTABLES = ['iptables.masqueradeAll', 'iptables.masqueradeBit', 'iptables.localhostNodePorts', 'iptables.syncPeriod', 'iptables.minSyncPeriod']
const IPVS = ['ipvs.scheduler', 'ipvs.strictARP', 'ipvs.excludeCIDRs', 'ipvs.syncPeriod', 'ipvs.minSyncPeriod', 'ipvs.tcpTimeout', 'ipvs.tcpFinTimeout', 'ipvs.udpTimeout']
const NFTABLES = ['nftables.masqueradeAll', 'nftables.masqueradeBit', 'nftables.syncPeriod', 'nftables.minSyncPeriod']
const REST = [
  'conntrack.maxPerCore',
  'conntrack.min',
  'conntrack.tcpEstablishedTimeout',
  'conntrack.tcpCloseWaitTimeout',
  'conntrack.tcpBeLiberal',
  'conntrack.udpTimeout',
  'conntrack.udpStreamTimeout',
  'bindAddress',
  'healthzBindAddress',
  'metricsBindAddress',
  'hostnameOverride',
  'featureGates',
  'oomScoreAdj',
  'configSyncPeriod',
  'clientConnection.kubeconfig',
]

/** The settings that change generated rules or health (node-state.md C.1), for the given mode. ipvs also uses iptables.* */
export function kubeProxyImportantSettings(mode: string): string[] {
  if (mode === 'ipvs') return [...COMMON, ...IPTABLES.filter((p) => p !== 'iptables.localhostNodePorts'), ...IPVS, ...REST]
  if (mode === 'nftables') return [...COMMON, ...NFTABLES, ...REST]
  return [...COMMON, ...IPTABLES, ...REST]
}

function location(o: Origin | undefined): string | undefined {
  if (!o) return undefined
  if (o.kind === 'default') return o.detail
  if (o.kind === 'flag') return `${o.detail ?? ''}${o.source ? ` at ${o.source}${o.line === undefined ? '' : `:${o.line}`}` : ''}`
  if (!o.source) return o.detail
  return o.line === undefined ? o.source : `${o.source}:${o.line}`
}

/** What a kube-proxy input file is, undefined when none fits. */
export function detectKubeProxyInput(text: string): KubeProxyInputKind | undefined {
  const doc = detectKubeProxyDocument(text)
  if (doc === 'kube-proxy-config' || doc === 'configmap' || doc === 'workload') return doc
  const trimmed = text.trim()
  if ((RUNNING_PROXY_MODES as readonly string[]).includes(trimmed)) return 'proxy-mode'
  if (/^# (HELP|TYPE) \S+/m.test(text) || /^kubeproxy_\w+(\{[^}]*\})?\s+\S+/m.test(text)) return 'metrics'
  if (parseProxierLog(text).events.length > 0) return 'log'
  return undefined
}

export interface KubeProxyShowOptions {
  node?: string
  version?: string
  /** Read the files as the tools print them: no pasted-input leniency (a cut-off ConfigMap, a fragment). */
  strict?: boolean
}

const KUBE_PROXY_SPEC: ComponentSpec = {
  component: 'kube-proxy',
  kind: KUBE_PROXY_KIND,
  apiVersion: KUBE_PROXY_API_VERSION,
  fields: Object.keys(KUBE_PROXY_SCHEMA),
  configMapKeys: KUBE_PROXY_CONFIGMAP_KEYS,
}

/** Builds kube-proxy's effective settings. Throws UsageError for unrecognised inputs, InputError for bad files. */
export function showKubeProxy(files: readonly NamedText[], options: KubeProxyShowOptions = {}): KubeProxyShowResult {
  if (files.length === 0) throw new UsageError('no input files', 'Pass --from-file FILE (the kube-proxy ConfigMap or a KubeProxyConfiguration).')
  if (options.version !== undefined && parseMinorVersion(options.version) === undefined) {
    throw new UsageError(`invalid kube-proxy version ${JSON.stringify(options.version)}`, 'Use a version such as 1.30 or v1.30.2.')
  }
  const vopt = options.version === undefined ? {} : {version: options.version}
  const inputs: KubeProxyShowResult['inputs'] = []
  let config: KubeProxyConfig | undefined
  let flags: KubeProxyFlags | undefined
  let workload: KubeProxyShowResult['workload']
  let running: KubeProxyShowResult['running']
  let sync: KubeProxySyncMetrics | undefined
  const extra: ConfigIssue[] = []
  for (const input of files) {
    let f = input
    let kind = detectKubeProxyInput(f.text)
    if (!options.strict && (kind === undefined || ((kind === 'kube-proxy-config' || kind === 'configmap') && isMalformedYaml(f.text)))) {
      // A pasted ConfigMap cut off before kind:/metadata:, or a KubeProxyConfiguration without apiVersion/kind.
      const pasted = readPastedComponentConfig(f.text, KUBE_PROXY_SPEC)
      if (pasted) {
        f = {name: f.name, text: pasted.text}
        kind = detectKubeProxyInput(f.text)
        for (const w of pasted.warnings) extra.push({severity: 'warning', code: 'pasted-input', source: f.name, line: w.line, message: w.message})
      }
    }
    switch (kind) {
      case 'kube-proxy-config':
      case 'configmap': {
        if (config) throw new UsageError(`more than one kube-proxy configuration given (${config.source ?? ''} and ${f.name})`)
        config = parsingFile(f.name, () => parseKubeProxyConfig(f.text, {source: f.name, ...vopt}))
        const cm = config.configMap
        inputs.push({file: f.name, kind, ...(cm ? {detail: `ConfigMap ${cm.namespace ? `${cm.namespace}/` : ''}${cm.name ?? ''}, key ${cm.key}`} : {})})
        break
      }
      case 'workload': {
        const c = parsingFile(f.name, () => kubeProxyFromManifest(f.text, {source: f.name}))
        flags = parseKubeProxyArgs(c.args, vopt)
        extra.push(...c.issues)
        workload = {name: c.workload, container: c.container, ...(c.image === undefined ? {} : {image: c.image})}
        inputs.push({file: f.name, kind, detail: `${c.workload}, container ${c.container}`})
        break
      }
      case 'proxy-mode': {
        const mode = parsingFile(f.name, () => parseProxyModeBody(f.text))
        running = {mode, source: 'proxyMode', location: f.name}
        inputs.push({file: f.name, kind, detail: `/proxyMode: ${mode}`})
        break
      }
      case 'log': {
        const log = parseProxierLog(f.text)
        if (!running || running.source !== 'proxyMode') {
          running = {source: 'log', fellBackFromIPVS: log.fellBackFromIPVS, failed: log.failed}
          if (log.mode) running.mode = log.mode
          if (log.modeLine !== undefined) running.location = `${f.name}:${log.modeLine}`
        }
        inputs.push({file: f.name, kind, detail: log.mode ? `"Using ${log.mode} Proxier" at line ${log.modeLine ?? '?'}` : 'no "Using … Proxier" line'})
        if (log.fellBackFromIPVS) {
          const e = log.events.find((x) => x.kind === 'ipvs-fallback' || x.kind === 'ipvs-unusable')
          extra.push({severity: 'error', code: 'ipvs-fallback', source: f.name, ...(e ? {line: e.line} : {}), message: 'kube-proxy could not use IPVS and fell back to iptables (releases up to 1.25 do this silently): check the ip_vs kernel modules and ipset'})
        } else if (log.failed) {
          const e = log.events.at(-1)
          extra.push({severity: 'error', code: 'proxier-failed', source: f.name, ...(e ? {line: e.line} : {}), message: `kube-proxy failed to start: ${e?.message ?? ''}`})
        }
        break
      }
      case 'metrics': {
        const fams = parsingFile(f.name, () => parsePrometheusText(f.text))
        sync = kubeProxySyncMetrics(fams)
        inputs.push({file: f.name, kind, detail: 'kube-proxy /metrics'})
        break
      }
      default:
        throw new UsageError(
          `cannot tell what ${f.name} is`,
          'Expected a KubeProxyConfiguration, the kube-proxy ConfigMap, its DaemonSet or Pod manifest, a /proxyMode body, a kube-proxy log or its /metrics.',
        )
    }
  }
  if (!config && !flags) throw new UsageError('nothing to show: give the kube-proxy ConfigMap, a KubeProxyConfiguration or the kube-proxy DaemonSet')
  const effective = effectiveKubeProxyConfig({...(config ? {config} : {}), ...(flags ? {flags} : {}), ...vopt})
  const configuredMode = String(getAt(effective.values, '/mode') ?? 'iptables')
  const issues = [...effective.issues, ...extra]
  if (running?.mode && running.mode !== configuredMode) {
    issues.push({
      severity: 'error',
      code: 'mode-mismatch',
      ...(running.location ? {source: running.location.replace(/:\d+$/, '')} : {}),
      message: `configured mode is ${configuredMode} but kube-proxy runs ${running.mode}${configuredMode === 'ipvs' && running.mode === 'iptables' ? ' (the pre-1.26 IPVS fallback, or the pod has not restarted since the change)' : ' (the pod may not have restarted since the configuration changed)'}`,
    })
  }
  if (sync?.pendingSeconds !== undefined && sync.pendingSeconds > 0) {
    issues.push({severity: 'warning', code: 'sync-pending', message: `changes were queued ${sync.pendingSeconds.toFixed(0)}s after the last successful sync: if this does not clear, kube-proxy is stuck`})
  }
  if ((sync?.iptablesRestoreFailuresTotal ?? 0) > 0) {
    issues.push({severity: 'warning', code: 'restore-failures', message: `iptables-restore failed ${sync?.iptablesRestoreFailuresTotal ?? 0} times since kube-proxy started`})
  }
  const important = kubeProxyImportantSettings(configuredMode)
  const settings: ShowSetting[] = important.map((path) => settingOf(effective, path, true))
  for (const [ptr, o] of Object.entries(effective.origins)) {
    if (o.kind === 'default') continue
    const path = ptr.slice(1).split('/').slice(0, 2).join('.')
    if (important.includes(path) || important.some((p) => path.startsWith(p + '.')) || settings.some((s) => s.path === path)) continue
    if (ptr.startsWith('/logging') || ptr.startsWith('/winkernel')) continue
    // Explicit zero values (kubeadm writes every field) would only add noise.
    if (isGoZero(getAt(effective.values, pointer(...path.split('.'))))) continue
    settings.push(settingOf(effective, path, false))
  }
  const result: KubeProxyShowResult = {
    apiVersion: SETTINGS_API_VERSION,
    kind: 'KubeProxySettings',
    inputs,
    configuredMode,
    flags: (flags?.flags ?? []).map((f) => {
      const s: ShowFlag = {flag: f.written, name: f.name, value: f.value, status: f.status}
      if (f.origin.source) s.location = f.origin.line === undefined ? f.origin.source : `${f.origin.source}:${f.origin.line}`
      if (f.configPath) s.overrides = f.configPath.slice(1).replaceAll('/', '.')
      if (f.note) s.note = f.note
      return s
    }),
    settings,
    issues,
  }
  if (options.node !== undefined) result.node = options.node
  if (options.version !== undefined) result.version = options.version
  if (config?.configMap) result.configMap = config.configMap
  if (workload) result.workload = workload
  if (running) result.running = running
  if (sync) result.sync = sync
  return result
}

function settingOf(cfg: KubeProxyConfig, path: string, important: boolean): ShowSetting {
  const ptr = pointer(...path.split('.'))
  const value: JsonValue | undefined = getAt(cfg.values, ptr)
  const origin = cfg.origins[ptr] ?? Object.entries(cfg.origins).find(([k]) => k.startsWith(ptr + '/'))?.[1]
  const s: ShowSetting = {
    path,
    value: value ?? null,
    display: value === undefined ? zero(path) : value === null ? '<unset>' : formatValue(value),
    source: origin ? origin.kind : 'unset',
    important,
  }
  const loc = location(origin)
  if (loc) s.location = loc
  const applied = [...cfg.defaults].reverse().find((d) => d.path === ptr)
  if (applied && applied.reason !== 'omitted') {
    s.written = applied.reason === 'null' ? 'null' : formatValue(applied.written)
    const at = location(applied.writtenAt)
    if (at) s.written += ` at ${at}`
    if (applied.reason === 'normalized') s.source = origin?.kind ?? 'default'
  }
  return s
}

function zero(path: string): string {
  if (/masqueradeAll|strictARP|tcpBeLiberal/.test(path)) return 'false'
  if (/Timeout$|Period$/.test(path)) return '0s'
  if (path === 'featureGates' || path === 'nodePortAddresses' || path === 'ipvs.excludeCIDRs') return '<unset>'
  return '""'
}
