// RT-013, RT-014: the routes Cilium's agent installs for pod CIDRs, per its routing mode (cilium/cilium
// pkg/datapath/linux/node.go, nodeUpdate/createNodeRouteSpec/createDirectRouteSpec; pkg/datapath/linux/adnr):
// - tunnel (routing-mode tunnel, or the older key `tunnel: vxlan|geneve`): per other node's IPv4 alloc CIDR
//   `<CIDR> via <cilium_host IP> dev cilium_host src <cilium_host IP> mtu <route MTU>`;
// - native with auto-direct-node-routes: per other node on a directly connected subnet `<CIDR> via <node IP> dev
//   <that subnet's device>` (nodes behind a gateway get no route: skipped or an agent error upstream);
// - native without it: other nodes' routes come from the cloud or BGP, not Cilium (not applicable);
// - every mode: this node's own CIDRs `<CIDR> via <cilium_host IP> dev cilium_host` (without MTU) unless the local
//   node route is off (enable-local-node-route false, enable-endpoint-routes true, ipam eni).
// Pod CIDRs per node: CiliumNode spec.ipam.podCIDRs plus spec.ipam.pools.allocated[].cidrs (ParseCiliumNode); in ipam
// kubernetes the agent copies Node spec.podCIDRs there, so Node objects stand in when CiliumNodes were not read.
// NOTE: IPv4 only. Route protocol, metric and MTU are not judged (they vary by version: RTPROT_KERNEL, the route
// reconciler). Not modelled (skipped): routing-mode hybrid, single-cluster-route, per-node encapsulation overrides.
import {factKey, type NodeFacts} from '../../facts/node-facts.js'
import type {ConfigMap, KubeObject, Node} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import type {Route} from '../../parse/routes.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {type Cidr, cidrContains, parseCidr} from './calico.js'
import {formatRoute} from './compare.js'

export const CILIUM_HOST = 'cilium_host'

/** IPAM modes that give pods cloud addresses instead of a per-node pod CIDR (nothing for Cilium to route per node). */
const CLOUD_IPAM: Record<string, string> = {
  eni: 'AWS ENI',
  azure: 'Azure',
  alibabacloud: 'Alibaba Cloud ENI',
  'delegated-plugin': 'a delegated IPAM plugin',
}

export type CiliumRouting = {kind: 'tunnel'; protocol: string} | {kind: 'native'; autoDirect: boolean}

export interface CiliumNodeView {
  name: string
  cidrs: Cidr[]
  /** Where the CIDRs came from, for evidence. */
  source: string
  /** The node IP Cilium routes to in native mode (InternalIP, else ExternalIP; IPv4). */
  ip?: string
  /** The node's cilium_host address as its CiliumNode publishes it (type CiliumInternalIP). */
  internalIp?: string
}

export interface CiliumModel {
  routing: CiliumRouting
  /** Whether this node's own CIDRs get a route on cilium_host. */
  localRoute: boolean
  /** Why not, when not. */
  localRouteOff?: string
  /** `routing-mode=tunnel, tunnel-protocol=vxlan in kube-system/cilium-config`. */
  basis: string
  local?: CiliumNodeView
  remotes: CiliumNodeView[]
  /** cilium_host's IPv4 addresses on this node (ip-addr), else the CiliumNode's CiliumInternalIP. */
  hostIps: string[]
}

export type CiliumAnalysis = {ok: true; model: CiliumModel; routes: Route[]} | {ok: false; reason: string}

type CiliumConfig = {ok: true; routing: CiliumRouting; basis: string; ipam?: string; localRoute: boolean; localRouteOff?: string} | {ok: false; reason: string}

const lower = (v: string | undefined) => v?.trim().toLowerCase()

