// flannel's expected state on one node, from the Node objects (kube subnet manager: spec.podCIDR and the
// flannel.alpha.coreos.com/* annotations each flanneld writes for its node), compared with the node's routes,
// neighbour table and forwarding database. What flanneld programs per remote lease (flannel-io/flannel
// pkg/backend/vxlan/vxlan_network.go, device.go; pkg/backend/hostgw):
// - vxlan: `<podCIDR> via <podCIDR network address> dev flannel.1 onlink`, a PERMANENT neighbour on flannel.1 for
//   that gateway with the node's VtepMAC, and an FDB entry `<VtepMAC> dev flannel.1 dst <public-ip> self permanent`;
//   with DirectRouting, a node on the same subnet gets `<podCIDR> via <public-ip>` instead (no neighbour, no FDB).
// - host-gw: `<podCIDR> via <public-ip>` on the underlay device.
// Locally, the flannel CNI (bridge plugin) gives cni0 the first address of this node's podCIDR. IPv4 only.
import type {Node, Pod} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import type {FdbEntry, FdbTable} from '../../parse/fdb.js'
import {isResolved, type NeighEntry, type NeighTable} from '../../parse/neigh.js'
import type {Route} from '../../parse/routes.js'
import {isSettling, isTerminal, isTerminating, podIps, secondsBetween, SETTLE_SECONDS} from '../dns/pods.js'
import {type Cidr, cidrContains, parseCidr} from './calico.js'
import {isHostRoute} from './compare.js'

export const FLANNEL_ANNOTATION_PREFIX = 'flannel.alpha.coreos.com/'
export const FLANNEL_VXLAN_DEV = 'flannel.1'
export const FLANNEL_BRIDGE = 'cni0'

export type FlannelBackend = 'vxlan' | 'host-gw'

export interface FlannelNode {
  name: string
  podCIDR?: Cidr
  /** backend-type annotation (vxlan, host-gw, wireguard, ...). */
  backendType?: string
  /** public-ip annotation: the underlay address other nodes send to. */
  publicIp?: string
  /** VtepMAC from backend-data (vxlan), lower case; without it the node's neighbour and FDB entries are not judged. */
  vtepMac?: string
}

export interface FlannelModel {
  backend: FlannelBackend
  /** Where the backend came from, for evidence. */
  basis: string
  local: FlannelNode
  /** Every other node with a flannel lease of the same backend and a podCIDR. */
  remotes: FlannelNode[]
  /** Whether cni0 belongs to flannel here (false under Canal, whose pods sit on cali* veths). */
  bridge: boolean
  /** Every Node's IPv4 podCIDR (judged or not): a route to one of them is never stale. */
  podCIDRs: Cidr[]
}

export type FlannelProblem =
  | {kind: 'missing-route'; node: FlannelNode; cidr: Cidr; expected: string[]}
  | {kind: 'wrong-route'; node: FlannelNode; cidr: Cidr; expected: string[]; actual: Route[]; why: string}
  | {kind: 'own-cidr-routed'; cidr: Cidr; actual: Route[]}
  | {kind: 'bridge-other-subnet'; cidr: Cidr; actual: Route[]}
  | {kind: 'missing-local-route'; cidr: Cidr; pods: Pod[]}
  | {kind: 'stale-route'; route: Route}
  | {kind: 'missing-neigh'; node: FlannelNode; cidr: Cidr; gateway: string; mac: string; actual: NeighEntry[]}
  | {kind: 'wrong-neigh'; node: FlannelNode; cidr: Cidr; gateway: string; mac: string; actual: NeighEntry[]}
  | {kind: 'missing-fdb'; node: FlannelNode; cidr: Cidr; mac: string; publicIp: string; sameDst: FdbEntry[]}
  | {kind: 'wrong-fdb'; node: FlannelNode; cidr: Cidr; mac: string; publicIp: string; actual: FdbEntry[]}

const ann = (n: Node, key: string): string | undefined => n.metadata.annotations?.[FLANNEL_ANNOTATION_PREFIX + key]

function ipv4PodCidr(n: Node): Cidr | undefined {
  const all = [...(n.spec?.podCIDRs ?? []), ...(n.spec?.podCIDR ? [n.spec.podCIDR] : [])]
  return all.map((c) => parseCidr(c)).find((c) => c?.family === 'inet')
}

export function readFlannelNode(n: Node): FlannelNode {
  const out: FlannelNode = {name: n.metadata.name}
  const cidr = ipv4PodCidr(n)
  if (cidr) out.podCIDR = cidr
  const type = ann(n, 'backend-type')
  if (type) out.backendType = type
  const ip = parseCidr(ann(n, 'public-ip'))
  if (ip && ip.family === 'inet' && ip.len === 32) out.publicIp = ip.addr.toString()
  const data = ann(n, 'backend-data')
  if (data !== undefined && data !== '' && data !== 'null') {
    try {
      const v = JSON.parse(data) as {VtepMAC?: unknown} | null
      if (typeof v?.VtepMAC === 'string' && /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/.test(v.VtepMAC)) out.vtepMac = v.VtepMAC.toLowerCase()
    } catch {
      // Not JSON: no VtepMAC to judge by.
    }
  }
  return out
}

