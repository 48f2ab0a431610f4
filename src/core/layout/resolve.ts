// Discovery facts + cluster objects → the node's resolved layout: distribution and version, where the kubelet's
// config lives, where kube-proxy runs, the CNI and its mode, and who implements Services. Pure. Every conclusion
// carries the evidence it came from; what cannot be told stays `unknown` (never a finding).
import type {ConfigMap, DaemonSet, KubeObject, Node, Pod} from '../model/k8s.js'
import type {ClusterSnapshot} from '../model/snapshot.js'
import {flagValue, type LayoutDiscovery, parseRancherSettings, type RancherArg} from '../parse/layout-discovery.js'
import {type Distribution, type KubeProxyPlacement, knownLayout} from './known-layouts.js'

export type CniName = 'calico' | 'canal' | 'flannel' | 'cilium' | 'aws-vpc-cni' | 'azure-cni' | 'gke' | 'kube-router' | 'ovn-kubernetes' | 'antrea' | 'weave' | 'other' | 'unknown'

export type ServicesOwner = 'kube-proxy' | 'cilium' | 'calico-ebpf' | 'ovn-kubernetes' | 'kube-router' | 'antrea' | 'none' | 'unknown'

export const SERVICES_OWNER_TITLE: Record<ServicesOwner, string> = {
  'kube-proxy': 'kube-proxy',
  cilium: 'Cilium',
  'calico-ebpf': 'Calico eBPF',
  'ovn-kubernetes': 'OVN-Kubernetes',
  'kube-router': 'kube-router',
  antrea: 'Antrea',
  none: 'nothing',
  unknown: 'unknown',
}

export interface ResolvedServicesOwner {
  owner: ServicesOwner
  /** Why: `kube-proxy-replacement=true in kube-system/cilium-config`. */
  reason: string
  /** kube-proxy's mode when kube-proxy owns Services and the mode is known. */
  mode?: string
  /** kube-proxy also runs on the node although another owner implements Services (two owners). */
  kubeProxyAlsoRunning?: string
}

export interface ResolvedLayout {
  distribution: Distribution
  title: string
  /** The kubelet's version as the Node reports it (`v1.33.4+k3s1`). */
  version?: string
  os?: string
  kubelet: {configPaths: string[]; configDirs: string[]; flagsSource: string; embeddedIn?: 'k3s'; source: 'running kubelet' | 'layout table' | 'unknown'}
  /** `flags`: k3s's embedded kube-proxy's flags (kube-proxy-arg in its config files, then its command line). */
  kubeProxy: {
    where: KubeProxyPlacement['kind']
    detail: string
    mode?: string
    flags?: RancherArg[]
    /**
     * The KubeProxyConfiguration an embedded kube-proxy runs with, where no ConfigMap holds one (k3s): what k3s
     * passes (proxy-mode iptables, its cluster-cidr) overlaid with kube-proxy-arg. The proxier renders with it.
     */
    config?: Record<string, unknown>
  }
  cni: {name: CniName; mode?: string; detail?: string}
  servicesOwner: ResolvedServicesOwner
  clusterDNS?: string
  /** Whether the node's discovery artifact was read (false: resolved from the API alone). */
  discovered: boolean
  evidence: string[]
}

export interface LayoutInputs {
  node: string
  cluster: ClusterSnapshot
  discovery?: LayoutDiscovery
  /** kube-proxy's mode as the node facts tell it (running, else configured). */
  proxyMode?: string
  /** Why the node's discovery output could not be read (then the layout comes from the API alone). */
  discoveryProblem?: string
  /** A kube-proxy answered on the node (127.0.0.1:10249/proxyMode): one runs there, whatever launched it. */
  kubeProxyAnswered?: boolean
  /** The `rancher-config` artifact: k3s/RKE2 config.yaml and config.yaml.d (kube-proxy-arg, disable-kube-proxy). */
  rancherConfig?: string
}

const KUBE_SYSTEM = 'kube-system'

