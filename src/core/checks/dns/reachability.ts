// DNS-004: the CoreDNS endpoints this node cannot reach. kube-proxy balances every DNS query over all ready
// endpoints, so one endpoint behind a missing or wrong route makes that share of lookups from this node's pods time
// out while DNS-001..003 see nothing wrong. Judged from the Calico route analysis RT-001..006 share (routes/index.ts):
// only what those checks call broken counts, so layouts whose pod routing node-doctor cannot judge are skipped, never
// guessed from the default route (VPC-routed pod IPs legitimately follow it).
import {cidrContains, parseCIDRSloppy, parseIPSloppy, type ParsedCIDR} from '../../net/ip.js'
import type {EndpointSlice, Service} from '../../model/k8s.js'
import {analysis} from '../routes/index.js'
import {formatRoute, type RouteProblem} from '../routes/compare.js'
import type {CheckContext, CheckOutcome, CheckSpec} from '../types.js'
import {endpointReady, slicesOf} from './endpoints.js'

export const DNS_ENDPOINT_UNREACHABLE: CheckSpec = {
  id: 'DNS-004',
  area: 'dns',
  severity: 'error',
  title: 'A CoreDNS endpoint is unreachable from this node (its block or pod route is missing or wrong)',
  looksAt:
    "The kube-dns Service's ready endpoints against this node's route problems as RT-001, RT-003, RT-005 and RT-006 see them: " +
    "a missing or wrong route to the Calico block holding the endpoint, a missing route to a CoreDNS pod on this node, or a dead pod route to the endpoint's IP. " +
    'Skipped where the route checks cannot judge (no Calico, blocks routed by another CNI).',
  why:
    'Pods send every lookup to the kube-dns ClusterIP and kube-proxy picks one ready endpoint per query at random. An endpoint this node cannot reach ' +
    "takes its share of the queries and they time out (a resolver's 5 s wait, then a retry): with one of two endpoints unreachable, about half the lookups " +
    'from pods here stall, with all of them nothing resolves. The DNS Service, its endpoints and the CoreDNS pods all look healthy from the API.',
  remedy:
    "Repair the route the finding names; the route finding (RT-001/003/005/006) on this node has the steps (`kubectl node-doctor explain RT-001`). " +
    'Then `kubectl node-doctor why dns --from NODE` confirms every CoreDNS endpoint is reachable again.',
  requires: ['ip-route', 'cluster:nodes', 'cluster:services', 'cluster:endpointSlices'],
}

type SliceEndpoint = NonNullable<EndpointSlice['endpoints']>[number]

interface Cut {
  cidr: ParsedCIDR
  cause: string
  check: string
}

/** What each route problem cuts off and why, in the words of the route finding that reports it. */
function cutsOf(problems: readonly RouteProblem[], blocksJudged: boolean): Cut[] {
  const out: Cut[] = []
  const add = (text: string, cause: string, check: string) => {
    const cidr = parseCIDRSloppy(text.includes('/') ? text : `${text}/${text.includes(':') ? 128 : 32}`)
    if (cidr) out.push({cidr, cause, check})
  }
  for (const p of problems) {
    if (p.kind === 'missing-block-route' && blocksJudged) add(p.block.cidr.text, `no route to ${p.owner}'s block ${p.block.cidr.text}`, 'RT-001')
    else if (p.kind === 'wrong-block-route' && blocksJudged) add(p.block.cidr.text, `the route to ${p.owner}'s block ${p.block.cidr.text} is wrong (${p.actual.map(formatRoute).join('; ')})`, 'RT-003')
    else if (p.kind === 'own-block-routed' && blocksJudged) add(p.block.cidr.text, `this node's own block ${p.block.cidr.text} is routed away`, 'RT-003')
    else if (p.kind === 'missing-pod-route' && !p.linkdown) add(p.ip, `no route to the pod's cali interface`, 'RT-005')
    else if (p.kind === 'orphan-pod-route' && p.elsewhere) add(p.route.dst, `a dead pod route ${formatRoute(p.route)} captures it`, 'RT-006')
  }
  return out
}

/** DNS-004 for the node; `findDns` is how the DNS checks find the kube-dns Service (dns/index.ts). */
export function runDnsReachability(ctx: CheckContext, findDns: (c: CheckContext['cluster']) => Service | undefined): CheckOutcome {
  const svc = findDns(ctx.cluster)
  if (!svc) return {status: 'skipped', reason: 'no kube-dns Service (DNS-001 reports a missing one)'}
  const endpoints: SliceEndpoint[] = slicesOf(ctx.cluster, svc).flatMap((s) => (s.endpoints ?? []).filter(endpointReady))
  if (endpoints.length === 0) return {status: 'skipped', reason: 'the kube-dns Service has no ready endpoints (DNS-001)'}
  const a = analysis(ctx)
  if (!a.ok) return {status: 'skipped', reason: `cannot judge CoreDNS reachability from the routes: ${a.reason}`}
  const cuts = cutsOf(a.problems, a.blockRoutingElsewhere === undefined && a.model.blocks.length > 0)
  const name = `${svc.metadata.namespace ?? 'default'}/${svc.metadata.name}`
  const lines: string[] = []
  const lost = new Set<string>()
  const all = new Set<string>()
  for (const ep of endpoints) {
    for (const ip of ep.addresses) {
      all.add(ip)
      const parsed = parseIPSloppy(ip)
      const cut = parsed ? cuts.find((c) => cidrContains(c.cidr, parsed)) : undefined
      if (!cut || lost.has(ip)) continue
      lost.add(ip)
      const who = [ep.targetRef?.name ? `pod ${ep.targetRef.name}` : undefined, ep.nodeName ? `on ${ep.nodeName}` : undefined].filter(Boolean).join(' ')
      lines.push(`${ip}${who ? ` (${who})` : ''}: ${cut.cause} (${cut.check})`)
    }
  }
  if (lost.size === 0) return {status: 'passed'}
  const k = lost.size
  const n = all.size
  const effect = k === n ? 'no lookup from pods here gets an answer' : `about ${k} in ${n} lookups from pods here time out`
  return {
    status: 'failed',
    findings: [
      {
        message: `${k} of ${n} endpoints of the DNS Service ${name} ${k === 1 ? 'is' : 'are'} unreachable from ${ctx.node.node}: ${effect}`,
        subject: {kind: 'Service', name: svc.metadata.name, ...(svc.metadata.namespace ? {namespace: svc.metadata.namespace} : {})},
        evidence: lines,
      },
    ],
  }
}
