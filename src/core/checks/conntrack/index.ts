// CT-001: UDP conntrack entries that still send a Service's traffic (to its ClusterIP, externalIPs, LoadBalancer IPs
// or NodePort) to an address that is no longer one of its endpoints, judged as kube-proxy's conntrack cleanup
// (pkg/proxy/conntrack/cleanup.go) would. UDP has no connection end, so such an entry lives as long as packets keep
// coming (DNS clients retrying every few seconds keep it alive forever); kube-proxy deletes them when an endpoint
// goes away, and a miss blackholes that client's traffic.
import {NodeFacts} from '../../facts/node-facts.js'
import type {EndpointSlice, Service} from '../../model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../model/snapshot.js'
import {type ConntrackEntry, isDestinationNatted} from '../../parse/conntrack.js'
import {KUBE_IPVS_DEVICE} from '../../parse/links.js'
import type {Check, CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {checkDrops, checkMaxBelowKubeProxy, checkTableFull, CT_DROPS, CT_MAX_BELOW_KUBE_PROXY, CT_TABLE_FULL} from './health.js'

export const CT_STALE_UDP: CheckSpec = {
  id: 'CT-001',
  area: 'conntrack',
  severity: 'error',
  title: 'Stale UDP conntrack entries send Service traffic to an address that is no longer an endpoint',
  looksAt:
    "The node's UDP conntrack table (`conntrack -L -p udp`): entries whose original destination is a UDP Service port's frontend " +
    '(its ClusterIP, an externalIP or a LoadBalancer ingress IP with the port; one of this node\'s addresses, from the Node and `ip -j addr`, with the nodePort), ' +
    "compared with the Service's current EndpointSlices. The reply source is the endpoint the entry was NATed to; " +
    'an entry that was not NATed at all was created while the Service had no endpoints.',
  why:
    'UDP "connections" are never closed: as long as a client keeps sending (DNS resolvers retry every few seconds) the entry ' +
    'stays and every packet goes to the old pod IP or, for a never-NATed entry, nowhere. Typical symptom: DNS from some pods ' +
    'times out after CoreDNS pods moved, while other pods resolve fine. kube-proxy deletes such entries when it sees the ' +
    'endpoint change; it misses them when it was down or stuck at that moment.',
  remedy:
    'Delete exactly the stale entries, never the whole table: `conntrack -D -p udp --orig-dst SERVICE_IP --reply-src STALE_IP` on the ' +
    'node (`--orig-port-dst NODEPORT --reply-src STALE_IP` for a NodePort; the finding gives the exact command), or `kubectl node-doctor fix conntrack NODE --service NS/NAME`. ' +
    'A full `conntrack -F` drops every connection on the node, including healthy TCP ones.',
  requires: ['conntrack-udp', 'cluster:services', 'cluster:endpointSlices'],
}

interface ServicePortRef {
  service: Service
  port: number
  portName: string
}

/** How the traffic reached the Service: the address and port the client sent to. */
export type FrontendKind = 'ClusterIP' | 'externalIP' | 'LoadBalancer' | 'NodePort'

interface Frontend {
  kind: FrontendKind
  ref: ServicePortRef
}

/** The Service frontends of UDP ports: `ip|port` for ClusterIPs, externalIPs and LoadBalancer IPs, and NodePorts by port. */
function udpFrontends(cluster: ClusterSnapshot): {byAddress: Map<string, Frontend>; byNodePort: Map<number, Frontend>} {
  const byAddress = new Map<string, Frontend>()
  const byNodePort = new Map<number, Frontend>()
  for (const s of cluster.services) {
    const clusterIPs = [...new Set([s.spec.clusterIP, ...(s.spec.clusterIPs ?? [])].filter((ip): ip is string => !!ip && ip !== 'None'))]
    // kube-proxy does not route a load balancer's IP on the node when the load balancer proxies (ipMode: Proxy).
    const lbIPs = (s.spec.type === 'LoadBalancer' ? (s.status?.loadBalancer?.ingress ?? []) : []).filter((i) => i.ipMode !== 'Proxy').map((i) => i.ip).filter((ip): ip is string => !!ip)
    for (const p of s.spec.ports ?? []) {
      if ((p.protocol ?? 'TCP') !== 'UDP') continue
      const ref = {service: s, port: p.port, portName: p.name ?? ''}
      const add = (kind: FrontendKind, ips: readonly string[]) => {
        for (const ip of ips) if (!byAddress.has(`${ip}|${p.port}`)) byAddress.set(`${ip}|${p.port}`, {kind, ref})
      }
      add('ClusterIP', clusterIPs)
      add('externalIP', s.spec.externalIPs ?? [])
      add('LoadBalancer', lbIPs)
      if (p.nodePort && (s.spec.type === 'NodePort' || s.spec.type === 'LoadBalancer')) byNodePort.set(p.nodePort, {kind: 'NodePort', ref: {...ref, port: p.nodePort}})
    }
  }
  return {byAddress, byNodePort}
}

/**
 * The node's own addresses, where its NodePorts are reached: the Node's InternalIP/ExternalIP and, when collected,
 * every interface address but kube-ipvs0's Service VIPs.
 */
export function nodeAddresses(cluster: ClusterSnapshot, node: NodeSnapshot, facts: NodeFacts = NodeFacts.of(cluster, node)): Set<string> {
  const out = new Set<string>()
  for (const a of cluster.nodes.find((n) => n.metadata.name === node.node)?.status?.addresses ?? []) {
    if (a.type === 'InternalIP' || a.type === 'ExternalIP') out.add(a.address)
  }
  // NOTE: an unreadable listing leaves the Node object's addresses, which carry NodePort traffic from outside.
  const links = facts.text('ip-addr')?.trim() ? facts.links('ip-addr') : undefined
  if (links?.ok) for (const i of links.value.interfaces) if (i.name !== KUBE_IPVS_DEVICE) for (const a of i.addresses) out.add(a.local)
  return out
}

/** Addresses that currently serve the Service port (ready, or serving while terminating: kube-proxy still uses those). */
function endpointAddresses(cluster: ClusterSnapshot, ref: ServicePortRef): {addresses: Set<string>; any: boolean} {
  const ns = ref.service.metadata.namespace
  const slices = cluster.endpointSlices.filter((e: EndpointSlice) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === ref.service.metadata.name)
  const addresses = new Set<string>()
  for (const sl of slices) {
    const hasPort = (sl.ports ?? []).some((p) => (p.name ?? '') === ref.portName && (p.protocol ?? 'TCP') === 'UDP')
    if (!hasPort) continue
    for (const ep of sl.endpoints ?? []) {
      const c = ep.conditions ?? {}
      if (c.ready === false && c.serving !== true) continue
      for (const a of ep.addresses) addresses.add(a)
    }
  }
  return {addresses, any: addresses.size > 0}
}

export interface Stale {
  ref: ServicePortRef
  kind: FrontendKind
  /** The address the clients sent to: the ClusterIP, externalIP, LoadBalancer IP, or the node address of a NodePort. */
  ip: string
  /** The endpoint address the entries point to, or undefined for never-NATed entries. */
  staleIP?: string
  entries: ConntrackEntry[]
}

/**
 * Entries for a UDP Service frontend (ClusterIP, externalIP or LoadBalancer IP and port; a node address and the
 * nodePort) whose reply source is not a serving endpoint, as kube-proxy's conntrack cleanup judges them; grouped
 * per frontend and stale address. `localAddresses` are the node's own (NodePort destinations).
 */
export function staleUdpEntries(cluster: ClusterSnapshot, entries: readonly ConntrackEntry[], localAddresses: ReadonlySet<string> = new Set()): Stale[] {
  const {byAddress, byNodePort} = udpFrontends(cluster)
  const groups = new Map<string, Stale>()
  for (const e of entries) {
    if (e.protocol !== 'udp' || e.original.dport === undefined) continue
    const front = byAddress.get(`${e.original.dst}|${e.original.dport}`) ?? (localAddresses.has(e.original.dst) ? byNodePort.get(e.original.dport) : undefined)
    if (!front) continue
    const eps = endpointAddresses(cluster, front.ref)
    let staleIP: string | undefined
    if (isDestinationNatted(e)) {
      if (eps.addresses.has(e.reply.src)) continue
      staleIP = e.reply.src
    } else if (!eps.any) {
      // Not NATed and still no endpoints: the traffic is rejected anyway; nothing stale about it.
      continue
    }
    const key = `${front.kind}|${e.original.dst}|${front.ref.port}|${staleIP ?? ''}`
    const g = groups.get(key) ?? {ref: front.ref, kind: front.kind, ip: e.original.dst, entries: [], ...(staleIP === undefined ? {} : {staleIP})}
    g.entries.push(e)
    groups.set(key, g)
  }
  return [...groups.values()]
}

/** The targeted delete for one group (kube-proxy's own filters: by frontend address and port, or by NodePort). */
function deleteCommand(s: Stale): string {
  if (s.kind === 'NodePort') {
    return s.staleIP
      ? `conntrack -D -p udp --orig-port-dst ${s.ref.port} --reply-src ${s.staleIP}`
      : `conntrack -D -p udp --orig-dst ${s.ip} --orig-port-dst ${s.ref.port} --reply-src ${s.ip}`
  }
  return s.staleIP ? `conntrack -D -p udp --orig-dst ${s.ip} --reply-src ${s.staleIP}` : `conntrack -D -p udp --orig-dst ${s.ip} --orig-port-dst ${s.ref.port} --reply-src ${s.ip}`
}

function draft(node: string, s: Stale): FindingDraft {
  const svc = s.ref.service
  const ns = svc.metadata.namespace ?? 'default'
  const name = `${ns}/${svc.metadata.name}`
  const portDesc = `${s.kind === 'ClusterIP' ? '' : `${s.kind} `}${s.ip.includes(':') ? `[${s.ip}]` : s.ip}:${s.ref.port}/udp`
  const cmd = deleteCommand(s)
  const one = s.entries.length === 1
  const entries = `${s.entries.length} UDP conntrack entr${one ? 'y' : 'ies'}`
  const message = s.staleIP
    ? `${entries} for ${name} (${portDesc}) still ${one ? 'goes' : 'go'} to ${s.staleIP}, which is no longer an endpoint: those clients' packets are lost`
    : `${entries} for ${name} (${portDesc}) ${one ? 'was' : 'were'} created while it had no endpoints and never NATed: those clients' packets are still lost although it has endpoints now`
  const MAX = 10
  return {
    message,
    subject: {kind: 'Service', name: svc.metadata.name, namespace: ns},
    group: `${name}:${s.ref.portName || s.ref.port}`,
    evidence: [...s.entries.slice(0, MAX).map((e) => e.raw), ...(s.entries.length > MAX ? [`... ${s.entries.length - MAX} more`] : [])],
    remedy: `On ${node}: \`${cmd}\` (only these entries; never \`conntrack -F\`), or \`kubectl node-doctor fix conntrack ${node} --service ${name}\`. If it comes back, check that kube-proxy on the node is healthy (PROXY-006..008).`,
  }
}

export function checkStaleUdp(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const parsed = facts.conntrackUdp()
  if (parsed === undefined) return {status: 'skipped', reason: 'missing input: conntrack-udp'}
  if (!parsed.ok) return {status: 'skipped', reason: `the conntrack listing could not be parsed: ${parsed.error.message}`}
  const stale = staleUdpEntries(ctx.cluster, parsed.value, nodeAddresses(ctx.cluster, ctx.node, facts))
  return stale.length > 0 ? {status: 'failed', findings: stale.map((s) => draft(ctx.node.node, s))} : {status: 'passed'}
}

export const CONNTRACK_CHECKS: readonly Check[] = [
  {spec: CT_STALE_UDP, when: {servicesOwner: ['kube-proxy']}, run: checkStaleUdp},
  {spec: CT_TABLE_FULL, run: checkTableFull},
  {spec: CT_DROPS, run: checkDrops},
  {spec: CT_MAX_BELOW_KUBE_PROXY, when: {servicesOwner: ['kube-proxy']}, run: checkMaxBelowKubeProxy},
]
