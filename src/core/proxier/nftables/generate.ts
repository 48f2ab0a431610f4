// Over 500 lines on purpose: one port of kube-proxy's nftables syncProxyRules and its per-version layouts (v1.29 to v1.37), kept in the order of the original so a reader can compare them.
// The embedded kube-proxy nftables proxier: Services + EndpointSlices + options → the `kube-proxy` table a full sync
// leaves behind. Mirrors pkg/proxy/nftables/proxier.go setupNFTables + syncProxyRules for three layouts:
//   v1.29–v1.30 (alpha): one `endpoints-check` chain, filter chains at priority -110, no cluster-ips set;
//   v1.31–v1.33: service-/nodeport-endpoints-check, cluster-ips-check (+ the ServiceCIDR drop), filter-output-post-dnat;
//   v1.34–v1.35: filter-prerouting-pre-dnat / filter-output-pre-dnat at -110 and the other filter chains at 0
//     (kubernetes PR #132456), the ClusterIP masquerade rule without the port match (PR #131492);
//   v1.36: the masquerading rework (kubernetes#135800, #136499): no mark-for-masquerade chain (the mark is set
//     inline), a 2-rule masquerading chain, a hairpin-connections set of local endpoints, one ClusterIP masquerade
//     rule in `services`, and services without ClientIP affinity DNAT through a numgen map (no endpoint chains);
//   v1.37: element comments cut to 128 bytes (#139516), single-endpoint services DNAT directly (#140723, #140960),
//     and the localhost-NodePort objects of KEP-6032 when its gate is on (#138427).
// Source for v1.36/v1.37: kubernetes/kubernetes pkg/proxy/nftables/proxier_test.go @edca5633 and @5e7a140d
// (TestOverallNFTablesRules, TestBadIPs, TestSyncProxyRulesRepeated, TestLocalhostNodePortReject), see
// docs/research/kube-proxy-v1.36-v1.37.md.
// Rule text is what `nft list` prints (marks as 0x%08x, `meta mark`, one-element sets without braces), so the
// rendered table diffs clean against a real listing. Services are sorted by service-port name (kube-proxy: map order).
import type {EndpointSlice, Service} from '../../model/k8s.js'
import {type KubeProxyVersion, type LocalDetector, formatKubeProxyVersion, layoutClampNote, versionAtLeast} from '../config.js'
import {type EndpointInfo, buildEndpointsMap} from '../endpoints.js'
import {type IpFamily, type ParsedCIDR, cidrContains, formatIP, isLoopback, parseCIDRSloppy, parseIPSloppy} from '../../net/ip.js'
import {nodePortAddressesFor} from '../iptables/generate.js'
import {type ServicePortInfo, buildServicePorts, externallyAccessible, usesClusterEndpoints, usesLocalEndpoints} from '../service-ports.js'
import {categorizeEndpoints} from '../topology.js'
import {
  AFFINITY_SET_PREFIX,
  ENDPOINT_CHAIN_PREFIX,
  EXTERNAL_CHAIN_PREFIX,
  FIREWALL_CHAIN_PREFIX,
  LOCAL_CHAIN_PREFIX,
  SERVICE_CHAIN_PREFIX,
  endpointChainNameBase,
  servicePortChainNameBase,
} from './names.js'
import {
  type NftBaseChain,
  type NftExpectedChain,
  type NftExpectedCounter,
  type NftExpectedElement,
  type NftExpectedSet,
  type NftExpectedTable,
  type NftLayout,
  type NftProxyFamily,
  nftLayoutAtLeast,
} from './table.js'

/** Everything besides Services and EndpointSlices that changes the nftables output, for one IP family. */
export interface NftablesOptions {
  family: IpFamily
  version: KubeProxyVersion
  nodeName: string
  /** Node IP of this family: decides whether loadBalancerSourceRanges also admit the VIPs as sources. */
  nodeIP: string
  zone?: string
  /** nftables.masqueradeBit (default 14). */
  masqueradeBit: number
  /** nftables.masqueradeAll. */
  masqueradeAll: boolean
  localDetector: LocalDetector
  /** nodePortAddresses CIDRs after `primary` (nftables mode's default) was resolved, any family. */
  nodePortAddresses: string[]
  /** Addresses on the node's interfaces (IP or IP/len); the nodeport-ips set holds those inside nodePortAddresses. */
  nodeInterfaceAddresses: string[]
  featureGates: Record<string, boolean>
  /** Service CIDRs from ServiceCIDR objects (any family); empty: no drop rule for unallocated ClusterIPs. */
  serviceCIDRs: string[]
  /**
   * Whether the interface-based local detectors match with `iifname` (kubernetes#134024) rather than `iif`; default
   * from the version (see usesIifname).
   */
  iifname?: boolean
}

export interface NftablesInput {
  services: readonly Service[]
  endpointSlices: readonly EndpointSlice[]
  options: NftablesOptions
}

