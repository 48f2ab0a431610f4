// The per-port, per-family view kube-proxy builds from a Service.
// Mirrors pkg/proxy/serviceport.go (newBaseServiceInfo), servicechangetracker.go (serviceToServiceMap),
// pkg/proxy/util (GetClusterIPByFamily, ShouldSkipService, IsVIPMode) and pkg/api/v1/service/util.go.
import type {Service} from '../model/k8s.js'
import type {KubeProxyVersion} from './config.js'
import {versionAtLeast} from './config.js'
import {type IpFamily, type ParsedCIDR, parseCIDRSloppy, parseIPSloppy} from '../net/ip.js'

export type Protocol = 'TCP' | 'UDP' | 'SCTP'

/** A loadBalancerSourceRange of this family: the CIDR and the text kube-proxy prints for it. */
export interface SourceRange {
  cidr: ParsedCIDR
  text: string
}

/** One Service port for one IP family, with everything the proxier needs (kube-proxy's ServicePort). */
export interface ServicePortInfo {
  /** Unique key: `SPN/PROTOCOL` (kube-proxy's ServicePortName includes the protocol). */
  key: string
  /** The service-port name `namespace/name[:port]`, used in comments and hashes. */
  name: string
  namespace: string
  serviceName: string
  portName: string
  protocol: Protocol
  clusterIP: string
  port: number
  nodePort: number
  externalIPs: string[]
  /** status.loadBalancer.ingress IPs of this family in VIP mode, in status order. */
  loadBalancerVIPs: string[]
  loadBalancerSourceRanges: SourceRange[]
  sessionAffinityClientIP: boolean
  stickyMaxAgeSeconds: number
  /** Non-zero only for type LoadBalancer with externalTrafficPolicy Local. */
  healthCheckNodePort: number
  externalPolicyLocal: boolean
  internalPolicyLocal: boolean
  /** Value of the topology annotation (service.kubernetes.io/topology-aware-hints, else .../topology-mode). */
  hintsAnnotation: string
}

/** Options of buildServicePorts that come from ProxierOptions. */
export interface ServicePortOptions {
  family: IpFamily
  version: KubeProxyVersion
  featureGates: Record<string, boolean>
}

const LABEL_SERVICE_PROXY_NAME = 'service.kubernetes.io/service-proxy-name'
const LABEL_HEADLESS = 'service.kubernetes.io/headless'

/** kube-proxy's informers select only objects without these labels (server.go noProxyName/noHeadlessEndpoints). */
export function excludedByProxyLabels(labels: Record<string, string> | undefined): boolean {
  return labels !== undefined && (LABEL_SERVICE_PROXY_NAME in labels || LABEL_HEADLESS in labels)
}

/**
 * IPs kube-proxy handles as net.IP print canonically from v1.29; before, external, load-balancer and endpoint IPs
 * were kept as the strings in the object. (Cluster IPs were always parsed.) Version of the switch: medium confidence.
 */
export function canonicalIPs(version: KubeProxyVersion): boolean {
  return versionAtLeast(version, 1, 29)
}

/** `namespace/name` plus `:port` when the port is named (ServicePortName.String()). */
export function servicePortName(namespace: string, name: string, portName: string): string {
  return portName === '' ? `${namespace}/${name}` : `${namespace}/${name}:${portName}`
}

export function servicePortKey(spn: string, protocol: string): string {
  return `${spn}/${protocol}`
}

/** GetClusterIPByFamily: the cluster IP of `family`, or '' when the Service has none. */
export function clusterIPForFamily(service: Service, family: IpFamily): string {
  const spec = service.spec
  const families = spec.ipFamilies ?? []
  if (families.length === 0) {
    const ip = spec.clusterIP ?? ''
    if (ip === '' || ip === 'None') return ''
    const parsed = parseIPSloppy(ip)
    // utilnet.IsIPv6String: anything that is not a parseable IPv6 counts as IPv4.
    const isV6 = parsed?.family === 'ipv6'
    return isV6 === (family === 'ipv6') ? ip : ''
  }
  const want = family === 'ipv6' ? 'IPv6' : 'IPv4'
  const idx = families.indexOf(want)
  if (idx < 0) return ''
  return spec.clusterIPs?.[idx] ?? ''
}

/** ExternallyAccessible by type (pkg/api/v1/service): an empty type never counts. */
function externallyAccessibleByType(service: Service): boolean {
  const t = service.spec.type
  return t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && (service.spec.externalIPs?.length ?? 0) > 0)
}

