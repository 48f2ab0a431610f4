// The parse stage: NodeSnapshot (raw text, what bundles store) → NodeFacts (each artifact parsed at most once per
// node per run, lazily, with a typed problem when it cannot be parsed) → checks. One RunFacts per run holds the
// cluster-wide facts and one NodeFacts per node. The only cache outside a run is NodeFacts.of's, for callers that
// look at one node without running the checks (a dashboard screen, `proxy diff NODE`, a repair command).
import type {ClusterSnapshot, NodeSnapshot} from '../model/snapshot.js'
import {artifactText} from '../model/snapshot.js'
import {type ConntrackEntry, parseConntrack} from '../parse/conntrack.js'
import {type IptablesDump, parseIptablesSave} from '../parse/iptables-save.js'
import {type IpsetTable, parseIpset} from '../parse/ipset.js'
import {type IpvsTable, parseIpvsadm} from '../parse/ipvsadm.js'
import {type KernelModules, parseKernelModules} from '../parse/kernel-modules.js'
import {type KubeProxyConfigz, parseKubeProxyConfigz} from '../parse/kube-proxy-configz.js'
import {type LinkTable, parseLinks} from '../parse/links.js'
import {type NftRuleset, parseNft} from '../parse/nft.js'
import {type FdbTable, parseFdb} from '../parse/fdb.js'
import {type NeighTable, parseNeigh} from '../parse/neigh.js'
import {type MetricFamily, parsePrometheusText} from '../parse/prom-metrics.js'
import {parseRoutes, type RouteTable} from '../parse/routes.js'
import {type LayoutDiscovery, parseLayoutDiscovery} from '../parse/layout-discovery.js'
import {type ResolvedLayout, resolveLayout} from '../layout/resolve.js'
import {computeProxyFacts, kubeProxyConfigFacts, type KubeProxyConfigFacts, type ProxyFacts} from './kube-proxy.js'
import {type DataplaneFact, formatParseProblem, type LayoutFact, type ParseProblem, type Parsed, type ProxyModeFact, type ServicesOwnerFact} from './types.js'

/** A typed key for a value derived from the facts (a check family's view, a diff), computed once per node or run. */
export interface FactKey<T> {
  readonly name: string
  /** Phantom: ties the key to its value type. */
  readonly __type?: (t: T) => T
}

export function factKey<T>(name: string): FactKey<T> {
  return {name}
}

/** Counts computations by name: the proof that each artifact is parsed (and each view built) once. */
class Memo {
  private readonly values = new Map<string, unknown>()
  readonly counts = new Map<string, number>()

  get<T>(name: string, compute: () => T): T {
    if (this.values.has(name)) return this.values.get(name) as T
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1)
    const v = compute()
    this.values.set(name, v)
    return v
  }
}

function parseWith<T>(node: NodeSnapshot, id: string, text: string, parse: (text: string) => T): Parsed<T> {
  try {
    return {ok: true, value: parse(text)}
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err))
    const line = (err as {line?: unknown}).line
    const problem: ParseProblem = {artifact: id, reason: e.message}
    const source = node.artifacts[id]?.source
    if (source !== undefined) problem.source = source
    if (typeof line === 'number') problem.line = line
    return {ok: false, problem, error: e}
  }
}

/** Facts for callers outside a run, by cluster snapshot (see NodeFacts.of). */
const OUTSIDE_RUNS = new WeakMap<ClusterSnapshot, RunFacts>()

/** Cluster-wide facts for one run, and the NodeFacts of each node in it. */
export class RunFacts {
  private readonly memo = new Memo()
  private readonly nodes = new WeakMap<NodeSnapshot, NodeFacts>()

  constructor(readonly cluster: ClusterSnapshot) {}

  /** The facts of one node: the same object for the same snapshot, for the whole run. */
  forNode(node: NodeSnapshot): NodeFacts {
    let f = this.nodes.get(node)
    if (!f) this.nodes.set(node, (f = new NodeFacts(node, this)))
    return f
  }

  /** A value derived from the cluster snapshot alone, computed once per run. */
  derive<T>(key: FactKey<T>, compute: (cluster: ClusterSnapshot) => T): T {
    return this.memo.get(key.name, () => compute(this.cluster))
  }

