// Fleet views of a Report: the same finding on many nodes becomes one group; per-area and per-check tallies;
// the slowest nodes. Pure and linear in the size of the report (used on 1,000-node runs).
import {
  AREAS,
  type Area,
  type CheckStatus,
  compareSeverity,
  type Finding,
  type Report,
  type Severity,
  type Subject,
} from './model/report.js'

/** One finding repeated across nodes: same id, same subject and same message once the node name is masked. */
export interface FindingGroup {
  id: string
  area: Area
  severity: Severity
  subject: Subject
  /** The message of the first finding, node name as written (for one node) or masked as `<node>` (for several). */
  message: string
  remedy: string
  group?: string
  /** Affected nodes, sorted. */
  nodes: string[]
  /** The first finding of the group (evidence for a detail view). */
  example: Finding
  /** Every finding folded into the group, in input order. */
  members: Finding[]
}

export const NODE_PLACEHOLDER = '<node>'

function maskNode(text: string, node: string): string {
  return node === '' ? text : text.split(node).join(NODE_PLACEHOLDER)
}

/**
 * Groups findings across nodes. Ordered most severe first, then by node count (widest first), id, subject.
 * Severity is part of the key, so a finding that is an error on one node and a warning on another stays apart.
 */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups = new Map<string, FindingGroup>()
  for (const f of findings) {
    const subject = maskNode(`${f.subject.kind}\u0000${f.subject.namespace ?? ''}\u0000${f.subject.name}\u0000${f.subject.in ?? ''}`, f.node)
    const message = maskNode(f.message, f.node)
    const key = `${f.id}\u0001${f.severity}\u0001${subject}\u0001${message}`
    const g = groups.get(key)
    if (g) {
      g.nodes.push(f.node)
      g.members.push(f)
    } else groups.set(key, {id: f.id, area: f.area, severity: f.severity, subject: f.subject, message: f.message, remedy: f.remedy, ...(f.group === undefined ? {} : {group: f.group}), nodes: [f.node], example: f, members: [f]})
  }
  const out = [...groups.values()]
  for (const g of out) {
    g.nodes = [...new Set(g.nodes)].sort()
    if (g.nodes.length > 1) {
      g.message = maskNode(g.example.message, g.example.node)
      g.subject = maskSubject(g.example.subject, g.example.node)
    }
  }
  return out.sort(
    (a, b) =>
      compareSeverity(a.severity, b.severity) ||
      b.nodes.length - a.nodes.length ||
      a.id.localeCompare(b.id) ||
      (a.group ?? '').localeCompare(b.group ?? '') ||
      a.subject.name.localeCompare(b.subject.name),
  )
}

function maskSubject(s: Subject, node: string): Subject {
  const out: Subject = {kind: s.kind, name: maskNode(s.name, node)}
  if (s.namespace !== undefined) out.namespace = maskNode(s.namespace, node)
  if (s.in !== undefined) out.in = maskNode(s.in, node)
  return out
}

export interface AreaTally {
  area: Area
  checks: Record<CheckStatus, number>
  findings: Record<Severity, number>
  /** Nodes with at least one finding in the area. */
  nodesAffected: number
}

export interface CheckTally {
  id: string
  area: Area
  checks: Record<CheckStatus, number>
  findings: number
  /** Nodes with at least one finding of this check. */
  nodesAffected: number
}

export interface FleetSummary {
  /** Areas that ran at least one check or produced a finding, in AREAS order. */
  areas: AreaTally[]
  /** Checks that failed on some node, most nodes first. */
  failingChecks: CheckTally[]
  /** Up to `slowest` nodes by collection time, slowest first; only nodes with a duration. */
  slowestNodes: Array<{name: string; durationMs: number}>
  /** Collection errors grouped by source and message (node masked), most nodes first. */
  collectionFailures: Array<{source: string; message: string; fatal: boolean; nodes: string[]}>
  /** Nodes with no finding and no collection error. */
  healthyNodes: number
}

export function summarizeFleet(report: Report, options: {slowest?: number} = {}): FleetSummary {
  const zeroChecks = (): Record<CheckStatus, number> => ({passed: 0, failed: 0, skipped: 0})
  const zeroSev = (): Record<Severity, number> => ({error: 0, warning: 0, info: 0})
  const areas = new Map<Area, AreaTally & {nodes: Set<string>}>()
  const area = (a: Area) => {
    let t = areas.get(a)
    if (!t) areas.set(a, (t = {area: a, checks: zeroChecks(), findings: zeroSev(), nodesAffected: 0, nodes: new Set()}))
    return t
  }
  const checks = new Map<string, CheckTally & {nodes: Set<string>}>()
  const check = (id: string, a: Area) => {
    let t = checks.get(id)
    if (!t) checks.set(id, (t = {id, area: a, checks: zeroChecks(), findings: 0, nodesAffected: 0, nodes: new Set()}))
    return t
  }
  for (const r of report.results) {
    area(r.area).checks[r.status]++
    check(r.id, r.area).checks[r.status]++
  }
  for (const f of report.findings) {
    const a = area(f.area)
    a.findings[f.severity]++
    a.nodes.add(f.node)
    const c = check(f.id, f.area)
    c.findings++
    c.nodes.add(f.node)
  }
  const strip = <T extends {nodes: Set<string>; nodesAffected: number}>({nodes, ...rest}: T): Omit<T, 'nodes'> => ({...rest, nodesAffected: nodes.size})

  const failures = new Map<string, {source: string; message: string; raw: string; fatal: boolean; nodes: string[]}>()
  for (const e of report.collectionErrors) {
    const message = e.node === undefined ? e.message : maskNode(e.message, e.node)
    const key = `${e.source}\u0000${message}\u0000${Boolean(e.fatal)}`
    const g = failures.get(key)
    if (g) g.nodes.push(e.node ?? '(cluster)')
    else failures.set(key, {source: e.source, message, raw: e.message, fatal: Boolean(e.fatal), nodes: [e.node ?? '(cluster)']})
  }
  const collectionFailures = [...failures.values()]
    .map(({raw, ...g}) => ({...g, message: g.nodes.length === 1 ? raw : g.message, nodes: [...new Set(g.nodes)].sort()}))
    .sort((a, b) => Number(b.fatal) - Number(a.fatal) || b.nodes.length - a.nodes.length || a.source.localeCompare(b.source))

  return {
    areas: AREAS.filter((a) => areas.has(a)).map((a) => strip(areas.get(a)!) as AreaTally),
    failingChecks: [...checks.values()]
      .filter((c) => c.nodes.size > 0 || c.checks.failed > 0)
      .map((c) => strip(c) as CheckTally)
      .sort((a, b) => b.nodesAffected - a.nodesAffected || a.id.localeCompare(b.id)),
    slowestNodes: report.nodes
      .filter((n) => n.durationMs !== undefined)
      .map((n) => ({name: n.name, durationMs: n.durationMs!}))
      .sort((a, b) => b.durationMs - a.durationMs || a.name.localeCompare(b.name))
      .slice(0, options.slowest ?? 5),
    collectionFailures,
    healthyNodes: report.nodes.filter((n) => n.status === 'healthy').length,
  }
}

