// A verdict per endpoint after the trace: does the node's ruleset send connections there (and not drop them), does
// the node's route table carry them on (local pod interface, tunnel to the owner's block, a route via the owner,
// the network beyond the node), and is the endpoint ready. Each endpoint gets the first step where it fails.
import {type IpFamily, type ParsedCIDR, cidrContains, parseCIDRSloppy, parseIPSloppy} from '../net/ip.js'
import type {Route} from '../parse/routes.js'
import type {ServiceEndpoint} from './destination.js'
import type {RouteIndex, RouteLookup} from './route-lookup.js'
import {isPodDevice} from './source.js'
import {NO_DNAT, type TraceBranch, type TraceResult, type TraceStep} from './types.js'

export type FailStep = 'rule' | 'route' | 'not ready'

/** How the node's route table carries the packet to the endpoint. */
export interface RouteHop {
  /** local-pod: a pod interface on this node; node: the node itself; tunnel: IPIP/VXLAN/WireGuard; via-node: straight to the owner node; network: a gateway (the network beyond must route it); reject: blackhole/unreachable/prohibit; none: no route. */
  kind: 'local-pod' | 'node' | 'tunnel' | 'via-node' | 'network' | 'reject' | 'none' | 'wrong'
  /** The route as `ip route` prints it; absent when there is none. */
  route?: string
  ok: boolean
  detail: string
}

export interface EndpointVerdict {
  /** `ip:port`, or `no-dnat` for connections that keep their destination. */
  endpoint: string
  ip: string
  node?: string
  pod?: string
  /** From the EndpointSlice; undefined for a destination that is no Service endpoint. */
  ready?: boolean
  /** Share of new connections the node's rules send there (dropped ones included). */
  share: number
  /** Share kube-proxy's expected rules send there. */
  expectedShare: number
  /** unknown: a rule dropped it, but the walk skipped matches it cannot evaluate (ipsets, ...) that may have decided first. */
  verdict: 'works' | 'fails' | 'not ready' | 'unused' | 'unknown'
  /** The first step that fails (verdict fails or not ready; unknown: the step that cannot be decided). */
  failsAt?: FailStep
  /** Why, in words (the rule, the route, the condition). */
  reason?: string
  /** The route lookup on this node; absent when the node's routes are not known or no route was looked up. */
  route?: RouteHop
}

export interface VerdictSummary {
  /** unknown: no endpoint fails for sure, but some cannot be decided (see their reasons). */
  verdict: 'works' | 'partly broken' | 'broken' | 'unknown'
  /** Endpoints that work / endpoints that should (ready, or reached). */
  working: number
  total: number
  endpoints: EndpointVerdict[]
  /** Why route lookups were not done, or what they could not see. */
  notes: string[]
  /** The rule that drops or rejects connections before any DNAT (e.g. kube-proxy's "has no endpoints" REJECT). */
  blockedBy?: string
}

export interface VerdictInput {
  node: string
  family: IpFamily
  actual: TraceResult
  expected: TraceResult
  /** The destination Service port's endpoints, when the destination is a Service. */
  endpoints: readonly ServiceEndpoint[]
  /** The destination is a Service address (connections that keep it reach nothing). */
  service?: boolean
  /** The node's routes; undefined: route lookups are left out (and said so). */
  routes?: RouteIndex
  /** Calico IPAM blocks with their nodes (an endpoint in another node's block needs a route to that block). */
  blocks: ReadonlyArray<{cidr: string; node?: string}>
  /** Addresses of every node by name (a route via one of them goes straight to that node). */
  nodeAddresses: ReadonlyMap<string, readonly string[]>
}

// IPIP, VXLAN, GENEVE and WireGuard devices of the common CNIs (Calico tunl0/vxlan.calico/wireguard.cali, flannel.N, Cilium).
const TUNNEL_DEVICE = /^(tunl\d|vxlan|flannel\.|wireguard\.cali|wg-v6\.cali|cilium_vxlan|cilium_geneve|genev_sys|kube-ipip)/

