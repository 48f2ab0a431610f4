// Human views of a Report. `-o table`: what is wrong, per node, most severe first. `-o wide`: the same plus
// evidence, remedies and every check's result. Pure: Report in, string out; nothing here decides what is wrong.
import {Chalk, type ChalkInstance} from 'chalk'
import {fleetVersionLine, formatAssumptionsLine} from './assumptions.js'
import {layoutColumns} from './layout.js'
import {layoutLine} from './layout-line.js'
import type {CheckSpec} from '../core/checks/types.js'
import {type FindingGroup, groupFindings, summarizeFleet} from '../core/fleet.js'
import {
  type Assumption,
  compareSeverity,
  type CheckResult,
  type CheckStatus,
  type CollectionError,
  type Finding,
  type NodeStatus,
  type Report,
  type Severity,
} from '../core/model/report.js'
import {formatSubject, nodeList, nodeNames, type RenderOptions, shortSubject} from './options.js'
import {type FailOn, NODE_VERDICTS, type NodeVerdict, SEVERITY_SYMBOL, STATES_ANNOTATION, SYMBOLS, currentState, nodeVerdict, verdictOf} from './table-style.js'

/** Shapes differ so severity reads without colour too. */

const RESULT_SYMBOL: Record<CheckStatus, string> = {passed: SYMBOLS.ok, failed: SYMBOLS.error, skipped: SYMBOLS.skipped}
/** Evidence lines shown per finding in `-o wide`; the rest is counted. */
const EVIDENCE_LINES = 3
const INDENT = '  '
const GAP = '  '
/** Below this a wrapped column is useless; the table overflows instead. */
const MIN_FLEX_WIDTH = 12

export function renderTable(report: Report, options: RenderOptions): string {
  return renderHuman(report, options, false)
}

export function renderWide(report: Report, options: RenderOptions): string {
  return renderHuman(report, options, true)
}

/** Above this many nodes `-o table` groups findings across nodes (fleet view); `-o wide` and JSON stay per node. */
export const FLEET_THRESHOLD = 5

function renderHuman(report: Report, options: RenderOptions, wide: boolean): string {
  const c = new Chalk({level: options.color ? 1 : 0})
  // `-o wide` on a terminal reads as `kubectl describe`: a block per finding. Piped, one record per line (greppable).
  const vertical = wide && options.terminal === true
  const width = options.width !== undefined && options.width > 0 ? options.width : undefined
  const failOn = options.failOn ?? 'error'
  // A repair's before/after Report (annotation node-doctor/states) holds two states of one node: never folded together.
  const states = report.metadata.annotations?.[STATES_ANNOTATION] === 'before-after'
  if (!wide && !states && report.nodes.length > FLEET_THRESHOLD) return renderFleet(report, c, width, failOn)
  const titles = new Map((options.catalog ?? []).map((s) => [s.id, s]))
  const out: string[] = [header(report, c, width, failOn)]

  // `-o table` folds a finding that is identical on several nodes into one row naming them (the same grouping as
  // the fleet view, preflight and markdown); `-o wide` stays per node, with each node's evidence.
  const folded = wide || states ? [] : groupFindings(report.findings).filter((g) => g.nodes.length > 1)
  const shared = new Set(folded.flatMap((g) => g.members))
  if (folded.length > 0) {
    out.push('', c.bold('On several nodes'), ...groupsTable(folded, c, width, FLEET_THRESHOLD))
  }

  const names = nodeNames(report)
  // A node whose expected state was computed gets a section even when healthy: its assumptions line says from what.
  const sections = names.filter(
    (n) =>
      report.findings.some((f) => f.node === n && !shared.has(f)) ||
      (wide && report.results.some((r) => r.node === n)) ||
      (nodeAssumptions(report, n)?.length ?? 0) > 0,
  )
  for (const node of sections) {
    out.push('', ...nodeSection(report, node, c, width, wide, titles, failOn, shared, vertical))
  }

  const quiet = names.filter((n) => !sections.includes(n) && nodeStatus(report, n) === 'healthy')
  if (quiet.length > 0 && (sections.length > 0 || report.collectionErrors.length > 0)) {
    out.push('', wrap(`✔ healthy, no findings: ${quiet.join(', ')}`, width).replace(/^✔/, c.green('✔')))
  }

  if (report.collectionErrors.length > 0) out.push('', ...collectionSection(report, c, width))

  if (!wide && report.findings.length > 0) {
    out.push('', c.dim(wrap("-o wide adds evidence, remedies and every check's result; `kubectl node-doctor explain ID` explains a check.", width)))
  }
  return finish(out)
}

