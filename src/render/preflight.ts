// The one-screen summary `preflight` prints on stdout: status and exit code, counts, top findings grouped across
// nodes, failing checks, slowest nodes, collection failures, baseline warnings and where each file went.
// Pure and colourless (CI logs).
import {groupFindings, summarizeFleet} from '../core/fleet.js'
import type {Report} from '../core/model/report.js'
import {nodeList, shortSubject} from './options.js'
import {type FailOn, SEVERITY_SYMBOL, verdictOf} from './table-style.js'

export interface PreflightSummaryOptions {
  exitCode: number
  failOn: string
  /** Format → path, in the order written. */
  written: ReadonlyArray<{format: string; path: string}>
  warnings?: readonly string[]
  /** Finding groups listed; the rest are counted. */
  top?: number
}


export function renderPreflightSummary(report: Report, options: PreflightSummaryOptions): string {
  const s = report.summary
  const fleet = summarizeFleet(report, {slowest: 3})
  // The verdict follows --fail-on as the exit code does (table-style.ts): a warnings-only run is WARNINGS, exit 0.
  const verdict = verdictOf(report, options.failOn as FailOn)
  const out: string[] = [`node-doctor preflight: ${verdict.label} (exit ${options.exitCode}, --fail-on ${options.failOn})`]
  const nodeParts = (['healthy', 'unhealthy', 'partial', 'uncollected'] as const).filter((k) => s.nodes[k] > 0).map((k) => `${s.nodes[k]} ${k}`)
  const sev = (['error', 'warning', 'info'] as const).map((k) => `${s.findings[k]} ${k}`).join(', ')
  const facts = [`nodes: ${s.nodes.total}${nodeParts.length > 0 ? ` (${nodeParts.join(', ')})` : ''}`, `findings: ${sev}`, `collection errors: ${s.collectionErrors}`]
  if (report.suppressed !== undefined) facts.push(`suppressed: ${report.suppressed.length}`)
  out.push(facts.join(' · '))
  for (const w of options.warnings ?? []) out.push(`warning: ${w}`)

  const groups = groupFindings(report.findings)
  if (groups.length > 0) {
    const top = options.top ?? 10
    out.push('', 'Top findings:')
    for (const g of groups.slice(0, top)) {
      out.push(`  ${SEVERITY_SYMBOL[g.severity]} ${g.id.padEnd(12)} ${nodeList(g.nodes)}: ${shortSubject(g.subject)}: ${oneLine(g.message)}`)
    }
    if (groups.length > top) out.push(`  … ${groups.length - top} more (see the written reports)`)
  }
  if (fleet.failingChecks.length > 0) {
    const shown = fleet.failingChecks.slice(0, 8).map((c) => `${c.id} on ${c.nodesAffected} ${c.nodesAffected === 1 ? 'node' : 'nodes'}`)
    out.push('', `Failing checks: ${shown.join(', ')}${fleet.failingChecks.length > 8 ? `, … ${fleet.failingChecks.length - 8} more` : ''}`)
  }
  if (fleet.collectionFailures.length > 0) {
    out.push('', 'Could not collect:')
    for (const f of fleet.collectionFailures.slice(0, 5)) out.push(`  ${f.fatal ? '✖' : '▲'} ${nodeList(f.nodes)}: ${f.source}: ${oneLine(f.message)}`)
    if (fleet.collectionFailures.length > 5) out.push(`  … ${fleet.collectionFailures.length - 5} more`)
  }
  if (fleet.slowestNodes.length > 0 && report.nodes.length > 1) {
    out.push('', `Slowest nodes: ${fleet.slowestNodes.map((n) => `${n.name} ${(n.durationMs / 1000).toFixed(1)}s`).join(', ')}`)
  }
  if (options.written.length > 0) {
    out.push('', 'Wrote:')
    for (const w of options.written) out.push(`  ${w.format.padEnd(9)} ${w.path}`)
  }
  return out.join('\n') + '\n'
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?')
}
