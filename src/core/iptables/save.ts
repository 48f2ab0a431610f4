// Over 500 lines on purpose: one offset-based parser and the lazy rule/chain/table views that read its private typed arrays.
// iptables-save / ip6tables-save output (with or without -c) → IptablesDump, and back (formatIptablesSave).
// One pass over the text with indexOf, no line array. Rules are stored as offsets into the input (a few typed
// arrays per table, no object per rule); IptablesRule views, their tokens and structure are made on access, so a
// 40 MB dump costs the text plus ~20 MB.
import {ParseError} from '../../errors.js'
import type {IpFamily} from '../net/ip.js'
import {type ParsedRule, parseRuleArgs} from './rule.js'
import {formatRuleTokens, tokenizeRule} from './tokenize.js'

export type IptablesFamily = IpFamily
export type IptablesBackend = 'nf_tables' | 'legacy'
export const IPTABLES_TABLES = ['filter', 'nat', 'mangle', 'raw', 'security'] as const
export type IptablesTableName = (typeof IPTABLES_TABLES)[number]

export interface Counters {
  packets: number
  bytes: number
}

export interface CommentLine {
  line: number
  text: string
}

/** One `-A` line, as a view made on access. The structure is derived from `text` each time it is asked for. */
export class IptablesRule {
  constructor(
    readonly chain: string,
    /** The rule as printed, `-A CHAIN ...`, without the `[p:b]` counters prefix. */
    readonly text: string,
    /** 1-based line number in the input. */
    readonly line: number,
    /** From a `[packets:bytes]` prefix (iptables-save -c), else null. */
    readonly counters: Counters | null,
  ) {}

  /** All arguments of the line, starting with `-A`, CHAIN. tokens.slice(2) are the rule's own arguments. */
  get tokens(): string[] {
    return withLine(this.line, () => tokenizeRule(this.text))
  }

  /** Generic options, matches and target; throws ParseError (with the line) for arguments iptables would refuse. */
  get parsed(): ParsedRule {
    return withLine(this.line, () => parseRuleArgs(tokenizeRule(this.text).slice(2)))
  }

  toJSON(): {chain: string; line: number; counters: Counters | null; text: string; tokens: string[]; parsed: ParsedRule} {
    return {chain: this.chain, line: this.line, counters: this.counters, text: this.text, tokens: this.tokens, parsed: this.parsed}
  }
}

function withLine<T>(line: number, f: () => T): T {
  try {
    return f()
  } catch (err) {
    if (err instanceof ParseError && err.line === undefined) throw new ParseError(err.message, line)
    throw err
  }
}

/** Columnar rule storage of one table: offsets into the input text, line numbers, owning chain, counters. */
class RuleStore {
  count = 0
  start = new Int32Array(1024)
  end = new Int32Array(1024)
  line = new Int32Array(1024)
  chain = new Int32Array(1024)
  packets: Float64Array | null = null
  bytes: Float64Array | null = null

  constructor(readonly source: string) {}

  add(start: number, end: number, line: number, chain: number, counters: Counters | null): number {
    const i = this.count
    if (i === this.start.length) this.grow()
    this.start[i] = start
    this.end[i] = end
    this.line[i] = line
    this.chain[i] = chain
    if (counters) {
      if (!this.packets || !this.bytes) {
        this.packets = new Float64Array(this.start.length).fill(-1)
        this.bytes = new Float64Array(this.start.length).fill(-1)
      }
      this.packets[i] = counters.packets
      this.bytes[i] = counters.bytes
    } else if (this.packets && this.bytes) {
      this.packets[i] = -1
      this.bytes[i] = -1
    }
    this.count = i + 1
    return i
  }

