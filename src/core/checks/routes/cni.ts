// The route checks for CNIs other than Calico: flannel (RT-009..011) here, the per-pod routes of VPC CNIs (RT-012)
// in vpc.ts. Which model applies comes from the node's resolved layout (core/layout) and, for flannel, the leases
// its flanneld published on the Node objects. CNIs whose routes are not modelled skip with that reason.
import {factKey, type NodeFacts} from '../../facts/node-facts.js'
import type {CniName} from '../../layout/resolve.js'
import type {Route} from '../../parse/routes.js'
import {isTerminal} from '../dns/pods.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {formatRoute} from './compare.js'
import {
  compareFlannel,
  FLANNEL_ANNOTATION_PREFIX,
  FLANNEL_VXLAN_DEV,
  type FlannelBackend,
  type FlannelModel,
  type FlannelProblem,
  flannelNodes,
  readFlannelModel,
  readFlannelNode,
} from './flannel.js'
import {RT_FLANNEL_CNI0_REMEDY, RT_FLANNEL_FDB, RT_FLANNEL_NEIGH, RT_FLANNEL_ROUTE} from './specs.js'

/** CNIs whose inter-node routes are someone else's model (Calico: RT-001..008) or not modelled at all. */
const NOT_FLANNEL: Partial<Record<CniName, string>> = {
  calico: 'not applicable: the CNI here is Calico (its routes are checked by RT-001..RT-008)',
  cilium: 'not applicable: the CNI here is Cilium (its routes are checked by RT-013, RT-014)',
  'aws-vpc-cni': 'not applicable: the CNI here is the Amazon VPC CNI (per-pod routes: RT-012)',
  'azure-cni': 'not applicable: the CNI here is Azure CNI (per-pod routes: RT-012)',
  gke: 'not applicable: gke routes not modelled',
  'kube-router': 'not applicable: kube-router routes not modelled',
  'ovn-kubernetes': 'not applicable: ovn-kubernetes routes not modelled',
  antrea: 'not applicable: antrea routes not modelled',
  weave: 'not applicable: weave routes not modelled',
}

export type FlannelAnalysis = {ok: true; model: FlannelModel; routes: Route[]} | {ok: false; reason: string}

const FLANNEL = factKey<FlannelAnalysis>('flannel model')

export function flannelAnalysis(ctx: CheckContext): FlannelAnalysis {
  return factsOf(ctx).derive(FLANNEL, analyzeFlannel)
}

function analyzeFlannel(facts: NodeFacts): FlannelAnalysis {
  const {cluster} = facts
  const name = facts.node.node
  const cni = facts.resolvedLayout.cni
  const other = NOT_FLANNEL[cni.name]
  if (other !== undefined) return {ok: false, reason: other}
  const leased = flannelNodes(cluster)
  if (leased.length === 0) {
    return {
      ok: false,
      reason:
        cni.name === 'flannel' || cni.name === 'canal'
          ? `cannot tell the leases: no Node carries ${FLANNEL_ANNOTATION_PREFIX}backend-type (flannel with an etcd backend, or another --kube-annotation-prefix)`
          : `not applicable: no flannel here (the layout says ${cni.name === 'unknown' ? 'the CNI is unknown' : cni.name} and no Node carries ${FLANNEL_ANNOTATION_PREFIX}* lease annotations)`,
    }
  }
  const self = cluster.nodes.find((n) => n.metadata.name === name)
  if (!self) return {ok: false, reason: `cannot tell: Node ${name} is not in the snapshot`}
  // Lease annotations outlive a move to another CNI: without the layout naming flannel, ask for a sign of it here.
  if (cni.name !== 'flannel' && cni.name !== 'canal' && !flannelSeenOn(facts)) {
    return {ok: false, reason: `not applicable: Nodes carry flannel lease annotations, but nothing shows flannel on ${name} (no flannel.1 link or route, no flannel pod)`}
  }
  const mine = readFlannelNode(self)
  let backend: string | undefined
  let basis: string
  if (mine.backendType !== undefined) {
    backend = mine.backendType
    basis = `backend ${backend} from ${name}'s ${FLANNEL_ANNOTATION_PREFIX}backend-type annotation`
  } else if ((cni.name === 'flannel' || cni.name === 'canal') && cni.mode !== undefined) {
    backend = cni.mode
    basis = `backend ${backend} from the node's layout (${cni.name} ${cni.mode}); ${name} has no backend-type annotation`
  } else {
    return {ok: false, reason: `cannot tell flannel's backend on ${name}: no ${FLANNEL_ANNOTATION_PREFIX}backend-type annotation and the layout does not say`}
  }
  if (backend !== 'vxlan' && backend !== 'host-gw') return {ok: false, reason: `not applicable: flannel ${backend} routes not modelled`}
  const table = facts.routes('ip-route')
  if (table === undefined) return {ok: false, reason: 'missing input: ip-route'}
  if (!table.ok) return {ok: false, reason: `cannot read the ip-route artifact: ${table.error.message}`}
  const routes = table.value.routes.filter((r) => r.table === 'main' && r.family === 'inet')
  const model = readFlannelModel(cluster, name, backend as FlannelBackend, basis, cni.name !== 'canal')!
  return {ok: true, model, routes}
}