  /** How many times each cluster-wide value was computed. */
  get computeCounts(): ReadonlyMap<string, number> {
    return this.memo.counts
  }
}

/** One node's parsed artifacts and derived facts. */
export class NodeFacts {
  private readonly memo = new Memo()
  private readonly parsedById = new Map<string, Parsed<unknown>>()
  readonly cluster: ClusterSnapshot

  constructor(
    readonly node: NodeSnapshot,
    readonly run: RunFacts,
  ) {
    this.cluster = run.cluster
  }

  /**
   * Facts for one node outside a run: shared by every caller with the same snapshot pair (a dashboard screen asks
   * for the same node's diff on every Service it shows), held weakly so they go with the snapshots.
   */
  static of(cluster: ClusterSnapshot, node: NodeSnapshot): NodeFacts {
    let run = OUTSIDE_RUNS.get(cluster)
    if (!run) OUTSIDE_RUNS.set(cluster, (run = new RunFacts(cluster)))
    return run.forNode(node)
  }

  /** The raw content of an artifact collected without error. */
  text(id: string): string | undefined {
    return artifactText(this.node, id)
  }

  private parsed<T>(id: string, variant: string, parse: (text: string) => T): Parsed<T> | undefined {
    const text = this.text(id)
    if (text === undefined) return undefined
    return this.memo.get(`parse ${id}${variant}`, () => {
      const p = parseWith(this.node, id, text, parse)
      this.parsedById.set(id, p)
      return p
    })
  }

  /** An iptables-save dump (`iptables-save`, `iptables-legacy-save`, `iptables-nft-save`), read as IPv4. */
  iptablesSave(id: 'iptables-save' | 'iptables-legacy-save' | 'iptables-nft-save' = 'iptables-save'): Parsed<IptablesDump> | undefined {
    return this.parsed(id, '', (t) => parseIptablesSave(t, {family: 'ipv4'}))
  }

  /** `ipvsadm -Sn`; an empty listing is an empty table (a node without virtual servers prints nothing). */
  ipvsadm(): Parsed<IpvsTable> | undefined {
    return this.parsed('ipvsadm', '', (t) => (t.trim() === '' ? {format: 'save', virtualServers: []} : parseIpvsadm(t)))
  }

  /** `ipset save`; empty is an empty table. */
  ipset(): Parsed<IpsetTable> | undefined {
    return this.parsed('ipset', '', (t) => (t.trim() === '' ? {format: 'save', sets: []} : parseIpset(t)))
  }

  /** `ip -j addr` or `ip -j link`. */
  links(id: 'ip-addr' | 'ip-link' = 'ip-addr'): Parsed<LinkTable> | undefined {
    return this.parsed(id, '', parseLinks)
  }

  /** `nft list ruleset`; empty is a ruleset without tables. */
  nftRuleset(): Parsed<NftRuleset> | undefined {
    return this.parsed('nft-ruleset', '', (t) => (t.trim() === '' ? {format: 'text', tables: []} : parseNft(t)))
  }

  /** `ip route show table all` / `ip -6 route ...`. */
  routes(id: 'ip-route' | 'ip6-route' = 'ip-route'): Parsed<RouteTable> | undefined {
    return this.parsed(id, '', parseRoutes)
  }

  /** `conntrack -L -p udp`. */
  conntrackUdp(): Parsed<ConntrackEntry[]> | undefined {
    return this.parsed('conntrack-udp', '', parseConntrack)
  }

  /** /proc/modules (or lsmod). */
  kernelModules(): Parsed<KernelModules> | undefined {
    return this.parsed('modules', '', parseKernelModules)
  }

  /** kube-proxy's /metrics. */
  kubeProxyMetrics(): Parsed<MetricFamily[]> | undefined {
    return this.parsed('kube-proxy-metrics', '', parsePrometheusText)
  }

  /** kube-proxy's /configz: the configuration the running kube-proxy was started with. */
  kubeProxyConfigz(): Parsed<KubeProxyConfigz> | undefined {
    return this.parsed('kube-proxy-configz', '', parseKubeProxyConfigz)
  }

