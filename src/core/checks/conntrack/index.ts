// CT-001: UDP conntrack entries that still send a Service's traffic to an address that is no longer one of its
// endpoints. UDP has no connection end, so such an entry lives as long as packets keep coming (DNS clients retrying
// every few seconds keep it alive forever); kube-proxy deletes them when an endpoint goes away, and a miss
// blackholes that client's traffic.
import type {EndpointSlice, Service} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import {artifactText} from '../../model/snapshot.js'
import {type ConntrackEntry, isDestinationNatted, parseConntrack} from '../../parse/conntrack.js'
import type {Check, CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'

export const CT_STALE_UDP: CheckSpec = {
  id: 'CT-001',
  area: 'conntrack',
  severity: 'error',
  title: 'Stale UDP conntrack entries send Service traffic to an address that is no longer an endpoint',
  looksAt:
    "The node's UDP conntrack table (`conntrack -L -p udp`): entries whose original destination is a Service's ClusterIP and " +
    'UDP port, compared with the Service\'s current EndpointSlices. The reply source is the endpoint the entry was NATed to; ' +
    'an entry that was not NATed at all was created while the Service had no endpoints.',
  why:
    'UDP "connections" are never closed: as long as a client keeps sending (DNS resolvers retry every few seconds) the entry ' +
    'stays and every packet goes to the old pod IP or, for a never-NATed entry, nowhere. Typical symptom: DNS from some pods ' +
    'times out after CoreDNS pods moved, while other pods resolve fine. kube-proxy deletes such entries when it sees the ' +
    'endpoint change; it misses them when it was down or stuck at that moment.',
  remedy:
    'Delete exactly the stale entries, never the whole table: `conntrack -D -p udp --orig-dst CLUSTERIP --dst-nat STALE_IP` on the ' +
    'node (the finding gives the exact command), or `kubectl node-doctor fix conntrack NODE --service NS/NAME`. ' +
    'A full `conntrack -F` drops every connection on the node, including healthy TCP ones.',
  requires: ['conntrack-udp', 'cluster:services', 'cluster:endpointSlices'],
}

interface ServicePortRef {
  service: Service
  port: number
  portName: string
}

/** ClusterIP:port (UDP) → the Service port. */
function udpServicePorts(cluster: ClusterSnapshot): Map<string, ServicePortRef> {
  const out = new Map<string, ServicePortRef>()
  for (const s of cluster.services) {
    const ips = [...new Set([s.spec.clusterIP, ...(s.spec.clusterIPs ?? [])].filter((ip): ip is string => !!ip && ip !== 'None'))]
    for (const p of s.spec.ports ?? []) {
      if ((p.protocol ?? 'TCP') !== 'UDP') continue
      for (const ip of ips) out.set(`${ip}|${p.port}`, {service: s, port: p.port, portName: p.name ?? ''})
    }
  }
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

interface Stale {
  ref: ServicePortRef
  clusterIP: string
  /** The endpoint address the entries point to, or undefined for never-NATed entries. */
  staleIP?: string
  entries: ConntrackEntry[]
}

export function staleUdpEntries(cluster: ClusterSnapshot, entries: readonly ConntrackEntry[]): Stale[] {
  const ports = udpServicePorts(cluster)
  const groups = new Map<string, Stale>()
  for (const e of entries) {
    if (e.protocol !== 'udp' || e.original.dport === undefined) continue
    const ref = ports.get(`${e.original.dst}|${e.original.dport}`)
    if (!ref) continue
    const eps = endpointAddresses(cluster, ref)
    let staleIP: string | undefined
    if (isDestinationNatted(e)) {
      if (eps.addresses.has(e.reply.src)) continue
      staleIP = e.reply.src
    } else if (!eps.any) {
      // Not NATed and still no endpoints: the traffic is rejected anyway; nothing stale about it.
      continue
    }
    const key = `${e.original.dst}|${ref.port}|${staleIP ?? ''}`
    const g = groups.get(key) ?? {ref, clusterIP: e.original.dst, entries: [], ...(staleIP === undefined ? {} : {staleIP})}
    g.entries.push(e)
    groups.set(key, g)
  }
  return [...groups.values()]
}

function draft(node: string, s: Stale): FindingDraft {
  const svc = s.ref.service
  const ns = svc.metadata.namespace ?? 'default'
  const name = `${ns}/${svc.metadata.name}`
  const portDesc = `${s.clusterIP}:${s.ref.port}/udp`
  const cmd = s.staleIP
    ? `conntrack -D -p udp --orig-dst ${s.clusterIP} --dst-nat ${s.staleIP}`
    : `conntrack -D -p udp --orig-dst ${s.clusterIP} --orig-port-dst ${s.ref.port} --reply-src ${s.clusterIP}`
  const message = s.staleIP
    ? `${s.entries.length} UDP conntrack entr${s.entries.length === 1 ? 'y' : 'ies'} for ${name} (${portDesc}) still go to ${s.staleIP}, which is no longer an endpoint: those clients' packets are lost`
    : `${s.entries.length} UDP conntrack entr${s.entries.length === 1 ? 'y' : 'ies'} for ${name} (${portDesc}) were created while it had no endpoints and were never NATed: those clients' packets are still lost although it has endpoints now`
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
  const text = artifactText(ctx.node, 'conntrack-udp')
  if (text === undefined) return {status: 'skipped', reason: 'missing input: conntrack-udp'}
  let entries: ConntrackEntry[]
  try {
    entries = parseConntrack(text)
  } catch (err) {
    return {status: 'skipped', reason: `the conntrack listing could not be parsed: ${(err as Error).message}`}
  }
  const stale = staleUdpEntries(ctx.cluster, entries)
  return stale.length > 0 ? {status: 'failed', findings: stale.map((s) => draft(ctx.node.node, s))} : {status: 'passed'}
}

export const CONNTRACK_CHECKS: readonly Check[] = [{spec: CT_STALE_UDP, run: checkStaleUdp}]
