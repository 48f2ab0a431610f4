// `why TARGET --from NODE`: the verdict for one question, from a Report whose findings carry their impact
// (core/impact) and the ClusterSnapshot it was made from. Pure. A Service works from the node when no finding on
// the node cuts off any of its ready endpoints and nothing else names it; partly broken when some endpoints (or
// some clients, for stale conntrack entries) are lost; broken when all are, or when it has none.
import {findDnsService} from '../checks/dns/index.js'
import {cutsPath} from '../impact/impact.js'
import {indexServices, type ServiceIndex, type ServiceView} from '../impact/services.js'
import {parseIPSloppy} from '../net/ip.js'
import {compareSeverity, type Finding, type Report, type Severity} from '../model/report.js'
import type {Pod} from '../model/k8s.js'
import type {ClusterSnapshot} from '../model/snapshot.js'

export type WhyTarget = {kind: 'service'; service: string; port?: string} | {kind: 'pod'; pod: string} | {kind: 'dns'}

/** `svc/NS/NAME[:PORT]` (also `service/`), `pod/NS/NAME`, or `dns`; undefined when the text is none of them. */
export function parseWhyTarget(text: string): WhyTarget | undefined {
  if (text === 'dns') return {kind: 'dns'}
  const name = '[a-z0-9]([-a-z0-9.]*[a-z0-9])?'
  const svc = new RegExp(`^(?:svc|service|services)/(${name})/(${name})(?::([-a-zA-Z0-9]+))?$`).exec(text)
  if (svc) return {kind: 'service', service: `${svc[1]}/${svc[3]}`, ...(svc[5] !== undefined ? {port: svc[5]} : {})}
  const pod = new RegExp(`^(?:pod|pods|po)/(${name})/(${name})$`).exec(text)
  if (pod) return {kind: 'pod', pod: `${pod[1]}/${pod[3]}`}
  return undefined
}

export type VerdictKind = 'works' | 'partly-broken' | 'broken'

export interface WhyCause {
  id: string
  severity: Severity
  message: string
  /** The finding's first evidence lines. */
  evidence: string[]
  /** What it breaks (the finding's impact summary), when counted. */
  breaks?: string
  remedy: string
}

export interface WhyVerdict {
  /** `svc shop/web`, `svc kube-system/kube-dns:dns`, `pod shop/web-1`, `dns`. */
  target: string
  node: string
  verdict: VerdictKind
  /** One line: `partly broken: 1 of 3 endpoints unreachable from worker-2`. */
  headline: string
  /** Endpoints of the Service (for dns: of kube-dns): how many, and those lost with the finding ids that lose them. */
  endpoints?: {total: number; lost: Array<{ip: string; pod?: string; node?: string; by: string[]}>}
  causes: WhyCause[]
  /** What was looked at and found fine (for dns: clusterDNS, node-local-dns), for people. */
  checked: string[]
  /** What could not be judged: skipped checks and collection errors on the node. */
  unknown: string[]
  /** The one next command: a `kubectl node-doctor fix ...`, or the first command of the top cause's remedy. */
  next?: string
}

/**
 * The checks whose findings cut a packet's path from the node to a pod, as the verdict reads them (with the impact
 * core/impact counts): kube-proxy's rules in any mode, the routes to pods' addresses and forwarding. Skipped, these
 * leave a question unjudged; a skipped CT-002 (table fill) or NODE-005 (rp_filter) does not: no verdict reads them.
 */
const isPathCheck = cutsPath

/**
 * What a question reads: for every target the path; for a Service also its endpoints' bookkeeping and stale conntrack
 * entries; for DNS also the DNS checks and the kubelet's clusterDNS.
 */
export type Question = 'pod' | 'service' | 'dns'

/** Whether check `id` is one the question needs (its being skipped leaves the answer unjudged). */
export function questionNeeds(question: Question, id: string): boolean {
  if (isPathCheck(id)) return true
  if (question === 'pod') return false
  if (id.startsWith('EP-') || id === 'CT-001') return true
  return question === 'dns' && (id.startsWith('DNS-') || id === 'KUBELET-016')
}