function ipsOfFamily(list: readonly string[], family: IpFamily, canonical: boolean): string[] {
  const out: string[] = []
  for (const s of list) {
    const p = parseIPSloppy(s)
    if (p && p.family === family) out.push(canonical ? p.text : s)
  }
  return out
}

/**
 * All service ports kube-proxy programs for `family`, sorted by service-port name (then protocol).
 * kube-proxy iterates a Go map, so its order is random; this order is our deterministic choice.
 */
export function buildServicePorts(services: readonly Service[], opts: ServicePortOptions): ServicePortInfo[] {
  const byKey = new Map<string, ServicePortInfo>()
  const canonical = canonicalIPs(opts.version)
  for (const svc of services) {
    if (excludedByProxyLabels(svc.metadata.labels)) continue
    // ShouldSkipService: headless (spec.clusterIP None or unset) and ExternalName Services are not proxied.
    if (svc.spec.type === 'ExternalName' || !svc.spec.clusterIP || svc.spec.clusterIP === 'None') continue
    const rawClusterIP = clusterIPForFamily(svc, opts.family)
    if (rawClusterIP === '' || rawClusterIP === 'None') continue
    const clusterIP = parseIPSloppy(rawClusterIP)
    if (!clusterIP) continue

    const namespace = svc.metadata.namespace ?? 'default'
    const externalPolicyLocal = externallyAccessibleByType(svc) && svc.spec.externalTrafficPolicy === 'Local'
    const internalPolicyLocal = svc.spec.internalTrafficPolicy === 'Local'
    const clientIP = svc.spec.sessionAffinity === 'ClientIP'
    const stickyMaxAgeSeconds = clientIP ? (svc.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? 10800) : 0

    const externalIPs = ipsOfFamily(svc.spec.externalIPs ?? [], opts.family, canonical)

    const sourceRanges: SourceRange[] = []
    for (const raw of svc.spec.loadBalancerSourceRanges ?? []) {
      const trimmed = raw.trim()
      const cidr = parseCIDRSloppy(trimmed)
      if (!cidr || cidr.family !== opts.family) continue
      sourceRanges.push({cidr, text: canonical ? cidr.text : trimmed})
    }

    const lbVIPs: string[] = []
    for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
      if (!ing.ip) continue
      if (opts.featureGates.LoadBalancerIPMode && ing.ipMode !== undefined && ing.ipMode !== 'VIP') continue
      const p = parseIPSloppy(ing.ip)
      if (p && p.family === opts.family) lbVIPs.push(canonical ? p.text : ing.ip)
    }

    const needsHealthCheck = svc.spec.type === 'LoadBalancer' && externalPolicyLocal
    const annotations = svc.metadata.annotations ?? {}
    const hintsAnnotation =
      annotations['service.kubernetes.io/topology-aware-hints'] || annotations['service.kubernetes.io/topology-mode'] || ''

    for (const port of svc.spec.ports ?? []) {
      const portName = port.name ?? ''
      const protocol: Protocol = port.protocol ?? 'TCP'
      const name = servicePortName(namespace, svc.metadata.name, portName)
      const info: ServicePortInfo = {
        key: servicePortKey(name, protocol),
        name,
        namespace,
        serviceName: svc.metadata.name,
        portName,
        protocol,
        clusterIP: clusterIP.text,
        port: port.port,
        nodePort: port.nodePort ?? 0,
        externalIPs,
        loadBalancerVIPs: lbVIPs,
        loadBalancerSourceRanges: sourceRanges,
        sessionAffinityClientIP: clientIP,
        stickyMaxAgeSeconds,
        healthCheckNodePort: needsHealthCheck ? (svc.spec.healthCheckNodePort ?? 0) : 0,
        externalPolicyLocal,
        internalPolicyLocal,
        hintsAnnotation,
      }
      byKey.set(info.key, info)
    }
  }
  return [...byKey.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0))
}

/** nodePort, a load-balancer VIP or an external IP of this family. */
export function externallyAccessible(sp: ServicePortInfo): boolean {
  return sp.nodePort !== 0 || sp.loadBalancerVIPs.length > 0 || sp.externalIPs.length > 0
}

/** Cluster endpoints are needed for iTP Cluster, and for any external traffic (short-circuiting). */
export function usesClusterEndpoints(sp: ServicePortInfo): boolean {
  return !sp.internalPolicyLocal || externallyAccessible(sp)
}

export function usesLocalEndpoints(sp: ServicePortInfo): boolean {
  return sp.internalPolicyLocal || (sp.externalPolicyLocal && externallyAccessible(sp))
}
