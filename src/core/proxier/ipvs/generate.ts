// Over 500 lines on purpose: one port of kube-proxy's IPVS syncProxyRules, kept in the order of the Go code to be checked against it.
// The embedded kube-proxy IPVS proxier: Services + EndpointSlices + ProxierOptions + IpvsOptions → the state a full
// sync leaves on the node: virtual servers with their real servers, the addresses on kube-ipvs0, the ipsets and the
// iptables rules IPVS mode still writes. Mirrors pkg/proxy/ipvs/proxier.go syncProxyRules, syncEndpoint and
// writeIptablesRules (v1.28–v1.35; version differences noted inline).
//
// kube-proxy iterates Go maps (service ports, node addresses, set entries), so its order is random; everything here
// is sorted: virtual servers in ipvsadm's own order (family, protocol, address, port), real servers by address and
// port, set members by text. The diff compares all of it as sets.
import type {EndpointSlice, Service} from '../../model/k8s.js'
import {formatAddrPort, ipvsServiceId, type IpvsProtocol} from '../../parse/ipvsadm.js'
import {formatKubeProxyVersion, formatMasqueradeMark, layoutClampNote, type ProxierOptions, versionAtLeast} from '../config.js'
import {buildEndpointsMap, type EndpointInfo} from '../endpoints.js'
import {cidrContains, type IpFamily, isLoopback, type ParsedIP, parseIPSloppy} from '../../net/ip.js'
import {restoreRuleLine, type IptablesRule, type IptablesTableName} from '../iptables/ruleset.js'
import {nodePortAddressesFor} from '../iptables/generate.js'
import {buildServicePorts, canonicalIPs} from '../service-ports.js'
import {categorizeEndpoints} from '../topology.js'
import type {IpvsOptions} from './config.js'
import * as S from './ipsets.js'

export interface IpvsInput {
  services: readonly Service[]
  endpointSlices: readonly EndpointSlice[]
  options: ProxierOptions
  ipvs: IpvsOptions
}

/** Why a virtual server exists. */
export type VirtualServerKind = 'cluster-ip' | 'external-ip' | 'load-balancer' | 'node-port'

/**
 * One real server kube-proxy programs: exactly the endpoints syncEndpoint chooses for the virtual server, always at
 * weight 1. An endpoint it stopped using is not expected at all: GracefulDeleteRS either deletes it at once or
 * leaves it at weight 0 until its connections end, so a weight-0 real server on the node is a draining one, which
 * the diff accepts (src/core/diff/ipvs.ts) but never requires.
 */
export interface ExpectedRealServer {
  address: string
  port: number
  /** Always 1 (kube-proxy's AddRealServer weight). */
  weight: number
}

export interface ExpectedVirtualServer {
  /** `TCP 10.96.0.1:443`, as the ipvsadm parser names services (ipvsServiceId). */
  id: string
  protocol: IpvsProtocol
  family: IpFamily
  address: string
  port: number
  scheduler: string
  /** ipvsadm's names for the scheduler flags (`mh-port` for mh). */
  schedulerFlags: string[]
  /** Persistence timeout in seconds (ClientIP affinity); absent without persistence. */
  persistence?: number
  kind: VirtualServerKind
  /** The service port (`ns/name[:port]`) it is for. */
  servicePort: string
  realServers: ExpectedRealServer[]
}

export interface ExpectedIpset {
  name: string
  type: S.IpsetType
  /** The options after the type, as kube-proxy creates the set. */
  options: string
  comment: string
  /** Entry.String() forms, sorted. */
  entries: string[]
  /** Entry → the service port it was added for (absent for KUBE-IPVS-IPS and shared entries). */
  groups: Map<string, string>
}

/** One built-in chain jump kube-proxy ensures (iptablesJumpChain). */
export interface IpvsBuiltinJump {
  table: IptablesTableName
  chain: string
  args: string[]
}

export interface IpvsIptables {
  /** Chains declared in the restore input (flushed by it), per table, in kube-proxy's order. */
  chains: Record<IptablesTableName, string[]>
  rules: IptablesRule[]
  builtinJumps: IpvsBuiltinJump[]
}