/** Reads the routing mode and IPAM mode from cilium-config's data; `linkMode` is the layout's (cilium_vxlan/_geneve link). */
export function readCiliumConfig(data: Record<string, string>, linkMode: string | undefined): CiliumConfig {
  const ipam = lower(data.ipam)
  if (ipam !== undefined && CLOUD_IPAM[ipam]) {
    return {ok: false, reason: `not applicable: Cilium's IPAM here is ${ipam} (${CLOUD_IPAM[ipam]}): pods get cloud addresses that the cloud routes, there is no per-node pod CIDR for Cilium to route`}
  }
  if (lower(data['enable-ipv4']) === 'false') return {ok: false, reason: 'not applicable: IPv4 is disabled in cilium-config (enable-ipv4: false); IPv6-only Cilium routes are not modelled'}
  if (lower(data['single-cluster-route']) === 'true') return {ok: false, reason: 'not modelled: single-cluster-route=true in cilium-config (one route for the whole cluster CIDR, older Cilium)'}
  const mode = lower(data['routing-mode'])
  const tunnel = lower(data.tunnel)
  let routing: CiliumRouting
  let basis: string
  const adnr = lower(data['auto-direct-node-routes']) === 'true'
  if (mode === 'tunnel') {
    const protocol = lower(data['tunnel-protocol']) ?? 'vxlan'
    routing = {kind: 'tunnel', protocol}
    basis = `routing-mode=tunnel, tunnel-protocol=${data['tunnel-protocol'] === undefined ? 'vxlan (default)' : protocol} in kube-system/cilium-config`
  } else if (mode === 'native') {
    routing = {kind: 'native', autoDirect: adnr}
    basis = `routing-mode=native, auto-direct-node-routes=${adnr} in kube-system/cilium-config`
  } else if (mode !== undefined) {
    return {ok: false, reason: `not modelled: Cilium routing-mode ${mode} (only tunnel and native are)`}
  } else if (tunnel === 'vxlan' || tunnel === 'geneve') {
    routing = {kind: 'tunnel', protocol: tunnel}
    basis = `tunnel=${tunnel} in kube-system/cilium-config (the key before Cilium 1.14)`
  } else if (tunnel === 'disabled') {
    routing = {kind: 'native', autoDirect: adnr}
    basis = `tunnel=disabled, auto-direct-node-routes=${adnr} in kube-system/cilium-config (the keys before Cilium 1.14)`
  } else if (linkMode === 'vxlan' || linkMode === 'geneve') {
    // NOTE: routing-mode defaults to tunnel since Cilium 1.14; the tunnel link on the node confirms it.
    routing = {kind: 'tunnel', protocol: linkMode}
    basis = `tunnel mode: cilium-config names no routing-mode and the node has link cilium_${linkMode}`
  } else {
    return {ok: false, reason: 'cannot tell Cilium\'s routing mode: kube-system/cilium-config has no routing-mode (or tunnel) key and the node has no cilium_vxlan or cilium_geneve link'}
  }
  let localRouteOff: string | undefined
  if (lower(data['enable-local-node-route']) === 'false') localRouteOff = 'enable-local-node-route=false in cilium-config'
  else if (lower(data['enable-endpoint-routes']) === 'true') localRouteOff = 'enable-endpoint-routes=true in cilium-config (per-endpoint routes replace the local node route)'
  return {ok: true, routing, basis, ...(ipam !== undefined ? {ipam} : {}), localRoute: localRouteOff === undefined, ...(localRouteOff ? {localRouteOff} : {})}
}

interface CiliumNodeSpec {
  addresses?: Array<{type?: string; ip?: string}>
  ipam?: {podCIDRs?: string[]; pools?: {allocated?: Array<{pool?: string; cidrs?: string[]}>}}
}

const v4 = (texts: readonly (string | undefined)[]): Cidr[] => {
  const out: Cidr[] = []
  for (const t of texts) {
    const c = parseCidr(t)
    if (c && c.family === 'inet' && !out.some((o) => o.text === c.text)) out.push(c)
  }
  return out
}
const isV4 = (ip: string | undefined): ip is string => ip !== undefined && parseCidr(ip)?.family === 'inet'