/** Fleet view: one row per finding repeated across nodes ("3 nodes: a, b, c"), then who is fine. */
function renderFleet(report: Report, c: ChalkInstance, width: number | undefined, failOn: FailOn): string {
  const out: string[] = [header(report, c, width, failOn)]
  const versions = fleetVersionLine(report.nodes)
  if (versions) out.push(c.dim(wrap(clean(versions), width)))
  const groups = groupFindings(report.findings)
  if (groups.length > 0) out.push('', ...groupsTable(groups, c, width))
  const ok = report.nodes.filter((n) => n.status === 'healthy').length
  if (ok > 0) out.push('', `${c.green('✔')} ${ok} ${plural(ok, 'node')} OK`)
  if (report.collectionErrors.length > 0) out.push('', ...collectionSection(report, c, width))
  if (report.findings.length > 0) {
    out.push('', c.dim(wrap('Findings are grouped across nodes; -o wide lists them per node with evidence and remedies, -o json keeps every detail.', width)))
  }
  return finish(out)
}

/** One row per finding group, most severe first, with the nodes it is on. */
function groupsTable(groups: FindingGroup[], c: ChalkInstance, width: number | undefined, shownNodes?: number): string[] {
  const head = ['SEVERITY', 'CHECK', 'AREA', 'NODES', 'SUBJECT', 'MESSAGE']
  const rows = groups.map((g) => [`${SEVERITY_SYMBOL[g.severity]} ${g.severity}`, g.id, g.area, nodeList(g.nodes, shownNodes), shortSubject(g.subject), withBreaks(g.message, sameImpact(g.members))])
  const widths = columnWidths([head, ...rows], {3: 1, 4: 1, 5: 3}, width)
  const painted = rows.map((r, i) => {
    const cells = r.map((cell, k) => fit(cell, widths[k]!))
    cells[0] = paintSeverity(groups[i]!.severity, cells[0]!, c)
    return cells
  })
  return table(head.map((h) => c.bold(h)), painted, widths)
}

/**
 * Verdict, then the counts; wrapped under the counts only when the width is too small for one line. The verdict and
 * the node states follow --fail-on (as the exit code does); a repair's "before" states are not counted as nodes.
 */
function header(report: Report, c: ChalkInstance, width: number | undefined, failOn: FailOn): string {
  const now = currentState(report)
  const verdict = verdictOf(now, failOn)
  const paint = verdict.tone === 'ok' ? c.green : verdict.tone === 'error' ? c.red : c.yellow
  const perNode = new Map<NodeVerdict, number>()
  for (const n of now.nodes) perNode.set(nodeVerdict(n, failOn), (perNode.get(nodeVerdict(n, failOn)) ?? 0) + 1)
  const nodes = NODE_VERDICTS.filter((k) => (perNode.get(k) ?? 0) > 0).map((k) => `${perNode.get(k)} ${k === 'warnings' ? 'with warnings' : k === 'errors' ? 'with errors' : k}`)
  const total = now.nodes.length
  const parts = [`${total} ${plural(total, 'node')}${nodes.length > 0 ? `: ${nodes.join(', ')}` : ''}`]
  const counts = countSeverities(now.findings)
  parts.push(now.findings.length > 0 ? `findings: ${severityCounts(counts)}` : 'no findings')
  if (verdict.label === 'ERRORS') parts.push('not failing (--fail-on none)')
  if (now.collectionErrors.length > 0) parts.push(`${now.collectionErrors.length} ${plural(now.collectionErrors.length, 'collection error')}`)
  if (now.repaired.length > 0) {
    const before = now.before.findings.length > 0 ? severityCounts(countSeverities(now.before.findings)) : 'no findings'
    parts.push(`${now.repaired.length} repaired (before: ${before})`)
  }
  if (verdict.label === 'HEALTHY' && now.findings.length === 0 && now.repaired.length === 0) parts.push(`checks: ${checkCounts(report.summary.checks)}`)
  const label = `${verdict.symbol} ${verdict.label}  `
  // No-break spaces inside each part: a wrap falls only between parts.
  const text = parts.map((p) => p.replaceAll(' ', '\u00a0')).join(' · ')
  const lines = wrapLines(text, width === undefined ? undefined : Math.max(MIN_FLEX_WIDTH, width - label.length)).map((l) => l.replaceAll('\u00a0', ' '))
  return lines.map((l, i) => (i === 0 ? c.bold(paint(label.trimEnd())) + '  ' : ' '.repeat(label.length)) + l).join('\n')
}