/** The first kube-proxy minor with nftables mode (alpha, gate NFTablesProxyMode). */
export const NFTABLES_FIRST_VERSION: KubeProxyVersion = {major: 1, minor: 29}

/** The table layout `version` programs, or undefined before nftables mode existed (newer versions: the newest). */
export function nftLayoutFor(version: KubeProxyVersion): NftLayout | undefined {
  if (versionAtLeast(version, 1, 37)) return 'v1.37'
  if (versionAtLeast(version, 1, 36)) return 'v1.36'
  if (versionAtLeast(version, 1, 34)) return 'v1.34'
  if (versionAtLeast(version, 1, 31)) return 'v1.31'
  if (versionAtLeast(version, 1, 29)) return 'v1.29'
  return undefined
}

const KUBE_PROXY_TABLE = 'kube-proxy'
const MARK_MASQ = 'mark-for-masquerade'
const MASQUERADING = 'masquerading'
const SERVICES = 'services'
const REJECT_CHAIN = 'reject-chain'
const FIREWALL_CHECK = 'firewall-check'
const CLUSTER_IPS_CHECK = 'cluster-ips-check'
const ENDPOINTS_CHECK = 'endpoints-check'
const SERVICE_ENDPOINTS_CHECK = 'service-endpoints-check'
const NODEPORT_ENDPOINTS_CHECK = 'nodeport-endpoints-check'
const CLUSTER_IPS = 'cluster-ips'
const NODEPORT_IPS = 'nodeport-ips'
const SERVICE_IPS = 'service-ips'
const SERVICE_NODEPORTS = 'service-nodeports'
const FIREWALL_IPS = 'firewall-ips'
const NO_ENDPOINT_SERVICES = 'no-endpoint-services'
const NO_ENDPOINT_NODEPORTS = 'no-endpoint-nodeports'
const HAIRPIN_CONNECTIONS = 'hairpin-connections'
const LOCALHOST_NODEPORT_REJECT = 'localhost-nodeport-reject'
const LOCALHOST_NODEPORT_REJECT_PORTS = 'localhost-nodeport-reject-ports'
const LOCALHOST_NODEPORT_REJECTED = 'localhost-nodeport-rejected'
/** knftables.CommentLengthMax: v1.37 cuts element comments to it (truncateNFTablesComment, kubernetes#139516). */
export const NFT_COMMENT_LENGTH_MAX = 128
/** The kernel's default size of a dynamic set, which nft lists. */
const DYNAMIC_SET_SIZE = 65535

type BaseDef = [string, NftBaseChain]
const F = (hook: NftBaseChain['hook'], priority: number): NftBaseChain => ({type: 'filter', hook, priority})
const NAT = (hook: NftBaseChain['hook'], priority: number): NftBaseChain => ({type: 'nat', hook, priority})

const BASE_CHAINS_UNTIL_V134: Record<'v1.29' | 'v1.31' | 'v1.34', BaseDef[]> = {
  'v1.29': [
    ['filter-prerouting', F('prerouting', -110)],
    ['filter-input', F('input', -110)],
    ['filter-forward', F('forward', -110)],
    ['filter-output', F('output', -110)],
    ['nat-prerouting', NAT('prerouting', -100)],
    ['nat-output', NAT('output', -100)],
    ['nat-postrouting', NAT('postrouting', 100)],
  ],
  'v1.31': [
    ['filter-prerouting', F('prerouting', -110)],
    ['filter-input', F('input', -110)],
    ['filter-forward', F('forward', -110)],
    ['filter-output', F('output', -110)],
    ['filter-output-post-dnat', F('output', -90)],
    ['nat-prerouting', NAT('prerouting', -100)],
    ['nat-output', NAT('output', -100)],
    ['nat-postrouting', NAT('postrouting', 100)],
  ],
  'v1.34': [
    ['filter-prerouting-pre-dnat', F('prerouting', -110)],
    ['filter-output-pre-dnat', F('output', -110)],
    ['filter-forward', F('forward', 0)],
    ['filter-input', F('input', 0)],
    ['filter-output', F('output', 0)],
    ['nat-prerouting', NAT('prerouting', -100)],
    ['nat-output', NAT('output', -100)],
    ['nat-postrouting', NAT('postrouting', 100)],
  ],
}

