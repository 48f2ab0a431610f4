// `trace`: the packet's fate through the node's actual rules next to kube-proxy's expected rules — outcomes with
// probabilities, masquerade, filter verdict, the path of every branch — and a one-line conclusion. JSON/YAML give
// the same data. Pure: view in, string out; colour only when asked.
import {escapeJsonControls} from './terminal-safe.js'
import {Chalk, type ChalkInstance} from 'chalk'
import {stringify} from 'yaml'
import {
  compareOutcomes,
  NO_DNAT,
  type TraceBranch,
  type TraceComparison,
  type TracePacket,
  type TraceResult,
  type TraceStep,
} from '../core/trace/iptables-trace.js'
import type {ServiceTarget} from '../core/trace/destination.js'
import type {VerdictSummary} from '../core/trace/verdict.js'
import {borderlessTable} from './layout.js'
import {VIEW_API_VERSION} from './table-style.js'

export type TraceFormat = 'table' | 'json' | 'yaml'

export interface TraceView {
  node: string
  packet: TracePacket
  /** Where the packet comes from, in words (e.g. "a pod on the node (assumed address 10.0.1.254 …)"). */
  origin: string
  actual: {source: string; result: TraceResult}
  expected: {source: string; result: TraceResult}
  comparison: TraceComparison
  /** The pod the packet comes from, when it is one. */
  sourcePod?: {namespace: string; name: string; node?: string}
  /** The Service port the destination reaches, when there is one. */
  service?: ServiceTarget
  /** Where the node's routes came from (route lookups), when known. */
  routesSource?: string
  /** Per endpoint: rules, route, readiness (trace; the dashboard's Service view has none). */
  verdicts?: VerdictSummary
}

export interface TraceRenderOptions {
  color: boolean
  /** Terminal width; undefined: never wrap (pipes). */
  width?: number
}

const API_VERSION = VIEW_API_VERSION


export function renderTrace(view: TraceView, format: TraceFormat, options: TraceRenderOptions): string {
  if (format === 'json' || format === 'yaml') {
    const doc = {
      apiVersion: API_VERSION,
      kind: 'PacketTrace',
      node: view.node,
      packet: view.packet,
      origin: view.origin,
      ...(view.sourcePod ? {sourcePod: view.sourcePod} : {}),
      ...(view.service ? {service: view.service} : {}),
      ...(view.verdicts ? {verdict: view.verdicts.verdict, ...(view.verdicts.blockedBy ? {blockedBy: view.verdicts.blockedBy} : {}), endpoints: view.verdicts.endpoints, ...(view.routesSource ? {routesSource: view.routesSource} : {}), verdictNotes: view.verdicts.notes} : {}),
      actual: {source: view.actual.source, ...view.actual.result},
      expected: {source: view.expected.source, ...view.expected.result},
      comparison: view.comparison,
      conclusion: traceConclusion(view.comparison, view.expected.result),
    }
    return format === 'json' ? escapeJsonControls(JSON.stringify(doc, null, 2)) + '\n' : stringify(doc, {lineWidth: 0, aliasDuplicateObjects: false})
  }
  return renderTable(view, options)
}

export function formatPercent(p: number): string {
  return `${(p * 100).toFixed(1)}%`
}

export function formatOutcome(outcome: string): string {
  return outcome === NO_DNAT ? 'no DNAT' : outcome
}

function formatDestination(p: TracePacket): string {
  return `${p.dst.includes(':') ? `[${p.dst}]` : p.dst}:${p.dport}/${p.protocol}`
}

