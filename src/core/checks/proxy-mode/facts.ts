// One node's kube-proxy facts, shared by the PROXY checks: what mode is configured (ConfigMap + the pod's flags,
// defaults applied), what mode runs (/proxyMode, else the "Using X Proxier" log line), and what each mode's
// dataplane leaves on the node (KUBE-SVC chains, IPVS virtual servers and kube-ipvs0, the kube-proxy nft table).
// Pure; memoised per (cluster, node) snapshot pair.
import type {ConfigMap, DaemonSet, Pod} from '../../model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../model/snapshot.js'
import {artifactText} from '../../model/snapshot.js'
import {parseIptablesSave} from '../../parse/iptables-save.js'
import {parseIpvsadm} from '../../parse/ipvsadm.js'
import {type KubeProxyConfig, parseKubeProxyConfig} from '../../parse/kube-proxy-config.js'
import {effectiveKubeProxyConfig, kubeProxyFromManifest, type KubeProxyFlags, parseKubeProxyArgs} from '../../parse/kube-proxy-flags.js'
import {findInterface, parseLinks} from '../../parse/links.js'
import {kubeProxyTables, parseNft} from '../../parse/nft.js'
import {parseProxierLog, parseProxyModeBody, type ProxierLog} from '../../parse/proxy-mode.js'
import type {CheckContext} from '../types.js'

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

const memo = new WeakMap<ClusterSnapshot, WeakMap<NodeSnapshot, ProxyFacts>>()

export function isKubeProxyPod(p: Pod): boolean {
  return (
    p.metadata.namespace === 'kube-system' &&
    (p.metadata.labels?.['k8s-app'] === 'kube-proxy' || p.metadata.name.startsWith('kube-proxy-') || (p.spec?.containers ?? []).some((c) => c.name === 'kube-proxy'))
  )
}

/** The kube-proxy pod on this node; a running, not-terminating one wins over leftovers. */
export function kubeProxyPodOn(cluster: ClusterSnapshot, node: string): Pod | undefined {
  const pods = cluster.pods.filter((p) => p.spec?.nodeName === node && isKubeProxyPod(p))
  const rank = (p: Pod) => (p.metadata.deletionTimestamp ? 0 : 2) + (p.status?.phase === 'Running' ? 1 : 0)
  return pods.sort((a, b) => rank(b) - rank(a) || (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''))[0]
}

export function kubeProxyDaemonSet(cluster: ClusterSnapshot): DaemonSet | undefined {
  const sets = cluster.daemonSets.filter((d) => d.metadata.namespace === 'kube-system' && (d.metadata.name === 'kube-proxy' || (d.spec?.template?.spec?.containers ?? []).some((c) => c.name === 'kube-proxy')))
  return sets.find((d) => d.metadata.name === 'kube-proxy') ?? sets[0]
}