export interface IpvsState {
  family: IpFamily
  version: string
  scheduler: string
  virtualServers: ExpectedVirtualServer[]
  /** Addresses kube-proxy binds to kube-ipvs0 (ClusterIPs, and external/LB IPs not on another interface), sorted. */
  boundAddresses: string[]
  /** The node addresses NodePort virtual servers are created on. */
  nodePortAddresses: string[]
  ipsets: ExpectedIpset[]
  iptables: IpvsIptables
  masqueradeMark: string
  /** Set when the kube-proxy version is newer than the newest layout known (config.ts layoutClampNote). */
  layoutNote?: string
}

const KUBE_SERVICES = 'KUBE-SERVICES'
const KUBE_POSTROUTING = 'KUBE-POSTROUTING'
const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ'
const KUBE_NODE_PORT = 'KUBE-NODE-PORT'
const KUBE_LOAD_BALANCER = 'KUBE-LOAD-BALANCER'
const KUBE_FORWARD = 'KUBE-FORWARD'
const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL'
const KUBE_SOURCE_RANGES_FIREWALL = 'KUBE-SOURCE-RANGES-FIREWALL'
const KUBE_IPVS_FILTER = 'KUBE-IPVS-FILTER'
const KUBE_IPVS_OUT_FILTER = 'KUBE-IPVS-OUT-FILTER'

/** KUBE-IPVS-OUT-FILTER (kubernetes/kubernetes PR #119791, for #119656) exists from this minor. */
export function hasOutFilter(options: Pick<ProxierOptions, 'version'>): boolean {
  return versionAtLeast(options.version, 1, 29)
}

/** The chains IPVS mode owns, per table (iptablesChains), for this version. */
export function ipvsOwnedChains(options: Pick<ProxierOptions, 'version'>): Record<IptablesTableName, string[]> {
  return {
    nat: [KUBE_SERVICES, KUBE_POSTROUTING, KUBE_NODE_PORT, KUBE_LOAD_BALANCER, KUBE_MARK_MASQ],
    filter: [KUBE_FORWARD, KUBE_NODE_PORT, KUBE_PROXY_FIREWALL, KUBE_SOURCE_RANGES_FIREWALL, KUBE_IPVS_FILTER, ...(hasOutFilter(options) ? [KUBE_IPVS_OUT_FILTER] : [])],
  }
}

/** iptablesJumpChain, in kube-proxy's order. */
export function ipvsBuiltinJumps(options: Pick<ProxierOptions, 'version'>): IpvsBuiltinJump[] {
  const j = (table: IptablesTableName, chain: string, target: string, comment: string): IpvsBuiltinJump => ({table, chain, args: ['-m', 'comment', '--comment', comment, '-j', target]})
  return [
    j('nat', 'OUTPUT', KUBE_SERVICES, 'kubernetes service portals'),
    j('nat', 'PREROUTING', KUBE_SERVICES, 'kubernetes service portals'),
    j('nat', 'POSTROUTING', KUBE_POSTROUTING, 'kubernetes postrouting rules'),
    j('filter', 'FORWARD', KUBE_FORWARD, 'kubernetes forwarding rules'),
    j('filter', 'INPUT', KUBE_NODE_PORT, 'kubernetes health check rules'),
    j('filter', 'INPUT', KUBE_PROXY_FIREWALL, 'kube-proxy firewall rules'),
    j('filter', 'FORWARD', KUBE_PROXY_FIREWALL, 'kube-proxy firewall rules'),
    j('filter', 'INPUT', KUBE_IPVS_FILTER, 'kubernetes ipvs access filter'),
    ...(hasOutFilter(options) ? [j('filter', 'OUTPUT', KUBE_IPVS_OUT_FILTER, 'kubernetes ipvs access filter')] : []),
  ]
}

const PROTO_ORDER: Record<IpvsProtocol, number> = {tcp: 6, udp: 17, sctp: 132}

function compareBytes(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return a.length - b.length
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return 0
}

class SetBuilder {
  readonly entries = new Map<string, string | undefined>()
  constructor(readonly info: S.IpsetInfo) {}
  add(entry: string, group?: string): void {
    // An entry shared by two service ports keeps no group (it cannot be blamed on one of them).
    if (this.entries.has(entry) && this.entries.get(entry) !== group) this.entries.set(entry, undefined)
    else this.entries.set(entry, group)
  }
  get empty(): boolean {
    return this.entries.size === 0
  }
}

