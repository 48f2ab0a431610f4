// Expected Calico routes on one node, from the IPAM model, compared with the node's route table (main table only).
// What Calico programs (node-state.md D.2): per remote block a route via the owner, shaped by the pool's
// encapsulation (IPIP `via <nodeIP> dev tunl0 onlink`, VXLAN `via <VTEP> dev vxlan.calico onlink`, no-encap
// `via <nodeIP> dev <uplink>`); a blackhole per own block; a /32 (/128) `dev cali*` per local pod.
// The route protocol (bird, 80, boot) depends on the Calico version and who programs the route, so it is not judged.
import type {Pod} from '../../model/k8s.js'
import {isCalicoWorkloadInterface} from '../../parse/links.js'
import {isRejectRoute, type Route} from '../../parse/routes.js'
import {isSettling, isTerminal, isTerminating, podIps} from '../dns/pods.js'
import {type CalicoBlock, type CalicoModel, type CalicoNodeAddrs, type CalicoPool, type Cidr, cidrContains, type Family, parseCidr} from './calico.js'

export type Encap = 'ipip' | 'vxlan' | 'none'

/** One acceptable shape of a block route. Undefined fields are not constrained. */
export interface RouteForm {
  encap: Encap
  gateway?: string
  dev?: string
}

export type RouteProblem =
  | {kind: 'missing-block-route'; family: Family; block: CalicoBlock; owner: string; forms: RouteForm[]; basis: string}
  | {kind: 'wrong-block-route'; family: Family; block: CalicoBlock; owner: string; forms: RouteForm[]; basis: string; actual: Route[]}
  | {kind: 'own-block-routed'; family: Family; block: CalicoBlock; actual: Route[]}
  | {kind: 'stale-route'; family: Family; route: Route; reason: string}
  | {kind: 'missing-blackhole'; family: Family; block: CalicoBlock}
  | {kind: 'missing-pod-route'; family: Family; pod: Pod; ip: string; actual: Route[]; linkdown: boolean}
  | {kind: 'orphan-pod-route'; family: Family; route: Route; elsewhere?: Pod}

export interface CompareInput {
  model: CalicoModel
  /** The node under examination. */
  node: string
  /** Main-table routes per family, only for families whose route listing was collected. */
  routes: Partial<Record<Family, Route[]>>
  /** Every pod in the snapshot (the node's own are picked here). */
  pods: readonly Pod[]
  /** Interface holding each local address (from `ip -j addr`), to find the uplink. */
  addressDevices?: ReadonlyMap<string, string>
  collectedAt: string
}

const IPIP_DEV = 'tunl0'
const VXLAN_DEV: Record<Family, string> = {inet: 'vxlan.calico', inet6: 'vxlan-v6.calico'}
const TUNNEL_DEVS = new Set(['tunl0', 'vxlan.calico', 'vxlan-v6.calico', 'wireguard.cali', 'wg-v6.cali'])

export function isHostRoute(r: Route): boolean {
  return r.dst.endsWith(r.family === 'inet6' ? '/128' : '/32')
}

/** A route as `ip route` would print it (type only when not unicast; proto when known). */
export function formatRoute(r: Route): string {
  const parts: string[] = []
  if (r.type !== 'unicast') parts.push(r.type)
  parts.push(isHostRoute(r) ? r.dst.replace(/\/(32|128)$/, '') : r.dst)
  if (r.gateway) parts.push('via', r.gateway)
  if (r.dev) parts.push('dev', r.dev)
  if (r.protocol && r.protocol !== 'boot') parts.push('proto', r.protocol)
  if (r.scope && r.scope !== 'global') parts.push('scope', r.scope)
  parts.push(...r.flags)
  for (const h of r.nexthops ?? []) parts.push(`nexthop${h.gateway ? ` via ${h.gateway}` : ''}${h.dev ? ` dev ${h.dev}` : ''}`)
  return parts.join(' ')
}

export function formatForm(f: RouteForm, family: Family): string {
  switch (f.encap) {
    case 'ipip':
      return `via ${f.gateway ?? '<node IP>'} dev ${IPIP_DEV} onlink (IPIP)`
    case 'vxlan':
      return `via ${f.gateway ?? "<node's VXLAN tunnel address>"} dev ${VXLAN_DEV[family]} onlink (VXLAN)`
    case 'none':
      return f.gateway ? `via ${f.gateway} dev ${f.dev ?? '<uplink>'} (no encapsulation)` : `via <router> dev ${f.dev ?? '<uplink>'} (no encapsulation)`
  }
}

function hops(r: Route): Array<{gateway?: string; dev?: string}> {
  return r.nexthops && r.nexthops.length > 0 ? r.nexthops : [{...(r.gateway ? {gateway: r.gateway} : {}), ...(r.dev ? {dev: r.dev} : {})}]
}

