// The dashboard's view model: pure functions from the Report (and the collection progress) to what the screens
// show. No I/O, no ink: the components only lay these values out, so every decision here is unit-tested.
import {
  type Area,
  type CheckResult,
  type CollectionError,
  compareSeverity,
  type Finding,
  type NodeStatus,
  type Report,
  type Severity,
} from '../core/model/report.js'
import type {ServiceRef} from '../app/dashboard/service-detail.js'

export type {ServiceRef}

export type ColumnKey = 'kubelet' | 'proxy' | 'rules' | 'routes' | 'dns'

export interface Column {
  key: ColumnKey
  title: string
  /** The report areas summarised in this column; every area belongs to exactly one column. */
  areas: readonly Area[]
}

/**
 * The fleet table's status columns. Endpoints and conntrack belong with the rules: all three say whether the node's
 * Service data path matches the API objects.
 */
export const COLUMNS: readonly Column[] = [
  {key: 'kubelet', title: 'KUBELET', areas: ['kubelet']},
  {key: 'proxy', title: 'PROXY MODE', areas: ['proxy-mode']},
  {key: 'rules', title: 'RULES IN SYNC', areas: ['iptables', 'ipvs', 'nftables', 'endpoints', 'conntrack']},
  {key: 'routes', title: 'ROUTES', areas: ['routes']},
  {key: 'dns', title: 'DNS', areas: ['dns']},
]

/** `skipped`: every check of the column was skipped (missing input, not applicable); `unknown`: nothing collected. */
export type CellStatus = Severity | 'ok' | 'skipped' | 'unknown' | 'pending'

export interface Cell {
  status: CellStatus
  text: string
}

/** Where a node is in the current run. `stale`: the row shows the previous run's result while a re-check runs. */
export type NodeState = 'waiting' | 'collecting' | 'done'

export interface NodeProgress {
  name: string
  state: NodeState
  stale?: boolean
}

export interface FleetRow {
  name: string
  state: NodeState
  stale: boolean
  /** Absent until the node has a result. */
  status?: NodeStatus
  cells: Record<ColumnKey, Cell>
  /** Why nothing could be collected (the fatal collection error), for uncollected nodes. */
  problem?: string
}

const PENDING: Cell = {status: 'pending', text: '…'}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** One column's status on one node: its most severe finding, else ok when a check ran, else n/a. */
export function columnCell(column: Column, results: readonly CheckResult[], findings: readonly Finding[], uncollected: boolean): Cell {
  if (uncollected) return {status: 'unknown', text: 'unknown'}
  const mine = findings.filter((f) => column.areas.includes(f.area))
  for (const severity of ['error', 'warning', 'info'] as const) {
    const n = mine.filter((f) => f.severity === severity).length
    if (n > 0) return {status: severity, text: severity === 'info' ? `${n} info` : plural(n, severity)}
  }
  const ran = results.filter((r) => column.areas.includes(r.area))
  if (ran.some((r) => r.status !== 'skipped')) return {status: 'ok', text: 'ok'}
  return {status: 'skipped', text: 'n/a'}
}

function byNode<T extends {node?: string}>(items: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>()
  for (const it of items) {
    if (it.node === undefined) continue
    let list = m.get(it.node)
    if (!list) m.set(it.node, (list = []))
    list.push(it)
  }
  return m
}

/**
 * The fleet table: one row per node of the run, in the progress order (name order), with the report's verdict for
 * nodes that have one; `proxyModes` (node → the mode kube-proxy reports) labels a sound proxy column. Linear in the
 * size of the report.
 */
export function fleetRows(report: Report | undefined, progress: readonly NodeProgress[], proxyModes: ReadonlyMap<string, string> = new Map()): FleetRow[] {
  const summaries = new Map((report?.nodes ?? []).map((n) => [n.name, n]))
  const results = byNode(report?.results ?? [])
  const findings = byNode(report?.findings ?? [])
  const errors = byNode(report?.collectionErrors ?? [])
  return progress.map((p) => {
    const summary = summaries.get(p.name)
    const row: FleetRow = {
      name: p.name,
      state: p.state,
      stale: Boolean(p.stale),
      cells: Object.fromEntries(COLUMNS.map((c) => [c.key, PENDING])) as Record<ColumnKey, Cell>,
    }
    if (!summary) return row
    const fatal = (errors.get(p.name) ?? []).find((e) => e.fatal)
    row.status = summary.status
    if (fatal) row.problem = `${fatal.source}: ${fatal.message}`
    for (const c of COLUMNS) row.cells[c.key] = columnCell(c, results.get(p.name) ?? [], findings.get(p.name) ?? [], fatal !== undefined)
    // A sound proxy column names the mode kube-proxy runs in, when the node told us.
    const mode = proxyModes.get(p.name)
    if (mode && row.cells.proxy.status === 'ok') row.cells.proxy = {status: 'ok', text: mode}
    return row
  })
}

const NODE_STATUSES: readonly string[] = ['healthy', 'unhealthy', 'partial', 'uncollected']