function familyOf(ip: string): 'ipv4' | 'ipv6' | undefined {
  return parseIPSloppy(ip)?.family
}

/** The port names a target's `:PORT` (a name, or a number) stands for. */
function portNames(view: ServiceView, port: string | undefined): Set<string> | undefined {
  if (port === undefined) return undefined
  const hits = view.ports.filter((p) => p.name === port || String(p.port) === port)
  return new Set(hits.flatMap((p) => [p.name, String(p.port)].filter((x) => x !== '')))
}

function toCause(f: Finding): WhyCause {
  return {id: f.id, severity: f.severity, message: f.message, evidence: f.evidence.slice(0, 3), ...(f.impact ? {breaks: f.impact.summary} : {}), remedy: f.remedy}
}

/** A repair command's start (joined so the remedy-command test does not take this source line for a command). */
const FIX_PREFIX = ['kubectl', 'node-doctor', 'fix', ''].join(' ')

/** The first backquoted `kubectl node-doctor fix ...`, else the first backquoted command, of a remedy; NODE filled in. */
export function nextCommand(remedy: string, node: string): string | undefined {
  // \x60 is the backquote (written so, the remedy-command test does not read this regex as a quoted command).
  const quoted = [...remedy.matchAll(/\x60([^\x60]+)\x60/g)].map((m) => m[1]!)
  const pick = quoted.find((q) => q.startsWith(FIX_PREFIX)) ?? quoted.find((q) => /^(kubectl|calicoctl|conntrack|ip|systemctl|sysctl|crictl) /.test(q))
  return pick?.replace(/\bNODE\b/g, node)
}

interface ServiceJudgement {
  lost: Map<string, Set<string>>
  causes: Finding[]
}

/** The findings on `node` that break `view` (through their impact) and the endpoints each loses. */
function judgeService(report: Report, view: ServiceView, port: string | undefined, node: string): ServiceJudgement {
  const names = portNames(view, port)
  const lost = new Map<string, Set<string>>()
  const causes: Finding[] = []
  const lose = (ip: string, id: string) => lost.set(ip, (lost.get(ip) ?? new Set()).add(id))
  for (const f of report.findings) {
    if (f.node !== node) {
      // Endpoint bookkeeping is reported on the endpoint's node but breaks the Service from everywhere.
      if ((f.area === 'endpoints' || f.area === 'dns') && namesService(f, view.name) && f.severity !== 'info') causes.push(f)
      continue
    }
    const i = f.impact
    if (i?.all) {
      const ips = view.endpoints.filter((e) => i.family === undefined || familyOf(e.ip) === i.family)
      if (ips.length === 0) continue
      for (const e of ips) lose(e.ip, f.id)
      causes.push(f)
      continue
    }
    const hits = (i?.services ?? []).filter((s) => s.service === view.name && (names === undefined || s.port === undefined || names.has(s.port)))
    if (hits.length > 0) {
      for (const h of hits) for (const ip of h.endpoints) lose(ip, f.id)
      causes.push(f)
    } else if (i === undefined && namesService(f, view.name) && f.severity !== 'info') causes.push(f)
  }
  return {lost, causes}
}

/** Whether a finding without impact is about the Service (its group or subject). */
function namesService(f: Finding, service: string): boolean {
  const g = f.group?.replace(/^Service /, '').replace(/:.*$/, '')
  if (g === service) return true
  return f.subject.kind === 'Service' && `${f.subject.namespace ?? 'default'}/${f.subject.name}` === service
}