/** Nodes whose flanneld registered a lease (the backend-type annotation is set). */
export function flannelNodes(cluster: ClusterSnapshot): Node[] {
  return cluster.nodes.filter((n) => ann(n, 'backend-type') !== undefined)
}

export function readFlannelModel(cluster: ClusterSnapshot, node: string, backend: FlannelBackend, basis: string, bridge: boolean): FlannelModel | undefined {
  const self = cluster.nodes.find((n) => n.metadata.name === node)
  if (!self) return undefined
  // A node that joined seconds before the snapshot may not be programmed yet: not judged (dns/pods.ts SETTLE_SECONDS).
  const settled = (n: Node) => (secondsBetween(n.metadata.creationTimestamp, cluster.collectedAt) ?? Infinity) >= SETTLE_SECONDS
  const remotes = flannelNodes(cluster)
    .filter((n) => n.metadata.name !== node && settled(n))
    .map(readFlannelNode)
    // flanneld ignores leases of another backend type ("ignoring non-vxlan subnet").
    .filter((n) => n.podCIDR !== undefined && n.publicIp !== undefined && n.backendType === backend)
  const podCIDRs = cluster.nodes.map(ipv4PodCidr).filter((c): c is Cidr => c !== undefined)
  return {backend, basis, local: readFlannelNode(self), remotes, bridge, podCIDRs}
}

const hops = (r: Route) => (r.nexthops && r.nexthops.length > 0 ? r.nexthops : [{gateway: r.gateway, dev: r.dev}])

/** Device of the most specific connected (gateway-less, link-scope) route covering `ip`, not a flannel device. */
function connectedDev(routes: readonly Route[], ip: string): string | undefined {
  return routes
    .filter((r) => r.type === 'unicast' && !r.gateway && !r.nexthops && r.dev && r.dev !== FLANNEL_VXLAN_DEV && r.dev !== FLANNEL_BRIDGE && r.scope === 'link')
    .map((r) => ({r, c: parseCidr(r.dst)}))
    .filter((x) => x.c !== undefined && cidrContains(x.c, ip))
    .sort((a, b) => b.c!.len - a.c!.len)[0]?.r.dev
}

export interface FlannelInput {
  model: FlannelModel
  /** Main-table IPv4 routes. */
  routes: readonly Route[]
  neigh?: NeighTable
  fdb?: FdbTable
  pods: readonly Pod[]
  collectedAt: string
}

export function formatVxlanRoute(n: FlannelNode): string {
  return `${n.podCIDR!.text} via ${n.podCIDR!.addr.toString()} dev ${FLANNEL_VXLAN_DEV} onlink`
}

export function formatDirectRoute(n: FlannelNode, dev?: string): string {
  return `${n.podCIDR!.text} via ${n.publicIp}${dev ? ` dev ${dev}` : ''}`
}