function sharesByEndpoint(r: TraceResult): Map<string, {share: number; dropped: TraceBranch[]; droppedShare: number}> {
  const out = new Map<string, {share: number; dropped: TraceBranch[]; droppedShare: number}>()
  for (const b of r.branches) {
    // REJECT from kube-proxy's "no endpoints" rules has no DNAT: it is not an endpoint.
    const key = b.dnat ?? (b.verdict === 'DROP' || b.verdict === 'REJECT' ? undefined : NO_DNAT)
    if (key === undefined) continue
    const e = out.get(key) ?? {share: 0, dropped: [], droppedShare: 0}
    e.share += b.probability
    if (b.verdict === 'DROP' || b.verdict === 'REJECT') {
      e.dropped.push(b)
      e.droppedShare += b.probability
    }
    out.set(key, e)
  }
  return out
}

function stepText(s: TraceStep): string {
  return `${s.table} ${s.chain} #${s.ruleIndex + 1}: ${s.rule.startsWith(`-A ${s.chain} `) ? s.rule.slice(s.chain.length + 4) : s.rule}`
}

/** A route as `ip route` prints it. */
export function formatRouteLine(r: Route): string {
  const host = r.dst.endsWith(r.family === 'inet6' ? '/128' : '/32')
  const parts: string[] = []
  if (r.type !== 'unicast') parts.push(r.type)
  parts.push(r.dst === '0.0.0.0/0' || r.dst === '::/0' ? 'default' : host ? r.dst.replace(/\/(32|128)$/, '') : r.dst)
  if (r.gateway) parts.push('via', r.gateway)
  if (r.dev) parts.push('dev', r.dev)
  for (const h of r.nexthops ?? []) parts.push('nexthop', ...(h.gateway ? ['via', h.gateway] : []), ...(h.dev ? ['dev', h.dev] : []))
  if (r.table !== 'main') parts.push('table', r.table)
  return parts.join(' ')
}

function cidrsContaining(blocks: VerdictInput['blocks'], ip: string, family: IpFamily): Array<{cidr: ParsedCIDR; node?: string}> {
  const p = parseIPSloppy(ip)
  if (!p) return []
  return blocks
    .map((b) => ({cidr: parseCIDRSloppy(b.cidr), ...(b.node !== undefined ? {node: b.node} : {})}))
    .filter((b): b is {cidr: ParsedCIDR; node?: string} => b.cidr !== undefined && b.cidr.family === family && cidrContains(b.cidr, p))
}

