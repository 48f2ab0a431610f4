// Baseline (ignore) files: known findings a pipeline accepts for now, each with a reason and an optional expiry.
// Pure: the caller reads the file and supplies today's date. Suppressed findings stay in the Report (`suppressed`).
import {isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode} from 'yaml'
import {ParseError} from '../errors.js'
import {buildReport, type CheckResult, type Finding, type Report, type Subject, type SuppressedFinding} from './model/report.js'

export interface BaselineEntry {
  /** Check id, exact (`IPT-002`) or a glob (`IPT-*`). */
  id: string
  /** Glob over the node name; absent: every node. */
  node?: string
  /** Glob (when it has `*`, `?` or `[`) over the subject, else a substring of it; absent: every subject. */
  subject?: string
  reason: string
  /** Last day (YYYY-MM-DD, UTC) the entry suppresses; from the next day on it is expired. */
  expires?: string
  /** 1-based line of the entry in its file, for messages. */
  line?: number
}

const KEYS = new Set(['id', 'node', 'subject', 'reason', 'expires'])
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/**
 * Parses a baseline file: either a list of entries or a mapping with an `ignore:` list. Throws ParseError with
 * the 1-based line of the offending entry or field (the caller names the file).
 */
export function parseBaseline(text: string): BaselineEntry[] {
  const lines = new LineCounter()
  const doc = parseDocument(text, {lineCounter: lines, prettyErrors: false})
  const lineOf = (node: YamlNode | null | undefined, fallback = 1): number => (node?.range ? lines.linePos(node.range[0]).line : fallback)
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!
    throw new ParseError(`invalid YAML: ${e.message.split('\n')[0]}`, lines.linePos(e.pos[0]).line)
  }
  let list: YamlNode | null | undefined = doc.contents
  if (list === null || (isScalar(list) && (list.value === null || list.value === ''))) return []
  if (isMap(list)) {
    for (const pair of list.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : ''
      if (key !== 'ignore') throw new ParseError(`unknown top-level key "${key}" (expected "ignore")`, lineOf(pair.key as YamlNode))
    }
    list = list.get('ignore', true) as YamlNode | undefined
    if (list === undefined || (isScalar(list) && list.value === null)) return []
  }
  if (!isSeq(list)) throw new ParseError('expected a list of entries (or "ignore:" with a list)', lineOf(list))

  return list.items.map((item) => {
    const node = item as YamlNode
    const at = lineOf(node)
    if (!isMap(node)) throw new ParseError('an entry must be a mapping with id and reason', at)
    const entry: Record<string, string> = {}
    for (const pair of node.items) {
      const keyNode = pair.key as YamlNode
      const key = isScalar(keyNode) ? String(keyNode.value) : ''
      if (!KEYS.has(key)) throw new ParseError(`unknown field "${key}" (fields: ${[...KEYS].join(', ')})`, lineOf(keyNode, at))
      const value = pair.value as YamlNode | null
      if (!isScalar(value) || value.value === null || typeof value.value === 'object') {
        throw new ParseError(`"${key}" must be a string`, lineOf(value, lineOf(keyNode, at)))
      }
      entry[key] = String(value.value).trim()
    }
    if (!entry.id) throw new ParseError('entry has no "id"', at)
    if (!entry.reason) throw new ParseError(`entry for ${entry.id} has no "reason" (say why it is accepted)`, at)
    if (entry.expires !== undefined && !validDate(entry.expires)) {
      throw new ParseError(`"expires" must be a date YYYY-MM-DD, got "${entry.expires}"`, at)
    }
    const out: BaselineEntry = {id: entry.id, reason: entry.reason, line: at}
    if (entry.node) out.node = entry.node
    if (entry.subject) out.subject = entry.subject
    if (entry.expires) out.expires = entry.expires
    return out
  })
}

function validDate(s: string): boolean {
  const m = DATE.exec(s)
  if (!m) return false
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return d.toISOString().slice(0, 10) === s
}

