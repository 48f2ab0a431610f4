// One node's kube-proxy facts: the configuration file from the ConfigMap (one schema-aware parse, used by every
// check), what mode is configured (ConfigMap + the pod's flags, defaults applied), what mode runs (/proxyMode, else
// the "Using X Proxier" log line), and what each mode's dataplane leaves on the node (KUBE-SVC chains, IPVS virtual
// servers and kube-ipvs0, the kube-proxy nft table). Pure; computed once per node by NodeFacts.
import type {ConfigMap, DaemonSet, Pod} from '../model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../model/snapshot.js'
import {type KubeProxyConfig, parseKubeProxyConfig} from '../parse/kube-proxy-config.js'
import type {KubeProxyConfigz} from '../parse/kube-proxy-configz.js'
import {effectiveKubeProxyConfig, kubeProxyFromManifest, type KubeProxyFlags, parseKubeProxyArgs} from '../parse/kube-proxy-flags.js'
import {findInterface} from '../parse/links.js'
import {kubeProxyTables} from '../parse/nft.js'
import {parseProxierLog, parseProxyModeBody, type ProxierLog} from '../parse/proxy-mode.js'
import type {IptablesDump} from '../parse/iptables-save.js'
import type {IpvsTable} from '../parse/ipvsadm.js'
import type {LinkTable} from '../parse/links.js'
import type {NftRuleset} from '../parse/nft.js'
import type {MetricFamily} from '../parse/prom-metrics.js'
import {KUBE_PROXY_DISTRIBUTION_ARTIFACT, KUBE_PROXY_MANIFEST_ARTIFACT} from '../collection/plan.js'
import {formatFullKubeProxyVersion, NEWEST_SUPPORTED_VERSION} from '../proxier/config.js'
import {kubeProxyPodFor, resolveKubeProxyVersion, type VersionResolution} from '../proxier/kube-proxy-version.js'
import type {Parsed} from './types.js'

/** What the kube-proxy facts read from a node's facts (NodeFacts provides it; declared here so neither imports the other). */
export interface KubeProxyInputs {
  readonly cluster: ClusterSnapshot
  readonly node: NodeSnapshot
  readonly kubeProxyConfig: KubeProxyConfigFacts
  text(id: string): string | undefined
  iptablesSave(): Parsed<IptablesDump> | undefined
  ipvsadm(): Parsed<IpvsTable> | undefined
  links(id: 'ip-addr' | 'ip-link'): Parsed<LinkTable> | undefined
  nftRuleset(): Parsed<NftRuleset> | undefined
  kubeProxyMetrics(): Parsed<MetricFamily[]> | undefined
  kubeProxyConfigz(): Parsed<KubeProxyConfigz> | undefined
}

/** ConfigMap names distributions use for the kube-proxy configuration (kubeadm, EKS). */
const CONFIGMAP_NAMES = ['kube-proxy', 'kube-proxy-config']

export interface ConfiguredMode {
  mode: string
  /** Where the value comes from: `ConfigMap kube-system/kube-proxy line 3`, `flag --proxy-mode=ipvs`, `default`. */
  source: string
  config: KubeProxyConfig
}

export interface RunningMode {
  mode: string
  source: string
}

export interface Dataplane {
  /** KUBE-SVC/SEP/EXT/FW/SVL chains in the nat table (iptables mode); undefined when iptables-save is missing or unreadable. */
  iptablesServiceChains?: string[]
  /** IPVS virtual servers (`TCP 10.96.0.1:443`); undefined without a readable ipvsadm listing. */
  ipvsServices?: string[]
  /** kube-ipvs0 exists (with its addresses); undefined when no link listing was read. */
  kubeIpvs0?: {present: boolean; addresses: string[]}
  /** `ip kube-proxy` / `ip6 kube-proxy` nft tables; undefined without a readable nft ruleset. */
  nftTables?: string[]
}

export interface ProxyFacts {
  pod?: Pod
  version?: {text: string; minor: number}
  configured?: ConfiguredMode
  /** Why the configured mode is unknown. */
  configuredUnknown?: string
  running?: RunningMode
  log?: ProxierLog
  logText?: string
  dataplane: Dataplane
}

export function isKubeProxyPod(p: Pod): boolean {
  return (
    p.metadata.namespace === 'kube-system' &&
    (p.metadata.labels?.['k8s-app'] === 'kube-proxy' || p.metadata.name.startsWith('kube-proxy-') || (p.spec?.containers ?? []).some((c) => c.name === 'kube-proxy'))
  )
}

/** The kube-proxy pod on this node; a running, not-terminating one wins over leftovers. */
export function kubeProxyPodOn(cluster: ClusterSnapshot, node: string): Pod | undefined {
  return kubeProxyPodFor(cluster.pods, node)
}