function flannelSeenOn(facts: NodeFacts): boolean {
  const name = facts.node.node
  if (facts.cluster.pods.some((p) => p.spec?.nodeName === name && /flannel/.test(p.metadata.name) && !isTerminal(p))) return true
  for (const id of ['ip-link', 'ip-addr'] as const) {
    const links = facts.links(id)
    if (links?.ok && links.value.interfaces.some((i) => i.name === FLANNEL_VXLAN_DEV || i.name === 'flannel-wg')) return true
  }
  const routes = facts.routes('ip-route')
  return routes?.ok === true && routes.value.routes.some((r) => r.dev === FLANNEL_VXLAN_DEV)
}

const routeSubject = (dst: string) => ({kind: 'route', name: dst.replace(/\/32$/, ''), in: 'table main'})

function nodeEvidence(p: {node: {name: string; publicIp?: string; vtepMac?: string}; cidr: {text: string}}): string {
  return `lease of ${p.node.name}: podCIDR ${p.cidr.text}, public-ip ${p.node.publicIp ?? '?'}${p.node.vtepMac ? `, VtepMAC ${p.node.vtepMac}` : ''}`
}

function draftFor(p: FlannelProblem, model: FlannelModel): {id: string; draft: FindingDraft} {
  switch (p.kind) {
    case 'missing-route':
      return {
        id: RT_FLANNEL_ROUTE.id,
        draft: {
          message: `no route to ${p.node.name}'s podCIDR ${p.cidr.text}: pods here cannot reach pods on ${p.node.name}`,
          subject: routeSubject(p.cidr.text),
          evidence: [...p.expected.map((e) => `expected: ${e}`), nodeEvidence(p), model.basis],
          group: `routes to ${p.node.name}`,
        },
      }
    case 'wrong-route':
      return {
        id: RT_FLANNEL_ROUTE.id,
        draft: {
          message: `the route to ${p.node.name}'s podCIDR ${p.cidr.text} is wrong: ${p.why}`,
          subject: routeSubject(p.cidr.text),
          evidence: [...p.actual.map((r) => `actual:   ${formatRoute(r)}`), ...p.expected.map((e) => `expected: ${e}`), nodeEvidence(p), model.basis],
          group: `routes to ${p.node.name}`,
        },
      }
    case 'own-cidr-routed':
      return {
        id: RT_FLANNEL_ROUTE.id,
        draft: {
          message: `this node's own podCIDR ${p.cidr.text} is routed away (${p.actual.map(formatRoute).join('; ')}): traffic for pods on ${model.local.name} leaves the node (two nodes with one podCIDR?)`,
          subject: routeSubject(p.cidr.text),
          evidence: [...p.actual.map((r) => `actual:   ${formatRoute(r)}`), `expected: ${p.cidr.text} dev cni0 scope link`, model.basis],
        },
      }
    case 'bridge-other-subnet':
      return {
        id: RT_FLANNEL_ROUTE.id,
        draft: {
          message: `cni0 carries ${p.actual.map((r) => r.dst).join(', ')}, but this node's podCIDR is ${p.cidr.text}: cni0 kept an address from an earlier podCIDR, so new pods fail to start and pods on other nodes cannot reach pods here`,
          subject: routeSubject(p.cidr.text),
          evidence: [...p.actual.map((r) => `actual:   ${formatRoute(r)}`), `expected: ${p.cidr.text} dev cni0 scope link`, `podCIDR of ${model.local.name}: ${p.cidr.text}`],
          remedy: RT_FLANNEL_CNI0_REMEDY,
        },
      }
    case 'missing-local-route':
      return {
        id: RT_FLANNEL_ROUTE.id,
        draft: {
          message: `no route for this node's podCIDR ${p.cidr.text} on cni0 although ${p.pods.length} pod(s) run here: nothing reaches them`,
          subject: routeSubject(p.cidr.text),
          evidence: [`expected: ${p.cidr.text} dev cni0 scope link`, `pods: ${p.pods.slice(0, 5).map((x) => `${x.metadata.namespace}/${x.metadata.name}`).join(', ')}${p.pods.length > 5 ? ', …' : ''}`],
        },
      }
    case 'stale-route':
      return {
        id: RT_FLANNEL_ROUTE.id,
        draft: {
          message: `stale route ${formatRoute(p.route)}: no current Node's flannel lease has this podCIDR (a removed node, or a podCIDR that changed)`,
          subject: routeSubject(p.route.dst),
          evidence: [`actual: ${formatRoute(p.route)}`, model.basis],
          severity: 'warning',
        },
      }
    case 'missing-neigh':
    case 'wrong-neigh':
      return {
        id: RT_FLANNEL_NEIGH.id,
        draft: {
          message:
            p.kind === 'missing-neigh'
              ? `flannel.1 has no neighbour entry for ${p.gateway}, the gateway of ${p.node.name}'s podCIDR ${p.cidr.text}: packets to ${p.node.name}'s pods are not sent`
              : `flannel.1's neighbour entry for ${p.gateway} (${p.node.name}) has MAC ${p.actual.map((e) => e.lladdr).join(', ')}, but ${p.node.name}'s VtepMAC is ${p.mac}: packets go to a VTEP that no longer exists`,
          subject: routeSubject(p.cidr.text),
          evidence: [
            `expected: ${p.gateway} dev flannel.1 lladdr ${p.mac} PERMANENT`,
            ...p.actual.map((e) => `actual:   ${e.dst} dev ${e.dev}${e.lladdr ? ` lladdr ${e.lladdr}` : ''} ${e.state.join(' ')}`.trimEnd()),
            nodeEvidence(p),
          ],
          group: `routes to ${p.node.name}`,
        },
      }
    case 'missing-fdb':
      return {
        id: RT_FLANNEL_FDB.id,
        draft: {
          message: `flannel.1's forwarding database has no entry for ${p.node.name}'s VTEP ${p.mac}: VXLAN packets to ${p.node.name}'s pods have no destination${p.sameDst.length > 0 ? ` (${p.publicIp} is known under ${p.sameDst.map((e) => e.mac).join(', ')}: an old VtepMAC)` : ''}`,
          subject: routeSubject(p.cidr.text),
          evidence: [`expected: ${p.mac} dev flannel.1 dst ${p.publicIp} self permanent`, ...p.sameDst.map((e) => `actual:   ${e.mac} dev ${e.dev} dst ${e.dst}`), nodeEvidence(p)],
          group: `routes to ${p.node.name}`,
        },
      }
    case 'wrong-fdb':
      return {
        id: RT_FLANNEL_FDB.id,
        draft: {
          message: `flannel.1 sends ${p.node.name}'s VTEP ${p.mac} to ${p.actual.map((e) => e.dst ?? 'no destination').join(', ')}, not to its public IP ${p.publicIp}: VXLAN packets to ${p.node.name}'s pods go to the wrong host`,
          subject: routeSubject(p.cidr.text),
          evidence: [`expected: ${p.mac} dev flannel.1 dst ${p.publicIp} self permanent`, ...p.actual.map((e) => `actual:   ${e.mac} dev ${e.dev}${e.dst ? ` dst ${e.dst}` : ''}`), nodeEvidence(p)],
          group: `routes to ${p.node.name}`,
        },
      }
  }
}

