// Does a Service's EndpointSlice content match the pods its selector picks? Mirrors what the EndpointSlice
// controller writes (pkg/controller/endpointslice, staging/.../endpointslice/utils.go, v1.31): an endpoint per pod
// IP, `ready = publishNotReadyAddresses || (pod Ready && !terminating)`, terminating pods kept with ready=false.
//
// NOTE: judged per node. An endpoint belongs to the node in its `nodeName` (or its pod's node); each run examines
// only the endpoints of the node being checked, so a fleet run reports every discrepancy exactly once, on the node
// where the pod lives. That is also the only data a targeted run has complete: it lists kube-system pods plus the
// pods of the examined nodes, not every pod in the cluster.
import type {EndpointSlice, Pod, Service} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import {type IpFamily, ipFamily, isPodReady, isSettling, isTerminal, isTerminating, matchesSelector, normalizeIp, podIps} from './pods.js'

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name'
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by'
const CONTROLLER = 'endpointslice-controller.k8s.io'

type SliceEndpoint = NonNullable<EndpointSlice['endpoints']>[number]

/** The Service's selector when the EndpointSlice controller manages its endpoints; undefined otherwise. */
export function controllerSelector(svc: Service): Record<string, string> | undefined {
  if (svc.spec.type === 'ExternalName') return undefined
  const sel = svc.spec.selector
  // The API server drops an empty selector; a literal {} in a fixture means "no selector" too.
  return sel !== undefined && Object.keys(sel).length > 0 ? sel : undefined
}

/** Of a Service's slices, those the EndpointSlice controller writes (or with no managed-by label). */
export function controllerSlices(slices: readonly EndpointSlice[]): EndpointSlice[] {
  return slices.filter((s) => {
    const managedBy = s.metadata.labels?.[MANAGED_BY_LABEL]
    return managedBy === undefined || managedBy === CONTROLLER
  })
}

/** The Service's EndpointSlices written by the EndpointSlice controller (or with no managed-by label). */
export function slicesOf(cluster: ClusterSnapshot, svc: Service): EndpointSlice[] {
  return controllerSlices(cluster.endpointSlices.filter((s) => s.metadata.namespace === svc.metadata.namespace && s.metadata.labels?.[SERVICE_NAME_LABEL] === svc.metadata.name))
}

/** `ready: null` means unknown and consumers (kube-proxy) treat it as ready. */
export function endpointReady(ep: SliceEndpoint): boolean {
  return ep.conditions?.ready !== false
}

/** Ready endpoint addresses over all the slices. */
export function readyAddresses(slices: readonly EndpointSlice[]): string[] {
  return slices.flatMap((s) => (s.endpoints ?? []).filter(endpointReady).flatMap((e) => e.addresses))
}

/** What the controller would write for `ready` for this pod, or undefined when the pod gets no endpoint at all. */
export function expectedReady(pod: Pod, svc: Service): boolean | undefined {
  if (isTerminal(pod) || podIps(pod).length === 0) return undefined
  if (svc.spec.publishNotReadyAddresses === true) return true
  return isPodReady(pod) && !isTerminating(pod)
}

export function serviceFamilies(svc: Service): IpFamily[] {
  if (svc.spec.ipFamilies && svc.spec.ipFamilies.length > 0) return svc.spec.ipFamilies
  const ip = normalizeIp(svc.spec.clusterIP)
  return [ip ? ipFamily(ip) : 'IPv4']
}

export interface EndpointIssue {
  kind: 'stale' | 'missing'
  service: Service
  /** The endpoint address (stale) or the pod IP that has no ready endpoint (missing). */
  address: string
  /** The slice holding the endpoint (stale, or missing because marked not ready). */
  slice?: EndpointSlice
  /** The pod the endpoint is (or should be) for, when it exists. */
  pod?: Pod
  /** Pod name the endpoint's targetRef names, when the pod itself is gone. */
  targetName?: string
  /** Why, as a phrase: `no pod has this IP`, `pod web-1 is not Ready`, `absent from every EndpointSlice`. */
  reason: string
  evidence: string[]
  /** No endpoint of the Service is ready at all (a missing pod then means an outage, not lost capacity). */
  serviceHasNoReadyEndpoint: boolean
}

function endpointLine(slice: EndpointSlice, ep: SliceEndpoint): string {
  const c = ep.conditions ?? {}
  const cond = ['ready', 'serving', 'terminating'].map((k) => `${k}=${String((c as Record<string, unknown>)[k] ?? 'nil')}`).join(' ')
  const ref = ep.targetRef?.name ? ` targetRef=${ep.targetRef.kind ?? 'Pod'}/${ep.targetRef.name}` : ''
  return `EndpointSlice ${slice.metadata.name}: ${ep.addresses.join(',')} ${cond}${ref} nodeName=${ep.nodeName ?? '-'}`
}

function podLine(pod: Pod): string {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'absent'
  const term = isTerminating(pod) ? ' terminating' : ''
  return `Pod ${pod.metadata.name}: IPs ${podIps(pod).join(',') || '-'} phase=${pod.status?.phase ?? '-'} Ready=${ready}${term} node=${pod.spec?.nodeName ?? '-'}`
}

/** Pods looked up by `ns/name`, by `ns/ip` and by node; built once per snapshot (a fleet run asks per node). */
export interface PodIndex {
  byName: Map<string, Pod>
  byIp: Map<string, Pod[]>
  byNode: Map<string, Pod[]>
}