/** Addresses the IPVS proxier treats as the node's (GetAllLocalAddressesExcept kube-ipvs0, isValidForSet). */
function nodeAddressSet(options: ProxierOptions): Map<string, ParsedIP> {
  const out = new Map<string, ParsedIP>()
  for (const a of options.nodeInterfaceAddresses) {
    const ip = parseIPSloppy(a.split('/')[0] ?? '')
    if (!ip || ip.family !== options.family || isLoopback(ip)) continue
    // IPv6 link-local (fe80::/10) is not valid for the set.
    if (ip.family === 'ipv6' && ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80) continue
    out.set(ip.text, ip)
  }
  return out
}

/** The node IPs NodePort virtual servers go on: every node address, or those in nodePortAddresses (no loopback). */
function nodePortIPs(options: ProxierOptions, nodeAddresses: Map<string, ParsedIP>): ParsedIP[] {
  const npa = nodePortAddressesFor(options.family, options.nodePortAddresses)
  let ips: ParsedIP[]
  if (npa.matchAll) ips = [...nodeAddresses.values()]
  else {
    // NOTE: GetNodeIPs looks at every interface (kube-ipvs0 included); only the others are known here.
    const found = new Map<string, ParsedIP>()
    for (const a of options.nodeInterfaceAddresses) {
      const ip = parseIPSloppy(a.split('/')[0] ?? '')
      if (!ip || isLoopback(ip)) continue
      if (npa.cidrs.some((c) => cidrContains(c, ip))) found.set(ip.text, ip)
    }
    ips = [...found.values()]
  }
  return ips.sort((a, b) => compareBytes(a.bytes, b.bytes))
}

