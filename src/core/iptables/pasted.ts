// The lenient reader of `iptables show --from-file`: iptables-save as people paste it. After normalisePasted it
// accepts an excerpt without `*table` header (`iptables-save | grep KUBE`, a chain cut out of a dump), a missing
// COMMIT, `iptables -S` / `iptables -t nat -S` output (`-P CHAIN POLICY`, `-N CHAIN`), and rules of chains whose
// `:CHAIN` line was cut off. It rebuilds a strict iptables-save text from what it read, parses that with the strict
// parser (lines reported as the user's), and says every assumption as a warning. Input whose first line is not
// iptables at all goes to the strict parser unchanged, so it keeps its "this looks like X" error.
// Pure. collect/check never use it: machine-collected dumps stay strict (core/facts calls parseIptablesSave).
import {ParseError} from '../../errors.js'
import {type IptablesDump, type IptablesFamily, parseIptablesSave} from './save.js'
import {normalisePasted, type PastedWarning} from '../parse/pasted.js'

export interface PastedIptables {
  dump: IptablesDump
  warnings: PastedWarning[]
  /**
   * The input is part of a dump (a save excerpt without `*table` header, chains without declaration, no COMMIT):
   * what is absent may just have been cut off, so the view makes no finding about absent chains or jumps.
   */
  excerpt: boolean
}

type Table = 'nat' | 'filter' | 'mangle' | 'raw' | 'security'

const BUILTIN = new Set(['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING'])

/**
 * The table a chain name belongs to in kube-proxy's iptables layout, or null when it is in more than one
 * (KUBE-SERVICES and KUBE-NODEPORTS are in nat and filter, OUTPUT everywhere).
 */
export function tableOfChain(name: string): 'nat' | 'filter' | null {
  if (/^KUBE-(SVC|SEP|SVL|EXT|FW|XLB)-/.test(name)) return 'nat'
  if (['KUBE-POSTROUTING', 'KUBE-MARK-MASQ', 'KUBE-MARK-DROP', 'PREROUTING', 'POSTROUTING'].includes(name)) return 'nat'
  if (['KUBE-FORWARD', 'KUBE-FIREWALL', 'KUBE-PROXY-FIREWALL', 'KUBE-EXTERNAL-SERVICES', 'INPUT', 'FORWARD'].includes(name)) return 'filter'
  return null
}

/** For a rule of a chain in more than one table: filter for REJECT/DROP/ACCEPT verdicts, nat for the rest. */
function tableOfRule(text: string): 'nat' | 'filter' {
  return /\s-j (REJECT|DROP|ACCEPT)\b/.test(text) ? 'filter' : 'nat'
}

interface Item {
  kind: 'decl' | 'rule' | 'comment'
  chain: string
  /** The line as the strict parser reads it. */
  text: string
  /** The user's line. */
  line: number
  /** From a `-P`/`-N` line (iptables -S). */
  listing?: boolean
}

interface Section {
  table: Table
  /** The user's `*table` line; null when assumed. */
  header: number | null
  items: Item[]
  commit: number | null
  /** From `-P`/`-N` lines (iptables -S). */
  listing: boolean
}

const CHAIN_LINE = /^:(\S+)\s+(\S+)/
const RULE_LINE = /^(?:\[\d+:\d+\] )?-A (\S+)/