/** Classifies the route lookup for an endpoint at `ip` (on `owner`, when known). */
export function routeHop(input: Pick<VerdictInput, 'node' | 'family' | 'blocks' | 'nodeAddresses'>, ip: string, owner: string | undefined, r: RouteLookup): RouteHop {
  const line = r.route ? formatRouteLine(r.route) : undefined
  const base = line !== undefined ? {route: line} : {}
  const block = cidrsContaining(input.blocks, ip, input.family).sort((a, b) => b.cidr.prefix - a.cidr.prefix)[0]
  const ownerNode = owner ?? block?.node
  if (r.kind === 'none') return {kind: 'none', ok: false, detail: `no route to ${ip} on ${input.node}`}
  if (r.kind === 'local') return {kind: 'node', ...base, ok: true, detail: `delivered to ${input.node} itself (${line})`}
  if (r.kind === 'reject') {
    const ownBlock = ownerNode === input.node && block !== undefined ? ` (the pod's own route through its interface is missing; only ${input.node}'s block ${block.cidr.text} blackhole matches)` : ''
    return {kind: 'reject', ...base, ok: false, detail: `${line}: the kernel drops it${ownBlock}`}
  }
  const devices = r.devices
  const prefix = parseCIDRSloppy(r.route!.dst)?.prefix ?? 0
  if (ownerNode === input.node) {
    if (r.gateway === undefined && devices.length > 0 && !devices.some((d) => TUNNEL_DEVICE.test(d))) {
      return {kind: 'local-pod', ...base, ok: true, detail: `local pod interface ${devices.join(', ')} (${line})`}
    }
    return {kind: 'wrong', ...base, ok: false, detail: `${ip} is a pod on ${input.node} but the route leaves the node (${line}): its route through its interface is missing`}
  }
  if (devices.some((d) => TUNNEL_DEVICE.test(d))) {
    const to = block ? `${ownerNode ?? 'its owner'}'s block ${block.cidr.text}` : ownerNode ?? ip
    return {kind: 'tunnel', ...base, ok: true, detail: `tunnel ${devices.join(', ')} to ${to} (${line})`}
  }
  const gwNode = r.gateway !== undefined ? [...input.nodeAddresses].find(([, addrs]) => addrs.some((a) => parseIPSloppy(a)?.text === parseIPSloppy(r.gateway!)?.text))?.[0] : undefined
  if (gwNode !== undefined) {
    if (ownerNode !== undefined && gwNode !== ownerNode) return {kind: 'wrong', ...base, ok: false, detail: `${line} goes to ${gwNode}, but ${ip} is on ${ownerNode}`}
    return {kind: 'via-node', ...base, ok: true, detail: `straight to ${gwNode} (${line})`}
  }
  // A Calico block of another node is routed by Calico per block; a less specific route (the default) means that
  // route is missing, and the network beyond the node does not know pod addresses.
  if (block && block.node !== undefined && prefix < block.cidr.prefix) {
    return {kind: 'none', ...base, ok: false, detail: `no route to ${block.node}'s block ${block.cidr.text}: only ${line} matches`}
  }
  if (r.gateway === undefined && !devices.some(isPodDevice)) return {kind: 'via-node', ...base, ok: true, detail: `on the link ${devices.join(', ')} (${line})`}
  if (r.gateway === undefined) return {kind: 'wrong', ...base, ok: false, detail: `${line} sends it to a pod interface on ${input.node}, but ${ip} is ${ownerNode ? `on ${ownerNode}` : 'not a pod here'}`}
  return {kind: 'network', ...base, ok: true, detail: `to the network through ${r.gateway} (${line}); the network beyond the node must route ${ip} (not checked)`}
}

