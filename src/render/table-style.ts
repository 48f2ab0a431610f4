// Shared by the human views (table renderers and the dashboard): the apiVersion of their machine-readable forms,
// the status symbols, cli-table3's borderless style, and the verdict a headline states (it follows --fail-on, so it
// agrees with the exit code).
import {type CollectionError, type Finding, type NodeSummary, type Report, type Severity, severityAtLeast} from '../core/model/report.js'
import {ExitCode, exitCodeForReport} from '../exit-codes.js'

/** One shape per state, so severity reads without colour too. */
export const SYMBOLS = {error: '✖', warning: '▲', info: '●', ok: '✔', skipped: '−', unknown: '?', pending: '·'} as const

export const SEVERITY_SYMBOL: Record<Severity, string> = {error: SYMBOLS.error, warning: SYMBOLS.warning, info: SYMBOLS.info}

export const VIEW_API_VERSION = 'node-doctor.io/v1alpha1'

/** cli-table3 `chars` for a borderless table whose columns are separated by two spaces (kubectl's look). */
export const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
} as const

/**
 * A repair's before/after Report (annotation `node-doctor/states`, written by app/repair/pod-restart-plan.ts) holds
 * two states of each restarted node, named `NODE (before)` and `NODE (now)`. Renderers cannot import app/, so the
 * names are repeated here; test/unit/render/table.test.ts renders the Report that module builds.
 */
export const STATES_ANNOTATION = 'node-doctor/states'
const BEFORE_SUFFIX = ' (before)'
const AFTER_SUFFIX = ' (now)'

/** What a Report says now: a repair's "before" states left out, so a 3-node cluster counts 3 nodes. */
export interface CurrentState {
  nodes: NodeSummary[]
  findings: Finding[]
  collectionErrors: CollectionError[]
  /** Nodes of a before/after Report that were repaired (their base names); empty for any other Report. */
  repaired: string[]
  /** The "before" states left out (a repair's Report only). */
  before: {nodes: number; findings: Finding[]}
}

export function currentState(report: Pick<Report, 'metadata' | 'nodes' | 'findings' | 'collectionErrors'>): CurrentState {
  if (report.metadata.annotations?.[STATES_ANNOTATION] !== 'before-after') {
    return {nodes: report.nodes, findings: report.findings, collectionErrors: report.collectionErrors, repaired: [], before: {nodes: 0, findings: []}}
  }
  const names = new Set(report.nodes.map((n) => n.name))
  const repaired = report.nodes.filter((n) => n.name.endsWith(AFTER_SUFFIX)).map((n) => n.name.slice(0, -AFTER_SUFFIX.length))
  const old = new Set(repaired.map((n) => n + BEFORE_SUFFIX).filter((n) => names.has(n)))
  const isOld = (node: string | undefined) => node !== undefined && old.has(node)
  return {
    nodes: report.nodes.filter((n) => !isOld(n.name)),
    findings: report.findings.filter((f) => !isOld(f.node)),
    collectionErrors: report.collectionErrors.filter((e) => !isOld(e.node)),
    repaired,
    before: {nodes: old.size, findings: report.findings.filter((f) => isOld(f.node))},
  }
}

/** What `--fail-on` makes of the findings; `error` is the flag's default. */
export type FailOn = Severity | 'none'

/**
 * The headline: UNHEALTHY (findings at or above --fail-on: exit 1), PARTIAL (something was not collected, nothing
 * fails: exit 3), WARNINGS (warnings below --fail-on: exit 0), ERRORS (errors with --fail-on none: exit 0), HEALTHY
 * (nothing above info: exit 0). The exit code is exit-codes.ts's own, so the headline never contradicts it.
 */
export interface Verdict {
  label: 'HEALTHY' | 'WARNINGS' | 'ERRORS' | 'PARTIAL' | 'UNHEALTHY'
  tone: 'ok' | 'warning' | 'error'
  symbol: string
  exitCode: number
}

export function verdictOf(state: Pick<CurrentState, 'findings' | 'collectionErrors'>, failOn: FailOn = 'error'): Verdict {
  const exitCode = exitCodeForReport(state, failOn)
  if (exitCode === ExitCode.FINDINGS) return {label: 'UNHEALTHY', tone: 'error', symbol: SYMBOLS.error, exitCode}
  if (exitCode === ExitCode.PARTIAL) return {label: 'PARTIAL', tone: 'warning', symbol: SYMBOLS.warning, exitCode}
  if (state.findings.some((f) => f.severity === 'error')) return {label: 'ERRORS', tone: 'warning', symbol: SYMBOLS.warning, exitCode}
  if (state.findings.some((f) => f.severity === 'warning')) return {label: 'WARNINGS', tone: 'warning', symbol: SYMBOLS.warning, exitCode}
  return {label: 'HEALTHY', tone: 'ok', symbol: SYMBOLS.ok, exitCode}
}

/** A node's state as the table names it: `unhealthy` only when it has findings at or above --fail-on. */
/** `errors`: errors that do not fail the run (--fail-on none); `warnings`: warnings (and no errors) below --fail-on. */
export type NodeVerdict = 'healthy' | 'unhealthy' | 'errors' | 'warnings' | 'partial' | 'uncollected'
export const NODE_VERDICTS: readonly NodeVerdict[] = ['healthy', 'unhealthy', 'errors', 'warnings', 'partial', 'uncollected']

export function nodeVerdict(node: Pick<NodeSummary, 'status' | 'findings'>, failOn: FailOn = 'error'): NodeVerdict {
  if (node.status === 'uncollected') return 'uncollected'
  // The same rule as exitCodeForReport, per node.
  const failing = failOn !== 'none' && (['error', 'warning', 'info'] as const).some((s) => node.findings[s] > 0 && severityAtLeast(s, failOn))
  if (failing) return 'unhealthy'
  if (node.findings.error > 0) return 'errors'
  if (node.findings.warning > 0) return 'warnings'
  return node.status === 'partial' ? 'partial' : 'healthy'
}