/** Reads pasted iptables-save or iptables -S output; throws ParseError (with the user's line) like the strict parser. */
export function readPastedIptables(input: string, options: {family?: IptablesFamily} = {}): PastedIptables {
  const norm = normalisePasted(input)
  const warnings = [...norm.warnings]
  const lines = norm.text.endsWith('\n') ? norm.text.slice(0, -1).split('\n') : norm.text.split('\n')
  const strict = (): PastedIptables => ({dump: parseIptablesSave(norm.text, {...options, lineOf: norm.lineOf}), warnings, excerpt: false})
  const first = lines.findIndex((l) => l.trim() !== '' && !l.startsWith('#'))
  if (first === -1 || !isIptablesLine(lines[first] as string)) return strict()
  // A whole dump (the common case, and the big one) is read as it is; only what the strict parser refuses is rebuilt.
  try {
    return strict()
  } catch (err) {
    if (!(err instanceof ParseError)) throw err
  }

  const sections: Section[] = []
  let open: Section | null = null
  let loose: Item[] = []
  const looseComments: Item[] = []
  const flushLoose = (): void => {
    if (loose.length > 0) sections.push(...assignTables(loose, warnings))
    loose = []
  }
  let listingWarned = false
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string
    const line = norm.lineOf[i] as number
    const t = text.trimEnd()
    if (t === '') continue
    if (t.startsWith('#')) {
      ;(open ? open.items : loose.length > 0 ? loose : looseComments).push({kind: 'comment', chain: '', text: t, line})
      continue
    }
    if (t.startsWith('*')) {
      flushLoose()
      if (open) {
        warnings.push({line, message: `table ${open.table} has no COMMIT: assumed one before line ${line}`})
        sections.push(open)
      }
      open = {table: t.slice(1) as Table, header: line, items: [], commit: null, listing: false}
      continue
    }
    if (t === 'COMMIT') {
      if (open) {
        open.commit = line
        sections.push(open)
        open = null
      } else warnings.push({line, message: `COMMIT without a table skipped`})
      continue
    }
    const item = readItem(t, line)
    if (!item) {
      warnings.push({line, message: `not an iptables line, skipped: "${t.slice(0, 40)}${t.length > 40 ? '…' : ''}"`})
      continue
    }
    if (/^-[PN] /.test(t) && !listingWarned) {
      listingWarned = true
      warnings.push({line, message: `\`iptables -S\` output: -P/-N lines read as chain declarations`})
    }
    if (open) {
      if (/^-[PN] /.test(t)) open.listing = true
      open.items.push(item)
    } else loose.push(item)
  }
  flushLoose()
  if (open) {
    const last = norm.lineOf[norm.lineOf.length - 1] ?? 1
    warnings.push({line: last, message: `table ${open.table} (line ${open.header}) has no COMMIT: assumed one at the end of the input`})
    sections.push(open)
  }

  const out: Array<{text: string; line: number}> = looseComments.map((c) => ({text: c.text, line: c.line}))
  let excerpt = false
  for (const s of sections) if (emit(s, out, warnings) || (!s.listing && (s.commit === null || s.header === null))) excerpt = true
  if (excerpt) {
    warnings.push({
      line: out[0]?.line ?? 1,
      message: 'read as an excerpt of a dump: chains and jumps outside it may have been cut off, so their absence is not reported',
    })
  }
  const rebuilt = out.map((o) => o.text).join('\n') + '\n'
  const dump = parseIptablesSave(rebuilt, {...options, lineOf: out.map((o) => o.line)})
  warnings.sort((a, b) => a.line - b.line)
  return {dump, warnings, excerpt}
}

function isIptablesLine(t: string): boolean {
  return t.startsWith('*') || t.startsWith(':') || /^(\[\d+:\d+\] )?-[APN] \S/.test(t) || t.trimEnd() === 'COMMIT'
}

function readItem(t: string, line: number): Item | null {
  let m = CHAIN_LINE.exec(t)
  if (m) return {kind: 'decl', chain: m[1] as string, text: t, line}
  m = /^-P (\S+) (\S+)\s*$/.exec(t)
  if (m) return {kind: 'decl', chain: m[1] as string, text: `:${m[1]} ${m[2]}`, line, listing: true}
  m = /^-N (\S+)\s*$/.exec(t)
  if (m) return {kind: 'decl', chain: m[1] as string, text: `:${m[1]} -`, line, listing: true}
  m = RULE_LINE.exec(t)
  if (m) return {kind: 'rule', chain: m[1] as string, text: t, line}
  return null
}