/** Collection errors on the node, and the checks `question` needs that were skipped (grouped by reason). */
function unknownOn(report: Report, node: string, question: Question): string[] {
  const out: string[] = []
  const byReason = new Map<string, string[]>()
  for (const r of report.results) {
    if (r.node !== node || r.status !== 'skipped' || !questionNeeds(question, r.id) || !r.reason) continue
    if (/^not applicable|implemented by /.test(r.reason)) continue
    byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r.id])
  }
  for (const e of report.collectionErrors) if (e.node === node || e.node === undefined) out.push(`could not collect ${e.source}: ${e.message}`)
  // The reasons that leave the most checks unjudged first: a renderer may show only the first few.
  const reasons = [...byReason].sort(([ra, a], [rb, b]) => b.length - a.length || ra.localeCompare(rb))
  for (const [reason, ids] of reasons) out.push(`${ids.join(', ')} not judged: ${reason}`)
  return out
}

function sortCauses(fs: Finding[]): WhyCause[] {
  const seen = new Set<Finding>()
  return fs
    .filter((f) => (seen.has(f) ? false : (seen.add(f), true)))
    .sort((a, b) => compareSeverity(a.severity, b.severity) || Number(b.impact !== undefined) - Number(a.impact !== undefined) || a.id.localeCompare(b.id))
    .map(toCause)
}

function serviceVerdict(report: Report, index: ServiceIndex, service: string, port: string | undefined, node: string, label: string, question: Question): WhyVerdict {
  const view = index.services.get(service)
  const base = {target: label, node, checked: [] as string[], unknown: unknownOn(report, node, question)}
  if (!view) return {...base, verdict: 'broken', headline: `broken: there is no Service ${service}`, causes: []}
  if (port !== undefined && portNames(view, port)!.size === 0) {
    return {...base, verdict: 'broken', headline: `broken: Service ${service} has no port ${port} (ports: ${view.ports.map((p) => p.name || String(p.port)).join(', ')})`, causes: []}
  }
  // For one port, its endpoints as kube-proxy pairs them (slices carrying that port name); else all of them.
  const portName = port === undefined ? undefined : view.ports.find((p) => p.name === port || String(p.port) === port)?.name
  const ips = portName === undefined ? undefined : new Set(view.portEndpoints.get(portName) ?? [])
  const endpoints = ips === undefined ? view.endpoints : view.endpoints.filter((e) => ips.has(e.ip))
  const j = judgeService(report, view, port, node)
  const total = endpoints.length
  const lost = endpoints.filter((e) => j.lost.has(e.ip)).map((e) => ({ip: e.ip, ...(e.pod ? {pod: e.pod} : {}), ...(e.node ? {node: e.node} : {}), by: [...j.lost.get(e.ip)!].sort()}))
  const causes = sortCauses(j.causes)
  let verdict: VerdictKind
  let headline: string
  if (total === 0) {
    verdict = 'broken'
    headline = view.endpoints.length > 0 && port !== undefined ? `broken: no ready endpoint of ${service} serves port ${port} (its EndpointSlices carry no such port)` : `broken: ${service} has no ready endpoints`
  } else if (lost.length === total) {
    verdict = 'broken'
    headline = `broken: ${total === 1 ? 'its only endpoint is' : `all ${total} endpoints are`} unreachable from ${node}`
  } else if (lost.length > 0) {
    verdict = 'partly-broken'
    headline = `partly broken: ${lost.length} of ${total} endpoints unreachable from ${node}`
  } else if (causes.some((c) => c.severity === 'error' || c.severity === 'warning')) {
    verdict = 'partly-broken'
    const ids = [...new Set(causes.map((c) => c.id))]
    headline = `partly broken: ${total === 1 ? 'its endpoint is' : `all ${total} endpoints are`} reachable from ${node}, but ${ids.join(', ')} affect${ids.length === 1 ? 's' : ''} it`
  } else {
    verdict = 'works'
    headline = `works: ${total} of ${total} endpoint${total === 1 ? '' : 's'} reachable from ${node}${base.unknown.length > 0 ? ' (as far as could be checked)' : ''}`
  }
  const top = causes[0]
  const next = top ? (nextCommand(top.remedy, node) ?? `kubectl node-doctor explain ${top.id}`) : undefined
  return {...base, verdict, headline, endpoints: {total, lost}, causes, ...(next ? {next} : {})}
}