export function resolveLayout(input: LayoutInputs): ResolvedLayout {
  const evidence: string[] = input.discoveryProblem !== undefined ? [`layout discovery unreadable: ${input.discoveryProblem}`] : []
  const d = input.discovery
  const node = input.cluster.nodes.find((n) => n.metadata.name === input.node)
  const distribution = resolveDistribution(d, node, input.cluster, evidence)
  const table = knownLayout(distribution)
  const version = node?.status?.nodeInfo?.kubeletVersion
  const out: ResolvedLayout = {
    distribution,
    title: table.title,
    kubelet: kubeletOf(d, distribution, evidence),
    kubeProxy: {where: 'unknown', detail: ''},
    cni: resolveCni(d, input.cluster, input.node, evidence),
    servicesOwner: {owner: 'unknown', reason: ''},
    discovered: d !== undefined,
    evidence,
  }
  if (version) out.version = version
  const os = d?.osRelease?.prettyName ?? node?.status?.nodeInfo?.osImage
  if (os) out.os = os
  if (table.clusterDNS) {
    const dns = rancherClusterDNS(distribution, d, input.rancherConfig)
    out.clusterDNS = dns?.value ?? table.clusterDNS
    evidence.push(dns ? `clusterDNS ${dns.value} (cluster-dns in ${dns.source})` : `clusterDNS ${table.clusterDNS} (${table.title}'s default cluster-dns; a server's cluster-dns reaches agents when they join, not through their config.yaml)`)
  }
  out.kubeProxy = resolveKubeProxy(d, distribution, input, evidence)
  out.servicesOwner = resolveServicesOwner(d, input, out, evidence)
  if (out.servicesOwner.owner === 'kube-proxy' && input.proxyMode) out.kubeProxy.mode = input.proxyMode
  return out
}

// -------------------------------------------------------------------------------------------------------------
// distribution

/**
 * The node's distribution from the API alone (its Node object and the cluster's objects, no discovery from the
 * node), with the evidence: what resolveLayout concludes for a node that was not examined. Cheap (no CNI or
 * Services resolution), for callers that need only the distribution of many nodes (the in-cluster agent's mounts).
 */
export function distributionFromApi(cluster: ClusterSnapshot, node: Node): {distribution: Distribution; evidence: string[]} {
  const evidence: string[] = []
  return {distribution: resolveDistribution(undefined, node, cluster, evidence), evidence}
}

function has(d: LayoutDiscovery | undefined, path: string): boolean {
  return d !== undefined && (d.paths.includes(path) || d.files.includes(path))
}

function process(d: LayoutDiscovery | undefined, ...names: string[]) {
  return d?.processes.find((p) => names.includes(p.name))
}