function nodeIpOf(node: Node | undefined): string | undefined {
  const as = node?.status?.addresses ?? []
  return as.find((a) => a.type === 'InternalIP' && isV4(a.address))?.address ?? as.find((a) => a.type === 'ExternalIP' && isV4(a.address))?.address
}

/** One view per CiliumNode (its IPv4 CIDRs and addresses). */
export function readCiliumNode(obj: KubeObject, k8sNode: Node | undefined): CiliumNodeView {
  const spec = ((obj as KubeObject & {spec?: CiliumNodeSpec}).spec ?? {}) as CiliumNodeSpec
  const pooled = (spec.ipam?.pools?.allocated ?? []).flatMap((p) => p.cidrs ?? [])
  const cidrs = v4([...(spec.ipam?.podCIDRs ?? []), ...pooled])
  const addr = (type: string) => (spec.addresses ?? []).find((a) => a.type === type && isV4(a.ip))?.ip
  const ip = addr('InternalIP') ?? addr('ExternalIP') ?? nodeIpOf(k8sNode)
  const internalIp = addr('CiliumInternalIP')
  const source = pooled.length > 0 ? `CiliumNode ${obj.metadata.name} spec.ipam (podCIDRs, pools.allocated)` : `CiliumNode ${obj.metadata.name} spec.ipam.podCIDRs`
  return {name: obj.metadata.name, cidrs, source, ...(ip ? {ip} : {}), ...(internalIp ? {internalIp} : {})}
}

function nodesFromApi(cluster: ClusterSnapshot, ipam: string | undefined): {views: CiliumNodeView[]; basis: string} | {reason: string} {
  const byName = new Map(cluster.nodes.map((n) => [n.metadata.name, n]))
  const cns = cluster.ciliumNodes ?? []
  if (cns.length > 0) return {views: cns.map((c) => readCiliumNode(c, byName.get(c.metadata.name))), basis: 'pod CIDRs from CiliumNodes'}
  const why = cluster.ciliumNodes === undefined ? 'CiliumNodes were not read' : 'no CiliumNodes exist'
  if (ipam === 'kubernetes') {
    const views = cluster.nodes.map((n): CiliumNodeView => {
      const ip = nodeIpOf(n)
      return {name: n.metadata.name, cidrs: v4([...(n.spec?.podCIDRs ?? []), n.spec?.podCIDR]), source: `Node ${n.metadata.name} spec.podCIDRs`, ...(ip ? {ip} : {})}
    })
    return {views, basis: `pod CIDRs from Node spec.podCIDRs (ipam kubernetes; ${why})`}
  }
  const unavailable = cluster.unavailable?.find((u) => u.resource === 'ciliumnodes')
  return {reason: `cannot tell each node's pod CIDRs: ${unavailable ? unavailable.note : why}, and Cilium's IPAM is ${ipam ?? 'not named in cilium-config'} (only ipam kubernetes takes them from the Node objects)`}
}

function ciliumConfigMap(cluster: ClusterSnapshot): ConfigMap | undefined {
  return cluster.configMaps.find((c) => c.metadata.name === 'cilium-config' && c.metadata.namespace === 'kube-system')
}

const CILIUM = factKey<CiliumAnalysis>('cilium route model')

/** The model for the node (built once, shared by RT-013 and RT-014), or why there is none. */
export function ciliumAnalysis(ctx: CheckContext): CiliumAnalysis {
  return factsOf(ctx).derive(CILIUM, analyzeCilium)
}