function podVerdict(report: Report, cluster: ClusterSnapshot, index: ServiceIndex, pod: string, node: string): WhyVerdict {
  const base = {target: `pod ${pod}`, node, checked: [] as string[], unknown: unknownOn(report, node, 'pod')}
  const p = cluster.pods.find((x) => `${x.metadata.namespace ?? 'default'}/${x.metadata.name}` === pod)
  const ips = p ? podIps(p) : [...index.podsByIp].filter(([, name]) => name === pod).map(([ip]) => ip)
  if (ips.length === 0) return {...base, verdict: 'broken', headline: p ? `broken: pod ${pod} has no IP (${p.status?.phase ?? 'unknown phase'})` : `broken: no pod ${pod}`, causes: []}
  const causes: Finding[] = []
  for (const f of report.findings) {
    if (f.node !== node || !f.impact) continue
    const i = f.impact
    if ((i.all && ips.some((ip) => i.family === undefined || familyOf(ip) === i.family)) || i.pods?.includes(pod) || i.services.some((s) => s.endpoints.some((e) => ips.includes(e)))) causes.push(f)
  }
  const sorted = sortCauses(causes)
  const podNode = p?.spec?.nodeName ?? [...index.services.values()].flatMap((x) => x.endpoints).find((e) => e.pod === pod && e.node)?.node
  const what = `pod ${pod} (${ips.join(', ')}${podNode ? ` on ${podNode}` : ''})`
  const top = sorted[0]
  const next = top ? (nextCommand(top.remedy, node) ?? `kubectl node-doctor explain ${top.id}`) : undefined
  if (sorted.length > 0) return {...base, verdict: 'broken', headline: `broken: ${what} is unreachable from ${node}`, causes: sorted, ...(next ? {next} : {})}
  return {...base, verdict: 'works', headline: `works: ${what} is reachable from ${node}${base.unknown.length > 0 ? ' (as far as could be checked)' : ''}`, causes: []}
}

function podIps(p: Pod): string[] {
  const ips = (p.status?.podIPs ?? []).map((x) => x.ip).filter((ip): ip is string => !!ip)
  return ips.length > 0 ? ips : p.status?.podIP ? [p.status.podIP] : []
}

