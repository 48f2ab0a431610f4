// The Calico IPAM model as the route checks need it: pools (CIDR, encapsulation), blocks and the node each is
// affine to, and per node its BGP/IPIP address, VXLAN tunnel address and subnet. Read from crd.projectcalico.org/v1
// objects and Node annotations (node-state.md D.1); when the cluster exposes no IPAM data, node podCIDRs stand in
// for blocks (Calico with host-local IPAM, or an etcd datastore the API does not show).
import ipaddr from 'ipaddr.js'
import type {KubeObject, Node, Pod} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import {podHealthProblem} from '../dns/pods.js'

export type Family = 'inet' | 'inet6'
export type EncapMode = 'Always' | 'CrossSubnet' | 'Never'

export interface Cidr {
  /** Canonical `addr/len`, the network address, in the route parser's spelling. */
  text: string
  family: Family
  addr: ipaddr.IPv4 | ipaddr.IPv6
  len: number
}

export interface CalicoPool {
  name: string
  cidr: Cidr
  ipipMode: EncapMode
  vxlanMode: EncapMode
}

export interface CalicoBlock {
  cidr: Cidr
  /** Node the block is affine to; undefined for a block no node owns. */
  node?: string
  /** Where the ownership came from: a confirmed BlockAffinity, an IPAMBlock's `host:` affinity, or a Node's podCIDR. */
  source: 'blockaffinity' | 'ipamblock' | 'podcidr'
}

export interface CalicoNodeAddrs {
  name: string
  /** BGP peer / IPIP next hop per family: projectcalico.org/IPv4Address (or IPv6Address), else the InternalIP. */
  ip: Partial<Record<Family, string>>
  /** The node's subnet per family, from the annotation's prefix length (CrossSubnet decisions). */
  subnet: Partial<Record<Family, Cidr>>
  /** VXLAN tunnel (VTEP) address per family. */
  vtep: Partial<Record<Family, string>>
  /** Every address the node is known by (InternalIP, ExternalIP, annotations, tunnel addresses). */
  all: Set<string>
  /** The Ready condition; undefined when the Node reports none. */
  ready?: boolean
}

export interface CalicoModel {
  pools: CalicoPool[]
  /** Owned blocks (node set) and known unowned IPAM blocks (node undefined). */
  blocks: CalicoBlock[]
  nodes: Map<string, CalicoNodeAddrs>
  /** `ipam` when blocks come from Calico objects, `podcidr` when from Node podCIDRs. */
  source: 'ipam' | 'podcidr'
}

export const CALICO_NODE_LABEL = 'k8s-app'
export const CALICO_NODE_VALUE = 'calico-node'
const ANN = 'projectcalico.org/'

/** Parses `addr/len` (or a bare address as a host prefix) into a canonical network CIDR; undefined when invalid. */
export function parseCidr(text: string | undefined): Cidr | undefined {
  if (typeof text !== 'string') return undefined
  const [a, l] = text.trim().split('/')
  if (a === undefined || !ipaddr.isValid(a)) return undefined
  if (ipaddr.IPv4.isValid(a) && !ipaddr.IPv4.isValidFourPartDecimal(a)) return undefined
  const addr = ipaddr.parse(a)
  const max = addr.kind() === 'ipv6' ? 128 : 32
  const len = l === undefined ? max : /^\d{1,3}$/.test(l) ? Number(l) : NaN
  if (!(len >= 0 && len <= max)) return undefined
  const net = addr.kind() === 'ipv6' ? ipaddr.IPv6.networkAddressFromCIDR(`${a}/${len}`) : ipaddr.IPv4.networkAddressFromCIDR(`${a}/${len}`)
  return {text: `${net.toString()}/${len}`, family: addr.kind() === 'ipv6' ? 'inet6' : 'inet', addr: net, len}
}

/** True when `inner` (a CIDR or an address) lies within `outer`. */
export function cidrContains(outer: Cidr, inner: Cidr | string): boolean {
  const c = typeof inner === 'string' ? parseCidr(inner) : inner
  if (!c || c.family !== outer.family || c.len < outer.len) return false
  return c.addr.kind() === outer.addr.kind() && (c.addr as ipaddr.IPv4).match(outer.addr as ipaddr.IPv4, outer.len)
}

function ipOnly(text: string | undefined): string | undefined {
  const c = parseCidr(text?.split('/')[0])
  return c ? c.addr.toString() : undefined
}

function mode(v: unknown): EncapMode {
  return v === 'Always' || v === 'CrossSubnet' ? v : 'Never'
}

type Spec = Record<string, unknown>
const specOf = (o: KubeObject): Spec => ((o as {spec?: unknown}).spec ?? {}) as Spec
const isDeleted = (v: unknown) => v === true || v === 'true'

export function readPools(cluster: ClusterSnapshot): CalicoPool[] {
  const out: CalicoPool[] = []
  for (const p of cluster.calico.ipPools) {
    const s = specOf(p)
    const cidr = parseCidr(s.cidr as string | undefined)
    if (!cidr) continue
    out.push({name: p.metadata.name, cidr, ipipMode: mode(s.ipipMode), vxlanMode: mode(s.vxlanMode)})
  }
  return out
}