function analyzeCilium(facts: NodeFacts): CiliumAnalysis {
  const {cluster} = facts
  const name = facts.node.node
  const cni = facts.resolvedLayout.cni
  if (cni.name !== 'cilium') return {ok: false, reason: `not applicable: the CNI here is ${cni.name === 'unknown' ? 'not known' : cni.name}, not Cilium`}
  // NOTE: GKE Dataplane V2 runs Cilium as GKE's anetd with a configuration GKE manages; its routes were not verified.
  if (facts.resolvedLayout.distribution === 'gke-cos') return {ok: false, reason: "not modelled: Cilium on GKE (Dataplane V2, anetd) is configured by GKE and its routes are not verified"}
  const table = facts.routes('ip-route')
  if (table === undefined) return {ok: false, reason: 'missing input: ip-route'}
  if (!table.ok) return {ok: false, reason: `cannot read the ip-route artifact: ${table.error.message}`}
  const routes = table.value.routes.filter((r) => r.table === 'main' && r.family === 'inet')
  const hostIps: string[] = []
  let seen = routes.some((r) => r.dev === CILIUM_HOST)
  for (const id of ['ip-addr', 'ip-link'] as const) {
    const links = facts.links(id)
    if (!links?.ok) continue
    const host = links.value.interfaces.find((i) => i.name === CILIUM_HOST)
    if (host) seen = true
    if (id === 'ip-addr' && host) for (const a of host.addresses) if (a.family === 'inet' && !hostIps.includes(a.local)) hostIps.push(a.local)
  }
  if (!seen) return {ok: false, reason: `not applicable: nothing shows Cilium's datapath on ${name} (no cilium_host link or route)`}
  const cm = ciliumConfigMap(cluster)
  if (!cm) return {ok: false, reason: "cannot tell Cilium's routing mode: no ConfigMap kube-system/cilium-config in the snapshot"}
  const config = readCiliumConfig(cm.data ?? {}, cni.mode)
  if (!config.ok) return {ok: false, reason: config.reason}
  const api = nodesFromApi(cluster, config.ipam)
  if ('reason' in api) return {ok: false, reason: api.reason}
  const local = api.views.find((v) => v.name === name)
  if (hostIps.length === 0 && local?.internalIp) hostIps.push(local.internalIp)
  const model: CiliumModel = {
    routing: config.routing,
    localRoute: config.localRoute,
    ...(config.localRouteOff ? {localRouteOff: config.localRouteOff} : {}),
    basis: `${config.basis}; ${api.basis}`,
    ...(local ? {local} : {}),
    remotes: api.views.filter((v) => v.name !== name),
    hostIps,
  }
  return {ok: true, model, routes}
}

export type CiliumProblem =
  | {kind: 'missing-route'; node: CiliumNodeView; cidr: Cidr; expected: string}
  | {kind: 'wrong-route'; node: CiliumNodeView; cidr: Cidr; expected: string; actual: Route[]; why: string}
  | {kind: 'missing-local-route'; cidr: Cidr; expected: string}
  | {kind: 'local-route-wrong'; cidr: Cidr; expected: string; actual: Route[]; why: string}

const isUnicast = (r: Route) => r.type === 'unicast' && r.nexthops === undefined

/** The device of the directly connected route (no gateway) that reaches `ip`, the way Cilium decides a node is on the same L2. */
export function connectedDevice(routes: readonly Route[], ip: string): string | undefined {
  return routes
    .filter((r) => isUnicast(r) && !r.gateway && r.dev !== undefined && !r.dev.startsWith('cilium_') && r.scope === 'link')
    .map((r) => ({r, c: parseCidr(r.dst)}))
    .filter((x) => x.c !== undefined && x.c.len > 0 && cidrContains(x.c, ip))
    .sort((a, b) => b.c!.len - a.c!.len)[0]?.r.dev
}

function viaHost(model: CiliumModel, mtu: boolean): string {
  const gw = model.hostIps[0] ?? '<cilium_host IP>'
  return `via ${gw} dev ${CILIUM_HOST} src ${gw}${mtu ? ' mtu <tunnel route MTU>' : ''}`
}

/** Why a route on cilium_host does not match, or undefined when it does. */
function hostRouteProblem(r: Route, model: CiliumModel): string | undefined {
  if (r.type !== 'unicast') return `it is a ${r.type} route`
  if (r.dev !== CILIUM_HOST) return `it goes via ${r.gateway ?? 'no gateway'} dev ${r.dev ?? '?'} instead of into ${CILIUM_HOST}`
  if (model.hostIps.length > 0 && (r.gateway === undefined || !model.hostIps.includes(r.gateway))) {
    return `its gateway ${r.gateway ?? '(none)'} is not cilium_host's address ${model.hostIps.join(', ')} (cilium_host re-addressed since?)`
  }
  return undefined
}

