// What each finding breaks, for traffic from its node: the Services (with the endpoints lost) and the pods it cuts
// off. Pure: findings + the ClusterSnapshot in, the same findings out with `impact` set where one can be counted.
//   route findings (RT-001/003 block routes, RT-005 pod routes, RT-006 a dead route to a live IP) → the endpoints
//     and pods whose IPs the route covers;
//   rule findings (IPT-*, IPVS-*, NFT-* errors, grouped per Service port) → that Service port: the endpoints the
//     finding names (a KUBE-SEP chain, a real server), else all of them; ungrouped missing hooks (a built-in jump,
//     kube-ipvs0, the nft table) → every Service;
//   conntrack findings (CT-*) → the Service port, its stale endpoint;
//   NODE-001/003 (forwarding off, FORWARD dropping) → all forwarded traffic.
// Warnings about leftovers (stale chains, weights, schedulers) break nothing countable and get no impact.
import {cidrContains, parseCIDRSloppy, parseIPSloppy, type ParsedCIDR} from '../net/ip.js'
import type {Finding, FindingImpact, ImpactedService} from '../model/report.js'
import type {ClusterSnapshot} from '../model/snapshot.js'
import {indexServices, parseServiceRef, type ServiceIndex, type ServiceView} from './services.js'

/**
 * Route findings whose subject (a CIDR, an IP or a pod) is cut off from the node: Calico's block and pod routes
 * (RT-001/003/005/006), flannel's route, neighbour and FDB entries to another node's podCIDR (RT-009/010/011) and a
 * VPC CNI's per-pod host routes (RT-012). NOTE: Cilium's RT-013/014 are left out: in tunnel mode pods' traffic is
 * encapsulated by Cilium's BPF programs without the route (only host-network traffic is cut off), and a finding
 * does not say which mode it came from, so counting pods' Services there would overstate the damage.
 */
const ROUTE_IDS = new Set(['RT-001', 'RT-003', 'RT-005', 'RT-006', 'RT-009', 'RT-010', 'RT-011', 'RT-012'])
const RULE_PREFIXES = ['IPT-', 'IPVS-', 'NFT-']
const FORWARDING_IDS = new Set(['NODE-001', 'NODE-003'])

/** Whether findings of check `id` can cut a packet's path from the node to a pod (the ones impact counts). */
export function cutsPath(id: string): boolean {
  return ROUTE_IDS.has(id) || FORWARDING_IDS.has(id) || RULE_PREFIXES.some((p) => id.startsWith(p))
}
const MAX_SUMMARY_SERVICES = 4
const MAX_PODS = 20

/** Every finding with its impact (a new object where one was found; the others unchanged). */
export function attachImpact(cluster: ClusterSnapshot, findings: readonly Finding[], index: ServiceIndex = indexServices(cluster)): Finding[] {
  return findings.map((f) => {
    const impact = impactOf(f, cluster, index)
    return impact === undefined ? f : {...f, impact}
  })
}

/** The impact of one finding, or undefined when it breaks nothing that can be counted. */
export function impactOf(f: Finding, cluster: ClusterSnapshot, index: ServiceIndex): FindingImpact | undefined {
  if (f.severity === 'info') return undefined
  if (ROUTE_IDS.has(f.id)) return routeImpact(f, cluster, index)
  if (RULE_PREFIXES.some((p) => f.id.startsWith(p))) return f.severity === 'error' ? ruleImpact(f, index) : undefined
  if (f.id.startsWith('CT-')) return conntrackImpact(f, index)
  if (FORWARDING_IDS.has(f.id)) return forwardingImpact(f)
  return undefined
}

// ---- routes ------------------------------------------------------------------------------------------------------

/** The addresses a route finding cuts off: its CIDR or IP subject, or the pod's IPs. */
function routeTargets(f: Finding, cluster: ClusterSnapshot): ParsedCIDR[] {
  if (f.id === 'RT-006' && f.severity !== 'error') return [] // an orphan route to an unused IP breaks nothing yet
  if (f.subject.kind === 'Pod') {
    const pod = cluster.pods.find((p) => p.metadata.name === f.subject.name && (p.metadata.namespace ?? 'default') === (f.subject.namespace ?? 'default'))
    const ips = (pod?.status?.podIPs ?? []).map((x) => x.ip).concat(pod?.status?.podIP ? [pod.status.podIP] : [])
    return [...new Set(ips)].flatMap((ip) => asCidr(ip))
  }
  if (f.subject.kind === 'route') return asCidr(f.subject.name)
  return []
}

function asCidr(text: string): ParsedCIDR[] {
  const c = parseCIDRSloppy(text.includes('/') ? text : `${text}/${text.includes(':') ? 128 : 32}`)
  return c ? [c] : []
}

function covered(cidrs: readonly ParsedCIDR[], ip: string): boolean {
  const p = parseIPSloppy(ip)
  return p !== undefined && cidrs.some((c) => cidrContains(c, p))
}

function routeImpact(f: Finding, cluster: ClusterSnapshot, index: ServiceIndex): FindingImpact | undefined {
  const cidrs = routeTargets(f, cluster)
  if (cidrs.length === 0) return undefined
  const services: ImpactedService[] = []
  for (const v of index.services.values()) {
    const lost = v.endpoints.filter((e) => covered(cidrs, e.ip)).map((e) => e.ip)
    if (lost.length > 0) services.push({service: v.name, endpoints: lost, total: v.endpoints.length})
  }
  const pods = [...new Set([...index.podsByIp].filter(([ip]) => covered(cidrs, ip)).map(([, pod]) => pod))].sort()
  if (services.length === 0 && pods.length === 0) return undefined
  return withSummary({services, ...(pods.length > 0 ? {pods: pods.slice(0, MAX_PODS)} : {})}, pods.length)
}