function countSeverities(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = {error: 0, warning: 0, info: 0}
  for (const f of findings) counts[f.severity]++
  return counts
}

function nodeSection(
  report: Report,
  node: string,
  c: ChalkInstance,
  width: number | undefined,
  wide: boolean,
  catalog: Map<string, CheckSpec>,
  failOn: FailOn,
  shared: ReadonlySet<Finding> = new Set(),
  vertical = false,
): string[] {
  const findings = report.findings.filter((f) => f.node === node)
  const own = findings.filter((f) => !shared.has(f))
  const results = report.results.filter((r) => r.node === node)
  const summary = report.nodes.find((n) => n.name === node)
  const status = summary ? nodeVerdict(summary, failOn) : undefined
  const counts: Record<Severity, number> = {error: 0, warning: 0, info: 0}
  for (const f of findings) counts[f.severity]++
  const checks: Record<CheckStatus, number> = {passed: 0, failed: 0, skipped: 0}
  for (const r of results) checks[r.status]++

  const facts = [status ? paintStatus(status, c) : undefined, findings.length > 0 ? severityCounts(counts) : 'no findings']
  if (own.length < findings.length) facts.push(`${findings.length - own.length} on several nodes (above)`)
  if (results.length > 0) facts.push(`checks: ${checkCounts(checks)}`)
  const lines = [`${c.bold(node)}  ${facts.filter((x) => x !== undefined).join(' · ')}`, ...layoutLine(report.nodes.find((n) => n.name === node), c, width)]
  const assumed = nodeAssumptions(report, node)
  if (assumed && assumed.length > 0) {
    lines.push(...wrapLines(clean(formatAssumptionsLine(assumed)), width === undefined ? undefined : width - INDENT.length).map((l) => INDENT + c.dim(l)))
  }

  if (own.length > 0) lines.push(...(vertical ? findingBlocks(own, c, width) : findingsTable(own, c, width, wide)))
  if (wide && results.length > 0) {
    lines.push('', `${INDENT}${c.bold('Checks')}`, ...resultsTable(results, c, width, catalog))
  }
  return lines
}

/**
 * Strictly by severity: every error before any warning, every warning before any info. Within one severity the
 * ungrouped findings (node-level causes) come first, then each group under its heading by name; a group with
 * findings of two severities gets its heading once per severity.
 */
function findingsTable(findings: Finding[], c: ChalkInstance, width: number | undefined, wide: boolean): string[] {
  const runs = severityRuns(findings)

  const head = ['SEVERITY', 'CHECK', 'AREA', 'SUBJECT', 'MESSAGE', ...(wide ? ['EVIDENCE', 'REMEDY'] : [])]
  const row = (f: Finding): string[] => [
    `${SEVERITY_SYMBOL[f.severity]} ${f.severity}`,
    f.id,
    f.area,
    wide ? formatSubject(f.subject) : shortSubject(f.subject),
    withBreaks(f.message, f.impact),
    ...(wide ? [evidenceCell(f.evidence), f.remedy] : []),
  ]
  const blocks: Array<{heading?: string; rows: string[][]; severities: Severity[]}> = runs.map((r) => ({
    ...(r.group === undefined ? {} : {heading: r.group}),
    rows: r.findings.map(row),
    severities: r.findings.map((f) => f.severity),
  }))

  const flex: Record<number, number> = wide ? {3: 2, 4: 3, 5: 3, 6: 2} : {3: 1, 4: 3}
  const widths = columnWidths([head, ...blocks.flatMap((b) => b.rows)], flex, width)
  // One table per block, all with the same widths, so the group headings sit between aligned rows.
  const lines = table(head.map((h) => c.bold(h)), [], widths)
  blocks.forEach((block, i) => {
    // A blank line before every block but the first: ungrouped rows after a group do not read as part of it.
    if (i > 0) lines.push('')
    if (block.heading !== undefined) {
      lines.push(...wrapLines(clean(`▸ ${block.heading}`), width === undefined ? undefined : width - INDENT.length).map((l) => INDENT + c.bold(l)))
    }
    const rows = block.rows.map((r, j) => {
      const cells = r.map((cell, k) => fit(cell, widths[k]!))
      cells[0] = paintSeverity(block.severities[j]!, cells[0]!, c)
      return cells
    })
    lines.push(...table(undefined, rows, widths))
  })
  return lines
}