/** Every discrepancy between the leases and the node's state. Neighbour/FDB problems only when those tables are given. */
export function compareFlannel(input: FlannelInput): FlannelProblem[] {
  const {model, routes} = input
  const problems: FlannelProblem[] = []
  const byDst = new Map<string, Route[]>()
  for (const r of routes) if (r.family === 'inet') byDst.set(r.dst, [...(byDst.get(r.dst) ?? []), r])
  const judged = new Set<Route>()

  for (const n of model.remotes) {
    const cidr = n.podCIDR!
    const gw = cidr.addr.toString()
    const rs = byDst.get(cidr.text) ?? []
    rs.forEach((r) => judged.add(r))
    const underlay = connectedDev(routes, n.publicIp!)
    const isVxlan = (r: Route) => r.type === 'unicast' && hops(r).some((h) => h.dev === FLANNEL_VXLAN_DEV && h.gateway === gw)
    const isDirect = (r: Route) => r.type === 'unicast' && hops(r).some((h) => h.gateway === n.publicIp && h.dev !== FLANNEL_VXLAN_DEV)
    // vxlan: the encapsulated route, or the direct one when DirectRouting is on and the node shares our subnet.
    const expected =
      model.backend === 'vxlan'
        ? [formatVxlanRoute(n), ...(underlay ? [`${formatDirectRoute(n, underlay)} (DirectRouting)`] : [])]
        : [`${formatDirectRoute(n, underlay)}${underlay ? '' : ` (host-gw needs every node on one L2 network: ${n.publicIp} is on no subnet this node is connected to)`}`]
    const good = rs.filter((r) => (model.backend === 'vxlan' ? isVxlan(r) || (underlay !== undefined && isDirect(r)) : isDirect(r)))
    if (good.length === 0) {
      if (rs.length === 0) problems.push({kind: 'missing-route', node: n, cidr, expected})
      else problems.push({kind: 'wrong-route', node: n, cidr, expected, actual: rs, why: whyWrong(rs, n, model.backend)})
    }
    // Neighbour and FDB entries back the encapsulated route only.
    if (model.backend !== 'vxlan' || (good.length > 0 && !good.some(isVxlan)) || n.vtepMac === undefined) continue
    if (input.neigh) {
      const entries = input.neigh.entries.filter((e) => e.dev === FLANNEL_VXLAN_DEV && e.dst === gw)
      if (!entries.some((e) => isResolved(e) && e.lladdr === n.vtepMac)) {
        const resolved = entries.filter(isResolved)
        problems.push({kind: resolved.length > 0 ? 'wrong-neigh' : 'missing-neigh', node: n, cidr, gateway: gw, mac: n.vtepMac, actual: entries})
      }
    }
    if (input.fdb) {
      const mine = input.fdb.entries.filter((e) => e.dev === FLANNEL_VXLAN_DEV && e.mac === n.vtepMac)
      if (!mine.some((e) => e.dst === n.publicIp)) {
        if (mine.length > 0) problems.push({kind: 'wrong-fdb', node: n, cidr, mac: n.vtepMac, publicIp: n.publicIp!, actual: mine})
        else {
          const sameDst = input.fdb.entries.filter((e) => e.dev === FLANNEL_VXLAN_DEV && e.dst === n.publicIp)
          problems.push({kind: 'missing-fdb', node: n, cidr, mac: n.vtepMac, publicIp: n.publicIp!, sameDst})
        }
      }
    }
  }

  // This node's own podCIDR: on cni0 (when flannel's bridge is in use), never routed away.
  const own = model.local.podCIDR
  if (own) {
    const rs = byDst.get(own.text) ?? []
    rs.forEach((r) => judged.add(r))
    const away = rs.filter((r) => r.type === 'unicast' && hops(r).some((h) => h.gateway !== undefined || h.dev === FLANNEL_VXLAN_DEV))
    if (away.length > 0) problems.push({kind: 'own-cidr-routed', cidr: own, actual: away})
    if (model.bridge) {
      const bridgeRoutes = routes.filter((r) => r.type === 'unicast' && r.dev === FLANNEL_BRIDGE && !r.gateway && !isHostRoute(r))
      const other = bridgeRoutes.filter((r) => r.dst !== own.text)
      const onBridge = bridgeRoutes.some((r) => r.dst === own.text)
      if (other.length > 0 && !onBridge) problems.push({kind: 'bridge-other-subnet', cidr: own, actual: other})
      else if (!onBridge && away.length === 0) {
        // cni0 appears with the first pod; without pods there is nothing to route yet.
        const pods = localBridgePods(input)
        if (pods.length > 0) problems.push({kind: 'missing-local-route', cidr: own, pods})
      }
    }
  }

  // Routes through flannel.1 that no current lease explains: left behind by a removed node or an old podCIDR.
  const leases = model.podCIDRs
  for (const r of routes) {
    if (judged.has(r) || r.type !== 'unicast' || isHostRoute(r) || !hops(r).some((h) => h.dev === FLANNEL_VXLAN_DEV)) continue
    const c = parseCidr(r.dst)
    if (!c || c.len === 0) continue
    // The cluster-wide network route some setups add on flannel.1 covers the leases; it is not stale.
    if (leases.some((l) => cidrContains(c, l) && c.len <= l.len)) continue
    problems.push({kind: 'stale-route', route: r})
  }
  return problems
}

function whyWrong(rs: readonly Route[], n: FlannelNode, backend: FlannelBackend): string {
  const r = rs[0]!
  if (r.type !== 'unicast') return `it is a ${r.type} route, so traffic to ${n.name}'s pods is dropped here`
  const hs = hops(r)
  if (backend === 'host-gw' && hs.some((h) => h.dev === FLANNEL_VXLAN_DEV)) return 'it still goes through flannel.1 although the backend is host-gw: left over from before the backend changed'
  if (backend === 'vxlan' && hs.some((h) => h.dev === FLANNEL_VXLAN_DEV)) return `its gateway ${hs.map((h) => h.gateway ?? 'none').join(', ')} is not ${n.podCIDR!.addr.toString()}, the network address of ${n.name}'s podCIDR`
  if (hs.some((h) => h.gateway !== undefined && h.gateway !== n.publicIp)) return `its next hop ${hs.map((h) => h.gateway).join(', ')} is not ${n.name}'s public IP ${n.publicIp} (the node's address changed, or another node had this podCIDR before)`
  return backend === 'vxlan' ? 'it bypasses flannel.1 although the node is not on this subnet' : 'its next hop or device differs from what host-gw programs'
}

/** Local pods that need the node's bridge: running, not hostNetwork, with an IP inside the podCIDR. */
function localBridgePods(input: FlannelInput): Pod[] {
  const own = input.model.local.podCIDR
  if (!own) return []
  return input.pods.filter(
    (p) =>
      p.spec?.nodeName === input.model.local.name &&
      p.spec.hostNetwork !== true &&
      !isTerminal(p) &&
      !isTerminating(p) &&
      !isSettling(p, input.collectedAt) &&
      podIps(p).some((ip) => cidrContains(own, ip)),
  )
}
