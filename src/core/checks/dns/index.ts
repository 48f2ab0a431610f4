// The DNS and endpoint checks. All read only the ClusterSnapshot; the node under examination decides which pods and
// endpoints are judged (see endpoints.ts for why), except DNS-001, which every node reports: a kube-dns Service with
// no ready endpoint breaks name resolution for each node's pods, and a single-node run must show it.
import type {EndpointSlice, Pod, Service} from '../../model/k8s.js'
import {factKey} from '../../facts/node-facts.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import type {Check, CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {
  controllerSelector,
  controllerSlices,
  type EndpointIssue,
  endpointReady,
  indexPods,
  type PodIndex,
  serviceEndpointIssues,
  SERVICE_NAME_LABEL,
  slicesOf,
} from './endpoints.js'
import {isPodReady, matchesSelector, podHealthProblem, podIps} from './pods.js'
import {DNS_ENDPOINT_UNREACHABLE, runDnsReachability} from './reachability.js'
import {DNS_ENDPOINTS_MISMATCH, DNS_NO_READY_ENDPOINTS, DNS_POD_UNHEALTHY, EP_MISSING, EP_STALE} from './specs.js'

const KUBE_SYSTEM = 'kube-system'
const DNS_LABEL = {'k8s-app': 'kube-dns'}

/** kube-system/kube-dns, else the Service selecting k8s-app=kube-dns (kube-system first), else undefined. */
export function findDnsService(cluster: ClusterSnapshot): Service | undefined {
  const named = cluster.services.find((s) => s.metadata.namespace === KUBE_SYSTEM && s.metadata.name === 'kube-dns')
  if (named) return named
  const selects = (s: Service) => s.spec.selector?.['k8s-app'] === 'kube-dns'
  return cluster.services.find((s) => s.metadata.namespace === KUBE_SYSTEM && selects(s)) ?? cluster.services.find(selects)
}

/** The CoreDNS pods: what the DNS Service selects, else kube-system pods labelled k8s-app=kube-dns. */
export function dnsPods(cluster: ClusterSnapshot, svc: Service | undefined): Pod[] {
  const selector = svc ? controllerSelector(svc) : undefined
  const ns = selector && svc ? svc.metadata.namespace : KUBE_SYSTEM
  return cluster.pods.filter((p) => p.metadata.namespace === ns && matchesSelector(p.metadata.labels, selector ?? DNS_LABEL))
}

const svcName = (s: Service) => `${s.metadata.namespace ?? ''}/${s.metadata.name}`
const svcSubject = (s: Service) => ({kind: 'Service', name: s.metadata.name, ...(s.metadata.namespace ? {namespace: s.metadata.namespace} : {})})
const podSubject = (p: Pod) => ({kind: 'Pod', name: p.metadata.name, ...(p.metadata.namespace ? {namespace: p.metadata.namespace} : {})})

function podStateLine(p: Pod): string {
  return `Pod ${p.metadata.name}: node=${p.spec?.nodeName ?? '-'} IPs=${podIps(p).join(',') || '-'} phase=${p.status?.phase ?? '-'} Ready=${isPodReady(p) ? 'True' : 'False'}`
}

function runNoReadyEndpoints({cluster, node}: CheckContext): CheckOutcome {
  const svc = findDnsService(cluster)
  const pods = dnsPods(cluster, svc)
  if (!svc && pods.length === 0) return {status: 'skipped', reason: 'no in-cluster DNS: no kube-system/kube-dns Service and no pods labelled k8s-app=kube-dns'}
  const podLines = pods.map(podStateLine)
  if (!svc) {
    return {
      status: 'failed',
      findings: [
        {
          message: `no Service selects the CoreDNS pods (k8s-app=kube-dns): pods on ${node.node} send DNS queries to kubelet's clusterDNS address and nothing answers there`,
          subject: {kind: 'Service', name: 'kube-dns', namespace: KUBE_SYSTEM},
          evidence: ['no Service kube-system/kube-dns, and no Service selects k8s-app=kube-dns', ...podLines],
        },
      ],
    }
  }
  const slices = slicesOf(cluster, svc)
  const all = slices.flatMap((s) => (s.endpoints ?? []).map((ep) => ({s, ep})))
  if (all.some(({ep}) => endpointReady(ep))) return {status: 'passed'}
  const readyPods = pods.filter(isPodReady).length
  let cause: string
  if (pods.length === 0) cause = controllerSelector(svc) ? 'no pod matches its selector' : 'it has no selector and nothing wrote ready endpoints'
  else if (readyPods === 0) cause = `none of its ${pods.length} CoreDNS pod${pods.length === 1 ? ' is' : 's are'} Ready`
  else if (slices.length === 0) cause = `${readyPods} CoreDNS pod${readyPods === 1 ? ' is' : 's are'} Ready but the Service has no EndpointSlice`
  else cause = `${readyPods} CoreDNS pod${readyPods === 1 ? ' is' : 's are'} Ready but every endpoint is marked not ready`
  return {
    status: 'failed',
    findings: [
      {
        message: `${svcName(svc)} has no ready endpoints (${cause}): name resolution fails for every pod on ${node.node}`,
        subject: svcSubject(svc),
        evidence: [
          ...(slices.length === 0 ? [`no EndpointSlice labelled ${SERVICE_NAME_LABEL}=${svc.metadata.name}`] : []),
          ...all.map(({s, ep}) => `EndpointSlice ${s.metadata.name}: ${ep.addresses.join(',')} ready=${String(ep.conditions?.ready ?? 'nil')}`),
          ...podLines,
        ],
      },
    ],
  }
}