/** One line: "same endpoints and probabilities: …" or "differs: missing …; extra …; …". */
export function traceConclusion(c: TraceComparison, expected: TraceResult): string {
  if (c.same) {
    const list = Object.keys(expected.endpoints)
      .sort(compareOutcomes)
      .map((k) => `${formatOutcome(k)} ${formatPercent(expected.endpoints[k] as number)}`)
    return `same endpoints and probabilities as kube-proxy's rules: ${list.join(', ')}`
  }
  const parts: string[] = []
  for (const m of c.missing) parts.push(`missing ${formatOutcome(m.outcome)} (expected ${formatPercent(m.expected)})`)
  for (const e of c.extra) parts.push(`extra ${formatOutcome(e.outcome)} (${formatPercent(e.actual)})`)
  for (const ch of c.changed) parts.push(`${formatOutcome(ch.outcome)} ${formatPercent(ch.actual)} instead of ${formatPercent(ch.expected)}`)
  for (const m of c.masquerade) parts.push(`masquerade to ${formatOutcome(m.outcome)}: ${masqWord(m.actual)} instead of ${masqWord(m.expected)}`)
  return `differs: ${parts.join('; ')}`
}

function masqWord(share: number): string {
  if (share < 1e-9) return 'no'
  if (share > 1 - 1e-9) return 'yes'
  return `in ${formatPercent(share)} of connections`
}

function verdictText(b: TraceBranch): string {
  return b.verdict === 'no-rule' ? `no rule decides${b.policy ? ` (policy ${b.policy})` : ''}` : b.verdict
}

function stepText(s: TraceStep): string {
  const body = s.rule.startsWith(`-A ${s.chain} `) ? s.rule.slice(s.chain.length + 4) : s.rule
  const prob = s.probability !== undefined ? ` [taken with p=${s.probability.toFixed(4)}]` : ''
  const assumed = s.assumptions ? s.assumptions.map((a) => `\n  (assumed: ${a})`).join('') : ''
  return `${s.table} ${s.chain} #${s.ruleIndex + 1}: ${body}${prob}${assumed}`
}

function outcomeCells(r: TraceResult, key: string, c: ChalkInstance, absent: (s: string) => string): string[] {
  const p = r.endpoints[key]
  if (p === undefined) return [absent('—'), '', '']
  const masq = key === 'DROP' || key === 'REJECT' ? '-' : masqWord((r.masqueraded[key] ?? 0) / p)
  const verdicts = [...new Set(r.branches.filter((b) => b.outcome === key).map(verdictText))].join(' / ')
  return [formatPercent(p), masq, key === 'DROP' || key === 'REJECT' ? c.red(verdicts) : verdicts]
}

function samePaths(a: TraceResult, b: TraceResult, key: string): boolean {
  const texts = (r: TraceResult): string => JSON.stringify(r.branches.filter((x) => x.outcome === key).map((x) => x.path.map((s) => `${s.table} ${s.rule}`)))
  return texts(a) === texts(b) && a.branches.some((x) => x.outcome === key)
}

function verdictLine(v: VerdictSummary): string {
  if (v.total === 0) return `broken: no endpoint receives connections${v.blockedBy ? ` (${v.blockedBy})` : ''}`
  if (v.blockedBy !== undefined) return `${v.verdict}: ${v.working} of ${v.total} endpoints work; ${v.blockedBy}`
  if (v.verdict === 'unknown') return `unknown: ${v.working} of ${v.total} endpoints work, the others cannot be decided from the rules`
  return v.verdict === 'works' ? `works: ${v.working} of ${v.total} endpoints` : `${v.verdict}: ${v.working} of ${v.total} endpoints work`
}

function endpointRows(v: VerdictSummary, c: ChalkInstance): string[][] {
  return v.endpoints.map((e) => {
    const verdict =
      e.verdict === 'works' ? c.green('works') : e.verdict === 'fails' ? c.red(`fails at ${e.failsAt}`) : e.verdict === 'not ready' ? c.yellow('not ready') : e.verdict === 'unknown' ? c.yellow('unknown') : c.dim('unused')
    const detail = e.verdict === 'works' ? (e.route?.detail ?? 'rules ok (route not looked up)') : (e.reason ?? '')
    return [
      formatOutcome(e.endpoint),
      e.pod ?? '-',
      e.node ?? '-',
      e.ready === undefined ? '-' : e.ready ? 'yes' : 'no',
      formatPercent(e.share),
      verdict,
      detail,
    ]
  })
}