/** The verdict for every endpoint of the destination and for every place the node's rules send connections. */
export function endpointVerdicts(input: VerdictInput): VerdictSummary {
  const actual = sharesByEndpoint(input.actual)
  const expected = sharesByEndpoint(input.expected)
  const known = new Map(input.endpoints.map((e) => [e.key, e]))
  const keys = [...new Set([...input.endpoints.map((e) => e.key), ...actual.keys(), ...expected.keys()])]
  const notes: string[] = []
  if (!input.routes) notes.push('route lookups left out: the node\'s routes are not known (live: the ip-route artifact; offline: --routes FILE)')
  const undecided = input.actual.notes.filter((n) => n.endsWith('treated as not matching'))
  const out: EndpointVerdict[] = []
  for (const key of keys) {
    const e = known.get(key)
    const a = actual.get(key)
    const x = expected.get(key)
    const ip = e?.ip ?? (key === NO_DNAT ? input.actual.packet.dst : hostOf(key))
    const v: EndpointVerdict = {
      endpoint: key,
      ip,
      ...(e?.node !== undefined ? {node: e.node} : {}),
      ...(e?.pod !== undefined ? {pod: e.pod} : {}),
      ...(e ? {ready: e.ready} : {}),
      share: a?.share ?? 0,
      expectedShare: x?.share ?? 0,
      verdict: 'works',
    }
    out.push(v)
    const fail = (step: FailStep, reason: string): void => {
      v.verdict = step === 'not ready' ? 'not ready' : 'fails'
      v.failsAt = step
      v.reason = reason
    }
    if (e && !e.ready && v.share === 0) {
      fail('not ready', `not ready in its EndpointSlice${e.terminating ? ' (terminating)' : ''}: kube-proxy sends it no new connections`)
      continue
    }
    if (v.share <= 1e-9) {
      if (v.expectedShare > 1e-9) fail('rule', `no rule on ${input.node} sends connections there (kube-proxy's rules would send ${pct(v.expectedShare)})`)
      else {
        v.verdict = 'unused'
        v.reason = 'neither the node\'s rules nor kube-proxy\'s send connections from this source there (traffic policy or topology)'
      }
      continue
    }
    if (key === NO_DNAT && input.service) {
      fail('rule', `${pct(v.share)} of connections are not DNATed: they keep the Service address ${input.actual.packet.dst}, which no endpoint holds`)
      continue
    }
    if (a && a.droppedShare > 1e-9) {
      const b = a.dropped[0]!
      const last = b.path[b.path.length - 1]
      fail('rule', `${b.verdict === 'REJECT' ? 'rejected' : 'dropped'}${a.droppedShare < a.share - 1e-9 ? ` in ${pct(a.droppedShare / a.share)} of its connections` : ''} by ${last ? stepText(last) : `the ${b.policy ?? ''} policy`.replace('  ', ' ')}`)
      if (undecided.length > 0) {
        // No false verdicts: a rule the walk could not evaluate (an ipset, say) may have accepted the packet first.
        v.verdict = 'unknown'
        v.reason += `; but ${undecided.length === 1 ? 'a rule match' : `${undecided.length} rule matches`} could not be evaluated (${undecided[0]}), so a rule before it may accept the packet`
      }
      continue
    }
    if (input.routes) {
      const lookup = input.routes.lookup(ip)
      for (const n of lookup.notes) if (!notes.includes(n)) notes.push(n)
      const hop = routeHop(input, ip, e?.node, lookup)
      v.route = hop
      if (!hop.ok) {
        fail('route', hop.detail)
        continue
      }
    }
    if (e && !e.ready) {
      fail('not ready', `the node's rules send it ${pct(v.share)} of new connections although its EndpointSlice says not ready${e.serving ? ' (serving while terminating: kube-proxy falls back to it)' : ''}`)
      if (e.serving && e.terminating) v.verdict = 'works'
    }
  }
  const counted = out.filter((v) => v.verdict !== 'unused' && v.verdict !== 'not ready')
  const working = counted.filter((v) => v.verdict === 'works').length
  const total = counted.length
  const failing = counted.filter((v) => v.verdict === 'fails').length
  const blocked = input.actual.branches.find((b) => b.dnat === undefined && (b.verdict === 'DROP' || b.verdict === 'REJECT'))
  const last = blocked?.path[blocked.path.length - 1]
  const blockedBy = blocked ? `${blocked.verdict === 'REJECT' ? 'rejected' : 'dropped'} by ${last ? stepText(last) : `the ${blocked.policy ?? 'chain'} policy`}${blocked.probability < 1 - 1e-9 ? ` (${pct(blocked.probability)} of connections)` : ''}` : undefined
  const verdict =
    total > 0 && working === total && !blocked ? 'works' : failing === 0 && !blocked && total > working ? 'unknown' : working === 0 ? 'broken' : 'partly broken'
  return {verdict, working, total, endpoints: out, notes, ...(blockedBy !== undefined ? {blockedBy} : {})}
}

function hostOf(key: string): string {
  const b = /^\[([^\]]+)\]:\d+$/.exec(key)
  if (b) return b[1]!
  const c = key.lastIndexOf(':')
  return c === -1 ? key : key.slice(0, c)
}

function pct(p: number): string {
  return `${(p * 100).toFixed(1)}%`
}