  private grow(): void {
    const n = this.start.length * 2
    const g = <T extends Int32Array | Float64Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n)
      b.set(a)
      return b
    }
    this.start = g(this.start)
    this.end = g(this.end)
    this.line = g(this.line)
    this.chain = g(this.chain)
    if (this.packets) this.packets = g(this.packets)
    if (this.bytes) this.bytes = g(this.bytes)
  }

  text(i: number): string {
    return this.source.slice(this.start[i], this.end[i])
  }

  counters(i: number): Counters | null {
    const p = this.packets?.[i] ?? -1
    return p < 0 ? null : {packets: p, bytes: (this.bytes as Float64Array)[i] as number}
  }
}

export class IptablesChain {
  // Rules are the contiguous run [first, first+count) of the table's store, or `indices` when interleaved.
  #first = -1
  #count = 0
  #indices: number[] | null = null
  #cached: IptablesRule[] | null = null

  constructor(
    readonly name: string,
    /** ACCEPT/DROP for built-in chains, null for user chains (`-` in the dump). */
    readonly policy: string | null,
    /** From `[packets:bytes]` on the chain line; null when the line has none. */
    readonly counters: Counters | null,
    readonly line: number,
    readonly table: IptablesTable,
    /** Position in table.chains. */
    readonly index: number,
  ) {}

  get builtin(): boolean {
    return this.policy !== null
  }

  get ruleCount(): number {
    return this.#indices ? this.#indices.length : this.#count
  }

