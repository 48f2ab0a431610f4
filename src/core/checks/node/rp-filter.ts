// NODE-005/006: reverse-path filtering where it really breaks traffic. Strict mode (1) drops a packet whose route back
// leaves through another interface than it came in on; the kernel applies max(conf/all, conf/<iface>) (ip-sysctl.rst).
// Harmless on symmetric paths (single-homed, Calico IPIP through tunl0), so the check follows the routes, not the value.
import {LAYOUT_LINKS} from '../../collection/plan.js'
import {factKey} from '../../facts/node-facts.js'
import type {Pod} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import type {Route} from '../../parse/routes.js'
import {routeDevices} from '../../parse/routes.js'
import {ipv4PrefixMask, parseIPv4} from '../../net/inet.js'
import {effectiveRpFilter, parseSysctl, rpFilterTable, type RpFilterTable, type Sysctls} from '../../parse/sysctl.js'
import {type Cidr, cidrContains, hasCalico, isCalicoNodePod, NO_CALICO, parseCidr, readCalicoModel} from '../routes/calico.js'
import {podHealthProblem} from '../dns/pods.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {interfaceWithAddress, internalIp, overlayDevices} from './overlay.js'

// NOTE: the same key name as prereqs.ts's, so the sysctls artifact is parsed once per node whichever check reads it.
const SYSCTLS = factKey<Sysctls>('node prerequisites: parsed sysctls')

function readRpFilter(ctx: CheckContext): {ok: true; table: RpFilterTable} | {ok: false; reason: string} {
  const facts = factsOf(ctx)
  const text = facts.text('sysctls')
  if (text === undefined) return {ok: false, reason: 'missing input: sysctls'}
  const table = rpFilterTable(facts.derive(SYSCTLS, () => parseSysctl(text, {source: 'sysctls'})))
  if (table.all === undefined) return {ok: false, reason: 'cannot tell: the sysctls output has no rp_filter values (collected by a node-doctor that did not read them?)'}
  return {ok: true, table}
}

/** Tables the kernel consults without policy rules of its own making: local, main, default. */
const STANDARD_TABLES = new Set(['local', 'main', 'default', '255', '254', '253'])

/** The main table's IPv4 routes a lookup can pick, indexed by prefix length and network address. */
export interface MainTable {
  /** Prefix lengths present, longest first. */
  lens: number[]
  /** By prefix length: network address (as a 32-bit number) → the route with the lowest metric. */
  byLen: Map<number, Map<number, Route>>
}

export function mainTable(routes: readonly Route[]): MainTable {
  const byLen = new Map<number, Map<number, Route>>()
  for (const r of routes) {
    if (r.family !== 'inet' || r.table !== 'main') continue
    if (r.type !== 'unicast' && r.type !== 'blackhole' && r.type !== 'unreachable' && r.type !== 'prohibit') continue
    const [addr, lenText] = r.dst.split('/')
    const ip = addr === undefined ? null : parseIPv4(addr)
    const len = lenText === undefined ? 32 : Number(lenText)
    if (ip === null || !(len >= 0 && len <= 32)) continue
    const net = (ip & ipv4PrefixMask(len)) >>> 0
    let m = byLen.get(len)
    if (!m) byLen.set(len, (m = new Map()))
    const cur = m.get(net)
    if (!cur || (r.metric ?? 0) < (cur.metric ?? 0)) m.set(net, r)
  }
  return {lens: [...byLen.keys()].sort((x, y) => y - x), byLen}
}

/**
 * The route the main table picks for `dst` (longest prefix, then lowest metric), or undefined when none matches.
 * Reject routes (blackhole, unreachable, prohibit) count as matches: the caller sees there is no way back.
 */
export function lookupRoute(table: MainTable, dst: string): Route | undefined {
  const ip = parseIPv4(dst)
  if (ip === null) return undefined
  for (const len of table.lens) {
    const r = table.byLen.get(len)!.get((ip & ipv4PrefixMask(len)) >>> 0)
    if (r) return r
  }
  return undefined
}

/** IPv4 routes in non-standard tables: policy routing may pick them, and `ip rule` is not collected. */
function policyTables(routes: readonly Route[]): Cidr[] {
  return routes.flatMap((r) => (r.family === 'inet' && !STANDARD_TABLES.has(r.table) ? [parseCidr(r.dst)].filter((c): c is Cidr => c !== undefined) : []))
}

interface Source {
  /** The node it belongs to (excluded when checking that node). */
  node: string
  /** What sends from there: `node node-b (InternalIP 172.16.1.3)`, `pods of node-b (10.244.2.0/24)`. */
  label: string
  /** An address inside the source, for the route lookup. */
  address: string
}

const SOURCES = factKey<Source[]>('node prerequisites: cluster traffic sources')