function flannelOutcome(id: string) {
  return (ctx: CheckContext): CheckOutcome => {
    const a = flannelAnalysis(ctx)
    if (!a.ok) return {status: 'skipped', reason: a.reason}
    const facts = factsOf(ctx)
    const input = {model: a.model, routes: a.routes, pods: ctx.cluster.pods, collectedAt: ctx.cluster.collectedAt}
    if (id === RT_FLANNEL_NEIGH.id || id === RT_FLANNEL_FDB.id) {
      if (a.model.backend !== 'vxlan') return {status: 'skipped', reason: `not applicable: flannel ${a.model.backend} uses no VXLAN neighbour or FDB entries`}
      if (a.model.remotes.length === 0) return {status: 'passed'}
      let problems: FlannelProblem[]
      if (id === RT_FLANNEL_NEIGH.id) {
        const parsed = facts.neighbours()
        if (parsed === undefined) return {status: 'skipped', reason: 'missing input: ip-neigh'}
        if (!parsed.ok) return {status: 'skipped', reason: `cannot read the ip-neigh artifact: ${parsed.error.message}`}
        problems = compareFlannel({...input, neigh: parsed.value})
      } else {
        const parsed = facts.bridgeFdb()
        if (parsed === undefined) return {status: 'skipped', reason: 'missing input: bridge-fdb'}
        if (!parsed.ok) return {status: 'skipped', reason: `cannot read the bridge-fdb artifact: ${parsed.error.message}`}
        problems = compareFlannel({...input, fdb: parsed.value})
      }
      return outcome(problems.map((p) => draftFor(p, a.model)).filter((d) => d.id === id).map((d) => d.draft))
    }
    return outcome(compareFlannel(input).map((p) => draftFor(p, a.model)).filter((d) => d.id === id).map((d) => d.draft))
  }
}

function outcome(findings: FindingDraft[]): CheckOutcome {
  return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
}

export const runFlannelRoutes = flannelOutcome(RT_FLANNEL_ROUTE.id)
export const runFlannelNeigh = flannelOutcome(RT_FLANNEL_NEIGH.id)
export const runFlannelFdb = flannelOutcome(RT_FLANNEL_FDB.id)