/** True when the entry's last day is before `today` (YYYY-MM-DD); string order is date order for this format. */
export function isExpired(entry: BaselineEntry, today: string): boolean {
  return entry.expires !== undefined && entry.expires < today
}

/** `kind/ns/name in X`: the text a baseline `subject` pattern is matched against (besides the bare name). */
export function subjectText(subject: Subject): string {
  const name = subject.namespace ? `${subject.namespace}/${subject.name}` : subject.name
  return `${subject.kind}/${name}${subject.in ? ` in ${subject.in}` : ''}`
}

/** Whole-string glob: `*` any run, `?` one character, `[...]` a class; everything else literal. */
export function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!
    if (ch === '*') re += '.*'
    else if (ch === '?') re += '.'
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 2)
      if (end === -1) re += '\\['
      else {
        const body = glob.slice(i + 1, end).replace(/\\/g, '\\\\')
        re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`
        i = end
      }
    } else re += ch.replace(/[.+^${}()|\\\]]/g, '\\$&')
  }
  return new RegExp(`^${re}$`, 's')
}

const GLOB = /[*?[]/

/** Whether one (unexpired) entry covers a finding. */
export function entryMatches(entry: BaselineEntry, finding: Finding): boolean {
  if (!globToRegExp(entry.id).test(finding.id)) return false
  if (entry.node !== undefined && !globToRegExp(entry.node).test(finding.node)) return false
  if (entry.subject !== undefined) {
    const candidates = [finding.subject.name, subjectText(finding.subject)]
    if (GLOB.test(entry.subject)) {
      const re = globToRegExp(entry.subject)
      if (!candidates.some((c) => re.test(c))) return false
    } else if (!candidates.some((c) => c.includes(entry.subject!))) return false
  }
  return true
}

export interface BaselineOutcome {
  /** The report without the suppressed findings, summary recomputed, `suppressed` filled in. */
  report: Report
  /** Entries past their date: they suppressed nothing. */
  expired: BaselineEntry[]
  /** Active entries that matched no finding (candidates for removal). */
  unused: BaselineEntry[]
}

/**
 * Moves findings covered by an unexpired entry (first match wins) to `report.suppressed` and recomputes the
 * summary. A check result that failed only because of suppressed findings becomes `passed` (reason says so),
 * so JUnit and SARIF agree with the exit code.
 */
export function applyBaseline(report: Report, entries: readonly BaselineEntry[], today: string): BaselineOutcome {
  const expired = entries.filter((e) => isExpired(e, today))
  const active = entries.filter((e) => !isExpired(e, today))
  const used = new Set<BaselineEntry>()
  const kept: Finding[] = []
  const suppressed: SuppressedFinding[] = [...(report.suppressed ?? [])]
  for (const f of report.findings) {
    const entry = active.find((e) => entryMatches(e, f))
    if (entry) {
      used.add(entry)
      suppressed.push({...f, reason: entry.reason})
    } else kept.push(f)
  }

  const stillFailing = new Set(kept.map((f) => `${f.node}\u0000${f.id}`))
  const reasons = new Map(suppressed.map((f) => [`${f.node}\u0000${f.id}`, f.reason]))
  const results: CheckResult[] = report.results.map((r) => {
    const key = `${r.node}\u0000${r.id}`
    if (r.status !== 'failed' || stillFailing.has(key) || !reasons.has(key)) return r
    return {...r, status: 'passed', reason: `suppressed by baseline: ${reasons.get(key)}`}
  })

  const rebuilt = buildReport({
    metadata: report.metadata,
    nodes: report.nodes.map((n) => ({name: n.name, ...(n.durationMs === undefined ? {} : {durationMs: n.durationMs}), ...(n.assumptions ? {assumptions: n.assumptions} : {})})),
    results,
    findings: kept,
    collectionErrors: report.collectionErrors,
  })
  if (entries.length > 0 || suppressed.length > 0) rebuilt.suppressed = suppressed
  return {report: rebuilt, expired, unused: active.filter((e) => !used.has(e))}
}