  /** `ip -j neigh show`; empty is an empty table. */
  neighbours(): Parsed<NeighTable> | undefined {
    return this.parsed('ip-neigh', '', (t) => (t.trim() === '' ? {format: 'ip-json', entries: []} : parseNeigh(t)))
  }

  /** `bridge -j fdb show`; empty is an empty table. */
  bridgeFdb(): Parsed<FdbTable> | undefined {
    return this.parsed('bridge-fdb', '', (t) => (t.trim() === '' ? {format: 'bridge-json', entries: []} : parseFdb(t)))
  }

  /** Every artifact that was read and could not be parsed, so far (artifacts are parsed on first use). */
  get problems(): ParseProblem[] {
    return [...this.parsedById.values()].flatMap((p) => (p.ok ? [] : [p.problem]))
  }

  /** A value derived from this node's facts (a check family's view, a diff), computed once per node per run. */
  derive<T>(key: FactKey<T>, compute: (facts: NodeFacts) => T): T {
    return this.memo.get(`derive ${key.name}`, () => compute(this))
  }

  /** How many times each artifact was parsed and each derived value computed, by name. */
  get computeCounts(): ReadonlyMap<string, number> {
    return this.memo.counts
  }

  // -------------------------------------------------------------------------------------------------------------
  // kube-proxy

  /** The kube-proxy configuration file from the ConfigMap (one schema-aware parse, for every check). */
  get kubeProxyConfig(): KubeProxyConfigFacts {
    return this.memo.get('kube-proxy config', () => kubeProxyConfigFacts(this))
  }

  /** kube-proxy on this node: configured and running mode, version, log, what each mode's dataplane left behind. */
  get proxy(): ProxyFacts {
    return this.memo.get('kube-proxy facts', () => computeProxyFacts(this))
  }

  /** The mode kube-proxy runs in: the running one (/proxyMode, else its log), else the configured one. */
  get proxyMode(): ProxyModeFact {
    const mode = this.proxy.running?.mode ?? this.proxy.configured?.mode
    return mode === 'iptables' || mode === 'ipvs' || mode === 'nftables' || mode === 'kernelspace' ? mode : 'unknown'
  }

  // -------------------------------------------------------------------------------------------------------------
  // layout

  /** The `layout` discovery artifact (what runs where on the node). */
  layoutDiscovery(): Parsed<LayoutDiscovery> | undefined {
    return this.parsed('layout', '', parseLayoutDiscovery)
  }

  /** Distribution, kubelet config, kube-proxy, CNI and Services owner, from the discovery (when read) and the API. */
  get resolvedLayout(): ResolvedLayout {
    return this.memo.get('layout', () => {
      const d = this.layoutDiscovery()
      const mode = this.proxyMode
      return resolveLayout({
        node: this.node.node,
        cluster: this.cluster,
        ...(d?.ok ? {discovery: d.value} : d ? {discoveryProblem: formatParseProblem(d.problem)} : {}),
        ...(mode !== 'unknown' ? {proxyMode: mode} : {}),
        kubeProxyAnswered: this.proxy.running?.source === 'kube-proxy /proxyMode',
        ...(this.text('rancher-config') ? {rancherConfig: this.text('rancher-config')} : {}),
      })
    })
  }

  /** Who implements Services on the node. */
  get servicesOwner(): ServicesOwnerFact {
    return this.resolvedLayout.servicesOwner.owner
  }

  /**
   * The Service dataplane's backend: `ebpf` when Cilium or Calico eBPF owns Services, `nftables` in kube-proxy's
   * nftables mode, else the iptables backend `iptables --version` names.
   */
  get dataplane(): DataplaneFact {
    return this.memo.get('dataplane', () => {
      const owner = this.servicesOwner
      if (owner === 'cilium' || owner === 'calico-ebpf') return 'ebpf'
      if (this.proxyMode === 'nftables') return 'nftables'
      const v = this.text('iptables-version') ?? ''
      if (/\(nf_tables\)/.test(v)) return 'iptables-nft'
      if (/\(legacy\)/.test(v)) return 'iptables-legacy'
      return 'unknown'
    })
  }

  /** The node's CNI. */
  get layout(): LayoutFact {
    return this.resolvedLayout.cni.name
  }
}