/** Findings strictly by severity, then ungrouped before grouped, each group's findings of one severity in one run. */
function severityRuns(findings: readonly Finding[]): Array<{group?: string; findings: Finding[]}> {
  const sorted = [...findings].sort(
    (a, b) => compareSeverity(a.severity, b.severity) || Number(a.group !== undefined) - Number(b.group !== undefined) || (a.group ?? '').localeCompare(b.group ?? ''),
  )
  const runs: Array<{group?: string; findings: Finding[]}> = []
  for (const f of sorted) {
    const last = runs.at(-1)
    if (last && last.group === f.group && last.findings[0]!.severity === f.severity) last.findings.push(f)
    else runs.push({...(f.group === undefined ? {} : {group: f.group}), findings: [f]})
  }
  return runs
}

/**
 * `-o wide` on a terminal: one block per finding, as `kubectl describe` prints an object. The severity, id and area
 * head it; then `Field:  value` lines, each value wrapped at word boundaries under itself. A word is never split and a
 * `backquoted command` stays on one line (a longer one overflows rather than break), so what is shown can be copied.
 */
function findingBlocks(findings: Finding[], c: ChalkInstance, width: number | undefined): string[] {
  const labels = ['Subject', 'Message', 'Breaks', 'Evidence', 'Remedy'] as const
  const labelWidth = Math.max(...labels.map((l) => l.length)) + 3 // `Evidence:` and two spaces
  const pad = INDENT + INDENT
  const valueWidth = width === undefined ? undefined : Math.max(MIN_FLEX_WIDTH, width - pad.length - labelWidth)
  const lines: string[] = []
  for (const run of severityRuns(findings)) {
    if (run.group !== undefined) {
      lines.push('', ...wrapLines(clean(`▸ ${run.group}`), width === undefined ? undefined : width - INDENT.length).map((l) => INDENT + c.bold(l)))
    }
    run.findings.forEach((f, k) => {
      // A blank line between blocks; a group's first block sits right under its heading.
      if (k > 0 || run.group === undefined) lines.push('')
      lines.push(`${INDENT}${paintSeverity(f.severity, `${SEVERITY_SYMBOL[f.severity]} ${f.severity}`, c)}  ${c.bold(f.id)}  ${f.area}`)
      const evidence = f.evidence.slice(0, EVIDENCE_LINES)
      if (f.evidence.length > EVIDENCE_LINES) evidence.push(`… ${f.evidence.length - EVIDENCE_LINES} more (-o json has all)`)
      const fields: Array<[(typeof labels)[number], string[]]> = [
        ['Subject', [formatSubject(f.subject)]],
        ['Message', [f.message]],
        ['Breaks', f.impact ? [f.impact.summary] : []],
        ['Evidence', evidence],
        ['Remedy', [f.remedy]],
      ]
      for (const [label, paragraphs] of fields) {
        const wrapped = paragraphs.flatMap((p) => clean(p).split('\n')).flatMap((p) => wrapWords(p, valueWidth))
        if (wrapped.length === 0) continue
        wrapped.forEach((l, n) => lines.push(pad + (n === 0 ? c.dim(`${label}:`.padEnd(labelWidth)) : ' '.repeat(labelWidth)) + l))
      }
    })
  }
  return lines
}

/**
 * Greedy wrap at spaces that never splits a word, and keeps a `backquoted span` (a command) whole: a unit longer than
 * the width gets a line of its own and overflows it.
 */