function resolveDistribution(d: LayoutDiscovery | undefined, node: Node | undefined, cluster: ClusterSnapshot, ev: string[]): Distribution {
  const version = node?.status?.nodeInfo?.kubeletVersion ?? ''
  const osImage = node?.status?.nodeInfo?.osImage ?? ''
  const provider = node?.spec?.providerID ?? ''
  const labels = node?.metadata.labels ?? {}
  const osId = d?.osRelease?.id ?? ''
  const osVersion = d?.osRelease?.versionId ?? ''
  const note = (what: string) => ev.push(what)

  if (/\+k3s\d*/.test(version) || d?.kubelet?.embeddedIn === 'k3s' || has(d, '/etc/rancher/k3s/config.yaml')) {
    note(/\+k3s/.test(version) ? `kubeletVersion ${version} (k3s build)` : d?.kubelet?.embeddedIn === 'k3s' ? `the kubelet runs inside k3s ${d.kubelet.role ?? ''} (pid ${d.kubelet.pid})` : 'file /etc/rancher/k3s/config.yaml')
    return 'k3s'
  }
  if (/\+rke2/.test(version) || process(d, 'rke2') || has(d, '/etc/rancher/rke2/config.yaml') || has(d, '/var/lib/rancher/rke2/agent/pod-manifests')) {
    note(/\+rke2/.test(version) ? `kubeletVersion ${version} (RKE2 build)` : process(d, 'rke2') ? 'an rke2 process runs' : 'RKE2 paths (/etc/rancher/rke2, /var/lib/rancher/rke2)')
    return 'rke2'
  }
  if (osId === 'talos' || /^Talos\b/.test(osImage)) {
    note(osId === 'talos' ? 'os-release ID=talos' : `osImage "${osImage}"`)
    return 'talos'
  }
  if (osId === 'bottlerocket' || /^Bottlerocket\b/.test(osImage)) {
    note(osId === 'bottlerocket' ? 'os-release ID=bottlerocket' : `osImage "${osImage}"`)
    return 'bottlerocket'
  }
  const aws = provider.startsWith('aws://') || Object.keys(labels).some((k) => k.startsWith('eks.amazonaws.com/'))
  if (has(d, '/etc/kubernetes/kubelet/config.json') || has(d, '/usr/bin/nodeadm') || (aws && (/Amazon Linux 2023/.test(osImage) || (osId === 'amzn' && osVersion === '2023')))) {
    note(has(d, '/etc/kubernetes/kubelet/config.json') ? 'file /etc/kubernetes/kubelet/config.json (nodeadm)' : has(d, '/usr/bin/nodeadm') ? 'nodeadm is installed' : `AWS node (${provider || 'eks.amazonaws.com labels'}) with osImage "${osImage || 'Amazon Linux 2023'}"`)
    return 'eks-al2023'
  }
  if (has(d, '/etc/kubernetes/kubelet/kubelet-config.json') || has(d, '/etc/eks/bootstrap.sh') || (aws && (/Amazon Linux 2\b/.test(osImage) || (osId === 'amzn' && osVersion === '2')))) {
    note(has(d, '/etc/kubernetes/kubelet/kubelet-config.json') ? 'file /etc/kubernetes/kubelet/kubelet-config.json' : has(d, '/etc/eks/bootstrap.sh') ? 'file /etc/eks/bootstrap.sh' : `AWS node with osImage "${osImage}"`)
    return 'eks-al2'
  }
  const gke = provider.startsWith('gce://') && Object.keys(labels).some((k) => k.startsWith('cloud.google.com/gke'))
  if (has(d, '/home/kubernetes/kubelet-config.yaml') || gke) {
    note(has(d, '/home/kubernetes/kubelet-config.yaml') ? 'file /home/kubernetes/kubelet-config.yaml' : `GKE node (${provider}, cloud.google.com/gke-* labels)`)
    return 'gke-cos'
  }
  const aks = provider.startsWith('azure://') && Object.keys(labels).some((k) => k.startsWith('kubernetes.azure.com/'))
  if (has(d, '/etc/default/kubeletconfig.json') || aks) {
    note(has(d, '/etc/default/kubeletconfig.json') ? 'file /etc/default/kubeletconfig.json' : `AKS node (${provider}, kubernetes.azure.com/* labels)`)
    return 'aks'
  }
  const kubeadmCm = cluster.configMaps.some((c) => c.metadata.namespace === KUBE_SYSTEM && c.metadata.name === 'kubeadm-config')
  if (has(d, '/var/lib/kubelet/kubeadm-flags.env') || (d === undefined && kubeadmCm)) {
    note(has(d, '/var/lib/kubelet/kubeadm-flags.env') ? 'file /var/lib/kubelet/kubeadm-flags.env' : 'ConfigMap kube-system/kubeadm-config (cluster-wide; the node was not examined)')
    return 'kubeadm'
  }
  const found = d ? describeFound(d) : 'no layout discovery from the node'
  note(`unknown layout: ${found}`)
  return 'unknown'
}

/** What was found on a node no row matched, in one line. */
function describeFound(d: LayoutDiscovery): string {
  const parts: string[] = []
  if (d.osRelease?.id) parts.push(`os ${d.osRelease.id}${d.osRelease.versionId ? ` ${d.osRelease.versionId}` : ''}`)
  if (d.kubelet) parts.push(`kubelet pid ${d.kubelet.pid}${d.kubelet.config ? ` --config=${d.kubelet.config}` : ''}`)
  else parts.push('no kubelet process')
  if (d.paths.length > 0) parts.push(`paths ${d.paths.join(', ')}`)
  return parts.join('; ')
}

function kubeletOf(d: LayoutDiscovery | undefined, distribution: Distribution, ev: string[]): ResolvedLayout['kubelet'] {
  const table = knownLayout(distribution)
  const k = d?.kubelet
  if (k) {
    const configPaths = k.config !== undefined ? [k.config] : table.kubelet.configPaths
    const configDirs = k.configDir !== undefined ? [k.configDir] : table.kubelet.configDirs
    if (k.config !== undefined) ev.push(`kubelet --config=${k.config}${k.configDir !== undefined ? ` --config-dir=${k.configDir}` : ''} (pid ${k.pid})`)
    const out: ResolvedLayout['kubelet'] = {configPaths, configDirs, flagsSource: table.kubelet.flagsSource, source: 'running kubelet'}
    if (k.embeddedIn) out.embeddedIn = k.embeddedIn
    return out
  }
  return {configPaths: table.kubelet.configPaths, configDirs: table.kubelet.configDirs, flagsSource: table.kubelet.flagsSource, source: distribution === 'unknown' ? 'unknown' : 'layout table'}
}

/**
 * `cluster-dns` from the k3s/RKE2 config files of this distribution (and the k3s/rke2 command line): both write it
 * as clusterDNS into the kubelet drop-in 00-<k3s|rke2>-defaults.conf (k3s-io/k3s pkg/daemons/agent writeKubeletConfig,
 * which RKE2 builds with Program=rke2); absent, the default 10.43.0.10 (k3s control defaults; docs.rke2.io server config).
 */