// ---- rules and conntrack -----------------------------------------------------------------------------------------

/** A built-in hook, kube-ipvs0 or the nft table missing: every Service on the node. */
function breaksEveryService(f: Finding): boolean {
  if (f.group !== undefined) return false
  if (f.subject.kind === 'rule' && /^-A (PREROUTING|OUTPUT|INPUT|FORWARD|POSTROUTING) /.test(f.subject.name) && /lacks|missing/.test(f.message)) return /KUBE-SERVICES|KUBE-NODEPORTS/.test(f.subject.name)
  if (f.id === 'IPVS-008' && f.subject.kind === 'link') return true
  return f.id === 'NFT-001'
}

function viewOf(group: string | undefined, index: ServiceIndex): {view: ServiceView; port?: string} | undefined {
  const ref = group === undefined ? undefined : parseServiceRef(group)
  const view = ref ? index.services.get(ref.service) : undefined
  return view ? {view, ...(ref?.port !== undefined ? {port: ref.port} : {})} : undefined
}

/** The Service's endpoints the finding names (`10.244.2.10:80` in a real server, `-s 10.244.2.10/32` in a SEP chain). */
function namedEndpoints(f: Finding, view: ServiceView): string[] {
  const text = [f.message, f.subject.name, ...f.evidence].join('\n')
  return view.endpoints
    .map((e) => e.ip)
    .filter((ip) => {
      const esc = ip.replace(/[.:[\]]/g, (c) => `\\${c}`)
      return new RegExp(`(^|[^0-9a-fA-F:.])\\[?${esc}\\]?(?=$|[^0-9a-fA-F.]|:[0-9]|/(32|128)\\b)`, 'm').test(text)
    })
}

function ruleImpact(f: Finding, index: ServiceIndex): FindingImpact | undefined {
  if (breaksEveryService(f)) return {summary: 'every Service from this node (its hook into the Service rules is missing)', services: [], all: true}
  const hit = viewOf(f.group, index)
  if (!hit || hit.view.endpoints.length === 0) return undefined
  // A port's endpoints as kube-proxy pairs them (slices carrying its name); the finding may name some of them.
  const ofPort = hit.port === undefined ? undefined : hit.view.portEndpoints.get(hit.view.ports.find((p) => p.name === hit.port || String(p.port) === hit.port)?.name ?? hit.port)
  const named = namedEndpoints(f, hit.view)
  const lost = named.length > 0 ? named : (ofPort ?? hit.view.endpoints.map((e) => e.ip))
  if (lost.length === 0) return undefined
  return withSummary({services: [{service: hit.view.name, ...(hit.port !== undefined ? {port: hit.port} : {}), endpoints: lost, total: hit.view.endpoints.length}]}, 0)
}

function conntrackImpact(f: Finding, index: ServiceIndex): FindingImpact | undefined {
  const hit = viewOf(f.group, index)
  if (!hit) return undefined
  // NOTE: stale entries break only the clients that own them, so no endpoint is counted as lost.
  const port = hit.port !== undefined ? `:${hit.port}` : ''
  return {summary: `svc ${hit.view.name}${port} for the clients holding those entries`, services: [{service: hit.view.name, ...(hit.port !== undefined ? {port: hit.port} : {}), endpoints: [], total: hit.view.endpoints.length}]}
}

// ---- forwarding ----------------------------------------------------------------------------------------------------

function forwardingImpact(f: Finding): FindingImpact {
  const v6 = f.subject.kind === 'sysctl' && f.subject.name.startsWith('net.ipv6.')
  return {
    summary: `all forwarded ${v6 ? 'IPv6 ' : ''}traffic: pods on ${f.node} reach no Service endpoint and no pod through it`,
    services: [],
    all: true,
    ...(v6 ? {family: 'ipv6' as const} : {}),
  }
}

// ---- summary -----------------------------------------------------------------------------------------------------

/** `svc kube-system/kube-dns (1 of 2 endpoints), shop/web (1 of 3); 4 pods`. */
function withSummary(i: Omit<FindingImpact, 'summary'>, podCount: number): FindingImpact {
  const services = [...i.services].sort((a, b) => a.service.localeCompare(b.service))
  const parts = services.slice(0, MAX_SUMMARY_SERVICES).map((s, n) => {
    const name = `${s.service}${s.port !== undefined ? `:${s.port}` : ''}`
    const count = s.endpoints.length === s.total ? (s.total === 1 ? 'its only endpoint' : `all ${s.total}`) : `${s.endpoints.length} of ${s.total}`
    return `${name} (${count}${n === 0 && s.endpoints.length !== s.total ? ' endpoints' : ''})`
  })
  if (services.length > MAX_SUMMARY_SERVICES) parts.push(`+${services.length - MAX_SUMMARY_SERVICES} more`)
  const svc = parts.length > 0 ? `svc ${parts.join(', ')}` : ''
  const pods = podCount > 0 ? `${podCount} pod${podCount === 1 ? '' : 's'}` : ''
  return {summary: [svc, pods].filter(Boolean).join('; '), ...i, services}
}