export function routeMatches(r: Route, forms: readonly RouteForm[]): boolean {
  if (r.type !== 'unicast') return false
  return hops(r).some((h) =>
    forms.some((f) => {
      if (f.gateway !== undefined && h.gateway !== f.gateway) return false
      if (f.dev !== undefined) return h.dev === f.dev
      // Unconstrained no-encap device: anything but a Calico tunnel or pod interface.
      return f.encap !== 'none' || h.dev === undefined || (!TUNNEL_DEVS.has(h.dev) && !isCalicoWorkloadInterface(h.dev))
    }),
  )
}

function poolFor(pools: readonly CalicoPool[], c: Cidr): CalicoPool | undefined {
  return pools.filter((p) => cidrContains(p.cidr, c)).sort((a, b) => b.cidr.len - a.cidr.len)[0]
}

/** true/false when both the local subnet and the remote IP are known; undefined otherwise. */
function sameSubnet(local: CalicoNodeAddrs | undefined, remote: CalicoNodeAddrs, family: Family): boolean | undefined {
  const subnet = local?.subnet[family]
  const ip = remote.ip[family]
  if (!subnet || !ip) return undefined
  return cidrContains(subnet, ip)
}

/** The encapsulations the pool allows between the two nodes (several when the subnet relation is unknown). */
export function encapsFor(pool: CalicoPool | undefined, same: boolean | undefined, family: Family): Encap[] {
  if (!pool) return family === 'inet' ? ['ipip', 'vxlan', 'none'] : ['vxlan', 'none']
  const out: Encap[] = []
  const add = (m: CalicoPool['ipipMode'], e: Encap) => {
    if (m === 'Always') out.push(e)
    else if (m === 'CrossSubnet') out.push(...(same === true ? (['none'] as const) : same === false ? [e] : [e, 'none' as const]))
  }
  if (family === 'inet') add(pool.ipipMode, 'ipip')
  add(pool.vxlanMode, 'vxlan')
  if (out.length === 0) out.push('none')
  return [...new Set(out)]
}

function poolBasis(pool: CalicoPool | undefined): string {
  return pool ? `IPPool ${pool.name} ${pool.cidr.text}: ipipMode ${pool.ipipMode}, vxlanMode ${pool.vxlanMode}` : 'no IPPool covers the block: any Calico encapsulation accepted'
}

/** Device of the most specific connected (gateway-less, link-scope) route covering `ip`. */
function connectedDev(routes: readonly Route[], ip: string): string | undefined {
  return routes
    .filter((r) => r.type === 'unicast' && !r.gateway && !r.nexthops && r.dev && !TUNNEL_DEVS.has(r.dev) && r.scope === 'link')
    .map((r) => ({r, c: parseCidr(r.dst)}))
    .filter((x) => x.c !== undefined && cidrContains(x.c, ip))
    .sort((a, b) => b.c!.len - a.c!.len)[0]?.r.dev
}

function formsFor(input: CompareInput, family: Family, block: CalicoBlock, owner: CalicoNodeAddrs, routes: readonly Route[]): {forms: RouteForm[]; basis: string} {
  const local = input.model.nodes.get(input.node)
  const pool = poolFor(input.model.pools, block.cidr)
  const same = sameSubnet(local, owner, family)
  const localIp = local?.ip[family]
  const uplink = (localIp !== undefined ? input.addressDevices?.get(localIp) : undefined) ?? (localIp !== undefined ? connectedDev(routes, localIp) : undefined)
  const forms = encapsFor(pool, same, family).map((encap): RouteForm => {
    const ip = owner.ip[family]
    if (encap === 'ipip') return {encap, dev: IPIP_DEV, ...(ip ? {gateway: ip} : {})}
    if (encap === 'vxlan') return {encap, dev: VXLAN_DEV[family], ...(owner.vtep[family] ? {gateway: owner.vtep[family]} : {})}
    // No encapsulation: the owner is the next hop only when it shares our subnet; otherwise a router is.
    if (same === true && ip) {
      const dev = connectedDev(routes, ip) ?? uplink
      return {encap, gateway: ip, ...(dev ? {dev} : {})}
    }
    return {encap, ...(uplink ? {dev: uplink} : {})}
  })
  return {forms, basis: poolBasis(pool)}
}