function runPodUnhealthy({cluster, node}: CheckContext): CheckOutcome {
  const pods = dnsPods(cluster, findDnsService(cluster))
  if (pods.length === 0) return {status: 'skipped', reason: 'no CoreDNS pods (k8s-app=kube-dns) in the cluster'}
  const findings: FindingDraft[] = []
  for (const pod of pods.filter((p) => p.spec?.nodeName === node.node)) {
    const problem = podHealthProblem(pod, cluster.collectedAt)
    if (!problem) continue
    findings.push({
      message: `CoreDNS pod ${pod.metadata.namespace}/${pod.metadata.name} on this node is ${problem.summary}`,
      subject: podSubject(pod),
      evidence: problem.evidence,
      severity: problem.severity,
    })
  }
  return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
}

// Per run: pod and slice indexes; per node: every Service's issues (DNS-003, EP-001 and EP-002 share them).
interface EndpointIndex {
  pods: PodIndex
  slices: Map<string, EndpointSlice[]>
}
const ENDPOINT_INDEX = factKey<EndpointIndex>('endpoint index')
const ENDPOINT_ISSUES = factKey<EndpointIssue[]>('endpoint issues')

function endpointIndex(cluster: ClusterSnapshot): EndpointIndex {
  const slices = new Map<string, EndpointSlice[]>()
  for (const s of cluster.endpointSlices) {
    const svc = s.metadata.labels?.[SERVICE_NAME_LABEL]
    if (svc === undefined) continue
    const key = `${s.metadata.namespace ?? ''}/${svc}`
    slices.set(key, [...(slices.get(key) ?? []), s])
  }
  return {pods: indexPods(cluster.pods), slices}
}

function issuesFor(ctx: CheckContext): EndpointIssue[] {
  const facts = factsOf(ctx)
  return facts.derive(ENDPOINT_ISSUES, ({cluster, node}) => {
    const m = facts.run.derive(ENDPOINT_INDEX, endpointIndex)
    const slicesFor = (svc: Service) => controllerSlices(m.slices.get(svcName(svc)) ?? [])
    return cluster.services.flatMap((svc) => serviceEndpointIssues(svc, slicesFor(svc), m.pods, node.node, cluster.collectedAt))
  })
}

function isDns(cluster: ClusterSnapshot, svc: Service): boolean {
  const dns = findDnsService(cluster)
  return dns !== undefined && svcName(dns) === svcName(svc)
}

function staleDraft(i: EndpointIssue, what: string): FindingDraft {
  const sliceName = i.slice?.metadata.name ?? '?'
  return {
    message: `${what} ${svcName(i.service)} has a ready endpoint ${i.address}, but ${i.reason}: its share of connections fails`,
    subject: {kind: 'EndpointSlice', name: sliceName, ...(i.service.metadata.namespace ? {namespace: i.service.metadata.namespace} : {})},
    evidence: i.evidence,
    group: `Service ${svcName(i.service)}`,
  }
}

function missingDraft(i: EndpointIssue, what: string): FindingDraft {
  const pod = i.pod!
  const impact = i.serviceHasNoReadyEndpoint ? `; the ${what} has no ready endpoint at all` : ''
  const draft: FindingDraft = {
    message: `pod ${pod.metadata.name} (${i.address}) is Ready and selected by ${what} ${svcName(i.service)}, but ${i.reason}${impact}`,
    subject: podSubject(pod),
    evidence: i.evidence,
    group: `Service ${svcName(i.service)}`,
  }
  if (i.serviceHasNoReadyEndpoint) draft.severity = 'error'
  return draft
}

function outcome(findings: FindingDraft[]): CheckOutcome {
  return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
}

function runDnsMismatch(ctx: CheckContext): CheckOutcome {
  const svc = findDnsService(ctx.cluster)
  if (!svc || !controllerSelector(svc)) return {status: 'skipped', reason: 'no kube-dns Service with a selector (DNS-001 reports a missing one)'}
  const issues = issuesFor(ctx).filter((i) => svcName(i.service) === svcName(svc))
  return outcome(issues.map((i) => (i.kind === 'stale' ? staleDraft(i, 'the DNS Service') : {...missingDraft(i, 'the DNS Service'), severity: 'error' as const})))
}

function runEndpoints(kind: EndpointIssue['kind']) {
  return (ctx: CheckContext): CheckOutcome => {
    const issues = issuesFor(ctx).filter((i) => i.kind === kind && !isDns(ctx.cluster, i.service))
    return outcome(issues.map((i) => (kind === 'stale' ? staleDraft(i, 'Service') : missingDraft(i, 'Service'))))
  }
}

/** DNS-001..004 (area dns) and EP-001..002 (area endpoints). */
export const DNS_CHECKS: readonly Check[] = [
  {spec: DNS_NO_READY_ENDPOINTS, run: runNoReadyEndpoints},
  {spec: DNS_POD_UNHEALTHY, run: runPodUnhealthy},
  {spec: DNS_ENDPOINTS_MISMATCH, run: runDnsMismatch},
  {spec: DNS_ENDPOINT_UNREACHABLE, run: (ctx) => runDnsReachability(ctx, findDnsService)},
  {spec: EP_STALE, run: runEndpoints('stale')},
  {spec: EP_MISSING, run: runEndpoints('missing')},
]
