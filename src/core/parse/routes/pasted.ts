// The lenient reader of `routes show --from-file`: route listings as people paste them. After normalisePasted it
// reads `ip monitor route` output (`Timestamp:` lines from -t, `[…]` timestamps from -ts, `[nsid …]` from all-nsid,
// `[ROUTE]` labels and other objects' events from `ip monitor all`, `Deleted` events, a `^C` at the end) as the
// routes its events leave, and `route -n` with the -e/-ee or netstat -rn columns, without its title or header.
// Everything else goes to the strict parser (routes.ts), whose "this looks like X" errors stay. Line numbers in
// the model and the warnings are the user's. Pure; collect/check never use it.
import {ParseError} from '../../../errors.js'
import {normalisePasted, originalLine, type PastedWarning} from '../pasted.js'
import {type InputLine, splitInputLines} from '../sniff.js'
import {parseIpRouteText} from './ip-text.js'
import {EXPECTED, orderRouteKeys, type Route, type RouteTable} from './model.js'
import {parseRouteNLenient} from './route-n.js'

export interface PastedRoutes {
  table: RouteTable
  warnings: PastedWarning[]
}

/** `strict` is routes.ts's parseRoutes (passed in: routes.ts imports this module's neighbours). */
export function readPastedRoutes(input: string, strict: (text: string) => RouteTable): PastedRoutes {
  const norm = normalisePasted(input)
  const user = (n: number): number => originalLine(norm.lineOf, n)
  const own: PastedWarning[] = []
  const warn = (line: number, message: string): void => {
    own.push({line, message})
  }
  let table: RouteTable
  try {
    const lines = splitInputLines(norm.text, EXPECTED)
    const first = lines.find((l) => l.text.trim() !== '')!.text.trim()
    if (MONITOR_LINE.test(first)) table = readMonitor(lines, warn)
    else if (/^Kernel IP routing table\s*$/.test(first) || /^Destination\s+Gateway\s+Genmask\s/.test(first) || looksLikeRouteNRow(first)) {
      try {
        table = strict(norm.text)
      } catch (err) {
        if (!(err instanceof ParseError)) throw err
        table = {format: 'route-n', routes: parseRouteNLenient(lines, warn).map(orderRouteKeys)}
      }
    } else table = strict(norm.text)
  } catch (err) {
    if (err instanceof ParseError && err.line !== undefined) throw new ParseError(err.message, user(err.line))
    throw err
  }
  for (const r of [...table.routes, ...(table.deleted ?? [])]) if (r.line !== undefined) r.line = user(r.line)
  const warnings = [...norm.warnings, ...own.map((w) => ({line: user(w.line), message: w.message}))].sort((a, b) => a.line - b.line)
  return {table, warnings}
}

/** The first line of `ip monitor` output: a -t/-ts timestamp, an nsid or object label, or a deletion. */
const MONITOR_LINE = /^(Timestamp: |\[(nsid [^\]]+|[A-Z]+|\d{4}-\d\d-\d\dT[\d:.]+)\]|Deleted )/

function looksLikeRouteNRow(t: string): boolean {
  const tok = t.split(/\s+/)
  return tok.length === 8 && /^\d+\.\d+\.\d+\.\d+$/.test(tok[0]!) && /^\d+\.\d+\.\d+\.\d+$/.test(tok[2]!) && /^[A-Z!]+$/.test(tok[3]!)
}

/**
 * `ip monitor route` (or `ip monitor all`) output as the routes its events leave: an event replaces the route with
 * the same family, table, destination and metric; `Deleted` removes it.
 */
function readMonitor(lines: InputLine[], warn: (line: number, message: string) => void): RouteTable {
  const body: InputLine[] = []
  const deletedLines = new Set<number>()
  const skippedObjects = new Map<string, {count: number; line: number}>()
  let timestamps = 0
  let prefixes = 0
  let firstLine: number | undefined
  let skippingContinuation = false
  for (const line of lines) {
    let t = line.text
    if (t.trim() === '') continue
    firstLine ??= line.n
    if (/^Timestamp: /.test(t)) {
      timestamps++
      continue
    }
    if (t.trim() === '^C') {
      warn(line.n, '`^C` (the monitor was stopped) skipped')
      continue
    }
    if (/^\s/.test(t)) {
      // continuation of the event before: nexthop lines of a route, or the details of a skipped object's event
      if (!skippingContinuation) body.push(line)
      continue
    }
    let m: RegExpExecArray | null
    let label: string | undefined
    let prefixed = false
    while ((m = /^\[([^\]]*)\]\s?/.exec(t))) {
      const inside = m[1]!
      if (/^[A-Z]+$/.test(inside)) label = inside
      else if (/^\d{4}-\d\d-\d\dT/.test(inside)) timestamps++
      t = t.slice(m[0].length)
      prefixed = true
    }
    if (label !== undefined && label !== 'ROUTE') {
      const s = skippedObjects.get(label) ?? {count: 0, line: line.n}
      s.count++
      skippedObjects.set(label, s)
      skippingContinuation = true
      continue
    }
    skippingContinuation = false
    if (prefixed) prefixes++
    if (t.startsWith('Deleted ')) {
      t = t.slice('Deleted '.length)
      deletedLines.add(line.n)
    }
    body.push({n: line.n, text: t.trimEnd()})
  }
  const events = parseIpRouteText(body)
  const live = new Map<string, Route>()
  const gone = new Map<string, Route>()
  let deletions = 0
  for (const r of events) {
    const key = `${r.family} ${r.table} ${r.dst} ${r.metric ?? ''}`
    if (r.line !== undefined && deletedLines.has(r.line)) {
      deletions++
      live.delete(key)
      gone.set(key, r)
    } else {
      gone.delete(key)
      live.set(key, r)
    }
  }
  const at = firstLine ?? 1
  warn(
    at,
    `\`ip monitor route\` output: ${events.length} route event${events.length === 1 ? '' : 's'} (${events.length - deletions} added or changed, ${deletions} deleted) ` +
      'read as the routes they leave: only routes that changed while it ran are shown, not the whole table',
  )
  if (timestamps > 0 || prefixes > 0) {
    const what = [timestamps > 0 ? `${timestamps} timestamp${timestamps === 1 ? '' : 's'}` : '', prefixes > 0 ? `${prefixes} \`[…]\` prefix${prefixes === 1 ? '' : 'es'} (nsid, [ROUTE])` : '']
    warn(at, `${what.filter(Boolean).join(' and ')} removed`)
  }
  for (const [label, s] of skippedObjects) warn(s.line, `${s.count} [${label}] event${s.count === 1 ? '' : 's'} skipped: not routes`)
  const deleted = [...gone.values()]
  for (const r of deleted.slice(0, 10)) warn(r.line ?? at, `route ${r.type === 'unicast' ? '' : `${r.type} `}${r.dst}${r.table === 'main' ? '' : ` table ${r.table}`} deleted and not re-added: not in the view`)
  if (deleted.length > 10) warn(deleted[10]!.line ?? at, `and ${deleted.length - 10} more routes deleted and not re-added`)
  return {format: 'ip-monitor', routes: [...live.values()].map(orderRouteKeys), deleted: deleted.map(orderRouteKeys)}
}