/** `why dns`: kube-dns as a Service from the node, plus clusterDNS, node-local-dns and the DNS checks. */
function dnsVerdict(report: Report, cluster: ClusterSnapshot, index: ServiceIndex, node: string): WhyVerdict {
  const svc = findDnsService(cluster)
  const name = svc ? `${svc.metadata.namespace ?? 'default'}/${svc.metadata.name}` : 'kube-system/kube-dns'
  const v = serviceVerdict(report, index, name, undefined, node, 'dns', 'dns')
  const checked: string[] = []
  const extra: Finding[] = report.findings.filter((f) => f.node === node && f.area === 'dns' && f.severity !== 'info')
  const dnsResult = (id: string) => report.results.find((r) => r.node === node && r.id === id)
  const clusterDns = dnsResult('KUBELET-016')
  if (clusterDns?.status === 'passed') checked.push(`clusterDNS: the kubelet on ${node} points pods at ${svc?.spec.clusterIP ?? 'the kube-dns ClusterIP'}${nodeLocalDns(cluster) ? ' (or node-local-dns)' : ''}`)
  const dnsPods = v.endpoints?.total ?? 0
  if (svc && dnsPods > 0 && (v.endpoints?.lost.length ?? 0) === 0) {
    // Say only what was judged: routes by DNS-004, kube-proxy's rules by a rule diff that ran.
    const routes = dnsResult('DNS-004')?.status === 'passed'
    const rules = report.results.some((r) => r.node === node && r.status === 'passed' && /^(IPT|IPVS|NFT)-/.test(r.id))
    const judged = [rules ? 'rules' : undefined, routes ? 'routes' : undefined].filter(Boolean).join(' and ')
    checked.push(`${name}: ${dnsPods} ready CoreDNS endpoint${dnsPods === 1 ? '' : 's'}${judged ? `, ${dnsPods === 1 ? 'reachable' : 'all reachable'} from ${node} (${judged})` : ''}`)
  }
  const ct = dnsResult('CT-001')
  if (ct?.status === 'passed') checked.push(`no stale UDP conntrack entries for DNS on ${node}`)
  const local = nodeLocalDns(cluster)
  if (local) {
    const mine = cluster.pods.filter((p) => isNodeLocalDnsPod(p) && p.spec?.nodeName === node)
    const ready = mine.some((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
    if (ready) checked.push(`node-local-dns: pod ${mine[0]!.metadata.name} on ${node} is Ready`)
    else v.unknown.push(`node-local-dns runs in the cluster (DaemonSet ${local}) but ${mine.length === 0 ? `no pod of it runs on ${node}` : `its pod on ${node} is not Ready`}: pods whose clusterDNS is its link-local address get no answer`)
  }
  const causes = sortCauses([...report.findings.filter((f) => v.causes.some((c) => c.id === f.id && c.message === f.message)), ...extra])
  let verdict = v.verdict
  let headline = v.headline
  if (!svc) {
    verdict = 'broken'
    headline = 'broken: no kube-dns Service (nothing answers at clusterDNS)'
  } else if (v.verdict === 'works' && causes.length > 0) {
    // The kubelet pointing pods elsewhere breaks every lookup; other DNS findings (a CoreDNS pod here unhealthy,
    // a stale endpoint) break some.
    const wrongClusterDns = causes.some((c) => c.id === 'KUBELET-016')
    verdict = wrongClusterDns ? 'broken' : 'partly-broken'
    headline = wrongClusterDns ? `broken: the kubelet on ${node} does not point pods at ${name}` : `partly broken: ${causes.length} DNS finding${causes.length === 1 ? '' : 's'} on ${node}`
  }
  const top = causes[0]
  const next = top ? (nextCommand(top.remedy, node) ?? `kubectl node-doctor explain ${top.id}`) : undefined
  return {...v, target: 'dns', verdict, headline, causes, checked, ...(next ? {next} : {})}
}

/** The name of the node-local-dns DaemonSet, if the cluster runs one. */
function nodeLocalDns(cluster: ClusterSnapshot): string | undefined {
  return cluster.daemonSets.find((d) => /node-local-dns|nodelocaldns/.test(d.metadata.name) || d.metadata.labels?.['k8s-app'] === 'node-local-dns')?.metadata.name
}

function isNodeLocalDnsPod(p: Pod): boolean {
  return p.metadata.labels?.['k8s-app'] === 'node-local-dns' || /^node-local-dns-|^nodelocaldns-/.test(p.metadata.name)
}

/** The verdict for `target` from `node`, over a Report analysed from `cluster` (its findings carrying impact). */
export function whyVerdict(report: Report, cluster: ClusterSnapshot, target: WhyTarget, node: string): WhyVerdict {
  const index = indexServices(cluster)
  if (target.kind === 'dns') return dnsVerdict(report, cluster, index, node)
  if (target.kind === 'pod') return podVerdict(report, cluster, index, target.pod, node)
  const label = `svc ${target.service}${target.port !== undefined ? `:${target.port}` : ''}`
  // kube-dns asked for by name is the DNS question's Service: its DNS checks count.
  const dns = findDnsService(cluster)
  const isDns = dns !== undefined && `${dns.metadata.namespace ?? 'default'}/${dns.metadata.name}` === target.service
  return serviceVerdict(report, index, target.service, target.port, node, label, isDns ? 'dns' : 'service')
}