/** Generates the state a full sync of kube-proxy's IPVS proxier leaves on the node described by the options. */
export function generateIpvsState(input: IpvsInput): IpvsState {
  const o = input.options
  const family = o.family
  const scheduler = input.ipvs.scheduler
  const schedulerFlags = scheduler === 'mh' ? ['mh-port'] : []
  const gates = o.featureGates
  const servicePorts = buildServicePorts(input.services, {family, version: o.version, featureGates: gates})
  const endpointsMap = buildEndpointsMap(input.endpointSlices, {family, version: o.version, nodeName: o.nodeName, featureGates: gates})
  const topo = {nodeName: o.nodeName, ...(o.zone !== undefined ? {zone: o.zone} : {}), featureGates: gates}
  const nodeAddrs = nodeAddressSet(o)
  const hasNodePort = servicePorts.some((sp) => sp.nodePort !== 0)
  const nodeIPs = hasNodePort ? nodePortIPs(o, nodeAddrs) : []
  const nodeIP = parseIPSloppy(o.nodeIP)
  const canonical = canonicalIPs(o.version)

  const sets = new Map<string, SetBuilder>()
  for (const info of S.IPSET_INFO) sets.set(info.base, new SetBuilder(info))
  const set = (base: string): SetBuilder => sets.get(base)!
  const vss = new Map<string, ExpectedVirtualServer & {bytes: number[]}>()
  const bound = new Map<string, ParsedIP>()
  const lbNoNodeAccess: Array<{ip: string; protocol: string; port: number}> = []

  for (const sp of servicePorts) {
    const protocol = sp.protocol.toLowerCase() as IpvsProtocol
    const spn = sp.name
    const endpoints = endpointsMap.get(sp.key) ?? []
    const cat = categorizeEndpoints(endpoints, sp, topo)
    // syncEndpoint: local endpoints for a node-local policy, else the cluster ones (also when no local one
    // exists: kubernetes/kubernetes PR #97081, unlike the iptables and nftables proxiers).
    const choose = (onlyLocal: boolean): readonly EndpointInfo[] => (onlyLocal && cat.localEndpoints.length > 0 ? cat.localEndpoints : cat.clusterEndpoints)
    // The real-server list of one endpoint choice, shared by every virtual server that uses it.
    const rsCache = new Map<readonly EndpointInfo[], ExpectedRealServer[]>()
    const realServers = (chosen: readonly EndpointInfo[]): ExpectedRealServer[] => {
      let list = rsCache.get(chosen)
      if (!list) rsCache.set(chosen, (list = realServersFor(chosen, canonical)))
      return list
    }

    for (const ep of endpoints) {
      if (ep.isLocal) set(S.KUBE_LOOP_BACK).add(`${ep.ip},${protocol}:${ep.port},${ep.ip}`, spn)
    }

    const addVS = (kind: VirtualServerKind, address: ParsedIP, port: number, chosen: readonly EndpointInfo[]): void => {
      const id = ipvsServiceId({protocol, family, address: address.text, port})
      const vs: ExpectedVirtualServer & {bytes: number[]} = {
        id,
        protocol,
        family,
        address: address.text,
        port,
        scheduler,
        schedulerFlags,
        ...(sp.sessionAffinityClientIP ? {persistence: sp.stickyMaxAgeSeconds} : {}),
        kind,
        servicePort: spn,
        realServers: realServers(chosen),
        bytes: address.bytes,
      }
      // Two service ports on one address:port/protocol are one virtual server in the kernel: the later sync wins.
      vss.set(id, vs)
    }

    const clusterIP = parseIPSloppy(sp.clusterIP)!
    set(S.KUBE_CLUSTER_IP).add(S.ipPortEntry(clusterIP.text, protocol, sp.port), spn)
    addVS('cluster-ip', clusterIP, sp.port, choose(sp.internalPolicyLocal))
    bound.set(clusterIP.text, clusterIP)

    for (const raw of sp.externalIPs) {
      const ip = parseIPSloppy(raw)!
      set(sp.externalPolicyLocal ? S.KUBE_EXTERNAL_IP_LOCAL : S.KUBE_EXTERNAL_IP).add(S.ipPortEntry(ip.text, protocol, sp.port), spn)
      addVS('external-ip', ip, sp.port, choose(sp.externalPolicyLocal))
      if (!nodeAddrs.has(ip.text)) bound.set(ip.text, ip)
    }

    for (const raw of sp.loadBalancerVIPs) {
      const ip = parseIPSloppy(raw)!
      const entry = S.ipPortEntry(ip.text, protocol, sp.port)
      set(S.KUBE_LOAD_BALANCER).add(entry, spn)
      if (sp.externalPolicyLocal) set(S.KUBE_LOAD_BALANCER_LOCAL).add(entry, spn)
      if (sp.loadBalancerSourceRanges.length > 0) {
        set(S.KUBE_LOAD_BALANCER_FW).add(entry, spn)
        let allowFromNode = false
        for (const range of sp.loadBalancerSourceRanges) {
          set(S.KUBE_LOAD_BALANCER_SOURCE_CIDR).add(`${entry},${range.cidr.text}`, spn)
          if (nodeIP && cidrContains(range.cidr, nodeIP)) allowFromNode = true
        }
        if (allowFromNode) set(S.KUBE_LOAD_BALANCER_SOURCE_IP).add(`${entry},${ip.text}`, spn)
        else if (hasOutFilter(o)) lbNoNodeAccess.push({ip: ip.text, protocol, port: sp.port})
      }
      addVS('load-balancer', ip, sp.port, choose(sp.externalPolicyLocal))
      if (!nodeAddrs.has(ip.text)) bound.set(ip.text, ip)
    }

    if (sp.nodePort !== 0) {
      // No node address to put NodePorts on: kube-proxy skips the rest of this service port (health check too).
      if (nodeIPs.length === 0) continue
      const np = sp.nodePort
      const local = sp.externalPolicyLocal
      if (protocol === 'sctp') {
        for (const ip of nodeIPs) {
          const entry = S.ipPortEntry(ip.text, protocol, np)
          set(S.KUBE_NODE_PORT_SCTP).add(entry, spn)
          if (local) set(S.KUBE_NODE_PORT_LOCAL_SCTP).add(entry, spn)
        }
      } else {
        set(protocol === 'tcp' ? S.KUBE_NODE_PORT_TCP : S.KUBE_NODE_PORT_UDP).add(String(np), spn)
        if (local) set(protocol === 'tcp' ? S.KUBE_NODE_PORT_LOCAL_TCP : S.KUBE_NODE_PORT_LOCAL_UDP).add(String(np), spn)
      }
      for (const ip of nodeIPs) addVS('node-port', ip, np, choose(local))
    }

    if (sp.healthCheckNodePort !== 0) set(S.KUBE_HEALTH_CHECK_NODE_PORT).add(String(sp.healthCheckNodePort), spn)
  }

  const boundSorted = [...bound.values()].sort((a, b) => compareBytes(a.bytes, b.bytes))
  for (const ip of boundSorted) set(S.KUBE_IPVS_IPS).add(ip.text)

  const virtualServers = [...vss.values()]
    .sort((a, b) => PROTO_ORDER[a.protocol] - PROTO_ORDER[b.protocol] || compareBytes(a.bytes, b.bytes) || a.port - b.port)
    .map(({bytes: _bytes, ...vs}) => vs)

  const mark = formatMasqueradeMark(o.masqueradeBit)
  const ipsets: ExpectedIpset[] = S.IPSET_INFO.map((info) => {
    const b = set(info.base)
    const groups = new Map<string, string>()
    for (const [e, g] of b.entries) if (g !== undefined) groups.set(e, g)
    return {
      name: S.ipsetName(info.base, family),
      type: info.type,
      options: S.ipsetCreateOptions(info.type, family),
      comment: info.comment,
      entries: [...b.entries.keys()].sort(),
      groups,
    }
  })

  const layoutNote = layoutClampNote(o.version)
  return {
    ...(layoutNote !== undefined ? {layoutNote} : {}),
    family,
    version: formatKubeProxyVersion(o.version),
    scheduler,
    virtualServers,
    boundAddresses: boundSorted.map((ip) => ip.text),
    nodePortAddresses: nodeIPs.map((ip) => ip.text),
    ipsets,
    iptables: ipvsIptablesRules(o, sets, lbNoNodeAccess, mark),
    masqueradeMark: mark,
  }
}