export function kubeProxyDaemonSet(cluster: ClusterSnapshot): DaemonSet | undefined {
  const sets = cluster.daemonSets.filter((d) => d.metadata.namespace === 'kube-system' && (d.metadata.name === 'kube-proxy' || (d.spec?.template?.spec?.containers ?? []).some((c) => c.name === 'kube-proxy')))
  return sets.find((d) => d.metadata.name === 'kube-proxy') ?? sets[0]
}

/**
 * The kube-proxy ConfigMap: the first of CONFIGMAP_NAMES that holds data (the one the proxier renders with, too),
 * else the first that exists.
 */
function kubeProxyConfigMap(cluster: ClusterSnapshot): ConfigMap | undefined {
  const named = CONFIGMAP_NAMES.flatMap((name) => cluster.configMaps.filter((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === name).slice(0, 1))
  return named.find((c) => c.data !== undefined) ?? named[0]
}

/** `v1.31.4` → minor 31, from an image tag such as `registry.k8s.io/kube-proxy:v1.31.4-eksbuild.1`. */
export function minorFromVersion(text: string | undefined): number | undefined {
  const m = /(?:^|[:v])1\.(\d+)(?:\.|$|-)/.exec(text ?? '')
  return m ? Number(m[1]) : undefined
}

/**
 * The version the checks read: the resolution's (pod, metrics, static manifest, k3s/RKE2, DaemonSet, Node), else the
 * API server's as a hint (as before: the mode checks only need the minor; the proxier never renders with it).
 */
function versionOf(resolution: VersionResolution, cluster: ClusterSnapshot): ProxyFacts['version'] {
  if (resolution.kind !== 'default') return {text: formatFullKubeProxyVersion(resolution.version), minor: resolution.version.minor}
  const minor = minorFromVersion(cluster.serverVersion)
  return minor !== undefined && cluster.serverVersion !== undefined ? {text: cluster.serverVersion, minor} : undefined
}

function flagsOf(workload: Pod | DaemonSet | undefined, version: string | undefined): KubeProxyFlags | undefined {
  if (!workload) return undefined
  try {
    const c = kubeProxyFromManifest(JSON.stringify(workload))
    return parseKubeProxyArgs(c.args, version === undefined ? {} : {version})
  } catch {
    return undefined
  }
}

function describeOrigin(cfg: KubeProxyConfig, cmName: string | undefined): string {
  const o = cfg.origins['/mode']
  if (!o) return 'default'
  if (o.kind === 'flag') return `flag ${o.detail ?? '--proxy-mode'}`
  if (o.kind === 'default') return 'default (an empty or unset mode means iptables on Linux)'
  return `ConfigMap kube-system/${cmName ?? 'kube-proxy'}${o.line === undefined ? '' : ` line ${o.line}`}`
}

/** The kube-proxy ConfigMap, its configuration file parsed once (schema-aware, for this node's kube-proxy version). */
export interface KubeProxyConfigFacts {
  pod?: Pod
  daemonSet?: DaemonSet
  /** Where the version comes from, every source's word, disagreements (the same resolution the proxier renders with). */
  resolution: VersionResolution
  version?: {text: string; minor: number}
  configMap?: ConfigMap
  /** The file as parsed (no flags, no defaults); undefined without a ConfigMap or when it could not be read. */
  file?: KubeProxyConfig
  /** Why the ConfigMap could not be read. */
  fileError?: string
  /**
   * The configuration the running kube-proxy was started with (`/configz`): the running side, where the ConfigMap
   * is the intended one. kube-proxy reads its configuration only when it starts.
   */
  running?: KubeProxyConfigz
  /** Why /configz gave no configuration (no answer, not kube-proxy's JSON); undefined when it was not collected. */
  runningError?: string
}

/** The node's kube-proxy version from every source (core/proxier/kube-proxy-version.ts), newest layout when none says. */
export function kubeProxyVersionResolution(facts: KubeProxyInputs): VersionResolution {
  const {cluster, node} = facts
  const metrics = facts.kubeProxyMetrics()
  const staticManifest = facts.text(KUBE_PROXY_MANIFEST_ARTIFACT)
  const distribution = facts.text(KUBE_PROXY_DISTRIBUTION_ARTIFACT)
  const k8sNode = cluster.nodes.find((n) => n.metadata.name === node.node)
  return resolveKubeProxyVersion(
    {
      nodeName: node.node,
      pods: cluster.pods,
      daemonSets: cluster.daemonSets,
      ...(k8sNode ? {node: k8sNode} : {}),
      ...(metrics?.ok ? {metrics: metrics.value} : {}),
      ...(staticManifest ? {staticManifest} : {}),
      ...(distribution ? {distribution} : {}),
    },
    NEWEST_SUPPORTED_VERSION,
  )
}

export function kubeProxyConfigFacts(facts: KubeProxyInputs): KubeProxyConfigFacts {
  const {cluster, node} = facts
  const pod = kubeProxyPodOn(cluster, node.node)
  const ds = kubeProxyDaemonSet(cluster)
  const resolution = kubeProxyVersionResolution(facts)
  const version = versionOf(resolution, cluster)
  const out: KubeProxyConfigFacts = {resolution}
  if (pod) out.pod = pod
  if (ds) out.daemonSet = ds
  if (version) out.version = version
  const configz = facts.kubeProxyConfigz()
  if (configz?.ok) out.running = configz.value
  else if (configz) out.runningError = configz.problem.reason
  else {
    const a = node.artifacts['kube-proxy-configz']
    if (a?.error !== undefined) out.runningError = `${a.source}: ${a.stderr?.trim() || a.error}`
  }
  const cm = kubeProxyConfigMap(cluster)
  if (!cm) return out
  out.configMap = cm
  try {
    out.file = parseKubeProxyConfig(JSON.stringify({apiVersion: 'v1', kind: 'ConfigMap', ...cm}), version === undefined ? {} : {version: version.text})
  } catch (err) {
    out.fileError = (err as Error).message
  }
  return out
}

function configured(kp: KubeProxyConfigFacts): Pick<ProxyFacts, 'configured' | 'configuredUnknown'> {
  const {configMap: cm, pod, daemonSet: ds} = kp
  const version = kp.version?.text
  if (cm && kp.fileError !== undefined) return {configuredUnknown: `the kube-system/${cm.metadata.name} ConfigMap could not be read: ${kp.fileError}`}
  const config = kp.file
  // The pod's own spec is what kube-proxy was started with; the DaemonSet is what the next pod gets.
  const workload = pod && (pod.spec?.containers ?? []).length > 0 ? ({...pod, kind: 'Pod'} as Pod) : ds ? ({...ds, kind: 'DaemonSet'} as DaemonSet) : undefined
  const flags = flagsOf(workload, version)
  if (!config && !flags) return {configuredUnknown: 'neither the kube-proxy ConfigMap nor a kube-proxy DaemonSet/pod spec was collected'}
  const eff = effectiveKubeProxyConfig({...(config ? {config} : {}), ...(flags ? {flags} : {}), ...(version === undefined ? {} : {version})})
  const mode = typeof eff.values['mode'] === 'string' && eff.values['mode'] !== '' ? eff.values['mode'] : 'iptables'
  return {configured: {mode, source: describeOrigin(eff, cm?.metadata.name), config: eff}}
}

function dataplane(facts: KubeProxyInputs): Dataplane {
  const d: Dataplane = {}
  const ipt = facts.iptablesSave()
  if (ipt?.ok) {
    const nat = ipt.value.tables.find((t) => t.name === 'nat')
    d.iptablesServiceChains = (nat?.chains ?? []).map((c) => c.name).filter((n) => /^KUBE-(SVC|SEP|SVL|EXT|FW)-/.test(n))
  }
  // NOTE: an empty ipvsadm listing tells nothing here (no evidence either way), as before.
  const ipvs = facts.text('ipvsadm')?.trim() === '' ? undefined : facts.ipvsadm()
  if (ipvs?.ok) d.ipvsServices = ipvs.value.virtualServers.map((v) => v.id)
  for (const id of ['ip-link', 'ip-addr'] as const) {
    if (d.kubeIpvs0 !== undefined) continue
    const links = facts.links(id)
    if (!links?.ok) continue
    const iface = findInterface(links.value, 'kube-ipvs0')
    d.kubeIpvs0 = {present: iface !== undefined, addresses: (iface?.addresses ?? []).map((a) => `${a.local}/${a.prefixlen}`)}
  }
  const nft = facts.nftRuleset()
  if (nft?.ok) d.nftTables = kubeProxyTables(nft.value).map((t) => `${t.family} ${t.name}`)
  return d
}

export function computeProxyFacts(facts: KubeProxyInputs): ProxyFacts {
  const {cluster} = facts
  const kp = facts.kubeProxyConfig
  const {pod, version} = kp
  const result: ProxyFacts = {dataplane: dataplane(facts), ...configured(kp)}
  if (pod) result.pod = pod
  if (version) result.version = version
  const logText = pod ? cluster.kubeProxyLogs[pod.metadata.name] : undefined
  if (logText !== undefined) {
    result.logText = logText
    result.log = parseProxierLog(logText)
  }
  const body = facts.text('proxy-mode')
  if (body !== undefined) {
    try {
      result.running = {mode: parseProxyModeBody(body), source: 'kube-proxy /proxyMode'}
    } catch {
      // Not a mode (an error page, say): fall back to the log.
    }
  }
  if (!result.running && result.log?.mode && pod) {
    result.running = {mode: result.log.mode, source: `log of ${pod.metadata.name} line ${result.log.modeLine ?? '?'}`}
  }
  return result
}

/** Log lines (1-based numbers) as evidence. */
export function logLines(text: string | undefined, lines: readonly number[]): string[] {
  if (text === undefined) return []
  const all = text.split(/\r?\n/)
  return lines.map((n) => `log line ${n}: ${(all[n - 1] ?? '').trim()}`)
}