/** Every discrepancy between the model's expectations and the node's routes, for the families with route data. */
export function compareCalicoRoutes(input: CompareInput): RouteProblem[] {
  const problems: RouteProblem[] = []
  const {model, node} = input
  for (const family of ['inet', 'inet6'] as const) {
    const routes = input.routes[family]
    if (!routes) continue
    const byDst = new Map<string, Route[]>()
    for (const r of routes) byDst.set(r.dst, [...(byDst.get(r.dst) ?? []), r])
    const pools = model.pools.filter((p) => p.cidr.family === family)
    const blocks = model.blocks.filter((b) => b.cidr.family === family)
    const inScope = (c: Cidr) => (pools.length > 0 ? pools.some((p) => cidrContains(p.cidr, c)) : blocks.some((b) => cidrContains(b.cidr, c)))
    const judged = new Set<Route>()

    for (const block of blocks) {
      const rs = byDst.get(block.cidr.text) ?? []
      if (block.node === node) {
        rs.forEach((r) => judged.add(r))
        const routed = rs.filter((r) => !isRejectRoute(r))
        if (routed.length > 0) problems.push({kind: 'own-block-routed', family, block, actual: routed})
        else if (rs.length === 0 && block.source !== 'podcidr') problems.push({kind: 'missing-blackhole', family, block})
        continue
      }
      const owner = block.node !== undefined ? model.nodes.get(block.node) : undefined
      if (!owner) continue // unowned, or the owner is gone: routes to it are judged as stale below
      rs.forEach((r) => judged.add(r))
      const {forms, basis} = formsFor(input, family, block, owner, routes)
      if (rs.some((r) => routeMatches(r, forms))) continue
      if (rs.length > 0) {
        problems.push({kind: 'wrong-block-route', family, block, owner: owner.name, forms, basis, actual: rs})
        continue
      }
      // An aggregate inside the pool (e.g. from a ToR that summarises blocks) also reaches the block.
      const aggregate = routes.some((r) => {
        const c = parseCidr(r.dst)
        return r.type === 'unicast' && c !== undefined && c.len < block.cidr.len && cidrContains(c, block.cidr) && inScope(c)
      })
      if (!aggregate) problems.push({kind: 'missing-block-route', family, block, owner: owner.name, forms, basis})
    }

    const localPods = input.pods.filter((p) => p.spec?.nodeName === node && p.spec.hostNetwork !== true && !isTerminal(p))
    const localIps = new Map<string, Pod>()
    for (const p of localPods) for (const ip of podIps(p)) localIps.set(ip, p)
    const nodeAddrs = new Set([...model.nodes.values()].flatMap((n) => [...n.all]))
    const vteps = new Set([...model.nodes.values()].flatMap((n) => (n.vtep[family] ? [n.vtep[family]!] : [])))

    // Pod routes: each running local pod's IP needs a host route to a cali interface.
    for (const pod of localPods) {
      if (isTerminating(pod) || isSettling(pod, input.collectedAt)) continue
      for (const ip of podIps(pod)) {
        const host = parseCidr(ip)
        if (!host || host.family !== family || ((pools.length > 0 || blocks.length > 0) && !inScope(host))) continue
        const rs = byDst.get(host.text) ?? []
        rs.forEach((r) => judged.add(r))
        const good = rs.filter((r) => r.type === 'unicast' && !r.gateway && r.dev !== undefined && isCalicoWorkloadInterface(r.dev))
        if (good.length > 0 && !good.every((r) => r.flags.includes('linkdown'))) continue
        problems.push({kind: 'missing-pod-route', family, pod, ip, actual: rs, linkdown: good.length > 0})
      }
    }

    for (const r of routes) {
      if (judged.has(r)) continue
      const c = parseCidr(r.dst)
      if (!c) continue
      const devs = hops(r).map((h) => h.dev).filter((d): d is string => d !== undefined)
      if (isHostRoute(r) && devs.some((d) => isCalicoWorkloadInterface(d))) {
        const ip = c.addr.toString()
        if (localIps.has(ip)) continue
        const elsewhere = input.pods.find((p) => podIps(p).includes(ip) && !isTerminal(p))
        problems.push({kind: 'orphan-pod-route', family, route: r, ...(elsewhere ? {elsewhere} : {})})
        continue
      }
      if (!inScope(c) || r.table !== 'main') continue
      const gateways = hops(r).map((h) => h.gateway).filter((g): g is string => g !== undefined)
      const unknownGw = gateways.filter((g) => !nodeAddrs.has(g))
      if (isHostRoute(r)) {
        // Borrowed addresses (a pod in another node's block) and VTEPs get host routes via, or to, a current node.
        if (r.type !== 'unicast') continue
        if (gateways.length === 0 ? vteps.has(c.addr.toString()) || !devs.some((d) => TUNNEL_DEVS.has(d)) : unknownGw.length === 0) continue
        const reason = gateways.length === 0 ? `it reaches ${c.addr.toString()} on ${devs.join(',')}, which is no current node's tunnel address` : `its next hop ${unknownGw.join(', ')} is no current node's address (a removed node?)`
        problems.push({kind: 'stale-route', family, route: r, reason})
        continue
      }
      // The block holding the route's range (the route may be the block itself or, rarely, part of it).
      const block = blocks.filter((b) => cidrContains(b.cidr, c)).sort((a, b) => b.cidr.len - a.cidr.len)[0]
      let reason: string | undefined
      if (block?.node !== undefined && !model.nodes.has(block.node)) reason = `the block is affine to node ${block.node}, which no longer exists`
      else if (block && block.node === undefined) reason = `no node holds a confirmed affinity for block ${block.cidr.text}`
      else if (!block && !blocks.some((b) => cidrContains(c, b.cidr))) reason = model.source === 'podcidr' ? "no node's podCIDR covers this range" : 'no IPAM block covers this range'
      if (reason === undefined) continue
      if (unknownGw.length > 0) reason += `; its next hop ${unknownGw.join(', ')} is no current node's address`
      problems.push({kind: 'stale-route', family, route: r, reason})
    }
  }
  return problems
}
