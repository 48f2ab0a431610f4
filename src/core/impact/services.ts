// The Service view impact and `why` reason about: each Service's ready endpoints (IP, pod, node) from its
// EndpointSlices, and the pods by IP. EndpointSlices, not pods: a single-node run reads only that node's pods and
// kube-system's, while the slices name every endpoint's pod and node.
import type {EndpointSlice, Pod, Service} from '../model/k8s.js'
import type {ClusterSnapshot} from '../model/snapshot.js'

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name'

export interface ServiceEndpoint {
  ip: string
  /** `ns/name` of the pod behind it, when the slice names one. */
  pod?: string
  node?: string
}

export interface ServiceView {
  /** `ns/name`. */
  name: string
  service: Service
  /** Ready endpoints (conditions.ready true or unset), one per IP. */
  endpoints: ServiceEndpoint[]
  /** Port names and numbers of the Service (`dns`, `53`), to resolve a `:PORT` given by name or number. */
  ports: Array<{name: string; port: number; protocol: string}>
  /** Ready endpoint IPs per Service port name, as kube-proxy pairs them: from the slices that carry a port of that name. */
  portEndpoints: Map<string, string[]>
}

export interface ServiceIndex {
  services: Map<string, ServiceView>
  /** Non-hostNetwork pods by IP (`ns/name`), from the pods and the slices' targetRefs. */
  podsByIp: Map<string, string>
}

export const serviceKey = (s: Service): string => `${s.metadata.namespace ?? 'default'}/${s.metadata.name}`

function podIpsOf(p: Pod): string[] {
  const ips = (p.status?.podIPs ?? []).map((x) => x.ip).filter((ip): ip is string => !!ip)
  return ips.length > 0 ? ips : p.status?.podIP ? [p.status.podIP] : []
}

/** Whether an endpoint counts as ready: kube-proxy treats an unset ready condition as ready. */
function ready(ep: NonNullable<EndpointSlice['endpoints']>[number]): boolean {
  return ep.conditions?.ready !== false
}

/** Builds the index once per cluster snapshot. */
export function indexServices(cluster: ClusterSnapshot): ServiceIndex {
  const slicesBy = new Map<string, EndpointSlice[]>()
  for (const s of cluster.endpointSlices) {
    const svc = s.metadata.labels?.[SERVICE_NAME_LABEL]
    if (svc === undefined || s.addressType === 'FQDN') continue
    const key = `${s.metadata.namespace ?? 'default'}/${svc}`
    slicesBy.set(key, [...(slicesBy.get(key) ?? []), s])
  }
  const podsByIp = new Map<string, string>()
  for (const p of cluster.pods) {
    if (p.spec?.hostNetwork) continue
    for (const ip of podIpsOf(p)) podsByIp.set(ip, `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`)
  }
  const services = new Map<string, ServiceView>()
  for (const svc of cluster.services) {
    const name = serviceKey(svc)
    const byIp = new Map<string, ServiceEndpoint>()
    const portEndpoints = new Map<string, string[]>()
    for (const slice of slicesBy.get(name) ?? []) {
      for (const ep of slice.endpoints ?? []) {
        if (!ready(ep)) continue
        for (const p of slice.ports ?? []) portEndpoints.set(p.name ?? '', [...new Set([...(portEndpoints.get(p.name ?? '') ?? []), ...ep.addresses])].sort())
        const ref = ep.targetRef?.kind === 'Pod' && ep.targetRef.name ? `${ep.targetRef.namespace ?? svc.metadata.namespace ?? 'default'}/${ep.targetRef.name}` : undefined
        for (const ip of ep.addresses) {
          if (byIp.has(ip)) continue
          byIp.set(ip, {ip, ...(ref ? {pod: ref} : {}), ...(ep.nodeName ? {node: ep.nodeName} : {})})
          if (ref && !podsByIp.has(ip)) podsByIp.set(ip, ref)
        }
      }
    }
    const ports = (svc.spec.ports ?? []).map((p) => ({name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP'}))
    services.set(name, {name, service: svc, endpoints: [...byIp.values()].sort((a, b) => a.ip.localeCompare(b.ip)), ports, portEndpoints})
  }
  return {services, podsByIp}
}

/**
 * A finding group or `why` target naming a Service port: `ns/name`, `ns/name:port`, `Service ns/name`. The port is
 * kube-proxy's port name, or the number when unnamed. Undefined when the text names no Service.
 */
export function parseServiceRef(text: string): {service: string; port?: string} | undefined {
  const m = /^(?:Service |svc\/)?([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)(?::([-a-zA-Z0-9]+))?$/.exec(text)
  if (!m) return undefined
  return {service: `${m[1]}/${m[3]}`, ...(m[5] !== undefined ? {port: m[5]} : {})}
}