function nodeAddrs(n: Node): CalicoNodeAddrs {
  const ann = n.metadata.annotations ?? {}
  const addrs = n.status?.addresses ?? []
  const out: CalicoNodeAddrs = {
    name: n.metadata.name,
    ip: {},
    subnet: {},
    vtep: {},
    all: new Set(),
  }
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready')
  if (ready) out.ready = ready.status === 'True'
  for (const [family, key] of [['inet', 'IPv4Address'], ['inet6', 'IPv6Address']] as const) {
    const a = ann[ANN + key]
    const ip = ipOnly(a)
    const internal = addrs.map((x) => (x.type === 'InternalIP' ? ipOnly(x.address) : undefined)).find((x) => x !== undefined && (x.includes(':') ? 'inet6' : 'inet') === family)
    if (ip) out.ip[family] = ip
    else if (internal) out.ip[family] = internal
    if (ip && a?.includes('/')) {
      const subnet = parseCidr(a)
      if (subnet) out.subnet[family] = subnet
    }
  }
  for (const [family, key] of [['inet', 'IPv4VXLANTunnelAddr'], ['inet6', 'IPv6VXLANTunnelAddr']] as const) {
    const v = ipOnly(ann[ANN + key])
    if (v) out.vtep[family] = v
  }
  for (const key of ['IPv4Address', 'IPv6Address', 'IPv4IPIPTunnelAddr', 'IPv4VXLANTunnelAddr', 'IPv6VXLANTunnelAddr', 'IPv4WireguardInterfaceAddr']) {
    const v = ipOnly(ann[ANN + key])
    if (v) out.all.add(v)
  }
  for (const a of addrs) {
    const v = ipOnly(a.address)
    if (v) out.all.add(v)
  }
  return out
}

/** Blocks with their owners. Confirmed BlockAffinities are what BIRD and Felix route by; IPAMBlocks fill in when no affinities are visible. */
export function readBlocks(cluster: ClusterSnapshot): CalicoBlock[] {
  const byCidr = new Map<string, CalicoBlock>()
  for (const a of cluster.calico.blockAffinities) {
    const s = specOf(a)
    const cidr = parseCidr(s.cidr as string | undefined)
    if (!cidr || isDeleted(s.deleted) || typeof s.node !== 'string') continue
    if (s.state !== undefined && s.state !== 'confirmed') continue
    if (!byCidr.has(cidr.text)) byCidr.set(cidr.text, {cidr, node: s.node, source: 'blockaffinity'})
  }
  const useBlockAffinity = cluster.calico.blockAffinities.length > 0
  for (const b of cluster.calico.ipamBlocks) {
    const s = specOf(b)
    const cidr = parseCidr(s.cidr as string | undefined)
    if (!cidr || isDeleted(s.deleted) || byCidr.has(cidr.text)) continue
    const aff = typeof s.affinity === 'string' && s.affinity.startsWith('host:') ? s.affinity.slice('host:'.length) : undefined
    byCidr.set(cidr.text, aff !== undefined && !useBlockAffinity ? {cidr, node: aff, source: 'ipamblock'} : {cidr, source: 'ipamblock'})
  }
  return [...byCidr.values()]
}

export function readCalicoModel(cluster: ClusterSnapshot): CalicoModel {
  const nodes = new Map(cluster.nodes.map((n) => [n.metadata.name, nodeAddrs(n)]))
  let blocks = readBlocks(cluster)
  let source: CalicoModel['source'] = 'ipam'
  if (blocks.length === 0) {
    source = 'podcidr'
    blocks = cluster.nodes.flatMap((n) =>
      [...new Set([...(n.spec?.podCIDRs ?? []), ...(n.spec?.podCIDR ? [n.spec.podCIDR] : [])])]
        .map((c) => parseCidr(c))
        .filter((c): c is Cidr => c !== undefined)
        .map((cidr) => ({cidr, node: n.metadata.name, source: 'podcidr' as const})),
    )
  }
  return {pools: readPools(cluster), blocks, nodes, source}
}

export function isCalicoNodePod(p: Pod): boolean {
  return p.metadata.labels?.[CALICO_NODE_LABEL] === CALICO_NODE_VALUE
}

export const NO_CALICO = 'no Calico in this cluster: no IPPools (crd.projectcalico.org) and no calico-node pods'

/** Calico runs here when there is an IPPool or a calico-node pod. */
export function hasCalico(cluster: ClusterSnapshot): boolean {
  return cluster.calico.ipPools.length > 0 || cluster.pods.some(isCalicoNodePod)
}

/** Why traffic towards node `owner` may fail that the user should see first: the node or its calico-node is down. */
export function ownerHint(cluster: ClusterSnapshot, model: CalicoModel, owner: string): string {
  const hints: string[] = []
  if (model.nodes.get(owner)?.ready === false) hints.push(`${owner} is NotReady`)
  const pod = cluster.pods.find((p) => isCalicoNodePod(p) && p.spec?.nodeName === owner)
  const problem = pod ? podHealthProblem(pod, cluster.collectedAt) : undefined
  if (pod && problem) hints.push(`calico-node on ${owner} is ${problem.summary}`)
  return hints.length > 0 ? ` (${hints.join('; ')})` : ''
}