/** nftablesJumpChains: [destination, source base chain, match before the jump]. */
const JUMP_CHAINS_UNTIL_V134: Record<'v1.29' | 'v1.31' | 'v1.34', Array<[string, string, string]>> = {
  'v1.29': [
    [ENDPOINTS_CHECK, 'filter-input', 'ct state new'],
    [ENDPOINTS_CHECK, 'filter-forward', 'ct state new'],
    [ENDPOINTS_CHECK, 'filter-output', 'ct state new'],
    [FIREWALL_CHECK, 'filter-prerouting', 'ct state new'],
    [FIREWALL_CHECK, 'filter-output', 'ct state new'],
    [SERVICES, 'nat-output', ''],
    [SERVICES, 'nat-prerouting', ''],
    [MASQUERADING, 'nat-postrouting', ''],
  ],
  'v1.31': [
    [NODEPORT_ENDPOINTS_CHECK, 'filter-input', 'ct state new'],
    [SERVICE_ENDPOINTS_CHECK, 'filter-input', 'ct state new'],
    [SERVICE_ENDPOINTS_CHECK, 'filter-forward', 'ct state new'],
    [SERVICE_ENDPOINTS_CHECK, 'filter-output', 'ct state new'],
    [FIREWALL_CHECK, 'filter-prerouting', 'ct state new'],
    [FIREWALL_CHECK, 'filter-output', 'ct state new'],
    [SERVICES, 'nat-output', ''],
    [SERVICES, 'nat-prerouting', ''],
    [MASQUERADING, 'nat-postrouting', ''],
    [CLUSTER_IPS_CHECK, 'filter-forward', 'ct state new'],
    [CLUSTER_IPS_CHECK, 'filter-output-post-dnat', 'ct state new'],
  ],
  'v1.34': [
    [NODEPORT_ENDPOINTS_CHECK, 'filter-input', 'ct state new'],
    [SERVICE_ENDPOINTS_CHECK, 'filter-input', 'ct state new'],
    [SERVICE_ENDPOINTS_CHECK, 'filter-forward', 'ct state new'],
    [SERVICE_ENDPOINTS_CHECK, 'filter-output', 'ct state new'],
    [FIREWALL_CHECK, 'filter-prerouting-pre-dnat', 'ct state new'],
    [FIREWALL_CHECK, 'filter-output-pre-dnat', 'ct state new'],
    [SERVICES, 'nat-output', ''],
    [SERVICES, 'nat-prerouting', ''],
    [MASQUERADING, 'nat-postrouting', ''],
    [CLUSTER_IPS_CHECK, 'filter-forward', 'ct state new'],
    [CLUSTER_IPS_CHECK, 'filter-output', 'ct state new'],
  ],
}

// The base and jump chains did not change after v1.34.
const BASE_CHAINS: Record<NftLayout, BaseDef[]> = {...BASE_CHAINS_UNTIL_V134, 'v1.36': BASE_CHAINS_UNTIL_V134['v1.34'], 'v1.37': BASE_CHAINS_UNTIL_V134['v1.34']}
const JUMP_CHAINS: Record<NftLayout, Array<[string, string, string]>> = {...JUMP_CHAINS_UNTIL_V134, 'v1.36': JUMP_CHAINS_UNTIL_V134['v1.34'], 'v1.37': JUMP_CHAINS_UNTIL_V134['v1.34']}

/**
 * Whether this version's interface-based local detectors (BridgeInterface, InterfaceNamePrefix) match with `iifname`:
 * kubernetes#134024 replaced `iif` (an ifindex match, which nft cannot load for a `prefix*` pattern, so the sync
 * fails) in v1.35.0, backported to v1.34.2 (#134118) and v1.33.6 (#134099); v1.29–v1.32 never got it.
 * An unknown patch (`v1.34`) counts as fixed: the fix has been out for a year, most v1.33/v1.34 nodes run a later
 * patch, and assuming `iif` would turn every such node into a false alarm. The render notes say so.
 */
export function usesIifname(v: KubeProxyVersion): boolean {
  if (versionAtLeast(v, 1, 35)) return true
  if (v.major !== 1 || (v.minor !== 33 && v.minor !== 34)) return false
  if (v.patch === undefined) return true
  return v.patch >= (v.minor === 34 ? 2 : 6)
}

/**
 * A comment as v1.37's truncateNFTablesComment leaves it: at most 128 bytes (Go slices bytes; a cut UTF-8 sequence
 * is dropped here, which names in Kubernetes, being ASCII, never hit).
 */
export function truncateNftComment(comment: string): string {
  const bytes = new TextEncoder().encode(comment)
  if (bytes.length <= NFT_COMMENT_LENGTH_MAX) return comment
  return new TextDecoder().decode(bytes.slice(0, NFT_COMMENT_LENGTH_MAX)).replace(/\uFFFD+$/, '')
}

/**
 * The DNAT of a single-endpoint service without session affinity in v1.37 (kubernetes#140723, fixed for IPv6 by
 * #140960), as nft lists it. UNVERIFIED: the post-#140960 rule text is not in any stored source. #140723 wrote
 * `dnat ip addr . port to IP . PORT` (nft 1.0.6 lists the IPv4 form as `dnat to IP:PORT`; the IPv6 form crashed nft),
 * and the fix most likely returned to the classic `dnat to IP:PORT` / `dnat to [IP6]:PORT`, which is what this
 * renders. Change it here if a real v1.37 node shows otherwise.
 */