/** Every discrepancy between Cilium's expected routes and the node's main table (IPv4). */
export function compareCiliumRoutes(model: CiliumModel, routes: readonly Route[]): {problems: CiliumProblem[]; unjudged: string[]} {
  const problems: CiliumProblem[] = []
  const unjudged: string[] = []
  const byDst = new Map<string, Route[]>()
  for (const r of routes) byDst.set(r.dst, [...(byDst.get(r.dst) ?? []), r])
  const own = new Set((model.local?.cidrs ?? []).map((c) => c.text))
  for (const node of model.remotes) {
    for (const cidr of node.cidrs) {
      if (own.has(cidr.text)) continue // two nodes claiming one CIDR: judged by the local route
      const actual = byDst.get(cidr.text) ?? []
      if (model.routing.kind === 'tunnel') {
        const expected = `${cidr.text} ${viaHost(model, true)}`
        if (actual.some((r) => hostRouteProblem(r, model) === undefined)) continue
        if (actual.length === 0) problems.push({kind: 'missing-route', node, cidr, expected})
        else problems.push({kind: 'wrong-route', node, cidr, expected, actual, why: hostRouteProblem(actual[0]!, model)!})
        continue
      }
      if (!node.ip) {
        unjudged.push(`${node.name}: no IPv4 node address`)
        continue
      }
      const dev = connectedDevice(routes, node.ip)
      if (dev === undefined) {
        // Cilium installs no direct route to a node behind a gateway (direct-routing-skip-unreachable, or an agent error).
        unjudged.push(`${node.name}: ${node.ip} is not on a directly connected subnet`)
        continue
      }
      const expected = `${cidr.text} via ${node.ip} dev ${dev}`
      if (actual.some((r) => isUnicast(r) && r.gateway === node.ip && r.dev === dev)) continue
      if (actual.length === 0) problems.push({kind: 'missing-route', node, cidr, expected})
      else {
        const r = actual[0]!
        const why =
          r.type !== 'unicast'
            ? `it is a ${r.type} route`
            : r.gateway !== node.ip
              ? `its next hop ${r.gateway ?? '(none)'} is not ${node.name}'s address ${node.ip}${r.dev === CILIUM_HOST ? ' (a tunnel-mode route left from before the switch to native routing?)' : ''}`
              : `it leaves by ${r.dev ?? '?'}, not ${dev}, the device of ${node.ip}'s subnet`
        problems.push({kind: 'wrong-route', node, cidr, expected, actual, why})
      }
    }
  }
  if (model.localRoute) {
    for (const cidr of model.local?.cidrs ?? []) {
      const expected = `${cidr.text} ${viaHost(model, false)}`
      const actual = byDst.get(cidr.text) ?? []
      if (actual.some((r) => hostRouteProblem(r, model) === undefined)) continue
      if (actual.length === 0) problems.push({kind: 'missing-local-route', cidr, expected})
      else problems.push({kind: 'local-route-wrong', cidr, expected, actual, why: hostRouteProblem(actual[0]!, model)!})
    }
  }
  return {problems, unjudged}
}

const routeSubject = (dst: string) => ({kind: 'route', name: dst, in: 'table main'})

/** Who loses traffic to the other node's pods. NOTE: in tunnel mode Cilium's BPF program on the pod's veth encapsulates
 *  pod-to-pod traffic itself (bpf_lxc redirects to the tunnel device), so only traffic the host stack routes needs the route. */
function whoIsCutOff(model: CiliumModel, node: string): string {
  return model.routing.kind === 'tunnel'
    ? `traffic from this node's host network (host-network pods, node processes) to pods on ${node} follows the default route instead of the tunnel`
    : `pods here cannot reach pods on ${node}`
}