/** A numeric sort key for an IPv4 address text (canonical dotted quad); NaN for anything else. */
function v4Key(ip: string): number {
  let key = 0
  let part = 0
  let dots = 0
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i)
    if (c === 46) {
      key = key * 256 + part
      part = 0
      dots++
    } else if (c >= 48 && c <= 57) part = part * 10 + (c - 48)
    else return NaN
  }
  return dots === 3 ? key * 256 + part : NaN
}

/** Orders real servers by address (numerically for IPv4, by bytes for IPv6), then port. */
function compareRealServers(a: ExpectedRealServer, b: ExpectedRealServer): number {
  const ka = v4Key(a.address)
  const kb = v4Key(b.address)
  const byAddr = Number.isNaN(ka) || Number.isNaN(kb) ? compareBytes(parseIPSloppy(a.address)?.bytes ?? [], parseIPSloppy(b.address)?.bytes ?? []) : ka - kb
  return byAddr || a.port - b.port
}

/**
 * The real servers of one virtual server: the chosen endpoints, weight 1, nothing else (syncEndpoint adds exactly
 * the endpoints CategorizeEndpoints gives it; a not-ready or unused endpoint gets no entry, not even at weight 0).
 */
function realServersFor(chosen: readonly EndpointInfo[], canonical: boolean): ExpectedRealServer[] {
  const out = new Map<string, ExpectedRealServer>()
  // From v1.29 endpoint IPs are already canonical; older versions keep the API's text, which ipvsadm would not show.
  const address = (ep: EndpointInfo) => (canonical ? ep.ip : (parseIPSloppy(ep.ip)?.text ?? ep.ip))
  for (const ep of chosen) out.set(ep.endpoint, {address: address(ep), port: ep.port, weight: 1})
  return [...out.values()].sort(compareRealServers)
}