  /** The k-th rule (a fresh view, not cached). */
  rule(k: number): IptablesRule {
    return this.table.rule(this.#index(k))
  }

  /** Fresh views of the rules in order, for walking big chains without keeping them. */
  *eachRule(): IterableIterator<IptablesRule> {
    for (let k = 0; k < this.ruleCount; k++) yield this.rule(k)
  }

  /** The rules, made once and kept; prefer eachRule() to walk a whole dump with little memory. */
  get rules(): readonly IptablesRule[] {
    this.#cached ??= Array.from({length: this.ruleCount}, (_, k) => this.rule(k))
    return this.#cached
  }

  /** @internal parser only */
  appendRuleIndex(i: number): void {
    if (this.#indices) this.#indices.push(i)
    else if (this.#count === 0) {
      this.#first = i
      this.#count = 1
    } else if (this.#first + this.#count === i) this.#count++
    else {
      this.#indices = Array.from({length: this.#count}, (_, k) => this.#first + k)
      this.#indices.push(i)
    }
  }

  #index(k: number): number {
    if (k < 0 || k >= this.ruleCount) throw new RangeError(`rule ${k} of chain ${this.name} does not exist`)
    return this.#indices ? (this.#indices[k] as number) : this.#first + k
  }

  toJSON(): {name: string; policy: string | null; counters: Counters | null; builtin: boolean; line: number; rules: IptablesRule[]} {
    return {
      name: this.name,
      policy: this.policy,
      counters: this.counters,
      builtin: this.builtin,
      line: this.line,
      rules: Array.from(this.eachRule()),
    }
  }
}

export class IptablesTable {
  readonly chains: IptablesChain[] = []
  /** Line of COMMIT. */
  commitLine = 0
  readonly #byName = new Map<string, IptablesChain>()
  #indexed = 0
  readonly #store: RuleStore

  constructor(
    readonly name: IptablesTableName,
    /** Line of `*name`. */
    readonly line: number,
    source: string,
  ) {
    this.#store = new RuleStore(source)
  }

  chain(name: string): IptablesChain | undefined {
    if (this.#indexed < this.chains.length) this.indexChains()
    return this.#byName.get(name)
  }

  /** Number of rules in the table. */
  get ruleCount(): number {
    return this.#store.count
  }

  /** The i-th rule of the table in input order (a fresh view). */
  rule(i: number): IptablesRule {
    const s = this.#store
    if (i < 0 || i >= s.count) throw new RangeError(`rule ${i} of table ${this.name} does not exist`)
    return new IptablesRule((this.chains[s.chain[i] as number] as IptablesChain).name, s.text(i), s.line[i] as number, s.counters(i))
  }

  /** Fresh views of all rules in input order (iptables-save groups them by chain). */
  *eachRule(): IterableIterator<IptablesRule> {
    for (let i = 0; i < this.#store.count; i++) yield this.rule(i)
  }

  /** The rule text of rule i without making a view. */
  ruleText(i: number): string {
    return this.#store.text(i)
  }

  /** @internal parser only: declares a chain (duplicates are found by indexChains). */
  addChain(name: string, policy: string | null, counters: Counters | null, line: number): IptablesChain {
    const c = new IptablesChain(name, policy, counters, line, this, this.chains.length)
    this.chains.push(c)
    return c
  }

  /** @internal parser only */
  addRule(chainIndex: number, start: number, end: number, line: number, counters: Counters | null): void {
    const i = this.#store.add(start, end, line, chainIndex, counters)
    ;(this.chains[chainIndex] as IptablesChain).appendRuleIndex(i)
  }

  /** @internal Indexes chains declared since the last call; throws ParseError on a duplicate declaration. */
  indexChains(): void {
    const map = this.#byName
    for (; this.#indexed < this.chains.length; this.#indexed++) {
      const c = this.chains[this.#indexed] as IptablesChain
      const size = map.size
      map.set(c.name, c)
      if (map.size === size) {
        const first = this.chains.find((x) => x.name === c.name) as IptablesChain
        map.set(c.name, first)
        throw new ParseError(`chain "${c.name}" is declared twice in table ${this.name} (first on line ${first.line})`, c.line)
      }
    }
  }

  toJSON(): {name: string; line: number; commitLine: number; chains: IptablesChain[]} {
    return {name: this.name, line: this.line, commitLine: this.commitLine, chains: this.chains}
  }
}

export interface IptablesDump {
  family: IptablesFamily
  /** How the family was decided: the `# Generated by ip6tables-save` header, the caller, the rules' addresses, or the IPv4 default. */
  familySource: 'header' | 'option' | 'addresses' | 'default'
  /** From the `# Generated by iptables-save vX (nf_tables|legacy)` header; a header without a flavour means legacy. */
  backend: IptablesBackend | null
  version: string | null
  /** True when the rules carry `[packets:bytes]` prefixes (iptables-save -c). */
  counters: boolean
  /** `# Warning: ...` lines, such as iptables-nft's "iptables-legacy tables present". */
  warnings: string[]
  /** Every `#` line, for round trips. */
  comments: CommentLine[]
  tables: IptablesTable[]
  lineEnding: '\n' | '\r\n'
  lines: number
}

export interface ParseIptablesSaveOptions {
  /** Force the family; an ip6tables-save header that contradicts it is an error. */
  family?: IptablesFamily
  /**
   * Lenient readers only (core/iptables/pasted.ts): lineOf[i] is the line number to report for line i+1 of
   * the text, when the text was rebuilt from what a user pasted. Without it, lines are reported as they are.
   */
  lineOf?: readonly number[]
}

export function findTable(dump: IptablesDump, name: IptablesTableName): IptablesTable | undefined {
  return dump.tables.find((t) => t.name === name)
}

const HEADER = /^# Generated by (ip6?)tables-save v([0-9][0-9A-Za-z.+~-]*)(?: \((nf_tables|legacy)\))?/

/**
 * Parses iptables-save (or ip6tables-save, with or without -c) output. Throws ParseError naming the line and
 * what was expected: empty input, other tools' output, rules outside a table or for undeclared chains,
 * unterminated quotes, bad counters, a missing COMMIT (truncated file).
 */
export function parseIptablesSave(text: string, options: ParseIptablesSaveOptions = {}): IptablesDump {
  const dump: IptablesDump = {
    family: options.family ?? 'ipv4',
    familySource: options.family ? 'option' : 'default',
    backend: null,
    version: null,
    counters: false,
    warnings: [],
    comments: [],
    tables: [],
    lineEnding: '\n',
    lines: 0,
  }
  const n = text.length
  let pos = 0
  let lineNo = 0
  let physical = 0
  const lineOf = options.lineOf
  let table: IptablesTable | null = null
  let headerFamily: {family: IptablesFamily; line: number} | null = null
  let sawContent = false
  let sawCrlf = false
  let sawLf = false
  // Position of the next `"` at or after `pos`; kept global so quote scanning stays linear.
  let nextQuote = text.indexOf('"')
  // Index of the chain of the previous rule in table.chains.
  let cursor = 0
  const seenTables = new Map<string, number>()

  while (pos < n) {
    let end = text.indexOf('\n', pos)
    if (end === -1) end = n
    physical++
    lineNo = lineOf ? (lineOf[physical - 1] ?? physical) : physical
    let lineEnd = end
    // Every trailing CR goes (a line may end in CR CR LF after editors mix endings), so formatting is a fixed point.
    if (lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13) {
      while (lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13) lineEnd--
      sawCrlf = true
    } else if (end < n) sawLf = true
    if (nextQuote !== -1 && nextQuote < pos) nextQuote = text.indexOf('"', pos)
    const c = text.charCodeAt(pos)

    if (c === 45 /* - */ || c === 91 /* [ */) {
      let ruleStart = pos
      let counters: Counters | null = null
      if (c === 91) {
        const close = text.indexOf(']', pos)
        if (close === -1 || close >= lineEnd) fail(lineNo, 'malformed counters: expected "[packets:bytes]" before the rule')
        counters = parseCounters(text, pos + 1, close, lineNo)
        ruleStart = close + 1
        if (text.charCodeAt(ruleStart) !== 32) fail(lineNo, 'expected a space and "-A CHAIN ..." after the counters')
        ruleStart++
        dump.counters = true
      }
      if (text.charCodeAt(ruleStart) !== 45 || text.charCodeAt(ruleStart + 1) !== 65 || text.charCodeAt(ruleStart + 2) !== 32) {
        if (!table && !sawContent) throw foreign(text.slice(pos, lineEnd), lineNo)
        const word = firstWord(text, ruleStart, lineEnd)
        fail(
          lineNo,
          word === '-N' || word === '-P' || word === '-I' || word === '-X' || word === '-F' || word === '-D'
            ? `unexpected "${word}": iptables-save prints only "-A CHAIN ..." rule lines (is this iptables -S or restore input?)`
            : `unexpected ${describe(text, ruleStart, lineEnd)}: expected a rule "-A CHAIN ..."`,
        )
      }
      if (!table) {
        const hint = !sawContent && looksLikeIptablesS(text, ruleStart) ? ' (this looks like `iptables -S` output, not iptables-save)' : ''
        fail(lineNo, `rule before any table: expected a table line such as "*filter" or "*nat" first${hint}`)
      }
      sawContent = true
      const nameStart = ruleStart + 3
      let nameEnd = text.indexOf(' ', nameStart)
      if (nameEnd === -1 || nameEnd > lineEnd) nameEnd = lineEnd
      if (nameEnd === nameStart) fail(lineNo, 'expected a chain name after "-A"')
      // iptables-save prints each chain's rules together, in declaration order: try the current chain, then
      // the next few declared ones, before hashing the name.
      const chains = table.chains
      let ci = -1
      const nameLen = nameEnd - nameStart
      for (let k = cursor; k < chains.length && k < cursor + 8; k++) {
        const cand = (chains[k] as IptablesChain).name
        if (cand.length === nameLen && text.startsWith(cand, nameStart)) {
          ci = k
          break
        }
      }
      if (ci === -1) {
        const name = text.slice(nameStart, nameEnd)
        const chain = table.chain(name)
        if (!chain) {
          fail(lineNo, `rule for chain "${printable(name)}" which table ${table.name} does not declare: expected a ":${printable(name)} - [0:0]" line before its rules`)
        }
        ci = chain.index
      }
      cursor = ci
      if (nextQuote !== -1 && nextQuote < lineEnd) {
        checkQuotes(text, nextQuote, lineEnd, lineNo)
        nextQuote = text.indexOf('"', end)
      }
      table.addRule(ci, ruleStart, lineEnd, lineNo, counters)
    } else if (c === 58 /* : */) {
      if (!table) {
        if (!sawContent) throw foreign(text.slice(pos, lineEnd), lineNo)
        fail(lineNo, 'chain line before any table: expected a table line such as "*filter" first')
      }
      sawContent = true
      parseChainLine(table, text, pos + 1, lineEnd, lineNo)
    } else if (c === 42 /* * */) {
      const name = text.slice(pos + 1, lineEnd).trimEnd()
      if (table) fail(lineNo, `"*${printable(name)}" while table ${table.name} (line ${table.line}) is still open: expected COMMIT first`)
      if (!(IPTABLES_TABLES as readonly string[]).includes(name)) {
        fail(lineNo, `unknown table "${printable(name)}": expected one of ${IPTABLES_TABLES.join(', ')}`)
      }
      const prev = seenTables.get(name)
      if (prev !== undefined) {
        fail(lineNo, `table ${name} appears a second time (first on line ${prev}); is this two dumps in one file? Give each its own file`)
      }
      seenTables.set(name, lineNo)
      sawContent = true
      table = new IptablesTable(name as IptablesTableName, lineNo, text)
      cursor = 0
      dump.tables.push(table)
    } else if (c === 35 /* # */) {
      const line = text.slice(pos, lineEnd)
      dump.comments.push({line: lineNo, text: line})
      const h = HEADER.exec(line)
      if (h) {
        const family: IptablesFamily = h[1] === 'ip6' ? 'ipv6' : 'ipv4'
        if (headerFamily && headerFamily.family !== family) {
          fail(lineNo, `this file mixes iptables-save and ip6tables-save output (line ${headerFamily.line} and here): give each family its own file`)
        }
        if (options.family && options.family !== family) {
          fail(lineNo, `this is ${family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'} output but ${options.family === 'ipv6' ? 'IPv6' : 'IPv4'} was requested`)
        }
        headerFamily ??= {family, line: lineNo}
        dump.family = family
        dump.familySource = options.family ? 'option' : 'header'
        dump.version ??= h[2] ?? null
        dump.backend ??= h[3] === 'nf_tables' ? 'nf_tables' : 'legacy'
      } else if (line.startsWith('# Warning:')) dump.warnings.push(line.slice(2))
    } else if (text.startsWith('COMMIT', pos) && isBlank(text, pos + 6, lineEnd)) {
      if (!table) fail(lineNo, 'COMMIT without an open table: expected a table line such as "*filter" before it')
      table.commitLine = lineNo
      table.indexChains()
      table = null
    } else if (isBlank(text, pos, lineEnd)) {
      // iptables-restore ignores blank lines; iptables-save never prints them.
    } else {
      if (!sawContent) throw foreign(text.slice(pos, lineEnd), lineNo)
      fail(lineNo, `unexpected ${describe(text, pos, lineEnd)}: expected a rule ("-A ..."), a chain (":NAME ..."), COMMIT or a "#" comment`)
    }
    pos = end + 1
  }
  dump.lines = lineNo
  if (sawCrlf && !sawLf) dump.lineEnding = '\r\n'
  if (table) {
    fail(
      Math.max(lineNo, 1),
      `table ${table.name} (opened on line ${table.line}) has no COMMIT: expected COMMIT before the end of input; the file looks truncated`,
    )
  }
  if (dump.tables.length === 0) {
    if (dump.comments.length === 0) fail(1, 'empty input: expected iptables-save output')
    fail(Math.max(lineNo, 1), 'no tables found: expected iptables-save output with "*filter"/"*nat" sections')
  }
  if (!options.family && !headerFamily) {
    const inferred = inferFamily(dump)
    if (inferred) {
      dump.family = inferred
      dump.familySource = 'addresses'
    }
  }
  return dump
}

function fail(line: number, detail: string): never {
  throw new ParseError(detail, line)
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9) return false
  }
  return true
}

function firstWord(text: string, from: number, to: number): string {
  let e = from
  while (e < to && text.charCodeAt(e) !== 32) e++
  return text.slice(from, e)
}

/** A short, printable rendering of an unexpected line for error messages. */
function describe(text: string, from: number, to: number): string {
  const s = text.slice(from, Math.min(to, from + 40))
  return `"${printable(s)}${to - from > 40 ? '…' : ''}"`
}

function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?')
}

function parseCounters(text: string, from: number, to: number, line: number): Counters {
  const colon = text.indexOf(':', from)
  if (colon === -1 || colon >= to) fail(line, 'malformed counters: expected "[packets:bytes]"')
  const packets = parseDecimal(text, from, colon)
  const bytes = parseDecimal(text, colon + 1, to)
  if (packets < 0 || bytes < 0) fail(line, 'malformed counters: expected "[packets:bytes]" with decimal numbers')
  return {packets, bytes}
}

/** Non-negative decimal in text[from, to); -1 when empty or not digits. Values past 2^53 lose precision. */
function parseDecimal(text: string, from: number, to: number): number {
  if (to <= from || to - from > 20) return -1
  let v = 0
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    v = v * 10 + d
  }
  return v
}

/** `[0:0]`, shared by the many chain lines that have it (frozen, so sharing is safe). */
const ZERO: Counters = Object.freeze({packets: 0, bytes: 0})

/** `:NAME POLICY [packets:bytes]`, the counters optional; text[from] is the first character of NAME. */
function parseChainLine(table: IptablesTable, text: string, from: number, to: number, line: number): void {
  let nameEnd = text.indexOf(' ', from)
  if (nameEnd === -1 || nameEnd > to) nameEnd = to
  if (nameEnd === from) fail(line, 'expected a chain name after ":"')
  const name = text.slice(from, nameEnd)
  let p = nameEnd
  while (p < to && text.charCodeAt(p) === 32) p++
  let policyEnd = p
  while (policyEnd < to && text.charCodeAt(policyEnd) !== 32) policyEnd++
  if (policyEnd === p) fail(line, `chain line for "${printable(name)}" has no policy: expected ":${printable(name)} - [0:0]" or ":${printable(name)} ACCEPT [0:0]"`)
  const policy = policyEnd - p === 1 && text.charCodeAt(p) === 45 ? null : text.slice(p, policyEnd)
  let q = policyEnd
  while (q < to && text.charCodeAt(q) === 32) q++
  let e = to
  while (e > q && text.charCodeAt(e - 1) === 32) e--
  let counters: Counters | null = null
  if (e > q) {
    if (text.charCodeAt(q) !== 91 || text.charCodeAt(e - 1) !== 93) {
      fail(line, `malformed chain counters "${printable(text.slice(q, e))}": expected "[packets:bytes]"`)
    }
    counters = e - q === 5 && text.startsWith('[0:0]', q) ? ZERO : parseCounters(text, q + 1, e - 1, line)
  }
  table.addChain(name, policy, counters, line)
}

/** Validates the double quotes of one rule line; the first `"` is at `from`. */
function checkQuotes(text: string, from: number, to: number, line: number): void {
  let i = from
  while (i < to) {
    if (text.charCodeAt(i) !== 34) {
      i = text.indexOf('"', i)
      if (i === -1 || i >= to) return
    }
    // Inside a quoted string: find its end, honouring backslash escapes.
    i++
    for (;;) {
      if (i >= to) fail(line, 'unterminated double quote in rule: expected a closing `"` before the end of the line')
      const c = text.charCodeAt(i)
      if (c === 92) i += 2
      else if (c === 34) break
      else i++
    }
    i++
  }
}

function looksLikeIptablesS(text: string, pos: number): boolean {
  return text.startsWith('-P ', pos) || text.startsWith('-N ', pos) || text.startsWith('-A ', pos)
}

/** An error for a first line that is not iptables-save, naming the tool whose output it looks like. */
function foreign(line: string, lineNo: number): ParseError {
  const l = line.trimStart()
  const looks = (what: string): ParseError => new ParseError(`this looks like ${what}, not iptables-save`, lineNo)
  if (/^IP Virtual Server version/.test(l) || /^Prot LocalAddress:Port/.test(l)) return looks('`ipvsadm -ln` output')
  if (/^(table|chain|set|map) [^{]*\{\s*$/.test(l) || /^flush ruleset\b/.test(l)) return looks('an nftables ruleset (`nft list ruleset`)')
  if (/^Chain \S+ \((policy \w+|\d+ references)/.test(l)) return looks('`iptables -L` output')
  if (/^-[PN] \S/.test(l)) return looks('`iptables -S` output')
  if (/^create \S+ (hash|bitmap|list):/.test(l) || /^add \S+ \S/.test(l)) return looks('`ipset save` output')
  if (/^(default|local|unreachable|blackhole) /.test(l) || /^\d{1,3}(\.\d{1,3}){3}(\/\d+)? (via|dev|proto) /.test(l)) return looks('`ip route` output')
  if (/^(ipv4|ipv6) +\d+ +\w+ +\d+/.test(l) || /^(tcp|udp|icmp) +\d+ +\d+ /.test(l)) return looks('conntrack table output')
  if (/^[{[]/.test(l)) return looks('JSON')
  if (/^(apiVersion|kind|---)\b/.test(l)) return looks('YAML')
  return new ParseError(
    `unexpected ${describe(line, 0, line.length)}: expected iptables-save output (a "# Generated by" comment or a "*table" line)`,
    lineNo,
  )
}

/** IPv6 when the first rule with an address in -s/-d has an IPv6 one. */
function inferFamily(dump: IptablesDump): IptablesFamily | null {
  for (const table of dump.tables) {
    for (let i = 0; i < table.ruleCount; i++) {
      const t = table.ruleText(i)
      for (const flag of [' -s ', ' -d ']) {
        const i = t.indexOf(flag)
        if (i === -1) continue
        const start = i + flag.length
        let e = t.indexOf(' ', start)
        if (e === -1) e = t.length
        const addr = t.slice(start, e)
        if (addr.includes(':')) return 'ipv6'
        if (/^\d+\.\d+\.\d+\.\d+/.test(addr)) return 'ipv4'
      }
    }
  }
  return null
}

/**
 * Prints a dump back in iptables-save layout: comments where they were, `*table`, chain lines, rules (with
 * `[p:b]` when they had counters), COMMIT. For canonical iptables-save output format(parse(x)) === x.
 */
export function formatIptablesSave(dump: IptablesDump): string {
  const out: string[] = []
  const comments = dump.comments
  let ci = 0
  const flush = (beforeLine: number): void => {
    while (ci < comments.length && (comments[ci] as CommentLine).line < beforeLine) out.push((comments[ci++] as CommentLine).text)
  }
  for (const table of dump.tables) {
    flush(table.line)
    out.push(`*${table.name}`)
    for (const chain of table.chains) {
      flush(chain.line)
      const policy = chain.policy ?? '-'
      out.push(chain.counters ? `:${chain.name} ${policy} [${chain.counters.packets}:${chain.counters.bytes}]` : `:${chain.name} ${policy}`)
    }
    for (const rule of table.eachRule()) {
      flush(rule.line)
      out.push(rule.counters ? `[${rule.counters.packets}:${rule.counters.bytes}] ${rule.text}` : rule.text)
    }
    flush(table.commitLine)
    out.push('COMMIT')
  }
  flush(Infinity)
  return out.join(dump.lineEnding) + dump.lineEnding
}

/** A rule line from tokens, as iptables-save prints it (counters not included). */
export function formatRule(chain: string, args: readonly string[]): string {
  return formatRuleTokens(['-A', chain, ...args])
}
