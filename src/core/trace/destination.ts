// The traced destination: a Service by name (`svc/NS/NAME[:PORT][/PROTO]`, PORT a port name or number, default
// the Service's only port) or an address (`IP:PORT[/PROTO]`, a cluster IP, an external or load-balancer IP, or a
// node address with a NodePort); the Service behind an address when there is one, and its endpoints with their
// readiness from the EndpointSlices (what the per-endpoint verdicts are about).
import type {EndpointSlice, Service, ServicePortSpec} from '../model/k8s.js'
import {type IpFamily, joinHostPort, parseIPSloppy} from '../net/ip.js'
import {parseTraceDestination, type TraceDestination} from './origin.js'
import type {TraceProtocol} from './types.js'

export type DestinationSpec =
  | {kind: 'service'; namespace: string; name: string; port?: string; protocol?: TraceProtocol}
  | ({kind: 'address'} & TraceDestination)

const NAME = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
const SERVICE_RE = new RegExp(`^(?:svc|service|services)/(${NAME})/(${NAME})(?::([a-z0-9][-a-z0-9]*))?(?:/([A-Za-z]+))?$`)

/** `svc/NS/NAME[:PORT][/PROTO]` or `IP:PORT[/PROTO]`; undefined when it is neither. */
export function parseDestinationSpec(text: string): DestinationSpec | undefined {
  const t = text.trim()
  const m = SERVICE_RE.exec(t)
  if (m) {
    const proto = m[6]?.toLowerCase()
    if (proto !== undefined && proto !== 'tcp' && proto !== 'udp' && proto !== 'sctp') return undefined
    return {kind: 'service', namespace: m[1]!, name: m[3]!, ...(m[5] !== undefined ? {port: m[5]} : {}), ...(proto !== undefined ? {protocol: proto} : {})}
  }
  const d = parseTraceDestination(t)
  return d ? {kind: 'address', ...d} : undefined
}

/** A Service port the destination reaches, and how. */
export interface ServiceTarget {
  namespace: string
  name: string
  /** The port's name ('' when unnamed). */
  portName: string
  port: number
  protocol: TraceProtocol
  /** How the destination reaches it. */
  via: 'cluster IP' | 'NodePort' | 'external IP' | 'load-balancer IP'
}

const protoOf = (p: ServicePortSpec): TraceProtocol => (p.protocol ?? 'TCP').toLowerCase() as TraceProtocol
const describePort = (p: ServicePortSpec): string => `${p.name ? `${p.name} ` : ''}${p.port}/${protoOf(p)}`

function clusterIPsOf(s: Service): string[] {
  const ips = s.spec.clusterIPs ?? (s.spec.clusterIP ? [s.spec.clusterIP] : [])
  return ips.filter((ip) => ip !== 'None' && ip !== '')
}

/** Resolves `svc/NS/NAME[:PORT][/PROTO]` to the cluster IP of the family and the port; {error} for the user. */
export function resolveServiceDestination(
  spec: Extract<DestinationSpec, {kind: 'service'}>,
  services: readonly Service[],
  family: IpFamily | undefined,
): {destination: TraceDestination; target: ServiceTarget} | {error: string} {
  const svc = services.find((s) => s.metadata.namespace === spec.namespace && s.metadata.name === spec.name)
  if (!svc) return {error: `Service ${spec.namespace}/${spec.name} not found`}
  if (svc.spec.type === 'ExternalName') return {error: `Service ${spec.namespace}/${spec.name} is an ExternalName Service: kube-proxy programs no rules for it`}
  const ips = clusterIPsOf(svc)
  const ip = ips.find((i) => family === undefined || parseIPSloppy(i)?.family === family)
  if (!ip) return {error: `Service ${spec.namespace}/${spec.name} has no ${family ?? ''} cluster IP${ips.length === 0 ? ' (headless: there is nothing to trace; reach its pods directly)' : ` (it has ${ips.join(', ')})`}`.replace('  ', ' ')}
  const ports = svc.spec.ports ?? []
  let candidates = ports.filter((p) => spec.protocol === undefined || protoOf(p) === spec.protocol)
  if (spec.port !== undefined) {
    const wanted = spec.port
    candidates = /^\d+$/.test(wanted) ? candidates.filter((p) => p.port === Number(wanted)) : candidates.filter((p) => p.name === wanted)
  }
  const all = ports.map(describePort).join(', ')
  if (candidates.length === 0) return {error: `Service ${spec.namespace}/${spec.name} has no port ${spec.port ?? ''}${spec.protocol ? `/${spec.protocol}` : ''} (ports: ${all || 'none'})`.replace(' port /', ' port ')}
  if (candidates.length > 1) return {error: `Service ${spec.namespace}/${spec.name} has several ports${spec.port !== undefined ? ` matching ${spec.port}` : ''} (${candidates.map(describePort).join(', ')}): name one, e.g. svc/${spec.namespace}/${spec.name}:${candidates[0]!.name || candidates[0]!.port}/${protoOf(candidates[0]!)}`}
  const port = candidates[0]!
  return {
    destination: {dst: parseIPSloppy(ip)!.text, dport: port.port, protocol: protoOf(port)},
    target: {namespace: spec.namespace, name: spec.name, portName: port.name ?? '', port: port.port, protocol: protoOf(port), via: 'cluster IP'},
  }
}