/** ipsetWithIptablesChain: the set-match rules written for every non-empty set, in kube-proxy's order. */
const SET_CHAIN_RULES: ReadonlyArray<{set: string; table: IptablesTableName; from: string; to: string; match: string; proto?: string}> = [
  {set: S.KUBE_LOOP_BACK, table: 'nat', from: KUBE_POSTROUTING, to: 'MASQUERADE', match: 'dst,dst,src'},
  {set: S.KUBE_LOAD_BALANCER, table: 'nat', from: KUBE_SERVICES, to: KUBE_LOAD_BALANCER, match: 'dst,dst'},
  {set: S.KUBE_LOAD_BALANCER_LOCAL, table: 'nat', from: KUBE_LOAD_BALANCER, to: 'RETURN', match: 'dst,dst'},
  {set: S.KUBE_NODE_PORT_LOCAL_TCP, table: 'nat', from: KUBE_NODE_PORT, to: 'RETURN', match: 'dst', proto: 'tcp'},
  {set: S.KUBE_NODE_PORT_TCP, table: 'nat', from: KUBE_NODE_PORT, to: KUBE_MARK_MASQ, match: 'dst', proto: 'tcp'},
  {set: S.KUBE_NODE_PORT_LOCAL_UDP, table: 'nat', from: KUBE_NODE_PORT, to: 'RETURN', match: 'dst', proto: 'udp'},
  {set: S.KUBE_NODE_PORT_UDP, table: 'nat', from: KUBE_NODE_PORT, to: KUBE_MARK_MASQ, match: 'dst', proto: 'udp'},
  {set: S.KUBE_NODE_PORT_LOCAL_SCTP, table: 'nat', from: KUBE_NODE_PORT, to: 'RETURN', match: 'dst,dst', proto: 'sctp'},
  {set: S.KUBE_NODE_PORT_SCTP, table: 'nat', from: KUBE_NODE_PORT, to: KUBE_MARK_MASQ, match: 'dst,dst', proto: 'sctp'},
  {set: S.KUBE_LOAD_BALANCER_FW, table: 'filter', from: KUBE_PROXY_FIREWALL, to: KUBE_SOURCE_RANGES_FIREWALL, match: 'dst,dst'},
  {set: S.KUBE_LOAD_BALANCER_SOURCE_CIDR, table: 'filter', from: KUBE_SOURCE_RANGES_FIREWALL, to: 'RETURN', match: 'dst,dst,src'},
  {set: S.KUBE_LOAD_BALANCER_SOURCE_IP, table: 'filter', from: KUBE_SOURCE_RANGES_FIREWALL, to: 'RETURN', match: 'dst,dst,src'},
]