function pathLines(r: TraceResult, key: string, c: ChalkInstance): string[] {
  const branches = r.branches.filter((b) => b.outcome === key)
  return branches.flatMap((b, i) => [
    ...(branches.length > 1 ? [`  ${c.bold(`branch ${i + 1} (${formatPercent(b.probability)})`)}`] : []),
    ...b.path.map((s) => `    ${stepText(s).replace(/\n/g, '\n    ')}`),
  ])
}

// Linear in the output (render/layout.ts): cli-table3's width computation cost seconds on a few hundred rule lines.
function renderTable(view: TraceView, options: TraceRenderOptions): string {
  const c = new Chalk({level: options.color ? 1 : 0})
  const {actual, expected, comparison} = view
  const keys = [...new Set([...Object.keys(expected.result.endpoints), ...Object.keys(actual.result.endpoints)])].sort(compareOutcomes)
  const svc = view.service ? ` (Service ${view.service.namespace}/${view.service.name}${view.service.portName ? ` port ${view.service.portName}` : ''}, ${view.service.via})` : ''
  const lines = [`Trace of a new ${view.packet.protocol.toUpperCase()} connection to ${formatDestination(view.packet)}${svc} from ${view.origin}; node ${view.node}`, '']
  if (view.verdicts) {
    const v = view.verdicts
    const head = verdictLine(v)
    lines.push(v.verdict === 'works' && v.total > 0 ? c.green(head) : c.red(head), '')
    lines.push(...borderlessTable(['ENDPOINT', 'POD', 'NODE', 'READY', 'SHARE', 'VERDICT', 'WHERE / WHY'], endpointRows(v, c), options.color).map((l) => `  ${l}`.trimEnd()))
    lines.push('')
  }
  const missing = (s: string): string => c.red(s)
  const extra = (s: string): string => c.dim(s)
  const outcomeRows = keys.flatMap((k) => [
    [k === 'DROP' || k === 'REJECT' ? c.red(k) : formatOutcome(k), 'actual', ...outcomeCells(actual.result, k, c, missing)],
    ['', 'expected', ...outcomeCells(expected.result, k, c, extra)],
  ])
  lines.push(`Outcomes (actual: ${actual.source}; expected: ${expected.source})`)
  lines.push(...borderlessTable(['OUTCOME', 'RULES', 'SHARE', 'MASQUERADE', 'FILTER'], outcomeRows, options.color).map((l) => `  ${l}`.trimEnd()))
  for (const k of keys) {
    const a = pathLines(actual.result, k, c)
    lines.push('', `Path → ${formatOutcome(k)}, actual:`, ...(a.length > 0 ? a : [`    ${c.dim('— (no branch)')}`]))
    if (samePaths(actual.result, expected.result, k)) lines.push(`Path → ${formatOutcome(k)}, expected: ${c.dim('the same rules')}`)
    else {
      const e = pathLines(expected.result, k, c)
      lines.push(`Path → ${formatOutcome(k)}, expected:`, ...(e.length > 0 ? e : [`    ${c.dim('— (no branch)')}`]))
    }
  }
  lines.push('')
  const conclusion = traceConclusion(comparison, expected.result)
  lines.push(comparison.same ? c.green(conclusion) : c.red(conclusion))
  const verdictNotes = view.verdicts?.notes ?? []
  for (const [label, notes] of [['actual', actual.result.notes], ['expected', expected.result.notes], ['routes', verdictNotes]] as const) {
    if (notes.length === 0) continue
    lines.push('', `Notes (${label}):`, ...notes.map((n) => `  - ${n}`))
  }
  return lines.join('\n') + '\n'
}
