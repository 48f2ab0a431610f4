// Endpoints per service port, as kube-proxy's EndpointSliceCache builds them for one IP family.
// Mirrors pkg/proxy/endpointslicecache.go (port matching, condition defaults, dedupe preferring local copies,
// sort by endpoint string) and pkg/proxy/endpoint.go.
import type {EndpointSlice} from '../model/k8s.js'
import type {KubeProxyVersion} from './config.js'
import {type IpFamily, joinHostPort, parseIPSloppy} from '../net/ip.js'
import {canonicalIPs, excludedByProxyLabels, servicePortKey, servicePortName} from './service-ports.js'

/** One endpoint of one service port (kube-proxy's BaseEndpointInfo). */
export interface EndpointInfo {
  /** The IP as kube-proxy prints it (no brackets). */
  ip: string
  port: number
  /** `ip:port` or `[ip6]:port`: the sort key, the hash input and the DNAT target. */
  endpoint: string
  isLocal: boolean
  /** conditions.ready, nil → true. */
  ready: boolean
  /** conditions.serving, nil → true. */
  serving: boolean
  /** conditions.terminating, nil → false. */
  terminating: boolean
  /** hints.forZones names; undefined when there are none (or zone hints are off). */
  zoneHints?: ReadonlySet<string>
  /** hints.forNodes names; undefined when there are none (or PreferSameTrafficDistribution is off). */
  nodeHints?: ReadonlySet<string>
  nodeName?: string
}

export interface EndpointOptions {
  family: IpFamily
  version: KubeProxyVersion
  nodeName: string
  featureGates: Record<string, boolean>
}

/** Service-port key (`SPN/PROTOCOL`) → endpoints sorted by endpoint string. */
export type EndpointsMap = Map<string, EndpointInfo[]>

const LABEL_SERVICE_NAME = 'kubernetes.io/service-name'

function compareEndpoint(a: EndpointInfo, b: EndpointInfo): number {
  return a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0
}

/**
 * Merges all EndpointSlices into endpoints per service port for `family`. Slices without the service-name label, or
 * with kube-proxy's excluding labels, are ignored; FQDN slices and addresses of the other family too. Only
 * `addresses[0]` is used. A port contributes when it has a name (possibly ""), a non-zero port and matches a
 * Service port by name and protocol.
 */
export function buildEndpointsMap(slices: readonly EndpointSlice[], opts: EndpointOptions): EndpointsMap {
  const sets = new Map<string, Map<string, EndpointInfo>>()
  const canonical = canonicalIPs(opts.version)
  for (const slice of slices) {
    const svcName = slice.metadata.labels?.[LABEL_SERVICE_NAME]
    if (!svcName) continue
    if (excludedByProxyLabels(slice.metadata.labels)) continue
    if (slice.addressType !== 'IPv4' && slice.addressType !== 'IPv6') continue
    const namespace = slice.metadata.namespace ?? 'default'
    for (const port of slice.ports ?? []) {
      if (port.name === undefined || port.name === null) continue
      if (port.port === undefined || port.port === null || port.port === 0) continue
      const key = servicePortKey(servicePortName(namespace, svcName, port.name), port.protocol ?? 'TCP')
      let set = sets.get(key)
      if (!set) sets.set(key, (set = new Map()))
      for (const ep of slice.endpoints ?? []) {
        const addr = ep.addresses?.[0]
        if (addr === undefined) continue
        const parsed = parseIPSloppy(addr)
        // utilnet.IsIPv6String: unparseable addresses count as IPv4.
        if ((parsed?.family ?? 'ipv4') !== opts.family || !parsed) continue
        const ip = canonical ? parsed.text : addr
        const isLocal = opts.nodeName !== '' && ep.nodeName === opts.nodeName
        const c = ep.conditions ?? {}
        const info: EndpointInfo = {
          ip,
          port: port.port,
          endpoint: joinHostPort(ip, port.port),
          isLocal,
          ready: c.ready === undefined || c.ready === null || c.ready,
          serving: c.serving === undefined || c.serving === null || c.serving,
          terminating: c.terminating === true,
          ...(ep.nodeName !== undefined ? {nodeName: ep.nodeName} : {}),
        }
        if (opts.featureGates.TopologyAwareHints && (ep.hints?.forZones?.length ?? 0) > 0) {
          info.zoneHints = new Set(ep.hints!.forZones!.map((z) => z.name))
        }
        if (opts.featureGates.PreferSameTrafficDistribution && (ep.hints?.forNodes?.length ?? 0) > 0) {
          info.nodeHints = new Set(ep.hints!.forNodes!.map((n) => n.name))
        }
        // Duplicates keep the first copy unless a later one is local.
        if (!set.has(info.endpoint) || isLocal) set.set(info.endpoint, info)
      }
    }
  }
  const out: EndpointsMap = new Map()
  for (const [key, set] of sets) {
    if (set.size > 0) out.set(key, [...set.values()].sort(compareEndpoint))
  }
  return out
}