/**
 * `/` filter on the fleet table: every word must match, either as part of the node name or as a node status
 * (`unhealthy`, `healthy`, `partial`, `uncollected`). Case-insensitive; an empty query keeps every row.
 */
export function filterRows(rows: readonly FleetRow[], query: string): FleetRow[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return [...rows]
  return rows.filter((r) => words.every((w) => (NODE_STATUSES.includes(w) ? r.status === w : r.name.toLowerCase().includes(w))))
}

export interface ProgressSummary {
  total: number
  done: number
  collecting: number
  waiting: number
  /** Finished nodes from which nothing could be collected. */
  failed: number
}

export function progressSummary(rows: readonly FleetRow[]): ProgressSummary {
  const s: ProgressSummary = {total: rows.length, done: 0, collecting: 0, waiting: 0, failed: 0}
  for (const r of rows) {
    if (r.state === 'done') {
      s.done++
      if (r.status === 'uncollected') s.failed++
    } else if (r.state === 'collecting') s.collecting++
    else s.waiting++
  }
  return s
}

/** One line for the status bar: `collecting 3/10 · 2 running · 1 failed`, or the fleet verdict when done. */
export function progressText(s: ProgressSummary, report: Report | undefined): string {
  if (s.total === 0) return 'reading the cluster…'
  if (s.done < s.total) {
    const parts = [`collecting ${s.done}/${s.total}`]
    if (s.collecting > 0) parts.push(`${s.collecting} running`)
    if (s.failed > 0) parts.push(`${s.failed} failed`)
    return parts.join(' · ')
  }
  const f = report?.summary.findings
  const findings = f && f.total > 0 ? [f.error && plural(f.error, 'error'), f.warning && plural(f.warning, 'warning'), f.info && `${f.info} info`].filter(Boolean).join(', ') : 'no findings'
  return `${plural(s.total, 'node')} checked · ${findings}${s.failed > 0 ? ` · ${s.failed} not collected` : ''}`
}

export interface ServiceRow extends ServiceRef {
  /** Findings on this node grouped under this Service port. */
  findings: number
  worst?: Severity
}

export interface NodeDetail {
  name: string
  status?: NodeStatus
  counts: Record<Severity, number>
  durationMs?: number
  /** Most severe first (the report's order). */
  findings: Finding[]
  errors: CollectionError[]
  /** Services with findings first (most severe, then most findings), then by name. */
  services: ServiceRow[]
}

/** What the node view shows: its findings, what could not be collected, and its Service ports ranked by trouble. */
export function nodeDetail(report: Report | undefined, node: string, services: readonly ServiceRef[]): NodeDetail {
  const summary = report?.nodes.find((n) => n.name === node)
  const findings = (report?.findings ?? []).filter((f) => f.node === node)
  const perGroup = new Map<string, Finding[]>()
  for (const f of findings) if (f.group !== undefined) perGroup.set(f.group, [...(perGroup.get(f.group) ?? []), f])
  const rows: ServiceRow[] = services.map((s) => {
    const fs = perGroup.get(s.name) ?? []
    const worst = [...fs].sort((a, b) => compareSeverity(a.severity, b.severity))[0]?.severity
    return {...s, findings: fs.length, ...(worst ? {worst} : {})}
  })
  const rank = (r: ServiceRow): number => (r.worst === undefined ? 0 : {error: 3, warning: 2, info: 1}[r.worst])
  rows.sort((a, b) => rank(b) - rank(a) || b.findings - a.findings || a.name.localeCompare(b.name) || a.protocol.localeCompare(b.protocol))
  const detail: NodeDetail = {
    name: node,
    counts: summary ? {...summary.findings} : {error: 0, warning: 0, info: 0},
    findings,
    errors: (report?.collectionErrors ?? []).filter((e) => e.node === node),
    services: rows,
  }
  if (summary) detail.status = summary.status
  if (summary?.durationMs !== undefined) detail.durationMs = summary.durationMs
  return detail
}

/** Node-view rows in cursor order: findings, then Service ports. */
export type NodeItem = {kind: 'finding'; finding: Finding} | {kind: 'service'; service: ServiceRow}

/**
 * The node view's selectable rows, narrowed by the `/` filter (id, message, subject or Service name, any case;
 * every word must match).
 */
export function nodeItems(detail: NodeDetail, query = ''): NodeItem[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  const keep = (text: string): boolean => words.every((w) => text.toLowerCase().includes(w))
  return [
    ...detail.findings
      .filter((f) => keep(`${f.id} ${f.area} ${f.message} ${f.subject.kind}/${f.subject.name} ${f.group ?? ''}`))
      .map((finding): NodeItem => ({kind: 'finding', finding})),
    ...detail.services.filter((s) => keep(`${s.name} ${s.clusterIP}:${s.port}/${s.protocol}`)).map((service): NodeItem => ({kind: 'service', service})),
  ]
}

/** Every area is summarised by exactly one column (a test holds this as areas are added). */
export function columnOf(area: Area): Column | undefined {
  return COLUMNS.find((c) => c.areas.includes(area))
}