/**
 * The Service port an address destination reaches: a cluster IP, an external IP or a load-balancer ingress IP with
 * the port, or (destination on the node) a NodePort. Undefined when none.
 */
export function serviceAtDestination(services: readonly Service[], d: TraceDestination, localAddresses: readonly string[]): ServiceTarget | undefined {
  const dst = parseIPSloppy(d.dst)?.text
  if (dst === undefined) return undefined
  const isLocal = localAddresses.some((a) => parseIPSloppy(a.split('/')[0] ?? '')?.text === dst) || parseIPSloppy(dst)!.bytes[0] === 127
  for (const s of services) {
    if (s.spec.type === 'ExternalName') continue
    const ns = s.metadata.namespace ?? 'default'
    for (const p of s.spec.ports ?? []) {
      if (protoOf(p) !== d.protocol) continue
      const base = {namespace: ns, name: s.metadata.name, portName: p.name ?? '', port: p.port, protocol: protoOf(p)}
      if (p.port === d.dport) {
        if (clusterIPsOf(s).some((ip) => parseIPSloppy(ip)?.text === dst)) return {...base, via: 'cluster IP'}
        if ((s.spec.externalIPs ?? []).some((ip) => parseIPSloppy(ip)?.text === dst)) return {...base, via: 'external IP'}
        if ((s.status?.loadBalancer?.ingress ?? []).some((i) => i.ip !== undefined && parseIPSloppy(i.ip)?.text === dst)) return {...base, via: 'load-balancer IP'}
      }
      if (isLocal && p.nodePort === d.dport && (s.spec.type === 'NodePort' || s.spec.type === 'LoadBalancer')) return {...base, via: 'NodePort'}
    }
  }
  return undefined
}

/** One endpoint of the Service port, as its EndpointSlices list it. */
export interface ServiceEndpoint {
  /** `ip:port` (`[ip6]:port`): the trace's DNAT outcome key. */
  key: string
  ip: string
  port: number
  ready: boolean
  serving: boolean
  terminating: boolean
  node?: string
  /** `ns/name` of the Pod behind it, when the slice names one. */
  pod?: string
}

/** The endpoints of a Service port in its EndpointSlices (addresses of the family), in address order. */
export function serviceEndpoints(slices: readonly EndpointSlice[], target: ServiceTarget, family: IpFamily): ServiceEndpoint[] {
  const out = new Map<string, ServiceEndpoint>()
  const addressType = family === 'ipv4' ? 'IPv4' : 'IPv6'
  for (const slice of slices) {
    if (slice.metadata.namespace !== target.namespace || slice.metadata.labels?.['kubernetes.io/service-name'] !== target.name) continue
    if (slice.addressType !== addressType) continue
    const port = (slice.ports ?? []).find((p) => (p.name ?? '') === target.portName && (p.protocol ?? 'TCP').toLowerCase() === target.protocol)
    if (!port || typeof port.port !== 'number') continue
    for (const e of slice.endpoints ?? []) {
      const ip = parseIPSloppy(e.addresses[0] ?? '')?.text
      if (ip === undefined) continue
      const key = joinHostPort(ip, port.port)
      if (out.has(key)) continue
      // EndpointSlice semantics: a nil ready means ready; nil serving follows ready; nil terminating is false.
      const ready = e.conditions?.ready !== false
      const ref = e.targetRef?.kind === 'Pod' && e.targetRef.name ? {pod: `${e.targetRef.namespace ?? target.namespace}/${e.targetRef.name}`} : {}
      out.set(key, {
        key,
        ip,
        port: port.port,
        ready,
        serving: e.conditions?.serving ?? ready,
        terminating: e.conditions?.terminating === true,
        ...(e.nodeName ? {node: e.nodeName} : {}),
        ...ref,
      })
    }
  }
  return [...out.values()].sort((a, b) => compareIPs(a.ip, b.ip) || a.port - b.port)
}

function compareIPs(a: string, b: string): number {
  const x = parseIPSloppy(a)!.bytes
  const y = parseIPSloppy(b)!.bytes
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}