function draftFor(p: CiliumProblem, model: CiliumModel): FindingDraft {
  const basis = model.basis
  switch (p.kind) {
    case 'missing-route':
      return {
        message: `no route to ${p.node.name}'s pod CIDR ${p.cidr.text}: ${whoIsCutOff(model, p.node.name)}`,
        subject: routeSubject(p.cidr.text),
        evidence: [`expected: ${p.expected}`, `pod CIDR of ${p.node.name}: ${p.cidr.text} (${p.node.source})`, basis],
        group: `routes to ${p.node.name}`,
      }
    case 'wrong-route':
      return {
        message: `the route to ${p.node.name}'s pod CIDR ${p.cidr.text} is wrong: ${p.why}; ${whoIsCutOff(model, p.node.name)}`,
        subject: routeSubject(p.cidr.text),
        evidence: [...p.actual.map((r) => `actual:   ${formatRoute(r)}`), `expected: ${p.expected}`, `pod CIDR of ${p.node.name}: ${p.cidr.text} (${p.node.source})`, basis],
        group: `routes to ${p.node.name}`,
      }
    case 'missing-local-route':
      return {
        message: `no route for this node's own pod CIDR ${p.cidr.text} on ${CILIUM_HOST}: traffic from the host to local pods (kubelet probes included) follows the default route instead`,
        subject: routeSubject(p.cidr.text),
        evidence: [`expected: ${p.expected}`, `pod CIDR of this node: ${p.cidr.text} (${model.local?.source ?? '?'})`, basis],
      }
    case 'local-route-wrong':
      return {
        message: `this node's own pod CIDR ${p.cidr.text} is routed wrong: ${p.why}`,
        subject: routeSubject(p.cidr.text),
        evidence: [...p.actual.map((r) => `actual:   ${formatRoute(r)}`), `expected: ${p.expected}`, `pod CIDR of this node: ${p.cidr.text} (${model.local?.source ?? '?'})`, basis],
        severity: 'error',
      }
  }
}

function outcome(findings: FindingDraft[]): CheckOutcome {
  return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
}

/** RT-013: routes to other nodes' pod CIDRs. */
export function runCiliumRoutes(ctx: CheckContext): CheckOutcome {
  const a = ciliumAnalysis(ctx)
  if (!a.ok) return {status: 'skipped', reason: a.reason}
  const {routing} = a.model
  if (routing.kind === 'native' && !routing.autoDirect) {
    return {status: 'skipped', reason: `not applicable: Cilium routes natively without auto-direct-node-routes (${a.model.basis}): routes to other nodes' pod CIDRs come from the network (cloud routes, BGP), not from Cilium`}
  }
  if (a.model.remotes.every((n) => n.cidrs.length === 0)) return {status: 'skipped', reason: `cannot tell: no other node has an IPv4 pod CIDR (${a.model.basis})`}
  const {problems} = compareCiliumRoutes(a.model, a.routes)
  return outcome(problems.filter((p) => p.kind === 'missing-route' || p.kind === 'wrong-route').map((p) => draftFor(p, a.model)))
}

/** RT-014: this node's own pod CIDRs on cilium_host. */
export function runCiliumLocalRoute(ctx: CheckContext): CheckOutcome {
  const a = ciliumAnalysis(ctx)
  if (!a.ok) return {status: 'skipped', reason: a.reason}
  if (!a.model.localRoute) return {status: 'skipped', reason: `not applicable: Cilium installs no local node route here (${a.model.localRouteOff})`}
  if (!a.model.local || a.model.local.cidrs.length === 0) return {status: 'skipped', reason: `cannot tell this node's pod CIDR: ${a.model.local ? `${a.model.local.source} has no IPv4 CIDR` : `no CiliumNode or Node named ${ctx.node.node}`}`}
  const {problems} = compareCiliumRoutes(a.model, a.routes)
  return outcome(problems.filter((p) => p.kind === 'missing-local-route' || p.kind === 'local-route-wrong').map((p) => draftFor(p, a.model)))
}
