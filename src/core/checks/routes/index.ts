// The Calico route checks: one comparison per (snapshot, node), each check reporting its own kind of problem.
import {factKey, type NodeFacts} from '../../facts/node-facts.js'
import type {Pod} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import {isCalicoWorkloadInterface} from '../../parse/links.js'
import {type Route, routeDevices, type RouteTable} from '../../parse/routes.js'
import {podHealthProblem, podIps} from '../dns/pods.js'
import type {Check, CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {checkBgpPeers} from './bgp.js'
import {type CalicoModel, type Family, hasCalico, isCalicoNodePod, NO_CALICO, ownerHint, readCalicoModel} from './calico.js'
import {runCiliumLocalRoute, runCiliumRoutes} from './cilium.js'
import {runFlannelFdb, runFlannelNeigh, runFlannelRoutes} from './cni.js'
import {compareCalicoRoutes, formatForm, formatRoute, type RouteForm, type RouteProblem} from './compare.js'
import {
  RT_BGP_PEER_DOWN,
  RT_CALICO_NODE_UNHEALTHY,
  RT_CILIUM_LOCAL_ROUTE,
  RT_CILIUM_ROUTE,
  RT_FLANNEL_FDB,
  RT_FLANNEL_NEIGH,
  RT_FLANNEL_ROUTE,
  RT_MISSING_BLACKHOLE,
  RT_MISSING_BLOCK_ROUTE,
  RT_ORPHAN_POD_ROUTE,
  RT_POD_ROUTE_MISSING,
  RT_STALE_ROUTE,
  RT_VPC_POD_ROUTE,
  RT_WRONG_ROUTE,
} from './specs.js'
import {runVpcPodRoutes} from './vpc.js'

/** Set when block routing is not Calico's on this node, with the reason RT-001..004 skip. */
export type Analysis = {ok: true; model: CalicoModel; problems: RouteProblem[]; blockRoutingElsewhere?: string} | {ok: false; reason: string}

// Overlay devices of CNIs that route pod blocks instead of Calico (Canal: Calico for pod veths and policy,
// flannel for the blocks).
const FOREIGN_BLOCK_ROUTERS = ['flannel.1', 'flannel-wg', 'flannel-v6.1']

const ROUTE_ANALYSIS = factKey<Analysis>('calico route analysis')

/** Built once per node and kept on its facts: RT-001..006 share it (and DNS-004). */
export function analysis(ctx: CheckContext): Analysis {
  return factsOf(ctx).derive(ROUTE_ANALYSIS, analyze)
}

// Calico's eBPF dataplane routes each Service IP `via 169.254.1.1 dev bpfin.cali` (host-networked NAT; felix
// bpf_ep_mgr.go setRoute): never a pod route, also when a LoadBalancer IPPool covers the IP.
const BPF_SERVICE_DEV = 'bpfin.cali'

function mainRoutes(table: RouteTable): Route[] {
  return table.routes.filter((r) => r.table === 'main' && r.dev !== BPF_SERVICE_DEV)
}

function analyze(facts: NodeFacts): Analysis {
  const {cluster, node} = facts
  if (!hasCalico(cluster)) return {ok: false, reason: NO_CALICO}
  const v4table = facts.routes('ip-route')
  if (v4table === undefined) return {ok: false, reason: 'missing input: ip-route'}
  const routes: Partial<Record<Family, Route[]>> = {}
  if (!v4table.ok) return {ok: false, reason: `cannot read the ip-route artifact: ${v4table.error.message}`}
  const v4 = mainRoutes(v4table.value)
  routes.inet = v4.filter((r) => r.family === 'inet')
  if (v4.some((r) => r.family === 'inet6')) routes.inet6 = v4.filter((r) => r.family === 'inet6')
  // NOTE: an unreadable IPv6 listing only leaves IPv6 unjudged; the IPv4 checks still stand.
  const v6table = facts.text('ip6-route')?.trim() ? facts.routes('ip6-route') : undefined
  if (v6table?.ok) routes.inet6 = [...(routes.inet6 ?? []), ...mainRoutes(v6table.value).filter((r) => r.family === 'inet6')]
  const addressDevices = new Map<string, string>()
  // Without interface addresses the uplink comes from the connected routes instead.
  const links = facts.links('ip-addr')
  if (links?.ok) for (const i of links.value.interfaces) for (const a of i.addresses) addressDevices.set(a.local, i.name)
  const devices = new Set([...(routes.inet ?? []), ...(routes.inet6 ?? [])].flatMap((r) => routeDevices(r)))
  const calicoDevice = [...devices].find((d) => d === 'tunl0' || d.startsWith('vxlan') || isCalicoWorkloadInterface(d))
  if (calicoDevice === undefined && !cluster.pods.some(isCalicoNodePod)) {
    // NOTE: IPPools outlive a migration to another CNI; without calico-node or any Calico device, Calico routes nothing here.
    return {ok: false, reason: 'Calico objects exist, but there is no calico-node pod and no Calico device (tunl0, vxlan.calico, cali*) in the route table of this node'}
  }
  const model = readCalicoModel(cluster)
  const problems = compareCalicoRoutes({model, node: node.node, routes, pods: cluster.pods, addressDevices, collectedAt: cluster.collectedAt})
  const foreign = FOREIGN_BLOCK_ROUTERS.find((d) => devices.has(d))
  return foreign === undefined ? {ok: true, model, problems} : {ok: true, model, problems, blockRoutingElsewhere: `pod blocks are routed by flannel here (${foreign}: Canal), not by Calico`}
}

const routeSubject = (dst: string) => ({kind: 'route', name: dst.replace(/\/(32|128)$/, ''), in: 'table main'})
const podSubject = (p: Pod) => ({kind: 'Pod', name: p.metadata.name, ...(p.metadata.namespace ? {namespace: p.metadata.namespace} : {})})

/** Why the actual route is wrong, in the words an operator would use. */
function explainWrong(actual: readonly Route[], forms: readonly RouteForm[], owner: string, model: CalicoModel): string {
  const r = actual[0]!
  if (r.type !== 'unicast') return `it is a ${r.type} route here, so traffic to ${owner}'s pods is dropped (two nodes claim the block?)`
  const devs = new Set(actual.flatMap((x) => (x.nexthops ?? [x]).map((h) => h.dev)))
  const encaps = new Set(forms.map((f) => f.encap))
  if (devs.has('tunl0') && !encaps.has('ipip')) return 'it still uses the IPIP tunnel (tunl0) although the pool no longer does: left over from before the encapsulation changed'
  if ([...devs].some((d) => d?.startsWith('vxlan')) && !encaps.has('vxlan')) return 'it still uses the VXLAN device although the pool no longer does: left over from before the encapsulation changed'
  if (encaps.has('ipip') && !devs.has('tunl0') && !encaps.has('none')) return 'it bypasses the IPIP tunnel the pool requires'
  if (encaps.has('vxlan') && ![...devs].some((d) => d?.startsWith('vxlan')) && !encaps.has('none')) return 'it bypasses the VXLAN device the pool requires'
  const known = model.nodes.get(owner)
  const gws = actual.flatMap((x) => (x.nexthops ?? [x]).map((h) => h.gateway)).filter((g): g is string => g !== undefined)
  const other = [...model.nodes.values()].find((n) => n.name !== owner && gws.some((g) => n.all.has(g)))
  if (other) return `its next hop belongs to node ${other.name}, not to ${owner}`
  if (gws.length > 0 && known && !gws.some((g) => known.all.has(g))) return `its next hop ${gws.join(', ')} is not an address of ${owner} (wrong IP autodetected?)`
  return 'its next hop or device differs from what the pool calls for'
}

function draftsFor(problem: RouteProblem, cluster: ClusterSnapshot, model: CalicoModel, node: string): {id: string; draft: FindingDraft} {
  const fam = problem.family
  switch (problem.kind) {
    case 'missing-block-route':
      return {
        id: RT_MISSING_BLOCK_ROUTE.id,
        draft: {
          message: `no route to ${problem.owner}'s block ${problem.block.cidr.text}: pods here cannot reach pods on ${problem.owner}${ownerHint(cluster, model, problem.owner)}`,
          subject: routeSubject(problem.block.cidr.text),
          evidence: [...problem.forms.map((f) => `expected: ${problem.block.cidr.text} ${formatForm(f, fam)}`), problem.basis, `block owner: ${problem.owner} (${problem.block.source})`],
          group: `routes to ${problem.owner}`,
        },
      }
    case 'wrong-block-route':
      return {
        id: RT_WRONG_ROUTE.id,
        draft: {
          message: `the route to ${problem.owner}'s block ${problem.block.cidr.text} is wrong: ${explainWrong(problem.actual, problem.forms, problem.owner, model)}`,
          subject: routeSubject(problem.block.cidr.text),
          evidence: [
            ...problem.actual.map((r) => `actual:   ${formatRoute(r)}`),
            ...problem.forms.map((f) => `expected: ${problem.block.cidr.text} ${formatForm(f, fam)}`),
            problem.basis,
          ],
          group: `routes to ${problem.owner}`,
        },
      }
    case 'own-block-routed':
      return {
        id: RT_WRONG_ROUTE.id,
        draft: {
          message: `this node's own block ${problem.block.cidr.text} is routed away (${problem.actual.map(formatRoute).join('; ')}): traffic for pods on ${node} leaves the node (another node claims the block?)`,
          subject: routeSubject(problem.block.cidr.text),
          evidence: [...problem.actual.map((r) => `actual:   ${formatRoute(r)}`), `expected: blackhole ${problem.block.cidr.text}`, `block owner: ${node} (${problem.block.source})`],
        },
      }
    case 'stale-route':
      return {
        id: RT_STALE_ROUTE.id,
        draft: {
          message: `stale route ${formatRoute(problem.route)}: ${problem.reason}`,
          subject: routeSubject(problem.route.dst),
          evidence: [`actual: ${formatRoute(problem.route)}`],
        },
      }
    case 'missing-blackhole':
      return {
        id: RT_MISSING_BLACKHOLE.id,
        draft: {
          message: `no blackhole route for this node's block ${problem.block.cidr.text}: traffic to its unused addresses leaves the node, and BIRD may not be advertising the block`,
          subject: routeSubject(problem.block.cidr.text),
          evidence: [`expected: blackhole ${problem.block.cidr.text}`, `block owner: ${node} (${problem.block.source})`],
        },
      }
    case 'missing-pod-route': {
      const p = problem.pod
      const name = `${p.metadata.namespace}/${p.metadata.name}`
      const draft: FindingDraft = {
        message: problem.linkdown
          ? `pod ${name} (${problem.ip}): its route to the cali interface is linkdown: the pod's end of the veth is down`
          : problem.actual.length > 0
            ? `pod ${name} (${problem.ip}) is routed via ${problem.actual.map(formatRoute).join('; ')} instead of its cali interface: it is unreachable`
            : `pod ${name} (${problem.ip}) has no route to its cali interface: nothing can reach it, not even kubelet's probes`,
        subject: podSubject(p),
        evidence: [`expected: ${problem.ip} dev cali<11 hex> scope link`, ...problem.actual.map((r) => `actual:   ${formatRoute(r)}`), `pod IPs: ${podIps(p).join(', ')}`],
      }
      if (problem.linkdown) draft.severity = 'warning'
      return {id: RT_POD_ROUTE_MISSING.id, draft}
    }
    case 'orphan-pod-route': {
      const e = problem.elsewhere
      const draft: FindingDraft = {
        message: e
          ? `route ${formatRoute(problem.route)} has no pod on this node, and the IP now belongs to pod ${e.metadata.namespace}/${e.metadata.name} on ${e.spec?.nodeName ?? 'another node'}: traffic from here to that pod goes into a dead veth`
          : `route ${formatRoute(problem.route)} has no pod on this node: it outlived its pod`,
        subject: routeSubject(problem.route.dst),
        evidence: [`actual: ${formatRoute(problem.route)}`],
      }
      if (e) draft.severity = 'error'
      return {id: RT_ORPHAN_POD_ROUTE.id, draft}
    }
  }
}

const BLOCK_IDS = new Set([RT_MISSING_BLOCK_ROUTE.id, RT_STALE_ROUTE.id, RT_WRONG_ROUTE.id, RT_MISSING_BLACKHOLE.id])

function routeOutcome(id: string) {
  return (ctx: CheckContext): CheckOutcome => {
    const {cluster, node} = ctx
    const a = analysis(ctx)
    if (!a.ok) return {status: 'skipped', reason: a.reason}
    if (BLOCK_IDS.has(id) && a.blockRoutingElsewhere !== undefined) return {status: 'skipped', reason: a.blockRoutingElsewhere}
    if (BLOCK_IDS.has(id) && a.model.blocks.length === 0)
      return {status: 'skipped', reason: 'cannot tell which blocks each node owns: no IPAMBlocks or BlockAffinities are visible and no Node has a podCIDR'}
    const findings = a.problems.map((p) => draftsFor(p, cluster, a.model, node.node)).filter((d) => d.id === id).map((d) => d.draft)
    return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
  }
}

function runCalicoNode({cluster, node}: CheckContext): CheckOutcome {
  if (!hasCalico(cluster)) return {status: 'skipped', reason: NO_CALICO}
  const all = cluster.pods.filter(isCalicoNodePod)
  if (all.length === 0) return {status: 'skipped', reason: 'no calico-node pods in the snapshot (Calico may run outside Kubernetes, e.g. as a systemd service)'}
  const mine = all.filter((p) => p.spec?.nodeName === node.node)
  if (mine.length === 0) {
    const ds = cluster.daemonSets.find((d) => d.metadata.name === 'calico-node')
    return {
      status: 'failed',
      findings: [
        {
          message: `no calico-node pod runs on ${node.node}: nothing programs routes or policy for new pods here`,
          subject: {kind: 'Node', name: node.node},
          evidence: [
            `calico-node pods on other nodes: ${all.map((p) => `${p.metadata.name}@${p.spec?.nodeName ?? '-'}`).slice(0, 5).join(', ')}${all.length > 5 ? ', …' : ''}`,
            ...(ds?.status ? [`DaemonSet ${ds.metadata.namespace}/calico-node: desired ${ds.status.desiredNumberScheduled ?? '?'}, ready ${ds.status.numberReady ?? '?'}`] : []),
          ],
        },
      ],
    }
  }
  const findings: FindingDraft[] = []
  for (const pod of mine) {
    const problem = podHealthProblem(pod, cluster.collectedAt)
    if (!problem) continue
    findings.push({message: `calico-node pod ${pod.metadata.namespace}/${pod.metadata.name} is ${problem.summary}`, subject: podSubject(pod), evidence: problem.evidence})
  }
  return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
}

/** RT-001..RT-008 (Calico), RT-009..RT-011 (flannel), RT-012 (VPC CNIs' per-pod routes), RT-013..RT-014 (Cilium). */
export const ROUTES_CHECKS: readonly Check[] = [
  {spec: RT_MISSING_BLOCK_ROUTE, run: routeOutcome(RT_MISSING_BLOCK_ROUTE.id)},
  {spec: RT_STALE_ROUTE, run: routeOutcome(RT_STALE_ROUTE.id)},
  {spec: RT_WRONG_ROUTE, run: routeOutcome(RT_WRONG_ROUTE.id)},
  {spec: RT_MISSING_BLACKHOLE, run: routeOutcome(RT_MISSING_BLACKHOLE.id)},
  {spec: RT_POD_ROUTE_MISSING, run: routeOutcome(RT_POD_ROUTE_MISSING.id)},
  {spec: RT_ORPHAN_POD_ROUTE, run: routeOutcome(RT_ORPHAN_POD_ROUTE.id)},
  {spec: RT_CALICO_NODE_UNHEALTHY, run: runCalicoNode},
  {spec: RT_BGP_PEER_DOWN, run: checkBgpPeers},
  {spec: RT_FLANNEL_ROUTE, run: runFlannelRoutes},
  {spec: RT_FLANNEL_NEIGH, run: runFlannelNeigh},
  {spec: RT_FLANNEL_FDB, run: runFlannelFdb},
  {spec: RT_VPC_POD_ROUTE, run: runVpcPodRoutes},
  {spec: RT_CILIUM_ROUTE, run: runCiliumRoutes},
  {spec: RT_CILIUM_LOCAL_ROUTE, run: runCiliumLocalRoute},
]