export function singleEndpointDnat(proto: string, ep: EndpointInfo): string {
  return `meta l4proto ${proto} dnat to ${ep.endpoint}`
}

/** True when the direct single-endpoint DNAT text above is an unverified guess (for the render notes). */
export const SINGLE_ENDPOINT_DNAT_UNVERIFIED = true

/** `%#08x` as nft prints a mark: 0x and eight hex digits. */
function nftMark(bit: number): string {
  return `0x${(2 ** bit).toString(16).padStart(8, '0')}`
}

/** The detector's nft matches (IfLocalNFT / IfNotLocalNFT), or undefined for the no-op detector. */
function localDetectorNft(d: LocalDetector, ipX: string, iifname: boolean): {ifLocal: string; ifNotLocal: string} | undefined {
  // Before kubernetes#134024: `iif NAME` (nft resolves the name to an index when loading, and lists it quoted).
  const meta = iifname ? 'iifname' : 'iif'
  switch (d.mode) {
    case 'ClusterCIDR':
    case 'NodeCIDR':
      return {ifLocal: `${ipX} saddr ${d.cidr}`, ifNotLocal: `${ipX} saddr != ${d.cidr}`}
    case 'BridgeInterface':
      return {ifLocal: `${meta} "${d.interfaceName}"`, ifNotLocal: `${meta} != "${d.interfaceName}"`}
    case 'InterfaceNamePrefix':
      return {ifLocal: `${meta} "${d.prefix}*"`, ifNotLocal: `${meta} != "${d.prefix}*"`}
    case 'NoOp':
      return undefined
  }
}