export function wrapWords(text: string, width: number | undefined): string[] {
  const units = text.match(/(?:[^\s`]*`[^`]*`[^\s`]*)+|\S+/g) ?? []
  if (width === undefined) return units.length > 0 ? [units.join(' ')] : []
  const out: string[] = []
  let line = ''
  for (const u of units) {
    if (line === '') line = u
    else if ([...line].length + 1 + [...u].length <= width) line += ` ${u}`
    else {
      out.push(line)
      line = u
    }
  }
  if (line !== '') out.push(line)
  return out
}

function resultsTable(results: CheckResult[], c: ChalkInstance, width: number | undefined, catalog: Map<string, CheckSpec>): string[] {
  const withTitle = catalog.size > 0
  const head = ['RESULT', 'CHECK', 'AREA', ...(withTitle ? ['TITLE'] : []), 'REASON']
  const rows = results.map((r) => [`${RESULT_SYMBOL[r.status]} ${r.status}`, r.id, r.area, ...(withTitle ? [catalog.get(r.id)?.title ?? ''] : []), r.reason ?? ''])
  const widths = columnWidths([head, ...rows], withTitle ? {3: 1, 4: 1} : {3: 1}, width)
  const painted = rows.map((r, i) => {
    const cells = r.map((cell, k) => fit(cell, widths[k]!))
    const status = results[i]!.status
    cells[0] = status === 'failed' ? c.red(cells[0]!) : status === 'passed' ? c.green(cells[0]!) : c.dim(cells[0]!)
    return cells
  })
  return table(head.map((h) => c.bold(h)), painted, widths)
}

/** Identical collection errors (same source and message once the node name is masked) are one row naming the nodes. */
function collectionSection(report: Report, c: ChalkInstance, width: number | undefined): string[] {
  const failures = summarizeFleet(report).collectionFailures
  const head = ['', failures.some((f) => f.nodes.length > 1) ? 'NODES' : 'NODE', 'SOURCE', 'MESSAGE']
  const rows = failures.map((f) => [f.fatal ? '✖' : '▲', nodeList(f.nodes, FLEET_THRESHOLD), f.source, f.fatal ? `${f.message} (nothing collected)` : f.message])
  const widths = columnWidths([head, ...rows], {1: 1, 3: 3}, width)
  const painted = rows.map((r, i) => {
    const cells = r.map((cell, k) => fit(cell, widths[k]!))
    cells[0] = failures[i]!.fatal ? c.red(cells[0]!) : c.yellow(cells[0]!)
    return cells
  })
  return [c.bold('Could not collect'), ...table(head.map((h) => c.bold(h)), painted, widths)]
}

/** The message with what the finding breaks under it (core/impact). */
function withBreaks(message: string, impact: Finding['impact']): string {
  return impact ? `${message}\nbreaks: ${impact.summary}` : message
}

/** The impact every member of a folded group shares, else none. */
function sameImpact(members: readonly Finding[]): Finding['impact'] {
  const first = members[0]?.impact
  return first && members.every((m) => m.impact?.summary === first.summary) ? first : undefined
}

function evidenceCell(evidence: string[]): string {
  const shown = evidence.slice(0, EVIDENCE_LINES)
  if (evidence.length > EVIDENCE_LINES) shown.push(`… ${evidence.length - EVIDENCE_LINES} more`)
  return shown.join('\n')
}

/**
 * Column widths: each column as wide as its widest line. When that overflows `width`, the flexible columns
 * (index → weight) share what the others leave: each first gets its longest word if all of those fit (so chain
 * names stay whole), then the rest goes by weight, a column never getting more than it needs.
 */
function columnWidths(rows: string[][], flex: Record<number, number>, width: number | undefined): number[] {
  const cols = rows[0]!.length
  const cells = (k: number) => rows.map((r) => clean(r[k] ?? ''))
  const natural = Array.from({length: cols}, (_, k) => Math.max(1, ...cells(k).map(maxLineLength)))
  const total = natural.reduce((a, b) => a + b, 0) + GAP.length * (cols - 1) + INDENT.length
  if (width === undefined || total <= width) return natural

  const flexible = Object.keys(flex).map(Number)
  const widths = [...natural]
  let room = width - INDENT.length - GAP.length * (cols - 1) - natural.reduce((a, n, k) => (flexible.includes(k) ? a : a + n), 0)
  const floors = flexible.map((k) => {
    const longestWord = Math.max(0, ...cells(k).flatMap((c) => c.split(/[ \n]+/)).map((w) => [...w].length))
    return Math.min(natural[k]!, Math.max(MIN_FLEX_WIDTH, longestWord))
  })
  const floorTotal = floors.reduce((a, b) => a + b, 0)
  flexible.forEach((k, i) => (widths[k] = floorTotal <= room ? floors[i]! : Math.min(natural[k]!, MIN_FLEX_WIDTH)))
  room -= flexible.reduce((a, k) => a + widths[k]!, 0)
  // Water-filling: a column whose share would exceed its need takes only its need and frees the rest.
  let open = flexible.filter((k) => widths[k]! < natural[k]!)
  while (open.length > 0 && room > 0) {
    const weight = open.reduce((a, k) => a + flex[k]!, 0)
    const share = (k: number) => Math.floor((room * flex[k]!) / weight)
    const full = open.filter((k) => widths[k]! + share(k) >= natural[k]!)
    if (full.length === 0) {
      for (const k of open) widths[k] = widths[k]! + share(k)
      break
    }
    for (const k of full) {
      room -= natural[k]! - widths[k]!
      widths[k] = natural[k]!
    }
    open = open.filter((k) => !full.includes(k))
  }
  return widths
}

function table(head: string[] | undefined, rows: string[][], widths: number[]): string[] {
  // Linear (layout.ts): cli-table3 was quadratic in a cell's lines (one 55 KB rule in -o wide took 59 s).
  return layoutColumns(head, rows, {widths, gap: GAP}).map((l) => INDENT + l)
}

/** Sanitised and wrapped to the column, so cli-table3 never truncates. */
function fit(cell: string, width: number): string {
  return wrapLines(clean(cell), width).join('\n')
}

/** Node output may carry terminal escapes or tabs; show them, never let them act on the terminal. */
function clean(text: string): string {
  return text.replace(/\t/g, ' ').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/**
 * Greedy word wrap on spaces; words longer than the width are broken. Existing line breaks are kept. Linear in the
 * text: lengths are counted once per word (it rebuilt and re-measured the line per word before).
 */
export function wrapLines(text: string, width: number | undefined): string[] {
  if (width === undefined || width <= 0) return text.split('\n')
  const out: string[] = []
  for (const para of text.split('\n')) {
    let line = ''
    let lineLen = 0
    for (const w of para.split(/ +/)) {
      if (w === '') continue
      let chars: string[] | undefined
      let wordLen = w.length
      if (/[\ud800-\udfff]/.test(w)) {
        chars = [...w]
        wordLen = chars.length
      }
      let offset = 0 // in code points, into the word
      const piece = (from: number, to: number): string => (chars ? chars.slice(from, to).join('') : w.slice(from, to))
      while (wordLen - offset > width) {
        const room = lineLen === 0 ? width : width - lineLen - 1
        if (room <= 0) {
          out.push(line)
          line = ''
          lineLen = 0
          continue
        }
        const head = piece(offset, offset + room)
        out.push(lineLen === 0 ? head : `${line} ${head}`)
        line = ''
        lineLen = 0
        offset += room
      }
      const rest = offset === 0 ? w : piece(offset, wordLen)
      const restLen = wordLen - offset
      if (lineLen === 0) {
        line = rest
        lineLen = restLen
      } else if (lineLen + 1 + restLen <= width) {
        line += ` ${rest}`
        lineLen += 1 + restLen
      } else {
        out.push(line)
        line = rest
        lineLen = restLen
      }
    }
    out.push(line)
  }
  return out
}

function wrap(text: string, width: number | undefined): string {
  return wrapLines(text, width).join('\n')
}

function maxLineLength(text: string): number {
  return Math.max(0, ...text.split('\n').map((l) => [...l].length))
}

function paintSeverity(severity: Severity, text: string, c: ChalkInstance): string {
  const paint = severity === 'error' ? c.red : severity === 'warning' ? c.yellow : c.cyan
  return text
    .split('\n')
    .map((l) => paint(l))
    .join('\n')
}

function paintStatus(status: NodeVerdict, c: ChalkInstance): string {
  const paint = status === 'healthy' ? c.green : status === 'unhealthy' ? c.red : c.yellow
  return paint(status)
}

function nodeAssumptions(report: Report, node: string): Assumption[] | undefined {
  return report.nodes.find((n) => n.name === node)?.assumptions
}

function nodeStatus(report: Report, node: string): NodeStatus | undefined {
  return report.nodes.find((n) => n.name === node)?.status
}

function severityCounts(counts: Record<Severity, number>): string {
  const parts = []
  if (counts.error > 0) parts.push(`${counts.error} ${plural(counts.error, 'error')}`)
  if (counts.warning > 0) parts.push(`${counts.warning} ${plural(counts.warning, 'warning')}`)
  if (counts.info > 0) parts.push(`${counts.info} info`)
  return parts.join(', ')
}

function checkCounts(counts: Record<CheckStatus, number>): string {
  const parts = (['passed', 'failed', 'skipped'] as const).filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k}`)
  return parts.length > 0 ? parts.join(', ') : 'none run'
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`
}

/** One trailing newline, no trailing whitespace on any line (padding from the last column included). */
function finish(lines: string[]): string {
  return (
    lines
      .join('\n')
      .split('\n')
      .map((l) => l.replace(/\s+$/, '').replace(/\s+((?:\u001b\[[0-9;]*m)+)$/, '$1'))
      .join('\n') + '\n'
  )
}