/** writeIptablesRules: the restore input's rules, in kube-proxy's order (nat first, as it writes them). */
function ipvsIptablesRules(
  o: ProxierOptions,
  sets: ReadonlyMap<string, SetBuilder>,
  lbNoNodeAccess: ReadonlyArray<{ip: string; protocol: string; port: number}>,
  mark: string,
): IpvsIptables {
  const rules: IptablesRule[] = []
  const name = (base: string) => S.ipsetName(base, o.family)
  const empty = (base: string) => sets.get(base)!.empty
  const comment = (base: string) => S.ipsetInfo(base).comment
  const add = (table: IptablesTableName, chain: string, args: string[]) => rules.push({table, chain, args})

  add('nat', KUBE_SERVICES, ['-s', o.family === 'ipv6' ? '::1/128' : '127.0.0.0/8', '-j', 'RETURN'])
  for (const r of SET_CHAIN_RULES) {
    if (empty(r.set)) continue
    add(r.table, r.from, [...(r.proto ? ['-p', r.proto] : []), '-m', 'comment', '--comment', comment(r.set), '-m', 'set', '--match-set', name(r.set), r.match, '-j', r.to])
  }
  if (!empty(S.KUBE_CLUSTER_IP)) {
    const head = ['-m', 'comment', '--comment', comment(S.KUBE_CLUSTER_IP), '-m', 'set', '--match-set', name(S.KUBE_CLUSTER_IP)]
    const d = o.localDetector
    const notLocal =
      d.mode === 'ClusterCIDR' || d.mode === 'NodeCIDR' ? ['!', '-s', d.cidr] : d.mode === 'BridgeInterface' ? ['!', '-i', d.interfaceName] : d.mode === 'InterfaceNamePrefix' ? ['!', '-i', `${d.prefix}+`] : undefined
    if (o.masqueradeAll) add('nat', KUBE_SERVICES, [...head, 'dst,dst', '-j', KUBE_MARK_MASQ])
    else if (notLocal) add('nat', KUBE_SERVICES, [...head, 'dst,dst', ...notLocal, '-j', KUBE_MARK_MASQ])
    // No local-traffic detector: masquerade node-originated traffic whose source is a VIP.
    else add('nat', KUBE_SERVICES, [...head, 'src,dst', '-j', KUBE_MARK_MASQ])
  }
  const externalIPRules = (head: string[]) => {
    add('nat', KUBE_SERVICES, [...head, '-m', 'physdev', '!', '--physdev-is-in', '-m', 'addrtype', '!', '--src-type', 'LOCAL', '-j', 'ACCEPT'])
    add('nat', KUBE_SERVICES, [...head, '-m', 'addrtype', '--dst-type', 'LOCAL', '-j', 'ACCEPT'])
  }
  if (!empty(S.KUBE_EXTERNAL_IP)) {
    const head = ['-m', 'comment', '--comment', comment(S.KUBE_EXTERNAL_IP), '-m', 'set', '--match-set', name(S.KUBE_EXTERNAL_IP), 'dst,dst']
    add('nat', KUBE_SERVICES, [...head, '-j', KUBE_MARK_MASQ])
    externalIPRules(head)
  }
  if (!empty(S.KUBE_EXTERNAL_IP_LOCAL)) {
    externalIPRules(['-m', 'comment', '--comment', comment(S.KUBE_EXTERNAL_IP_LOCAL), '-m', 'set', '--match-set', name(S.KUBE_EXTERNAL_IP_LOCAL), 'dst,dst'])
  }
  add('nat', KUBE_SERVICES, ['-m', 'addrtype', '--dst-type', 'LOCAL', '-j', KUBE_NODE_PORT])
  add('nat', KUBE_LOAD_BALANCER, ['-j', KUBE_MARK_MASQ])
  add('filter', KUBE_SOURCE_RANGES_FIREWALL, ['-j', 'DROP'])
  // kube-proxy appends these in service-map order; sorted here.
  const noAccess = [...lbNoNodeAccess].sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : a.port - b.port || (a.protocol < b.protocol ? -1 : 1)))
  for (const e of noAccess) {
    add('filter', KUBE_IPVS_OUT_FILTER, ['-s', e.ip, '-m', 'ipvs', '--vaddr', e.ip, '--vproto', e.protocol, '--vport', String(e.port), '-j', 'DROP'])
  }
  // acceptIPVSTraffic: must stay at the end of nat KUBE-SERVICES.
  for (const base of [S.KUBE_CLUSTER_IP, S.KUBE_LOAD_BALANCER]) {
    if (!empty(base)) add('nat', KUBE_SERVICES, ['-m', 'set', '--match-set', name(base), 'dst,dst', '-j', 'ACCEPT'])
  }
  add('filter', KUBE_FORWARD, ['-m', 'comment', '--comment', 'kubernetes forwarding rules', '-m', 'mark', '--mark', `${mark}/${mark}`, '-j', 'ACCEPT'])
  add('filter', KUBE_FORWARD, ['-m', 'comment', '--comment', 'kubernetes forwarding conntrack rule', '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', 'ACCEPT'])
  add('filter', KUBE_NODE_PORT, ['-m', 'comment', '--comment', comment(S.KUBE_HEALTH_CHECK_NODE_PORT), '-m', 'set', '--match-set', name(S.KUBE_HEALTH_CHECK_NODE_PORT), 'dst', '-j', 'ACCEPT'])
  for (const [base, match] of [
    [S.KUBE_LOAD_BALANCER, 'dst,dst'],
    [S.KUBE_CLUSTER_IP, 'dst,dst'],
    [S.KUBE_EXTERNAL_IP, 'dst,dst'],
    [S.KUBE_EXTERNAL_IP_LOCAL, 'dst,dst'],
    [S.KUBE_HEALTH_CHECK_NODE_PORT, 'dst'],
  ] as const) {
    add('filter', KUBE_IPVS_FILTER, ['-m', 'set', '--match-set', name(base), match, '-j', 'RETURN'])
  }
  add('filter', KUBE_IPVS_FILTER, ['-m', 'conntrack', '--ctstate', 'NEW', '-m', 'set', '--match-set', name(S.KUBE_IPVS_IPS), 'dst', '-j', 'REJECT'])
  add('nat', KUBE_POSTROUTING, ['-m', 'mark', '!', '--mark', `${mark}/${mark}`, '-j', 'RETURN'])
  add('nat', KUBE_POSTROUTING, ['-j', 'MARK', '--xor-mark', mark])
  add('nat', KUBE_POSTROUTING, ['-m', 'comment', '--comment', 'kubernetes service traffic requiring SNAT', '-j', 'MASQUERADE', ...(o.randomFully ? ['--random-fully'] : [])])
  add('nat', KUBE_MARK_MASQ, ['-j', 'MARK', '--or-mark', mark])

  return {chains: ipvsOwnedChains(o), rules, builtinJumps: ipvsBuiltinJumps(o)}
}