function rancherClusterDNS(distribution: Distribution, d: LayoutDiscovery | undefined, rancherConfig: string | undefined): {value: string; source: string} | undefined {
  if (distribution !== 'k3s' && distribution !== 'rke2') return undefined
  const argv = process(d, distribution)?.argv ?? (distribution === 'k3s' && d?.kubelet?.embeddedIn === 'k3s' ? d.kubelet.argv : [])
  const s = parseRancherSettings(rancherConfig, argv).scalars['cluster-dns']
  if (!s) return undefined
  const own = s.source.startsWith(`/etc/rancher/${distribution}/`) || s.source === 'the k3s command line'
  return own ? {value: s.value, source: s.source === 'the k3s command line' ? `the ${distribution} command line` : s.source} : undefined
}

// -------------------------------------------------------------------------------------------------------------
// kube-proxy

function kubeSystemDaemonSet(cluster: ClusterSnapshot, name: string): DaemonSet | undefined {
  return cluster.daemonSets.find((ds) => ds.metadata.namespace === KUBE_SYSTEM && ds.metadata.name === name)
}

/**
 * A CNI's DaemonSet by name (or by a label, for manifests that renamed it) in whichever namespace it runs: the
 * snapshot holds every namespace's (flannel's manifest uses kube-flannel, the Tigera operator's calico-node
 * calico-system); kube-system's wins where both exist. Bundles written before hold kube-system's only.
 */
function cniDaemonSet(cluster: ClusterSnapshot, names: readonly string[], label?: {key: string; values: readonly string[]}): DaemonSet | undefined {
  const found = cluster.daemonSets.filter((ds) => names.includes(ds.metadata.name) || (label !== undefined && label.values.includes(ds.metadata.labels?.[label.key] ?? '')))
  return found.find((ds) => ds.metadata.namespace === KUBE_SYSTEM) ?? found[0]
}

/** `DaemonSet kube-flannel/kube-flannel-ds`. */
function nameOf(ds: DaemonSet): string {
  return `DaemonSet ${ds.metadata.namespace ?? KUBE_SYSTEM}/${ds.metadata.name}`
}

/** The DaemonSets CNIs install, by CNI: names across releases (flannel's manifest labels its DaemonSet app=flannel). */
const CNI_DAEMONSETS: Record<string, {names: readonly string[]; label?: {key: string; values: readonly string[]}}> = {
  cilium: {names: ['cilium']},
  antrea: {names: ['antrea-agent']},
  kubeRouter: {names: ['kube-router']},
  calico: {names: ['calico-node']},
  canal: {names: ['canal', 'rke2-canal']},
  flannel: {names: ['kube-flannel-ds', 'kube-flannel', 'flannel'], label: {key: 'app', values: ['flannel']}},
  awsNode: {names: ['aws-node']},
  azureCns: {names: ['azure-cns']},
}

function kubeSystemConfigMap(cluster: ClusterSnapshot, name: string): ConfigMap | undefined {
  return cluster.configMaps.find((c) => c.metadata.namespace === KUBE_SYSTEM && c.metadata.name === name)
}

function isKubeProxyPod(p: Pod): boolean {
  const l = p.metadata.labels ?? {}
  return l['k8s-app'] === 'kube-proxy' || l.component === 'kube-proxy' || /^kube-proxy-/.test(p.metadata.name)
}

