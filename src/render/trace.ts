// `trace`: the packet's fate through the node's actual rules next to kube-proxy's expected rules — outcomes with
// probabilities, masquerade, filter verdict, the path of every branch — and a one-line conclusion. JSON/YAML give
// the same data. Pure: view in, string out; colour only when asked.
import {escapeJsonControls} from './terminal-safe.js'
import {Chalk, type ChalkInstance} from 'chalk'
import Table from 'cli-table3'
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
import {BORDERLESS, VIEW_API_VERSION} from './table-style.js'

export type TraceFormat = 'table' | 'json' | 'yaml'

export interface TraceView {
  node: string
  packet: TracePacket
  /** Where the packet comes from, in words (e.g. "a pod on the node (assumed address 10.0.1.254 …)"). */
  origin: string
  actual: {source: string; result: TraceResult}
  expected: {source: string; result: TraceResult}
  comparison: TraceComparison
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
  const assumed = s.assumptions ? s.assumptions.map((a) => `\n    (assumed: ${a})`).join('') : ''
  return `${s.table} ${s.chain} #${s.ruleIndex + 1}: ${body}${prob}${assumed}`
}

function outcomeSummary(r: TraceResult, key: string, c: ChalkInstance, missingColor: (s: string) => string): string {
  const p = r.endpoints[key]
  if (p === undefined) return missingColor('—')
  const masq = key === 'DROP' || key === 'REJECT' ? '' : `, masquerade ${masqWord((r.masqueraded[key] ?? 0) / p)}`
  const verdicts = [...new Set(r.branches.filter((b) => b.outcome === key).map(verdictText))].join(' / ')
  const label = key === 'DROP' || key === 'REJECT' ? c.red(key) : formatOutcome(key)
  return `${label}  ${formatPercent(p)}${masq}, filter: ${verdicts}`
}

function pathsFor(r: TraceResult, key: string, c: ChalkInstance): string {
  const branches = r.branches.filter((b) => b.outcome === key)
  if (branches.length === 0) return c.dim('—')
  return branches
    .map((b, i) => {
      const head = branches.length > 1 ? [c.bold(`branch ${i + 1} (${formatPercent(b.probability)})`)] : []
      return [...head, ...b.path.map(stepText)].join('\n')
    })
    .join('\n')
}

function samePaths(a: TraceResult, b: TraceResult, key: string): boolean {
  const texts = (r: TraceResult): string => JSON.stringify(r.branches.filter((x) => x.outcome === key).map((x) => x.path.map((s) => `${s.table} ${s.rule}`)))
  return texts(a) === texts(b) && a.branches.some((x) => x.outcome === key)
}

function renderTable(view: TraceView, options: TraceRenderOptions): string {
  const c = new Chalk({level: options.color ? 1 : 0})
  const {actual, expected, comparison} = view
  const keys = [...new Set([...Object.keys(expected.result.endpoints), ...Object.keys(actual.result.endpoints)])].sort(compareOutcomes)
  const labelWidth = 18
  const colWidth = options.width ? Math.max(30, Math.floor((options.width - labelWidth - 4) / 2)) : undefined
  const table = new Table({
    chars: BORDERLESS,
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0},
    ...(colWidth ? {colWidths: [labelWidth, colWidth, colWidth], wordWrap: true} : {}),
  })
  table.push(['', c.bold(`actual: ${actual.source}`), c.bold(`expected: ${expected.source}`)])
  const missing = (s: string): string => c.red(s)
  const extra = (s: string): string => c.dim(s)
  table.push([
    'outcomes',
    keys.map((k) => outcomeSummary(actual.result, k, c, missing)).join('\n'),
    keys.map((k) => outcomeSummary(expected.result, k, c, extra)).join('\n'),
  ])
  for (const k of keys) {
    const a = pathsFor(actual.result, k, c)
    const e = pathsFor(expected.result, k, c)
    // Identical paths are printed once: the differences are what the reader is looking for.
    table.push([`path → ${formatOutcome(k)}`, a, a === e && samePaths(actual.result, expected.result, k) ? c.dim('(same rules as actual)') : e])
  }

  const lines = [
    `Trace of a new ${view.packet.protocol.toUpperCase()} connection to ${formatDestination(view.packet)} from ${view.origin}, node ${view.node}`,
    '',
    ...table.toString().split('\n').map((l) => l.trimEnd()),
    '',
  ]
  const conclusion = traceConclusion(comparison, expected.result)
  lines.push(comparison.same ? c.green(conclusion) : c.red(conclusion))
  for (const [label, r] of [['actual', actual.result], ['expected', expected.result]] as const) {
    if (r.notes.length === 0) continue
    lines.push('', `Notes (${label}):`, ...r.notes.map((n) => `  - ${n}`))
  }
  return lines.join('\n') + '\n'
}