export function indexPods(pods: readonly Pod[]): PodIndex {
  const index: PodIndex = {byName: new Map(), byIp: new Map(), byNode: new Map()}
  for (const p of pods) {
    const ns = p.metadata.namespace ?? ''
    index.byName.set(`${ns}/${p.metadata.name}`, p)
    for (const ip of podIps(p)) index.byIp.set(`${ns}/${ip}`, [...(index.byIp.get(`${ns}/${ip}`) ?? []), p])
    const node = p.spec?.nodeName
    if (node !== undefined) index.byNode.set(node, [...(index.byNode.get(node) ?? []), p])
  }
  return index
}

/**
 * Stale and missing endpoints of one Service on one node. Stale: an endpoint on the node that is ready (or
 * ready=nil) although no selected pod has its IP, or its pod is not Ready / terminating. Missing: a selected pod on
 * the node that should be ready but has no ready endpoint for one of the Service's IP families. Pods that changed
 * within SETTLE_SECONDS of `collectedAt` are not reported as missing. Services without a controller-managed selector
 * return [].
 */
export function serviceEndpointIssues(svc: Service, slices: readonly EndpointSlice[], pods: PodIndex, nodeName: string, collectedAt: string): EndpointIssue[] {
  const selector = controllerSelector(svc)
  if (selector === undefined) return []
  const ns = svc.metadata.namespace ?? ''
  const atIp = (ip: string) => pods.byIp.get(`${ns}/${ip}`) ?? []
  const noneReady = readyAddresses(slices).length === 0
  const issues: EndpointIssue[] = []
  const base = {service: svc, serviceHasNoReadyEndpoint: noneReady}

  // Stale: walk the endpoints that live on this node.
  for (const slice of slices) {
    for (const ep of slice.endpoints ?? []) {
      if (!endpointReady(ep)) continue
      const refName = ep.targetRef && (ep.targetRef.kind ?? 'Pod') === 'Pod' ? ep.targetRef.name : undefined
      const refPod = refName !== undefined ? pods.byName.get(`${ns}/${refName}`) : undefined
      const onNode = ep.nodeName === nodeName || (ep.nodeName === undefined && refPod?.spec?.nodeName === nodeName)
      if (!onNode) continue
      for (const raw of ep.addresses) {
        const address = normalizeIp(raw) ?? raw
        // hostNetwork pods share the node's IP, so for them only the targetRef identifies the pod.
        const candidates = atIp(address)
        const pod = refPod ?? candidates.find((p) => p.spec?.hostNetwork !== true) ?? (refName === undefined ? candidates[0] : undefined)
        let reason: string | undefined
        if (!pod) reason = refName !== undefined ? `its pod ${refName} no longer exists` : 'no pod has this IP'
        else if (!podIps(pod).includes(address)) reason = `its pod ${pod.metadata.name} now has IP ${podIps(pod).join(', ') || 'none'}`
        else if (!matchesSelector(pod.metadata.labels, selector))
          reason = refPod ? `pod ${pod.metadata.name} no longer matches the Service's selector` : `the IP now belongs to pod ${pod.metadata.name}, which the Service does not select`
        else if (pod.spec?.nodeName !== undefined && pod.spec.nodeName !== nodeName) reason = `pod ${pod.metadata.name} runs on ${pod.spec.nodeName}, not on ${nodeName}`
        else if (expectedReady(pod, svc) !== true) {
          const state = isTerminal(pod) ? `has phase ${pod.status?.phase}` : isTerminating(pod) ? 'is terminating' : 'is not Ready'
          reason = `pod ${pod.metadata.name} ${state}`
        }
        if (reason === undefined) continue
        issues.push({
          ...base,
          kind: 'stale',
          address,
          slice,
          ...(pod ? {pod} : {}),
          ...(refName !== undefined && !pod ? {targetName: refName} : {}),
          reason,
          evidence: [endpointLine(slice, ep), ...(pod ? [podLine(pod)] : [])],
        })
      }
    }
  }

  // Missing: walk the selected pods on this node.
  const families = serviceFamilies(svc)
  for (const pod of pods.byNode.get(nodeName) ?? []) {
    if (pod.metadata.namespace !== svc.metadata.namespace || pod.spec?.hostNetwork === true || !matchesSelector(pod.metadata.labels, selector)) continue
    if (expectedReady(pod, svc) !== true || isSettling(pod, collectedAt)) continue
    for (const ip of podIps(pod)) {
      const family = ipFamily(ip)
      if (!families.includes(family)) continue
      const found = slices
        .filter((s) => s.addressType === family)
        .flatMap((s) => (s.endpoints ?? []).map((ep) => ({s, ep})))
        .filter(({ep}) => ep.addresses.some((a) => (normalizeIp(a) ?? a) === ip))
      if (found.some(({ep}) => endpointReady(ep))) continue
      const marked = found[0]
      issues.push({
        ...base,
        kind: 'missing',
        address: ip,
        ...(marked ? {slice: marked.s} : {}),
        pod,
        reason: marked
          ? `its endpoint is marked not ready although pod ${pod.metadata.name} is Ready`
          : slices.length === 0
            ? 'the Service has no EndpointSlice at all'
            : `absent from every ${family} EndpointSlice of the Service`,
        evidence: [podLine(pod), ...found.map(({s, ep}) => endpointLine(s, ep)), ...(slices.length === 0 ? [`no EndpointSlice labelled ${SERVICE_NAME_LABEL}=${svc.metadata.name}`] : [])],
      })
    }
  }
  return issues
}