/** Where pod and Service traffic comes from, as the cluster says: every node's InternalIP and pod CIDRs (once per run). */
function clusterSources(cluster: ClusterSnapshot): Source[] {
  const out: Source[] = []
  for (const n of cluster.nodes) {
    const name = n.metadata.name
    const ip = internalIp(cluster, name, 'ipv4')
    if (ip) out.push({node: name, label: `node ${name} (InternalIP ${ip})`, address: ip})
  }
  const seen = new Set<string>()
  for (const b of readCalicoModel(cluster).blocks) {
    if (b.node === undefined || b.cidr.family !== 'inet' || seen.has(b.cidr.text)) continue
    seen.add(b.cidr.text)
    out.push({node: b.node, label: `pods of ${b.node} (${b.cidr.text})`, address: b.cidr.addr.toString()})
  }
  return out
}

// ---- NODE-005 ----

export function checkRpFilterAsymmetric(ctx: CheckContext): CheckOutcome {
  const rp = readRpFilter(ctx)
  if (!rp.ok) return {status: 'skipped', reason: rp.reason}
  const strict = [...rp.table.interfaces.keys()].filter((i) => effectiveRpFilter(rp.table, i) === 1)
  if (strict.length === 0) return {status: 'passed'}
  const facts = factsOf(ctx)
  const me = internalIp(ctx.cluster, ctx.node.node, 'ipv4')
  if (!me) return {status: 'skipped', reason: 'cannot tell: the Node has no IPv4 InternalIP (rp_filter applies to IPv4 only), so where peers send to is unknown'}
  const addrs = facts.links('ip-addr')
  if (addrs === undefined) return {status: 'skipped', reason: 'missing input: ip-addr'}
  if (!addrs.ok) return {status: 'skipped', reason: `the address listing could not be parsed: ${addrs.error.message}`}
  const arrival = interfaceWithAddress(addrs.value, me)
  if (!arrival) return {status: 'skipped', reason: `cannot tell: no interface carries the InternalIP ${me}, so the interface peers' traffic arrives on is unknown`}
  if (arrival.name === 'lo' || arrival.kind === 'dummy') {
    return {status: 'skipped', reason: `cannot tell: the InternalIP ${me} is on ${arrival.name} (a loopback-style address): the interface peers' traffic arrives on is unknown`}
  }
  const mode = effectiveRpFilter(rp.table, arrival.name)
  if (mode === undefined) return {status: 'skipped', reason: `cannot tell: the sysctls output has no net.ipv4.conf.${arrival.name}.rp_filter`}
  if (mode !== 1) return {status: 'passed'}
  const routes = facts.routes('ip-route')
  if (routes === undefined) return {status: 'skipped', reason: 'missing input: ip-route'}
  if (!routes.ok) return {status: 'skipped', reason: `the route listing could not be parsed: ${routes.error.message}`}
  const sources = facts.run.derive(SOURCES, clusterSources).filter((x) => x.node !== ctx.node.node)
  if (sources.length === 0) return {status: 'skipped', reason: 'not applicable: no other node in the snapshot, so no pod or Service traffic arrives from a known source'}
  const links = facts.links('ip-link')
  const overlays = new Set(overlayDevices(links?.ok ? links.value : addrs.value).map((o) => o.iface.name))
  const asymmetric = new Map<string, {sources: string[]; route: Route}>()
  const unknown: string[] = []
  let judged = 0
  const main = mainTable(routes.value.routes)
  const policy = policyTables(routes.value.routes)
  for (const s of sources) {
    const addr = parseCidr(s.address)
    if (!addr) continue
    if (policy.some((c) => cidrContains(c, addr))) {
      unknown.push(`${s.label}: a route in a policy-routing table covers it (ip rule is not collected)`)
      continue
    }
    const route = lookupRoute(main, s.address)
    if (!route || route.type !== 'unicast') {
      unknown.push(`${s.label}: no route back in the main table`)
      continue
    }
    const devs = routeDevices(route)
    // Encapsulated traffic arrives on the tunnel it is routed back through (the peer's routes mirror these); traffic
    // routed into the CNI's own devices (cilium_host, cni0, kube-bridge, ...) is delivered by the CNI, not through the
    // InternalIP's interface.
    if (devs.some((d) => overlays.has(d) || isCniLink(d))) {
      judged++
      continue
    }
    judged++
    if (devs.includes(arrival.name)) continue
    const via = devs.join(',') || '?'
    const entry = asymmetric.get(via) ?? {sources: [], route}
    entry.sources.push(s.label)
    asymmetric.set(via, entry)
  }
  if (asymmetric.size > 0) {
    const key = `net.ipv4.conf.${arrival.name}.rp_filter`
    const findings: FindingDraft[] = [...asymmetric.entries()].map(([via, e]) => ({
      message:
        `Strict reverse-path filtering on ${arrival.name} drops traffic from ${e.sources.length === 1 ? e.sources[0] : `${e.sources.length} cluster sources`}: ` +
        `it arrives on ${arrival.name} (which carries the InternalIP ${me}) but the route back leaves through ${via}`,
      subject: {kind: 'interface', name: arrival.name},
      evidence: [
        `effective rp_filter on ${arrival.name} = 1 (max of net.ipv4.conf.all.rp_filter = ${rp.table.all} and ${key} = ${rp.table.interfaces.get(arrival.name)})`,
        `route back: ${routeText(e.route)}`,
        ...e.sources.slice(0, 8).map((x) => `source: ${x}`),
        ...(e.sources.length > 8 ? [`... and ${e.sources.length - 8} more`] : []),
      ],
    }))
    return {status: 'failed', findings}
  }
  if (unknown.length > 0) {
    const rest = judged > 0 ? ` (the routes back to the other ${judged} source(s) are symmetric)` : ''
    return {status: 'skipped', reason: `cannot tell: ${unknown.slice(0, 3).join('; ')}${unknown.length > 3 ? `; and ${unknown.length - 3} more` : ''}${rest}`}
  }
  return {status: 'passed'}
}