/** Splits a run of lines outside any `*table` into assumed tables, by chain names and rule verdicts. */
function assignTables(items: Item[], warnings: PastedWarning[]): Section[] {
  const listing = items.some((i) => i.listing === true)
  const evidence = {nat: new Set<string>(), filter: new Set<string>()}
  for (const i of items) {
    const t = tableOfChain(i.chain)
    if (t) evidence[t].add(i.chain)
  }
  // `iptables -S` lists one table, filter unless -t was given: any nat chain says it was -t nat.
  const fallback: 'nat' | 'filter' = evidence.nat.size > 0 || (evidence.filter.size === 0 && !listing) ? 'nat' : 'filter'
  const byTable = new Map<'nat' | 'filter', Item[]>()
  const ruleTables = new Map<string, Set<'nat' | 'filter'>>()
  for (const i of items) {
    if (i.kind !== 'rule') continue
    const t = listing ? fallback : (tableOfChain(i.chain) ?? tableOfRule(i.text))
    if (!ruleTables.has(i.chain)) ruleTables.set(i.chain, new Set())
    ruleTables.get(i.chain)?.add(t)
  }
  for (const i of items) {
    let targets: Array<'nat' | 'filter'>
    if (listing) targets = [fallback]
    else if (i.kind === 'rule') targets = [tableOfChain(i.chain) ?? tableOfRule(i.text)]
    else if (i.kind === 'decl') {
      const own = tableOfChain(i.chain)
      targets = own ? [own] : [...(ruleTables.get(i.chain) ?? [fallback])]
    } else targets = [fallback]
    for (const t of targets) {
      if (!byTable.has(t)) byTable.set(t, [])
      byTable.get(t)?.push(i)
    }
  }
  const sections: Section[] = []
  for (const t of ['nat', 'filter'] as const) {
    const its = byTable.get(t)
    if (!its || its.every((i) => i.kind === 'comment')) continue
    const why = evidence[t].size > 0
      ? `from the ${[...evidence[t]].slice(0, 3).join(', ')}${evidence[t].size > 3 ? ', …' : ''} chain${evidence[t].size > 1 ? 's' : ''}`
      : listing
        ? '(`iptables -S` lists filter unless -t is given)'
        : t === 'nat'
          ? '(KUBE-SERVICES/KUBE-NODEPORTS rules that are not REJECT/DROP/ACCEPT)'
          : '(REJECT/DROP/ACCEPT rules of KUBE-SERVICES/KUBE-NODEPORTS)'
    const line = its[0]?.line ?? 1
    warnings.push({line, message: `no table header: assumed *${t} ${why}`})
    sections.push({table: t, header: null, items: its, commit: null, listing})
  }
  return sections
}

/**
 * Writes one section as strict iptables-save: `*table`, declarations (missing ones made up), rules, COMMIT.
 * Returns whether a declaration had to be made up.
 */
function emit(s: Section, out: Array<{text: string; line: number}>, warnings: PastedWarning[]): boolean {
  const first = s.items[0]?.line ?? s.header ?? 1
  out.push({text: `*${s.table}`, line: s.header ?? first})
  const declared = new Set<string>()
  const decls: Item[] = []
  for (const i of s.items) {
    if (i.kind !== 'decl' || declared.has(i.chain)) continue
    declared.add(i.chain)
    decls.push(i)
  }
  const madeUp: Array<{chain: string; line: number}> = []
  for (const i of s.items) {
    if (i.kind !== 'rule' || declared.has(i.chain)) continue
    declared.add(i.chain)
    madeUp.push({chain: i.chain, line: i.line})
  }
  for (const c of s.items) if (c.kind === 'comment') out.push({text: c.text, line: c.line})
  for (const d of decls) out.push({text: d.text, line: d.line})
  for (const m of madeUp) out.push({text: `:${m.chain} ${BUILTIN.has(m.chain) ? 'ACCEPT' : '-'}`, line: m.line})
  if (madeUp.length > 0) {
    const names = madeUp.map((m) => (BUILTIN.has(m.chain) ? `${m.chain} (built-in, policy ACCEPT assumed)` : m.chain))
    warnings.push({
      line: madeUp[0]?.line ?? first,
      message: `table ${s.table}: no declaration line for ${madeUp.length === 1 ? 'chain' : 'chains'} ${names.slice(0, 5).join(', ')}${names.length > 5 ? `, and ${names.length - 5} more` : ''}: declared from their rules`,
    })
  }
  for (const r of s.items) if (r.kind === 'rule') out.push({text: r.text, line: r.line})
  const last = s.items[s.items.length - 1]?.line ?? first
  out.push({text: 'COMMIT', line: s.commit ?? last})
  return madeUp.length > 0
}