// --- text forms ------------------------------------------------------------------------------------------------

const SAVE_PROTO: Record<IpvsProtocol, string> = {tcp: '-t', udp: '-u', sctp: '--sctp-service'}

/** The virtual and real servers as `ipvsadm -Sn` prints them (`-A` service lines, each followed by its `-a` lines). */
export function formatIpvsadmSave(state: IpvsState): string {
  const lines: string[] = []
  for (const vs of state.virtualServers) {
    const svc = `${SAVE_PROTO[vs.protocol]} ${formatAddrPort(vs.address, vs.port, vs.family)}`
    let line = `-A ${svc} -s ${vs.scheduler}`
    if (vs.persistence !== undefined) line += ` -p ${vs.persistence}`
    if (vs.schedulerFlags.length > 0) line += ` -b ${vs.schedulerFlags.join(',')}`
    lines.push(line)
    for (const rs of vs.realServers) lines.push(`-a ${svc} -r ${formatAddrPort(rs.address, rs.port, vs.family)} -m -w ${rs.weight}`)
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/** The sets as `ipset save` prints them (kube-proxy's creation options; no bucketsize/initval, which ipset adds). */
export function formatIpsetSave(state: IpvsState): string {
  const lines: string[] = []
  for (const s of state.ipsets) {
    lines.push(`create ${s.name} ${s.type} ${s.options}`)
    for (const e of s.entries) lines.push(`add ${s.name} ${e}`)
  }
  return `${lines.join('\n')}\n`
}

/** The iptables-restore input kube-proxy writes in IPVS mode (nat, then filter; applied with --noflush). */
export function formatIpvsIptablesRestore(state: IpvsState): string {
  const lines: string[] = []
  for (const table of ['nat', 'filter'] as const) {
    lines.push(`*${table}`)
    for (const c of state.iptables.chains[table]) lines.push(`:${c} - [0:0]`)
    for (const r of state.iptables.rules) if (r.table === table) lines.push(restoreRuleLine(r))
    lines.push('COMMIT')
  }
  return `${lines.join('\n')}\n`
}

/** The built-in chain jumps kube-proxy ensures outside the restore, as `iptables -t T -I CHAIN …` commands. */
export function formatIpvsBuiltinJumps(state: IpvsState): string {
  const tool = state.family === 'ipv6' ? 'ip6tables' : 'iptables'
  return state.iptables.builtinJumps.map((j) => `${tool} -t ${j.table} -I ${j.chain} ${restoreRuleLine({table: j.table, chain: j.chain, args: j.args}).slice(4 + j.chain.length)}`).join('\n') + '\n'
}

/**
 * Everything `proxy render --mode ipvs` prints: the `ipvsadm -Sn` lines, the kube-ipvs0 addresses, the ipsets in
 * `ipset save` form, then the iptables rules IPVS mode writes and its jumps from the built-in chains. Each section
 * starts with a `#` line naming it.
 */
export function formatIpvsState(state: IpvsState): string {
  const len = state.family === 'ipv6' ? 128 : 32
  const fam = state.family === 'ipv6' ? 'IPv6' : 'IPv4'
  return [
    state.layoutNote !== undefined ? `# ${state.layoutNote}\n` : '',
    `# ipvsadm -Sn (${fam}, kube-proxy ${state.version}, scheduler ${state.scheduler})\n`,
    formatIpvsadmSave(state),
    '# kube-ipvs0 addresses\n',
    state.boundAddresses.map((a) => `${a}/${len}\n`).join(''),
    '# ipset save\n',
    formatIpsetSave(state),
    '# iptables-restore --noflush input\n',
    formatIpvsIptablesRestore(state),
    '# built-in chain jumps (inserted when missing)\n',
    formatIpvsBuiltinJumps(state),
  ].join('')
}