const CNI_EXACT = new Set(LAYOUT_LINKS.filter((l) => !l.endsWith('*')))
const CNI_PREFIXES = LAYOUT_LINKS.filter((l) => l.endsWith('*')).map((l) => l.slice(0, -1))

/** A link the CNI or the Services dataplane owns (the layout discovery's list: tunl0, cilium_host, cni0, cali*, lxc*, ...). */
function isCniLink(name: string): boolean {
  return CNI_EXACT.has(name) || CNI_PREFIXES.some((p) => name.startsWith(p))
}

function routeText(r: Route): string {
  const parts = [r.dst === '0.0.0.0/0' ? 'default' : r.dst]
  if (r.gateway) parts.push(`via ${r.gateway}`)
  if (r.dev) parts.push(`dev ${r.dev}`)
  for (const h of r.nexthops ?? []) parts.push(`nexthop${h.gateway ? ` via ${h.gateway}` : ''}${h.dev ? ` dev ${h.dev}` : ''}`)
  return parts.join(' ')
}

// ---- NODE-006 ----

/** calico-node's FELIX_IGNORELOOSERPF setting, when the pod spec sets it. */
function ignoresLooseRpf(pod: Pod): boolean {
  return (pod.spec?.containers ?? []).some((c) => (c.env ?? []).some((e) => e.name === 'FELIX_IGNORELOOSERPF' && /^true$/i.test(e.value ?? '')))
}

// Felix's startup check (felix/dataplane/linux/int_dataplane.go configureKernel, projectcalico/felix#1322) exits on
// conf/all/rp_filter > 1 unless IgnoreLooseRPF; the current configureKernel in projectcalico/calico no longer reads it and
// the release that dropped it is not pinned down, so loose `all` fires only beside a calico-node that is not running.
export function checkRpFilterCalicoLoose(ctx: CheckContext): CheckOutcome {
  if (!hasCalico(ctx.cluster)) return {status: 'skipped', reason: `not applicable: ${NO_CALICO}`}
  const rp = readRpFilter(ctx)
  if (!rp.ok) return {status: 'skipped', reason: rp.reason}
  if (rp.table.all !== 2) return {status: 'passed'}
  const pod = ctx.cluster.pods.find((p) => isCalicoNodePod(p) && p.spec?.nodeName === ctx.node.node)
  if (!pod) return {status: 'skipped', reason: 'cannot tell: net.ipv4.conf.all.rp_filter = 2 but the snapshot has no calico-node pod on this node'}
  if (ignoresLooseRpf(pod)) return {status: 'passed'}
  const problem = podHealthProblem(pod, ctx.cluster.collectedAt)
  // A calico-node that runs with loose RPF is a Felix without the startup check: nothing is broken.
  if (!problem) return {status: 'passed'}
  return {
    status: 'failed',
    findings: [
      {
        message:
          `net.ipv4.conf.all.rp_filter = 2 (loose) and calico-node ${pod.metadata.name} on this node is ${problem.summary}: Felix versions that check it exit at start ` +
          `("Kernel's RPF check is set to 'loose'") unless IgnoreLooseRPF is true, and the node's pod networking stops`,
        subject: {kind: 'sysctl', name: 'net.ipv4.conf.all.rp_filter'},
        evidence: ['net.ipv4.conf.all.rp_filter = 2', `calico-node pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name}`, ...problem.evidence],
      },
    ],
  }
}