/** The kube-proxy pod on the node that is running, if the snapshot has one. */
function kubeProxyPodOn(cluster: ClusterSnapshot, node: string): Pod | undefined {
  return cluster.pods.find((p) => p.spec?.nodeName === node && p.metadata.namespace === KUBE_SYSTEM && isKubeProxyPod(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed')
}

function resolveKubeProxy(d: LayoutDiscovery | undefined, distribution: Distribution, input: LayoutInputs, ev: string[]): ResolvedLayout['kubeProxy'] {
  const staticManifest = d?.files.find((f) => /\/kube-proxy\.(yaml|yml|manifest|json)$/.test(f))
  if (distribution === 'k3s') {
    const k3s = parseRancherSettings(input.rancherConfig, d?.kubelet?.embeddedIn === 'k3s' ? d.kubelet.argv : [])
    for (const p of k3s.problems) ev.push(`k3s config unreadable: ${p}`)
    if (k3s.disableKubeProxy !== undefined) {
      ev.push(`k3s runs with disable-kube-proxy (${k3s.disableKubeProxy})`)
      return {where: 'none', detail: `disabled in k3s (disable-kube-proxy in ${k3s.disableKubeProxy})`}
    }
    const args = k3s.kubeProxyArgs
    const out: ResolvedLayout['kubeProxy'] = {
      where: 'embedded',
      detail: args.length === 0 ? 'embedded in k3s (no kube-proxy-arg: k3s defaults)' : `embedded in k3s, kube-proxy-arg ${args.map((a) => `${a.flag} (${a.source})`).join(', ')}`,
      flags: args,
    }
    const mode = args.map((a) => /^--proxy-mode=(\S+)$/.exec(a.flag)?.[1]).filter((m) => m !== undefined).at(-1)
    // k3s starts its kube-proxy with --proxy-mode=iptables and --cluster-cidr=<its cluster CIDR> (k3s-io/k3s
    // pkg/daemons/agent kubeProxyArgs); kube-proxy-arg entries come after and win.
    out.mode = mode ?? 'iptables'
    const cidr = k3s.scalars['cluster-cidr']
    // NOTE: cluster-cidr is a server setting: an agent's config.yaml does not repeat it, so there the default stands.
    out.config = embeddedKubeProxyConfig(out.mode, cidr?.value ?? '10.42.0.0/16', args)
    ev.push(`k3s kube-proxy mode ${out.mode} (${mode ? 'kube-proxy-arg proxy-mode' : "k3s's --proxy-mode=iptables"}), cluster CIDR ${cidr ? `${cidr.value} (cluster-cidr in ${cidr.source})` : '10.42.0.0/16 (k3s default)'}`)
    return out
  }
  if (staticManifest) {
    ev.push(`static pod manifest ${staticManifest}`)
    const out: ResolvedLayout['kubeProxy'] = {where: 'static-pod', detail: `static pod ${staticManifest}`}
    // A static pod's kube-proxy (RKE2, GKE) is configured by its flags, not a ConfigMap: its command line is the config.
    const argv = d?.kubeProxy?.argv ?? []
    if (argv.length > 0 && flagValue(argv, 'config') === undefined) {
      out.config = embeddedKubeProxyConfig('', '', argv.filter((a) => a.startsWith('--')).map((flag) => ({flag, source: `the kube-proxy command line (pid ${d!.kubeProxy!.pid})`})))
      ev.push(`kube-proxy configured by its command line (pid ${d!.kubeProxy!.pid})`)
    }
    return out
  }
  const ds = kubeSystemDaemonSet(input.cluster, 'kube-proxy')
  const table = knownLayout(distribution).kubeProxy
  if (ds) {
    const cm = table.kind === 'daemonset' ? table.configMap : kubeSystemConfigMap(input.cluster, 'kube-proxy-config') ? {name: 'kube-proxy-config', key: 'config'} : {name: 'kube-proxy', key: 'config.conf'}
    ev.push('DaemonSet kube-system/kube-proxy')
    return {where: 'daemonset', detail: `DaemonSet kube-system/kube-proxy, ConfigMap kube-system/${cm.name} key ${cm.key}`}
  }
  if (d?.kubeProxy) {
    ev.push(`a kube-proxy process runs (pid ${d.kubeProxy.pid}) outside any DaemonSet or static pod the snapshot shows`)
    return {where: 'unknown', detail: `kube-proxy process pid ${d.kubeProxy.pid}`}
  }
  if (d && !kubeProxyPodOn(input.cluster, input.node) && input.cluster.daemonSets.length > 0) {
    return {where: 'none', detail: 'no kube-proxy process, DaemonSet or static pod'}
  }
  return {where: 'unknown', detail: table.kind === 'daemonset' ? `expected as DaemonSet ${table.daemonSet} (layout table; not seen)` : 'not seen'}
}

// -------------------------------------------------------------------------------------------------------------
// CNI

function envOf(ds: DaemonSet | undefined, name: string): string | undefined {
  for (const c of ds?.spec?.template?.spec?.containers ?? []) for (const e of c.env ?? []) if (e.name === name) return e.value
  return undefined
}

function argsOf(ds: DaemonSet | undefined): string[] {
  return (ds?.spec?.template?.spec?.containers ?? []).flatMap((c) => [...(c.command ?? []), ...(c.args ?? [])])
}

/** cilium-config: kube-system's (Cilium's Helm default), else the one beside a Cilium installed in a namespace of its own. */
function ciliumConfig(cluster: ClusterSnapshot): ConfigMap | undefined {
  return kubeSystemConfigMap(cluster, 'cilium-config') ?? cluster.configMaps.find((c) => c.metadata.name === 'cilium-config')
}

function ciliumConfigName(cluster: ClusterSnapshot): string {
  return `${ciliumConfig(cluster)?.metadata.namespace ?? KUBE_SYSTEM}/cilium-config`
}

function resolveCni(d: LayoutDiscovery | undefined, cluster: ClusterSnapshot, node: string, ev: string[]): ResolvedLayout['cni'] {
  const links = new Set(d?.links ?? [])
  const anyLink = (prefix: string) => [...links].some((l) => l.startsWith(prefix))
  const type = d?.cni.firstType
  const ds = (cni: keyof typeof CNI_DAEMONSETS): DaemonSet | undefined => {
    const spec = CNI_DAEMONSETS[cni]
    return spec ? cniDaemonSet(cluster, spec.names, spec.label) : undefined
  }
  const from = (what: string) => ev.push(`CNI: ${what}`)

  const cilium = ds('cilium')
  if (links.has('cilium_host') || type === 'cilium-cni' || cilium || ciliumConfig(cluster)) {
    const cm = ciliumConfig(cluster)?.data ?? {}
    const mode = links.has('cilium_vxlan')
      ? 'vxlan'
      : links.has('cilium_geneve')
        ? 'geneve'
        : cm['routing-mode'] === 'native' || cm.tunnel === 'disabled'
          ? 'native'
          : cm['tunnel-protocol'] ?? (cm.tunnel && cm.tunnel !== 'disabled' ? cm.tunnel : undefined)
    from(links.has('cilium_host') ? 'link cilium_host' : type === 'cilium-cni' ? `CNI config type cilium-cni (${d?.cni.first})` : cilium ? nameOf(cilium) : `ConfigMap ${ciliumConfigName(cluster)}`)
    return mode ? {name: 'cilium', mode} : {name: 'cilium'}
  }
  if (links.has('ovn-k8s-mp0') || type === 'ovn-k8s-cni-overlay') {
    from(links.has('ovn-k8s-mp0') ? 'link ovn-k8s-mp0' : `CNI config type ${type}`)
    return {name: 'ovn-kubernetes', mode: 'geneve'}
  }
  const antrea = ds('antrea')
  if (links.has('antrea-gw0') || type === 'antrea' || antrea) {
    from(links.has('antrea-gw0') ? 'link antrea-gw0' : type === 'antrea' ? 'CNI config type antrea' : nameOf(antrea!))
    return {name: 'antrea'}
  }
  const router = ds('kubeRouter')
  if (links.has('kube-bridge') || router) {
    from(links.has('kube-bridge') ? 'link kube-bridge' : nameOf(router!))
    return {name: 'kube-router', mode: 'bgp'}
  }
  const cn = ds('calico')
  const canal = ds('canal')
  const flannelDs = ds('flannel')
  const calicoOnNode = links.has('tunl0') || links.has('vxlan.calico') || links.has('vxlan-v6.calico') || anyLink('cali') || type === 'calico'
  const flannelOnNode = links.has('flannel.1') || links.has('flannel-wg') || type === 'flannel'
  const calico = calicoOnNode || cn !== undefined
  // A DaemonSet is cluster-wide: where the node was examined, its own links and CNI config decide (a flannel
  // DaemonSet beside a node with only Calico links does not make it canal).
  const flannel = flannelOnNode || (flannelDs !== undefined && (d === undefined || !calicoOnNode))
  if (calico || canal) {
    if (flannelOnNode || canal || (d === undefined && flannelDs !== undefined)) {
      from(links.has('flannel.1') ? 'Calico links or config with flannel.1 (canal)' : canal ? nameOf(canal) : `${nameOf(flannelDs!)} beside Calico`)
      return {name: 'canal', mode: 'vxlan'}
    }
    const mode = calicoMode(links, cluster, cn)
    from(links.has('vxlan.calico') ? 'link vxlan.calico' : links.has('tunl0') ? 'link tunl0' : type === 'calico' ? `CNI config type calico (${d?.cni.first})` : cn ? nameOf(cn) : 'cali* links')
    return mode ? {name: 'calico', mode} : {name: 'calico'}
  }
  if (flannel) {
    const mode = links.has('flannel.1') ? 'vxlan' : links.has('flannel-wg') ? 'wireguard' : d !== undefined && links.has('cni0') ? 'host-gw' : d === undefined ? flannelBackend(cluster, node) : undefined
    from(links.has('flannel.1') ? 'link flannel.1' : type === 'flannel' ? `CNI config type flannel (${d?.cni.first})` : nameOf(flannelDs!))
    return mode ? {name: 'flannel', mode} : {name: 'flannel'}
  }
  const awsNode = ds('awsNode')
  if (type === 'aws-cni' || anyLink('eni') || awsNode) {
    from(type === 'aws-cni' ? `CNI config type aws-cni (${d?.cni.first})` : anyLink('eni') ? 'eni* links' : nameOf(awsNode!))
    return {name: 'aws-vpc-cni', mode: 'eni'}
  }
  const azure = ds('azureCns')
  if (type === 'azure-vnet' || anyLink('azv') || azure) {
    from(type === 'azure-vnet' ? `CNI config type azure-vnet (${d?.cni.first})` : anyLink('azv') ? 'azv* links' : nameOf(azure!))
    return {name: 'azure-cni'}
  }
  if (links.has('weave') || type === 'weave-net') {
    from('weave')
    return {name: 'weave'}
  }
  if ((d?.cni.first ?? '').includes('gke') || anyLink('gke')) {
    from(`GKE CNI (${d?.cni.first ?? 'gke* links'})`)
    return type ? {name: 'gke', mode: type} : {name: 'gke'}
  }
  if (type) {
    from(`CNI config type ${type} (${d?.cni.first}), not one node-doctor knows`)
    return {name: 'other', detail: type}
  }
  const refused = cluster.unavailable?.find((u) => u.resource === 'daemonsets')
  if (refused) from(`unknown; ${refused.note}`)
  return {name: 'unknown'}
}

/**
 * flannel's backend from this Node's lease annotation (`flannel.alpha.coreos.com/backend-type`, which flanneld writes
 * on the Node it runs on), when the node itself was not examined; another Node's word is not this node's.
 */
function flannelBackend(cluster: ClusterSnapshot, node: string): string | undefined {
  const t = cluster.nodes.find((n) => n.metadata.name === node)?.metadata.annotations?.['flannel.alpha.coreos.com/backend-type']
  return t === undefined || t === '' ? undefined : t
}

function calicoMode(links: Set<string>, cluster: ClusterSnapshot, cn: DaemonSet | undefined): string | undefined {
  if (envOf(cn, 'FELIX_BPFENABLED')?.toLowerCase() === 'true') return 'ebpf'
  if (links.has('vxlan.calico')) return 'vxlan'
  if (links.has('tunl0')) return 'ipip'
  const pools = cluster.calico.ipPools.map((p) => (p as KubeObject & {spec?: {ipipMode?: string; vxlanMode?: string}}).spec ?? {})
  if (pools.some((s) => s.vxlanMode && s.vxlanMode !== 'Never')) return 'vxlan'
  if (pools.some((s) => s.ipipMode && s.ipipMode !== 'Never')) return 'ipip'
  if (pools.length > 0) return 'bgp'
  return undefined
}

// -------------------------------------------------------------------------------------------------------------
// Services

/** Cilium's kube-proxy replacement, from cilium-config (kube-system's, else Cilium's own namespace's): `true` (and the older `strict`) replace kube-proxy. */
export function ciliumKubeProxyReplacement(cluster: ClusterSnapshot): {replaces: boolean; value: string} | undefined {
  const v = ciliumConfig(cluster)?.data?.['kube-proxy-replacement']
  if (v === undefined) return undefined
  const value = v.trim().toLowerCase()
  // NOTE: before Cilium 1.14 the values were disabled/partial/probe/strict; `strict` was the full replacement.
  return {replaces: value === 'true' || value === 'strict', value: v.trim()}
}

function resolveServicesOwner(d: LayoutDiscovery | undefined, input: LayoutInputs, layout: ResolvedLayout, ev: string[]): ResolvedServicesOwner {
  const cluster = input.cluster
  const pod = kubeProxyPodOn(cluster, input.node)
  const running = d?.kubeProxy
    ? `a kube-proxy process runs (pid ${d.kubeProxy.pid})`
    : pod
      ? `kube-proxy pod kube-system/${pod.metadata.name} runs on the node`
      : input.kubeProxyAnswered
        ? 'a kube-proxy answers on 127.0.0.1:10249/proxyMode'
        : undefined
  const kubeProxyOnNode = running ?? (layout.kubeProxy.where === 'embedded' ? 'k3s embeds kube-proxy' : undefined)
  const other = otherOwner(d, cluster, layout, ev)
  if (other) {
    // NOTE: k3s's embedded kube-proxy counts as a second owner only when it shows (it answers /proxyMode): k3s
    // without disable-kube-proxy (config.yaml or command line, read in resolveKubeProxy) may still have been started
    // differently before, so "k3s embeds kube-proxy" alone is no proof it runs. That no replacement (Cilium's agent
    // included) answers kube-proxy's 127.0.0.1:10249/proxyMode is unverified.
    if (running) other.kubeProxyAlsoRunning = running
    return other
  }
  if (kubeProxyOnNode || layout.kubeProxy.where === 'daemonset' || layout.kubeProxy.where === 'static-pod') {
    const reason = kubeProxyOnNode ?? layout.kubeProxy.detail
    const out: ResolvedServicesOwner = {owner: 'kube-proxy', reason}
    if (input.proxyMode) out.mode = input.proxyMode
    return out
  }
  if (layout.kubeProxy.where === 'none') {
    ev.push('no kube-proxy and no other Service implementation found')
    return {owner: 'none', reason: layout.kubeProxy.detail}
  }
  return {owner: 'unknown', reason: 'no kube-proxy seen and no other Service implementation identified'}
}

function otherOwner(d: LayoutDiscovery | undefined, cluster: ClusterSnapshot, layout: ResolvedLayout, ev: string[]): ResolvedServicesOwner | undefined {
  const kpr = ciliumKubeProxyReplacement(cluster)
  if (kpr) {
    ev.push(`${ciliumConfigName(cluster)} kube-proxy-replacement: "${kpr.value}"`)
    if (kpr.replaces) return {owner: 'cilium', reason: `kube-proxy-replacement=${kpr.value} in ${ciliumConfigName(cluster)}`}
  }
  // The Tigera operator runs calico-node in calico-system and sets FELIX_BPFENABLED on it only for the BPF dataplane
  // (tigera/operator pkg/controller/installation tests); manifest installs run it in kube-system.
  const calicoNode = cniDaemonSet(cluster, ['calico-node'])
  if (calicoNode && envOf(calicoNode, 'FELIX_BPFENABLED')?.toLowerCase() === 'true') {
    ev.push(`${nameOf(calicoNode)} sets FELIX_BPFENABLED=true`)
    return {owner: 'calico-ebpf', reason: `FELIX_BPFENABLED=true on ${nameOf(calicoNode)}`}
  }
  // NOTE: Calico's eBPF mode set through FelixConfiguration (bpfEnabled) is not in the snapshot: a Calico node
  // without the env variable stays with kube-proxy or unknown, never a guess.
  if (layout.cni.name === 'ovn-kubernetes') return {owner: 'ovn-kubernetes', reason: 'OVN-Kubernetes implements Services as OVN load balancers (link ovn-k8s-mp0)'}
  const router = cniDaemonSet(cluster, ['kube-router'])
  const routerArgs = argsOf(router)
  if (routerArgs.some((a) => a === '--run-service-proxy' || a === '--run-service-proxy=true') || (d?.processes.some((p) => p.name === 'kube-router' && flagValue(p.argv, 'run-service-proxy') === 'true') ?? false)) {
    return {owner: 'kube-router', reason: 'kube-router runs with --run-service-proxy=true'}
  }
  return undefined
}

/** kube-proxy-arg flags that map to KubeProxyConfiguration fields the proxier renders with. */
const KUBE_PROXY_ARG_FIELDS: Record<string, (v: string, c: Record<string, unknown>) => void> = {
  'cluster-cidr': (v, c) => (c.clusterCIDR = v),
  'proxy-mode': (v, c) => (c.mode = v),
  'masquerade-all': (v, c) => (c.iptables = {...(c.iptables as object), masqueradeAll: v === '' || v === 'true'}),
  'iptables-masquerade-bit': (v, c) => (c.iptables = {...(c.iptables as object), masqueradeBit: Number(v)}),
  'nodeport-addresses': (v, c) => (c.nodePortAddresses = v.split(',').filter((x) => x !== '')),
  'detect-local-mode': (v, c) => (c.detectLocalMode = v),
}

/** The configuration a kube-proxy without a config file runs with (k3s's embedded one: its own flags, then kube-proxy-arg; a static pod's: its command line). Flags the proxier does not render with are left out. */
export function embeddedKubeProxyConfig(mode: string, clusterCIDR: string, args: readonly RancherArg[]): Record<string, unknown> {
  const c: Record<string, unknown> = {apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', ...(mode ? {mode} : {}), ...(clusterCIDR ? {clusterCIDR} : {})}
  for (const a of args) {
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(a.flag)
    const set = m ? KUBE_PROXY_ARG_FIELDS[m[1]!] : undefined
    if (m && set) set(m[2] ?? '', c)
  }
  return c
}