function compareBytes(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

/**
 * An anonymous set as nft lists it: prefixes that cover one address print as the address, elements sorted by address,
 * prefixes inside another one dropped (nft merges them), and a single element without braces.
 */
export function nftAnonymousSet(items: readonly string[]): string {
  const cidrs: ParsedCIDR[] = []
  for (const s of items) {
    const c = parseCIDRSloppy(s.includes('/') ? s : `${s}/${s.includes(':') ? 128 : 32}`)
    if (c) cidrs.push(c)
  }
  cidrs.sort((a, b) => compareBytes(a.network, b.network) || a.prefix - b.prefix)
  const kept: ParsedCIDR[] = []
  for (const c of cidrs) {
    const ip = {family: c.family, bytes: c.network, text: ''}
    if (kept.some((k) => k.prefix <= c.prefix && cidrContains(k, ip))) continue
    kept.push(c)
  }
  const texts = kept.map((c) => (c.prefix === c.network.length * 8 ? formatIP(c.network) : c.text))
  return texts.length === 1 ? texts[0]! : `{ ${texts.join(', ')} }`
}

/** Generates the table kube-proxy's nftables mode programs for a full sync on the node described by the options. */
export function generateNftables(input: NftablesInput): NftExpectedTable {
  const o = input.options
  const layout = nftLayoutFor(o.version)
  if (!layout) throw new Error(`kube-proxy ${formatKubeProxyVersion(o.version)} has no nftables mode`)
  const isIPv6 = o.family === 'ipv6'
  const family: NftProxyFamily = isIPv6 ? 'ip6' : 'ip'
  const ipX = family
  const addrType = isIPv6 ? 'ipv6_addr' : 'ipv4_addr'
  const noLocalhost = isIPv6 ? 'ip6 daddr != ::1' : 'ip daddr != 127.0.0.0/8'
  const mark = nftMark(o.masqueradeBit)
  const npa = nodePortAddressesFor(o.family, o.nodePortAddresses)
  const detector = localDetectorNft(o.localDetector, ipX, o.iifname ?? usesIifname(o.version))
  const nodeIP = parseIPSloppy(o.nodeIP)
  const hasClusterIPsSet = layout !== 'v1.29'
  // v1.36+: the masquerading rework (kubernetes#135800, #136499).
  const reworked = nftLayoutAtLeast(layout, 'v1.36')
  // v1.34–v1.35: the per-service ClusterIP masquerade rule has no port match (kubernetes#131492).
  const clusterIPRuleWithoutPort = nftLayoutAtLeast(layout, 'v1.34')
  const v137 = nftLayoutAtLeast(layout, 'v1.37')
  const masqStmt = `meta mark set meta mark | ${mark}`
  const masqVerdict = reworked ? masqStmt : `jump ${MARK_MASQ}`
  const elementComment = (c: string) => (v137 ? truncateNftComment(c) : c)
  const localhostProxy = v137 && o.featureGates.KubeProxyNFTablesLocalhostNodePorts === true && hasExplicitLoopback(o.nodePortAddresses, o.family)
  const counters: NftExpectedCounter[] = []
  const hairpinKeys = new Set<string>()

  const sets = new Map<string, NftExpectedSet>()
  const chains = new Map<string, NftExpectedChain>()
  const chain = (name: string, servicePort?: string): NftExpectedChain => {
    let c = chains.get(name)
    if (!c) chains.set(name, (c = servicePort === undefined ? {name, rules: []} : {name, rules: [], servicePort}))
    return c
  }
  const rule = (chainName: string, text: string, servicePort?: string): void => {
    chain(chainName, servicePort).rules.push(servicePort === undefined ? {text} : {text, servicePort})
  }
  const set = (s: Omit<NftExpectedSet, 'elements'>): NftExpectedSet => {
    let x = sets.get(s.name)
    if (!x) sets.set(s.name, (x = {...s, elements: []}))
    return x
  }
  const element = (setName: string, e: NftExpectedElement): void => {
    sets.get(setName)!.elements.push(e)
  }

  // setupNFTables: base chains, the jumps into the regular chains, masquerading.
  for (const [name, base] of BASE_CHAINS[layout]) chains.set(name, {name, base, rules: []})
  for (const [dst, src, match] of JUMP_CHAINS[layout]) {
    chain(dst)
    rule(src, match === '' ? `jump ${dst}` : `${match} jump ${dst}`)
  }
  chain(SERVICES)
  if (hasClusterIPsSet) chain(CLUSTER_IPS_CHECK)
  chain(MASQUERADING)
  if (!reworked) {
    chain(MARK_MASQ)
    rule(MARK_MASQ, masqStmt)
    rule(MASQUERADING, `meta mark & ${mark} == 0x00000000 return`)
    rule(MASQUERADING, `meta mark set meta mark ^ ${mark}`)
    rule(MASQUERADING, 'masquerade fully-random')
  } else {
    // Clear the mark and masquerade in one rule; hairpin connections (a local endpoint reaching itself through the
    // service) are matched by the set instead of a mark set in each endpoint chain.
    rule(MASQUERADING, `meta mark & ${mark} != 0x00000000 meta mark set meta mark ^ ${mark} masquerade fully-random`)
    rule(MASQUERADING, `ct status dnat ${ipX} saddr . ${ipX} daddr . meta l4proto . th dport @${HAIRPIN_CONNECTIONS} masquerade fully-random`)
  }

  if (hasClusterIPsSet) {
    set({kind: 'set', name: CLUSTER_IPS, type: addrType, comment: 'Active ClusterIPs'})
    rule(CLUSTER_IPS_CHECK, `${ipX} daddr @${CLUSTER_IPS} reject comment "Reject traffic to invalid ports of ClusterIPs"`)
    const cidrs = o.serviceCIDRs.filter((c) => parseCIDRSloppy(c)?.family === o.family)
    if (cidrs.length > 0) rule(CLUSTER_IPS_CHECK, `${ipX} daddr ${nftAnonymousSet(cidrs)} drop comment "Drop traffic to unallocated ClusterIPs"`)
  }

  if (!npa.matchAll) {
    set({kind: 'set', name: NODEPORT_IPS, type: addrType, comment: 'IPs that accept NodePort traffic'})
    for (const ip of nodePortIPs(npa.cidrs, o.nodeInterfaceAddresses)) {
      if (isLoopback(ip)) continue // localhost NodePorts are not supported in nftables mode
      element(NODEPORT_IPS, {key: ip.text})
    }
  }
  if (reworked) set({kind: 'set', name: HAIRPIN_CONNECTIONS, type: `${addrType} . ${addrType} . inet_proto . inet_service`, comment: 'service hairpin connections'})

  set({kind: 'map', name: NO_ENDPOINT_SERVICES, type: `${addrType} . inet_proto . inet_service`, comment: 'vmap to drop or reject packets to services with no endpoints'})
  set({kind: 'map', name: NO_ENDPOINT_NODEPORTS, type: 'inet_proto . inet_service', comment: 'vmap to drop or reject packets to service nodeports with no endpoints'})
  chains.set(REJECT_CHAIN, {name: REJECT_CHAIN, comment: 'helper for @no-endpoint-services / @no-endpoint-nodeports', rules: [{text: 'reject'}]})

  const nodePortMatch = npa.matchAll ? null : `${ipX} daddr @${NODEPORT_IPS}`
  if (layout === 'v1.29') {
    rule(ENDPOINTS_CHECK, `${ipX} daddr . meta l4proto . th dport vmap @${NO_ENDPOINT_SERVICES}`)
    rule(ENDPOINTS_CHECK, `${nodePortMatch ?? `fib daddr type local ${noLocalhost}`} meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS}`)
  } else {
    rule(SERVICE_ENDPOINTS_CHECK, `${ipX} daddr . meta l4proto . th dport vmap @${NO_ENDPOINT_SERVICES}`)
    rule(NODEPORT_ENDPOINTS_CHECK, `${nodePortMatch ?? noLocalhost} meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS}`)
  }
  if (localhostProxy) {
    // KEP-6032 (v1.37, gate KubeProxyNFTablesLocalhostNodePorts): TCP NodePorts on loopback are served by a
    // userspace proxy in kube-proxy; other protocols are rejected and counted. Rule and element text from
    // TestLocalhostNodePortReject @5e7a140d; the map's declaration (no comment here), the IPv6 match (::1) and the
    // rule's place after the no-endpoint-nodeports rule are UNVERIFIED.
    counters.push({name: LOCALHOST_NODEPORT_REJECTED})
    set({kind: 'map', name: LOCALHOST_NODEPORT_REJECT_PORTS, type: 'inet_proto . inet_service'})
    rule(LOCALHOST_NODEPORT_REJECT, `counter name "${LOCALHOST_NODEPORT_REJECTED}" reject`)
    rule(NODEPORT_ENDPOINTS_CHECK, `${ipX} daddr ${isIPv6 ? '::1' : '127.0.0.0/8'} meta l4proto . th dport vmap @${LOCALHOST_NODEPORT_REJECT_PORTS}`)
  }

  set({kind: 'map', name: FIREWALL_IPS, type: `${addrType} . inet_proto . inet_service`, comment: 'destinations that are subject to LoadBalancerSourceRanges'})
  rule(FIREWALL_CHECK, `${ipX} daddr . meta l4proto . th dport vmap @${FIREWALL_IPS}`)

  set({kind: 'map', name: SERVICE_IPS, type: `${addrType} . inet_proto . inet_service`, comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic'})
  set({kind: 'map', name: SERVICE_NODEPORTS, type: 'inet_proto . inet_service', comment: 'NodePort traffic'})
  if (reworked) {
    // One rule for every ClusterIP instead of one per service chain. With masqueradeAll the rule has no source
    // match; its comment is then UNVERIFIED (assumed unchanged).
    const comment = 'comment "masquerade clusterIP traffic from outside cluster"'
    if (o.masqueradeAll) rule(SERVICES, `${ipX} daddr @${CLUSTER_IPS} ${masqStmt} ${comment}`)
    else if (detector) rule(SERVICES, `${ipX} daddr @${CLUSTER_IPS} ${detector.ifNotLocal} ${masqStmt} ${comment}`)
  }
  rule(SERVICES, `${ipX} daddr . meta l4proto . th dport vmap @${SERVICE_IPS}`)
  rule(SERVICES, `${nodePortMatch ?? `fib daddr type local ${noLocalhost}`} meta l4proto . th dport vmap @${SERVICE_NODEPORTS}`)

  // syncProxyRules: one pass per service port.
  const servicePorts = buildServicePorts(input.services, {family: o.family, version: o.version, featureGates: o.featureGates})
  const endpointsMap = buildEndpointsMap(input.endpointSlices, {family: o.family, version: o.version, nodeName: o.nodeName, featureGates: o.featureGates})
  for (const sp of servicePorts) {
    writeServicePort(sp, endpointsMap.get(sp.key) ?? [])
  }

  function writeServicePort(sp: ServicePortInfo, endpoints: readonly EndpointInfo[]): void {
    const spn = sp.name
    const proto = sp.protocol.toLowerCase()
    const port = String(sp.port)
    const cat = categorizeEndpoints(endpoints, sp, {nodeName: o.nodeName, ...(o.zone !== undefined ? {zone: o.zone} : {}), featureGates: o.featureGates})
    const {clusterEndpoints, localEndpoints, allReachableEndpoints, hasAnyEndpoints: hasEndpoints} = cat
    const base = servicePortChainNameBase(sp.namespace, sp.serviceName, proto, sp.portName)
    const clusterChain = SERVICE_CHAIN_PREFIX + base
    const localChain = LOCAL_CHAIN_PREFIX + base
    const externalChain = EXTERNAL_CHAIN_PREFIX + base
    const fwChain = FIREWALL_CHAIN_PREFIX + base
    const epNames = new Map<string, {chain: string; affinity: string}>()
    const epName = (ep: EndpointInfo) => {
      let n = epNames.get(ep.endpoint)
      if (!n) {
        const b = endpointChainNameBase(sp.namespace, sp.serviceName, proto, sp.portName, ep.ip, ep.port)
        epNames.set(ep.endpoint, (n = {chain: ENDPOINT_CHAIN_PREFIX + b, affinity: AFFINITY_SET_PREFIX + b}))
      }
      return n
    }
    const svcRule = (c: string, text: string) => rule(c, text, spn)
    const svcChain = (c: string) => chain(c, spn)
    const svcElement = (setName: string, e: Omit<NftExpectedElement, 'servicePort'>) => element(setName, {...e, servicePort: spn})

    // v1.36+: endpoint chains only where ClientIP affinity needs them (the `update @affinity-…` rule).
    const usesEndpointChains = !reworked || sp.sessionAffinityClientIP
    if (usesEndpointChains) for (const ep of allReachableEndpoints) svcChain(epName(ep).chain)
    const usesClusterPolicyChain = clusterEndpoints.length > 0 && usesClusterEndpoints(sp)
    if (usesClusterPolicyChain) svcChain(clusterChain)
    const usesLocalPolicyChain = localEndpoints.length > 0 && usesLocalEndpoints(sp)
    if (usesLocalPolicyChain) svcChain(localChain)

    let internalChain = clusterChain
    let hasInternal = hasEndpoints
    if (sp.internalPolicyLocal) {
      internalChain = localChain
      if (localEndpoints.length === 0) hasInternal = false
    }
    let externalPolicyChain = clusterChain
    let hasExternal = hasEndpoints
    if (sp.externalPolicyLocal) {
      externalPolicyChain = localChain
      if (localEndpoints.length === 0) hasExternal = false
    }
    const usesExternalChain = hasEndpoints && externallyAccessible(sp)
    if (usesExternalChain) svcChain(externalChain)

    let internalVerdict = ''
    let externalVerdict = ''
    if (!hasEndpoints) {
      internalVerdict = externalVerdict = `goto ${REJECT_CHAIN}`
    } else {
      if (!hasInternal) internalVerdict = 'drop'
      if (!hasExternal) externalVerdict = 'drop'
    }
    const key = (ip: string) => `${ip} . ${proto} . ${port}`

    if (hasClusterIPsSet) svcElement(CLUSTER_IPS, {key: sp.clusterIP})
    if (hasInternal) svcElement(SERVICE_IPS, {key: key(sp.clusterIP), value: `goto ${internalChain}`})
    else svcElement(NO_ENDPOINT_SERVICES, {key: key(sp.clusterIP), value: internalVerdict, comment: elementComment(spn)})

    for (const eip of sp.externalIPs) {
      if (hasEndpoints) svcElement(SERVICE_IPS, {key: key(eip), value: `goto ${externalChain}`})
      if (!hasExternal) svcElement(NO_ENDPOINT_SERVICES, {key: key(eip), value: externalVerdict, comment: elementComment(spn)})
    }

    const usesFWChain = sp.loadBalancerVIPs.length > 0 && sp.loadBalancerSourceRanges.length > 0
    if (usesFWChain) svcChain(fwChain)
    for (const lbip of sp.loadBalancerVIPs) {
      if (hasEndpoints) svcElement(SERVICE_IPS, {key: key(lbip), value: `goto ${externalChain}`})
      if (usesFWChain) svcElement(FIREWALL_IPS, {key: key(lbip), value: `goto ${fwChain}`, ...(layout === 'v1.29' ? {comment: spn} : {})})
    }
    if (!hasExternal) for (const lbip of sp.loadBalancerVIPs) svcElement(NO_ENDPOINT_SERVICES, {key: key(lbip), value: externalVerdict, comment: elementComment(spn)})

    if (sp.nodePort !== 0) {
      const npKey = `${proto} . ${sp.nodePort}`
      if (hasEndpoints) svcElement(SERVICE_NODEPORTS, {key: npKey, value: `goto ${externalChain}`})
      if (!hasExternal) svcElement(NO_ENDPOINT_NODEPORTS, {key: npKey, value: externalVerdict, comment: elementComment(spn)})
      if (localhostProxy && proto !== 'tcp') svcElement(LOCALHOST_NODEPORT_REJECT_PORTS, {key: npKey, value: `goto ${LOCALHOST_NODEPORT_REJECT}`})
    }

    // Internal traffic: masquerade off-cluster traffic to the ClusterIP (v1.34+: no port match, PR #131492).
    if (hasInternal && !reworked) {
      const dst = clusterIPRuleWithoutPort ? `${ipX} daddr ${sp.clusterIP}` : `${ipX} daddr ${sp.clusterIP} ${proto} dport ${port}`
      if (o.masqueradeAll) svcRule(internalChain, `${dst} jump ${MARK_MASQ}`)
      else if (detector) svcRule(internalChain, `${dst} ${detector.ifNotLocal} jump ${MARK_MASQ}`)
    }

    if (usesExternalChain) {
      if (!sp.externalPolicyLocal) {
        svcRule(externalChain, reworked ? `${masqStmt} comment "masquerade"` : `jump ${MARK_MASQ}`)
      } else {
        if (detector) svcRule(externalChain, `${detector.ifLocal} goto ${clusterChain} comment "short-circuit pod traffic"`)
        svcRule(externalChain, `fib saddr type local ${masqVerdict} comment "masquerade local traffic"`)
        svcRule(externalChain, `fib saddr type local goto ${clusterChain} comment "short-circuit local traffic"`)
      }
      if (hasExternal) svcRule(externalChain, `goto ${externalPolicyChain}`)
    }

    if (usesFWChain) {
      const sources = sp.loadBalancerSourceRanges.map((r) => r.cidr.text)
      if (nodeIP && sp.loadBalancerSourceRanges.some((r) => cidrContains(r.cidr, nodeIP))) sources.push(...sp.loadBalancerVIPs)
      svcRule(fwChain, `${ipX} saddr != ${nftAnonymousSet(sources)} drop`)
    }

    if (sp.sessionAffinityClientIP) {
      for (const ep of allReachableEndpoints) {
        const name = epName(ep).affinity
        sets.set(name, {kind: 'set', name, type: addrType, size: DYNAMIC_SET_SIZE, flags: ['dynamic', 'timeout'], timeout: sp.stickyMaxAgeSeconds, dynamic: true, elements: [], servicePort: spn})
      }
    }

    if (usesClusterPolicyChain) writeServiceToEndpointRules(clusterChain, clusterEndpoints)
    if (usesLocalPolicyChain) writeServiceToEndpointRules(localChain, localEndpoints)

    if (usesEndpointChains) {
      for (const ep of allReachableEndpoints) {
        const n = epName(ep)
        if (!reworked) svcRule(n.chain, `${ipX} saddr ${ep.ip} jump ${MARK_MASQ}`)
        if (sp.sessionAffinityClientIP) svcRule(n.chain, `update @${n.affinity} { ${ipX} saddr }`)
        svcRule(n.chain, `meta l4proto ${proto} dnat to ${ep.endpoint}`)
      }
    }

    // v1.36+: every local endpoint may hairpin (reach itself through the service): it goes in the set once.
    if (reworked) {
      for (const ep of allReachableEndpoints) {
        if (!ep.isLocal) continue
        const k = `${ep.ip} . ${ep.ip} . ${proto} . ${ep.port}`
        if (hairpinKeys.has(k)) continue
        hairpinKeys.add(k)
        svcElement(HAIRPIN_CONNECTIONS, {key: k})
      }
    }

    function writeServiceToEndpointRules(c: string, eps: readonly EndpointInfo[]): void {
      if (!usesEndpointChains) {
        if (v137 && eps.length === 1) svcRule(c, singleEndpointDnat(proto, eps[0]!))
        else svcRule(c, `meta l4proto ${proto} dnat ${ipX} to numgen random mod ${eps.length} map { ${eps.map((ep, i) => `${i} : ${ep.ip} . ${ep.port}`).join(', ')} }`)
        return
      }
      if (sp.sessionAffinityClientIP) for (const ep of eps) svcRule(c, `${ipX} saddr @${epName(ep).affinity} goto ${epName(ep).chain}`)
      const vmap = eps.map((ep, i) => `${i} : goto ${epName(ep).chain}`).join(', ')
      svcRule(c, `numgen random mod ${eps.length} vmap { ${vmap} }`)
    }
  }

  const clampNote = layoutClampNote(o.version)
  return {
    family,
    name: KUBE_PROXY_TABLE,
    comment: 'rules for kube-proxy',
    version: formatKubeProxyVersion(o.version),
    layout,
    sets: [...sets.values()],
    chains: [...chains.values()],
    ...(counters.length > 0 ? {counters} : {}),
    ...(clampNote ? {headerComments: [clampNote]} : {}),
  }
}

/**
 * Whether nodePortAddresses explicitly name a loopback range of this family (pkg/proxy/util ContainsExplicitLoopback,
 * as Test_useLocalhostNodePortProxy @5e7a140d exercises it): `127.0.0.0/8` or `::1/128` (also `localhost`, which
 * config.ts expands to them) turn the localhost-NodePort proxy on; `0.0.0.0/0`, `::/0` (`all`) or none do not.
 */
export function hasExplicitLoopback(nodePortAddresses: readonly string[], family: IpFamily): boolean {
  return nodePortAddresses.some((s) => {
    const c = parseCIDRSloppy(s)
    return c !== undefined && c.family === family && c.prefix > 0 && isLoopback({family: c.family, bytes: c.network, text: ''})
  })
}

/** NodePortAddresses.GetNodeIPs: interface IPs inside the CIDRs, deduplicated, sorted by address. */
function nodePortIPs(cidrs: readonly ParsedCIDR[], interfaceAddresses: readonly string[]) {
  const ips = interfaceAddresses.map((a) => parseIPSloppy(a.split('/')[0] ?? '')).filter((p) => p !== undefined)
  const found = new Map<string, NonNullable<(typeof ips)[number]>>()
  for (const cidr of cidrs) for (const ip of ips) if (cidrContains(cidr, ip)) found.set(ip.text, ip)
  return [...found.values()].sort((a, b) => compareBytes(a.bytes, b.bytes))
}