function kubeProxyConfigMap(cluster: ClusterSnapshot): ConfigMap | undefined {
  for (const name of CONFIGMAP_NAMES) {
    const cm = cluster.configMaps.find((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === name)
    if (cm) return cm
  }
  return undefined
}

/** `v1.31.4` → minor 31, from an image tag such as `registry.k8s.io/kube-proxy:v1.31.4-eksbuild.1`. */
export function minorFromVersion(text: string | undefined): number | undefined {
  const m = /(?:^|[:v])1\.(\d+)(?:\.|$|-)/.exec(text ?? '')
  return m ? Number(m[1]) : undefined
}

function kubeProxyImage(containers: ReadonlyArray<{name: string; image?: string}> | undefined): string | undefined {
  return (containers ?? []).find((c) => c.name === 'kube-proxy' || /(^|\/)kube-proxy[:@]/.test(c.image ?? ''))?.image
}

function versionOf(cluster: ClusterSnapshot, node: NodeSnapshot, pod: Pod | undefined, ds: DaemonSet | undefined): ProxyFacts['version'] {
  const k8sNode = cluster.nodes.find((n) => n.metadata.name === node.node)
  const candidates = [
    kubeProxyImage(pod?.spec?.containers),
    kubeProxyImage(ds?.spec?.template?.spec?.containers),
    k8sNode?.status?.nodeInfo?.kubeProxyVersion,
    cluster.serverVersion,
  ]
  for (const c of candidates) {
    const minor = minorFromVersion(c)
    if (minor !== undefined && c !== undefined) return {text: c.slice(c.lastIndexOf(':') + 1), minor}
  }
  return undefined
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

function configured(cluster: ClusterSnapshot, pod: Pod | undefined, ds: DaemonSet | undefined, version: string | undefined): Pick<ProxyFacts, 'configured' | 'configuredUnknown'> {
  const cm = kubeProxyConfigMap(cluster)
  let config: KubeProxyConfig | undefined
  if (cm) {
    try {
      config = parseKubeProxyConfig(JSON.stringify({apiVersion: 'v1', kind: 'ConfigMap', ...cm}), version === undefined ? {} : {version})
    } catch (err) {
      return {configuredUnknown: `the kube-system/${cm.metadata.name} ConfigMap could not be read: ${(err as Error).message}`}
    }
  }
  // The pod's own spec is what kube-proxy was started with; the DaemonSet is what the next pod gets.
  const workload = pod && (pod.spec?.containers ?? []).length > 0 ? ({...pod, kind: 'Pod'} as Pod) : ds ? ({...ds, kind: 'DaemonSet'} as DaemonSet) : undefined
  const flags = flagsOf(workload, version)
  if (!config && !flags) return {configuredUnknown: 'neither the kube-proxy ConfigMap nor a kube-proxy DaemonSet/pod spec was collected'}
  const eff = effectiveKubeProxyConfig({...(config ? {config} : {}), ...(flags ? {flags} : {}), ...(version === undefined ? {} : {version})})
  const mode = typeof eff.values['mode'] === 'string' && eff.values['mode'] !== '' ? eff.values['mode'] : 'iptables'
  return {configured: {mode, source: describeOrigin(eff, cm?.metadata.name), config: eff}}
}

function dataplane(node: NodeSnapshot): Dataplane {
  const d: Dataplane = {}
  const ipt = artifactText(node, 'iptables-save')
  if (ipt !== undefined) {
    try {
      const nat = parseIptablesSave(ipt, {family: 'ipv4'}).tables.find((t) => t.name === 'nat')
      d.iptablesServiceChains = (nat?.chains ?? []).map((c) => c.name).filter((n) => /^KUBE-(SVC|SEP|SVL|EXT|FW)-/.test(n))
    } catch {
      // Unreadable: no evidence either way.
    }
  }
  const ipvs = artifactText(node, 'ipvsadm')
  if (ipvs !== undefined) {
    try {
      d.ipvsServices = parseIpvsadm(ipvs).virtualServers.map((v) => v.id)
    } catch {
      // Unreadable listing.
    }
  }
  for (const id of ['ip-link', 'ip-addr']) {
    const text = artifactText(node, id)
    if (text === undefined || d.kubeIpvs0 !== undefined) continue
    try {
      const iface = findInterface(parseLinks(text), 'kube-ipvs0')
      d.kubeIpvs0 = {present: iface !== undefined, addresses: (iface?.addresses ?? []).map((a) => `${a.local}/${a.prefixlen}`)}
    } catch {
      // Unreadable listing.
    }
  }
  const nft = artifactText(node, 'nft-ruleset')
  if (nft !== undefined) {
    try {
      d.nftTables = nft.trim() === '' ? [] : kubeProxyTables(parseNft(nft)).map((t) => `${t.family} ${t.name}`)
    } catch {
      // Unreadable ruleset.
    }
  }
  return d
}

function compute(cluster: ClusterSnapshot, node: NodeSnapshot): ProxyFacts {
  const pod = kubeProxyPodOn(cluster, node.node)
  const ds = kubeProxyDaemonSet(cluster)
  const version = versionOf(cluster, node, pod, ds)
  const facts: ProxyFacts = {dataplane: dataplane(node), ...configured(cluster, pod, ds, version?.text)}
  if (pod) facts.pod = pod
  if (version) facts.version = version
  const logText = pod ? cluster.kubeProxyLogs[pod.metadata.name] : undefined
  if (logText !== undefined) {
    facts.logText = logText
    facts.log = parseProxierLog(logText)
  }
  const body = artifactText(node, 'proxy-mode')
  if (body !== undefined) {
    try {
      facts.running = {mode: parseProxyModeBody(body), source: 'kube-proxy /proxyMode'}
    } catch {
      // Not a mode (an error page, say): fall back to the log.
    }
  }
  if (!facts.running && facts.log?.mode && pod) {
    facts.running = {mode: facts.log.mode, source: `log of ${pod.metadata.name} line ${facts.log.modeLine ?? '?'}`}
  }
  return facts
}

export function proxyFacts(ctx: CheckContext): ProxyFacts {
  let perNode = memo.get(ctx.cluster)
  if (!perNode) memo.set(ctx.cluster, (perNode = new WeakMap()))
  let f = perNode.get(ctx.node)
  if (!f) perNode.set(ctx.node, (f = compute(ctx.cluster, ctx.node)))
  return f
}

/** Log lines (1-based numbers) as evidence. */
export function logLines(text: string | undefined, lines: readonly number[]): string[] {
  if (text === undefined) return []
  const all = text.split(/\r?\n/)
  return lines.map((n) => `log line ${n}: ${(all[n - 1] ?? '').trim()}`)
}
