// Markdown job summary (GitHub `$GITHUB_STEP_SUMMARY`, GitLab MR notes): headline, per-area table, findings grouped
// across nodes with remedies, collection errors, baseline notes. Pure: Report in, string out. Every piece of report
// text goes through `md()` (or a fenced block), so node output can neither break a table nor inject HTML.
import {groupFindings, summarizeFleet} from '../core/fleet.js'
import type {Report, Severity} from '../core/model/report.js'
import {formatAssumptionsLine} from './assumptions.js'
import {formatSubject, nodeList, type RenderOptions} from './options.js'
import {type Verdict, verdictOf} from './table-style.js'

export interface MarkdownOptions extends Pick<RenderOptions, 'catalog' | 'warnings' | 'failOn'> {
  /** Finding groups shown in detail; the rest are counted (GitHub caps a step summary at 1 MiB). */
  maxGroups?: number
}

const VERDICT_EMOJI: Record<Verdict['label'], string> = {HEALTHY: '✅', WARNINGS: '⚠️', ERRORS: '⚠️', PARTIAL: '⚠️', UNHEALTHY: '❌'}
const SEVERITY_EMOJI: Record<Severity, string> = {error: '🔴', warning: '🟠', info: '🔵'}
const EVIDENCE_LINES = 20

/** Inline text safe in a paragraph or a table cell: HTML and Markdown punctuation escaped, `|` as an entity. */
export function md(text: string): string {
  // Markdown punctuation first, so the `#` of the entities below is not escaped again.
  return text
    .replace(/([\\`*_[\]{}#+!~])/g, '\\$1')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '&#124;')
    .replace(/\r?\n/g, '<br>')
}

/** A fenced block that the content cannot close: the fence is longer than any backtick run inside. */
function fenced(lines: readonly string[]): string[] {
  const longest = Math.max(0, ...lines.map((l) => Math.max(0, ...[...l.matchAll(/`+/g)].map((m) => m[0].length))))
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return [fence, ...lines, fence]
}

export function renderMarkdown(report: Report, options: MarkdownOptions = {}): string {
  const s = report.summary
  const catalog = new Map((options.catalog ?? []).map((c) => [c.id, c]))
  const fleet = summarizeFleet(report)
  // The verdict follows --fail-on, as the exit code does (render/table-style.ts).
  const verdict = verdictOf(report, options.failOn)
  const out: string[] = [`## ${VERDICT_EMOJI[verdict.label]} node-doctor: ${verdict.label}`, '']

  const nodeParts = (['healthy', 'unhealthy', 'partial', 'uncollected'] as const).filter((k) => s.nodes[k] > 0).map((k) => `${s.nodes[k]} ${k}`)
  const facts = [`**${s.nodes.total} ${s.nodes.total === 1 ? 'node' : 'nodes'}**${nodeParts.length > 0 ? ` (${nodeParts.join(', ')})` : ''}`]
  facts.push(s.findings.total > 0 ? `**findings:** ${severityText(s.findings)}` : 'no findings')
  if (s.collectionErrors > 0) facts.push(`${s.collectionErrors} collection ${s.collectionErrors === 1 ? 'error' : 'errors'}`)
  if (report.suppressed && report.suppressed.length > 0) facts.push(`${report.suppressed.length} suppressed by the baseline`)
  out.push(facts.join(' · '), '')
  for (const w of options.warnings ?? []) out.push(`> ⚠️ ${md(w)}`, '')

  if (fleet.areas.length > 0) {
    out.push('| Area | Passed | Failed | Skipped | Errors | Warnings | Info | Nodes affected |', '|---|---:|---:|---:|---:|---:|---:|---:|')
    for (const a of fleet.areas) {
      out.push(`| ${md(a.area)} | ${a.checks.passed} | ${a.checks.failed} | ${a.checks.skipped} | ${a.findings.error} | ${a.findings.warning} | ${a.findings.info} | ${a.nodesAffected} |`)
    }
    out.push('')
  }

  const assumed = report.nodes.filter((n) => (n.assumptions?.length ?? 0) > 0)
  if (assumed.length > 0) {
    out.push(`<details><summary>What the expected kube-proxy state assumed (${assumed.length} ${assumed.length === 1 ? 'node' : 'nodes'})</summary>`, '')
    for (const n of assumed) out.push(`- **${md(n.name)}**: ${md(formatAssumptionsLine(n.assumptions!).replace(/^assumed: /, ''))}`)
    out.push('', '</details>', '')
  }

  const groups = groupFindings(report.findings)
  if (groups.length > 0) {
    const max = options.maxGroups ?? 50
    out.push('### Findings', '')
    for (const g of groups.slice(0, max)) {
      const title = catalog.get(g.id)?.title
      out.push(`#### ${SEVERITY_EMOJI[g.severity]} ${md(g.id)}${title ? ` · ${md(title)}` : ''}`, '')
      out.push(`**${g.severity}** in ${md(g.area)} on ${md(nodeList(g.nodes, 10))}${g.group ? ` · ${md(g.group)}` : ''}`, '')
      out.push(`**Subject:** ${md(formatSubject(g.subject))}`, '')
      out.push(md(g.message), '')
      if (g.members.every((m) => m.impact !== undefined && m.impact.summary === g.example.impact?.summary)) out.push(`**Breaks:** ${md(g.example.impact!.summary)}`, '')
      out.push(`**Remedy:** ${md(g.remedy)}`, '')
      const ev = g.example.evidence
      if (ev.length > 0) {
        const shown = ev.slice(0, EVIDENCE_LINES)
        if (ev.length > EVIDENCE_LINES) shown.push(`… ${ev.length - EVIDENCE_LINES} more`)
        out.push(`<details><summary>Evidence${g.nodes.length > 1 ? ` (${md(g.example.node)})` : ''}</summary>`, '', ...fenced(shown), '', '</details>', '')
      }
    }
    if (groups.length > max) out.push(`… and ${groups.length - max} more finding groups; see the JSON report for all of them.`, '')
  }

  if (fleet.collectionFailures.length > 0) {
    out.push('### Could not collect', '', '| | Nodes | Source | Message |', '|---|---|---|---|')
    for (const f of fleet.collectionFailures) {
      out.push(`| ${f.fatal ? '❌' : '⚠️'} | ${md(nodeList(f.nodes, 10))} | ${md(f.source)} | ${md(f.fatal ? `${f.message} (nothing collected)` : f.message)} |`)
    }
    out.push('')
  }

  if (report.suppressed && report.suppressed.length > 0) {
    out.push(`<details><summary>${report.suppressed.length} suppressed by the baseline</summary>`, '', '| Check | Node | Subject | Reason |', '|---|---|---|---|')
    for (const f of report.suppressed) out.push(`| ${md(f.id)} | ${md(f.node)} | ${md(formatSubject(f.subject))} | ${md(f.reason)} |`)
    out.push('', '</details>', '')
  }

  out.push(`<sub>${md(`${report.metadata.tool.name} ${report.metadata.tool.version}`)} · ${md(report.metadata.command)}${report.metadata.context ? ` · context ${md(report.metadata.context)}` : ''}</sub>`)
  return out.join('\n') + '\n'
}

function severityText(counts: Record<Severity, number>): string {
  const parts: string[] = []
  if (counts.error > 0) parts.push(`${counts.error} ${counts.error === 1 ? 'error' : 'errors'}`)
  if (counts.warning > 0) parts.push(`${counts.warning} ${counts.warning === 1 ? 'warning' : 'warnings'}`)
  if (counts.info > 0) parts.push(`${counts.info} info`)
  return parts.join(', ')
}
