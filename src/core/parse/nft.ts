// Parser for nftables listings: `nft [-a] list ruleset` / `nft list table ...` text and `nft -j list ...` JSON, into
// one model (tables → sets/maps, chains → rules as nft text). JSON rules are rendered back to nft's text syntax so
// both inputs give the same rule text; an expression the renderer does not know is shown in brackets and the rule
// is flagged `textIncomplete`. Verified against nft 1.0.6 on a kube-proxy-style table (node-state.md B).
import {ParseError} from '../../errors.js'
import {ordered, orderedAll} from './key-order.js'
import {type InputLine, jsonArrayElementOffsets, lastContentLineNumber, lineAt, parseJsonText, splitInputLines, wrongArtifact} from './sniff.js'

export type NftFormat = 'text' | 'json'
export type NftFamily = 'ip' | 'ip6' | 'inet' | 'arp' | 'bridge' | 'netdev'
export const NFT_FAMILIES: readonly NftFamily[] = ['ip', 'ip6', 'inet', 'arp', 'bridge', 'netdev']

export interface NftCounter {
  packets: number
  bytes: number
}

export interface NftRule {
  /** The rule as nft prints it, without the `# handle N` suffix (counters and comment included). */
  text: string
  handle?: number
  comment?: string
  counter?: NftCounter
  /** JSON only: some expression could not be rendered to nft syntax; `text` shows it in brackets. */
  textIncomplete?: true
  /** JSON only: the raw expression list. */
  expr?: unknown[]
  line?: number
}

export interface NftChain {
  name: string
  handle?: number
  /** Base chains only: filter, nat, route. */
  type?: string
  hook?: string
  /** Numeric priority; named priorities (`dstnat - 10`) are resolved per family. */
  priority?: number
  policy?: string
  /** Netdev/ingress device (text only: nft 1.0.6 JSON omits it). */
  device?: string
  /** Text only: nft 1.0.6 JSON omits chain comments. */
  comment?: string
  rules: NftRule[]
  line?: number
}

export interface NftElement {
  /** Key as nft prints it: `172.30.0.41 . tcp . 80`, `10.0.0.0/8`, `"eth0"`. */
  key: string
  /** Map value as nft prints it: `goto service-...`, `accept`, `0x00000001`. */
  value?: string
  /** Seconds. */
  timeout?: number
  /** Whole seconds left (nft prints milliseconds in text; JSON truncates). */
  expires?: number
  comment?: string
  counter?: NftCounter
}

export interface NftSet {
  kind: 'set' | 'map'
  name: string
  handle?: number
  /** Key type: `ipv4_addr . inet_proto . inet_service`. From a text `typeof` only when its selectors are well known. */
  type?: string
  /** `typeof` declaration (text only; JSON gives the resolved `type`). */
  typeof?: string
  /** Maps: value type (`verdict`, `mark`, ...). */
  valueType?: string
  flags: string[]
  /** Default element timeout, seconds. */
  timeout?: number
  gcInterval?: number
  size?: number
  policy?: string
  /** Per-element counters are on (`counter` in the declaration). */
  counter?: true
  autoMerge?: true
  comment?: string
  elements: NftElement[]
  line?: number
}

/** Named stateful objects and flowtables: counter, quota, limit, ct helper, flowtable, ... */
export interface NftObject {
  kind: string
  name: string
  handle?: number
  /** Text only: the declaration body lines. */
  body?: string[]
  line?: number
}

export interface NftTable {
  family: NftFamily
  name: string
  handle?: number
  flags: string[]
  /** Text only: nft 1.0.6 JSON omits table comments. */
  comment?: string
  objects: NftObject[]
  /** Sets and maps, in listing order. */
  sets: NftSet[]
  chains: NftChain[]
  line?: number
}

export interface NftRuleset {
  format: NftFormat
  /** From JSON metainfo. */
  nftVersion?: string
  tables: NftTable[]
}

const EXPECTED = 'an nftables listing (`nft list ruleset`, `nft list table ...` or `nft -j list ruleset`)'

/** Which nft listing `text` is; ParseError (naming what it looks like) when neither. */
export function detectNftFormat(text: string): NftFormat {
  return formatOf(text, splitInputLines(text, EXPECTED))
}

function formatOf(text: string, lines: readonly InputLine[]): NftFormat {
  const first = lines.find((l) => l.text.trim() !== '')!
  const t = first.text.trim()
  if (t.startsWith('{') || t.startsWith('[')) {
    const json = parseJsonText(text, '`nft -j` JSON')
    if (json === null || typeof json !== 'object' || Array.isArray(json) || !('nftables' in json)) {
      if (Array.isArray(json)) throw wrongArtifact(text, EXPECTED, first.n)
      throw new ParseError('JSON without an "nftables" key: expected `nft -j list ruleset` output', first.n)
    }
    return 'json'
  }
  const firstCode = lines.find((l) => l.text.trim() !== '' && !l.text.trim().startsWith('#'))
  if (firstCode && /^table\s+\S+\s+\S+\s*\{/.test(firstCode.text.trim())) return 'text'
  if (!firstCode && /^#/.test(t)) throw new ParseError('only comments, no `table ... {` block: expected nft list output', first.n)
  if (firstCode && /^(add|flush|create|insert|delete|destroy)\s+(table|chain|rule|set|map|element|ruleset)\b/.test(firstCode.text.trim()))
    throw new ParseError('this is an nft command script (`add rule ...`), not `nft list` output: expected `nft list ruleset`', firstCode.n)
  throw wrongArtifact(text, EXPECTED, first.n)
}

/** Parses either nft listing. Throws ParseError(detail, line) on anything it cannot read. */
export function parseNft(text: string): NftRuleset {
  // Split once: the listing of a large cluster is tens of MB.
  const lines = splitInputLines(text, EXPECTED)
  return formatOf(text, lines) === 'json' ? parseNftJson(text) : parseNftText(lines)
}

export function findNftTable(rs: NftRuleset, family: NftFamily, name: string): NftTable | undefined {
  return rs.tables.find((t) => t.family === family && t.name === name)
}

export function findNftSet(table: NftTable, name: string): NftSet | undefined {
  return indexedFind(table.sets, name)
}

export function findNftChain(table: NftTable, name: string): NftChain | undefined {
  return indexedFind(table.chains, name)
}

/** Name → first element with that name, for an array that (almost always) only grows. */
interface NameIndex<T> {
  map: Map<string, T>
  length: number
  last: T | undefined
}
const nameIndexes = new WeakMap<object, NameIndex<unknown>>()

/**
 * `arr.find((x) => x.name === name)` in O(1) amortised: a listing of 100k chains is looked up once per chain and
 * per rule while parsing, which was quadratic. The index follows appends; any other change to the array (shorter,
 * or its last indexed element replaced) rebuilds it, and a hit is re-checked against the element's current name
 * (elements are not renamed in place anywhere in node-doctor).
 */
function indexedFind<T extends {name: string}>(arr: T[], name: string): T | undefined {
  if (arr.length < 16) return arr.find((x) => x.name === name)
  let idx = nameIndexes.get(arr) as NameIndex<T> | undefined
  if (!idx || arr.length < idx.length || (idx.length > 0 && arr[idx.length - 1] !== idx.last)) {
    idx = {map: new Map(), length: 0, last: undefined}
    nameIndexes.set(arr, idx)
  }
  for (let i = idx.length; i < arr.length; i++) if (!idx.map.has(arr[i]!.name)) idx.map.set(arr[i]!.name, arr[i]!)
  idx.length = arr.length
  idx.last = arr[arr.length - 1]
  const hit = idx.map.get(name)
  if (hit === undefined || hit.name === name) return hit
  nameIndexes.delete(arr)
  return arr.find((x) => x.name === name)
}

// --- text ------------------------------------------------------------------------------------------------------

const NAME = String.raw`("(?:[^"\\]|\\.)*"|[^\s{}"]+)`
const HANDLE = String.raw`(?:#\s*handle\s+(\d+))?`
const TABLE_RE = new RegExp(String.raw`^table\s+(\S+)\s+${NAME}\s*\{\s*${HANDLE}\s*$`)
const BLOCK_RE = new RegExp(String.raw`^(chain|set|map|flowtable|counter|quota|limit|secmark|synproxy|ct\s+helper|ct\s+timeout|ct\s+expectation|tunnel)\s+${NAME}\s*\{\s*${HANDLE}\s*$`)
const RULE_HANDLE_RE = /\s+#\s*handle\s+(\d+)\s*$/
// Tests run on every block header or first rule of a chain: constants, as each evaluation of a regular expression
// literal allocates a new object (twice per chain of a 100k-chain listing).
const COMMENT_LINE_RE = /^comment\s+"/
const TYPE_LINE_RE = /^type\s/
const FLAGS_LINE_RE = /^flags\s+/
const ELEMENTS_LINE_RE = /^elements\s*=\s*\{/
const BLANKS_RE = /\s+/
const PLAIN_NAME_RE = /^[^\s{}"]+$/
const OBJECT_KINDS = new Set(['flowtable', 'counter', 'quota', 'limit', 'secmark', 'synproxy', 'ct helper', 'ct timeout', 'ct expectation', 'tunnel'])

function unquote(name: string): string {
  return name.startsWith('"') && name.endsWith('"') && name.length >= 2 ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name
}

function parseNftText(lines: InputLine[]): NftRuleset {
  const rs: NftRuleset = {format: 'text', tables: []}
  let table: NftTable | undefined
  let chain: NftChain | undefined
  let set: NftSet | undefined
  let object: NftObject | undefined
  // A multi-line `elements = { ... }`: its lines so far and the brace state at their end (scanned once per line;
  // re-scanning the whole accumulated text made a 20k-element set quadratic).
  let pendingElements: {parts: string[]; start: number; scan: BraceScan} | undefined
  // The current table's chain names, for the listed-twice check (a plain Set: findNftChain's index costs more).
  let chainNames = new Set<string>()

  // An index loop: `for...of` left an iterator result per line of the listing to the garbage collector.
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const t = line.text.trim()
    if (pendingElements) {
      pendingElements.parts.push(t)
      pendingElements.scan = scanBraces(' ' + t, pendingElements.scan)
      if (pendingElements.scan.depth === 0) {
        set!.elements = parseElements(pendingElements.parts.join(' '), pendingElements.start)
        pendingElements = undefined
      }
      continue
    }
    if (t === '') continue
    if (t.startsWith('#') && !chain) continue // `# Warning: table ip nat is managed by iptables-nft, do not touch!`

    if (!table) {
      const m = TABLE_RE.exec(t)
      if (!m) {
        if (/^table\s/.test(t)) throw new ParseError(`malformed table header "${t.slice(0, 80)}": expected "table <family> <name> {"`, line.n)
        throw new ParseError(`unexpected "${t.slice(0, 60)}" outside a table: expected "table <family> <name> {"`, line.n)
      }
      const family = m[1] as NftFamily
      if (!NFT_FAMILIES.includes(family)) throw new ParseError(`unknown table family "${m[1]!.slice(0, 20)}": expected ip, ip6, inet, arp, bridge or netdev`, line.n)
      table = {family, name: unquote(m[2]!), flags: [], objects: [], sets: [], chains: [], line: line.n}
      if (m[3] !== undefined) table.handle = Number(m[3])
      if (findNftTable(rs, table.family, table.name)) throw new ParseError(`table ${family} ${table.name} is listed twice`, line.n)
      rs.tables.push(table)
      chainNames = new Set()
      continue
    }

    if (chain) {
      if (t === '}') {
        chain = undefined
        continue
      }
      if (chain.rules.length === 0 && parseChainAttribute(chain, t, table.family, line.n)) continue
      chain.rules.push(parseRuleText(t, line.n))
      continue
    }
    if (set) {
      if (t === '}') {
        set = undefined
        continue
      }
      if (ELEMENTS_LINE_RE.test(t)) {
        const scan = scanBraces(t, {depth: 0, inString: false, escaped: false})
        if (scan.depth === 0) set.elements = parseElements(t, line.n)
        else pendingElements = {parts: [t], start: line.n, scan}
        continue
      }
      parseSetAttribute(set, t, line.n)
      continue
    }
    if (object) {
      if (t === '}') {
        object = undefined
        continue
      }
      object.body!.push(t)
      continue
    }

    // Inside a table, between blocks.
    if (t === '}') {
      table = undefined
      continue
    }
    if (FLAGS_LINE_RE.test(t)) {
      table.flags = t.slice(5).trim().split(/\s*,\s*/)
      continue
    }
    if (COMMENT_LINE_RE.test(t)) {
      table.comment = parseQuoted(t.slice(7).trim(), line.n)
      continue
    }
    let kind = 'chain'
    // Nearly every block is a plain `chain NAME {`: read without BLOCK_RE and its match for each of 100k chains.
    let name = t.startsWith('chain ') && t.endsWith(' {') ? t.slice(6, -2) : ''
    let handle: number | undefined
    if (!PLAIN_NAME_RE.test(name)) {
      const b = BLOCK_RE.exec(t)
      if (!b) {
        if (/^(chain|set|map)\s/.test(t)) throw new ParseError(`malformed ${t.split(/\s/)[0]} header "${t.slice(0, 80)}": expected "<kind> <name> {"`, line.n)
        throw new ParseError(`unexpected "${t.slice(0, 60)}" in table ${table.family} ${table.name}: expected chain, set, map, a named object or "}"`, line.n)
      }
      kind = b[1]!.replace(BLANKS_RE, ' ')
      name = unquote(b[2]!)
      handle = b[3] === undefined ? undefined : Number(b[3])
    }
    if (kind === 'chain') {
      chain = {name, rules: [], line: line.n}
      if (handle !== undefined) chain.handle = handle
      if (chainNames.has(name)) throw new ParseError(`chain ${name} is listed twice in table ${table.family} ${table.name}`, line.n)
      chainNames.add(name)
      table.chains.push(chain)
    } else if (kind === 'set' || kind === 'map') {
      set = {kind, name, flags: [], elements: [], line: line.n}
      if (handle !== undefined) set.handle = handle
      table.sets.push(set)
    } else if (OBJECT_KINDS.has(kind)) {
      object = {kind, name, body: [], line: line.n}
      if (handle !== undefined) object.handle = handle
      table.objects.push(object)
    }
  }
  const last = lastContentLineNumber(lines)
  if (pendingElements) throw new ParseError(`input ends inside the elements of set ${set!.name} (started on line ${pendingElements.start}): the output is truncated`, last)
  const open = chain ? `chain ${chain.name} (line ${chain.line})` : set ? `${set.kind} ${set.name} (line ${set.line})` : object ? `${object.kind} ${object.name} (line ${object.line})` : table ? `table ${table.family} ${table.name} (line ${table.line})` : undefined
  if (open !== undefined) throw new ParseError(`input ends inside ${open}: missing "}", the output is truncated`, last)
  for (const tb of rs.tables) for (const s of tb.sets) finishSet(s)
  return {format: rs.format, tables: rs.tables.map(orderTable)}
}

// `type filter hook input priority filter; policy accept;` and a leading `comment "..."`.
function parseChainAttribute(chain: NftChain, t: string, family: NftFamily, n: number): boolean {
  if (COMMENT_LINE_RE.test(t)) {
    chain.comment = parseQuoted(t.slice(7).trim(), n)
    return true
  }
  if (!TYPE_LINE_RE.test(t) || chain.type !== undefined) return false
  const clauses = t.split(';').map((c) => c.trim()).filter((c) => c !== '')
  const m = /^type\s+(\S+)\s+hook\s+(\S+)(?:\s+(?:device\s+("[^"]*"|\S+)|devices\s*=\s*\{([^}]*)\}))?\s+priority\s+(.+)$/.exec(clauses[0] ?? '')
  if (!m) throw new ParseError(`malformed base chain declaration "${t.slice(0, 100)}": expected "type <type> hook <hook> priority <prio>;"`, n)
  chain.type = m[1]!
  chain.hook = m[2]!
  if (m[3] !== undefined) chain.device = unquote(m[3])
  else if (m[4] !== undefined) chain.device = m[4].split(',').map((d) => unquote(d.trim())).join(',')
  chain.priority = parsePriority(m[5]!.trim(), family, n)
  for (const c of clauses.slice(1)) {
    const p = /^policy\s+(\S+)$/.exec(c)
    if (!p) throw new ParseError(`unexpected "${c.slice(0, 60)}" in the base chain declaration: expected "policy <verdict>;"`, n)
    chain.policy = p[1]!
  }
  return true
}

const STD_PRIOS: Record<string, number> = {raw: -300, mangle: -150, dstnat: -100, filter: 0, security: 50, srcnat: 100}
const BRIDGE_PRIOS: Record<string, number> = {dstnat: -300, filter: -200, out: 100, srcnat: 300}

function parsePriority(text: string, family: NftFamily, n: number): number {
  if (/^-?\d+$/.test(text)) return Number(text)
  const m = /^([a-z]+)(?:\s*([+-])\s*(\d+))?$/.exec(text)
  const base = m ? (family === 'bridge' ? BRIDGE_PRIOS : STD_PRIOS)[m[1]!] : undefined
  if (!m || base === undefined) throw new ParseError(`unknown chain priority "${text.slice(0, 40)}"`, n)
  const delta = m[3] === undefined ? 0 : Number(m[3]) * (m[2] === '-' ? -1 : 1)
  return base + delta
}

function parseRuleText(t: string, n: number): NftRule {
  // A listing has a few hundred thousand rules, mostly without handle, comment, counter or braces: `includes` rules
  // each of those out faster than its regular expression or scan would, and the plain rule is built in one go.
  if (!t.includes('#') && !t.includes('comment') && !t.includes('counter') && !t.includes('{') && !t.includes('}')) return {text: t, line: n}
  const rule: NftRule = {text: t}
  const h = RULE_HANDLE_RE.exec(t)
  if (h) {
    rule.text = t.slice(0, h.index).trimEnd()
    rule.handle = Number(h[1])
  }
  const c = /\scomment\s+"((?:[^"\\]|\\.)*)"$/.exec(rule.text)
  if (c) rule.comment = c[1]!.replace(/\\(.)/g, '$1')
  const k = /(?:^|\s)counter packets (\d+) bytes (\d+)(?=\s|$)/.exec(rule.text)
  if (k) rule.counter = {packets: Number(k[1]), bytes: Number(k[2])}
  if (braceBalance(rule.text) !== 0) throw new ParseError(`unbalanced braces in rule "${rule.text.slice(0, 80)}": the line is truncated or not nft output`, n)
  rule.line = n
  return rule
}

function parseSetAttribute(set: NftSet, t: string, n: number): void {
  const [word = '', ...restTok] = t.split(/\s+/)
  const rest = restTok.join(' ')
  const need = (): string => {
    if (rest === '') throw new ParseError(`"${word}" needs a value in ${set.kind} ${set.name}`, n)
    return rest
  }
  switch (word) {
    case 'type':
    case 'typeof': {
      const v = need()
      const colon = topLevelIndexOf(v, ' : ')
      const key = colon < 0 ? v : v.slice(0, colon).trim()
      if (word === 'type') set.type = key
      else {
        set.typeof = key
        const resolved = typeofToType(key)
        if (resolved !== undefined) set.type = resolved
      }
      if (colon >= 0) set.valueType = v.slice(colon + 3).trim()
      return
    }
    case 'flags':
      set.flags = need().split(/\s*,\s*/)
      return
    case 'timeout':
      set.timeout = parseNftTime(need(), n)
      return
    case 'gc-interval':
      set.gcInterval = parseNftTime(need(), n)
      return
    case 'size':
      if (!/^\d+$/.test(rest)) throw new ParseError(`set size "${rest.slice(0, 20)}" is not a number`, n)
      set.size = Number(rest)
      return
    case 'policy':
      set.policy = need()
      return
    case 'counter':
      set.counter = true
      return
    case 'auto-merge':
      set.autoMerge = true
      return
    case 'comment':
      set.comment = parseQuoted(need(), n)
      return
    default:
      throw new ParseError(`unexpected "${t.slice(0, 60)}" in ${set.kind} ${set.name}: expected type, flags, timeout, size, policy, comment or elements`, n)
  }
}

// Datatypes of the selectors sets are commonly declared with (`typeof ip daddr . tcp dport`).
const TYPEOF_TYPES: Record<string, string> = {
  'ip saddr': 'ipv4_addr',
  'ip daddr': 'ipv4_addr',
  'ip6 saddr': 'ipv6_addr',
  'ip6 daddr': 'ipv6_addr',
  'tcp dport': 'inet_service',
  'tcp sport': 'inet_service',
  'udp dport': 'inet_service',
  'udp sport': 'inet_service',
  'th dport': 'inet_service',
  'th sport': 'inet_service',
  'meta l4proto': 'inet_proto',
  'ip protocol': 'inet_proto',
  'meta mark': 'mark',
  'ct mark': 'mark',
  'meta iifname': 'ifname',
  'meta oifname': 'ifname',
  iifname: 'ifname',
  oifname: 'ifname',
  'ct state': 'ct_state',
  'ether saddr': 'ether_addr',
  'ether daddr': 'ether_addr',
}

/** The datatype a `typeof` declaration resolves to, when every member is a well-known selector. */
function typeofToType(decl: string): string | undefined {
  const types = decl.split(' . ').map((m) => TYPEOF_TYPES[m.trim()])
  return types.every((t) => t !== undefined) ? types.join(' . ') : undefined
}

// A set with a default timeout has the timeout flag even when nft leaves it out of the text.
function finishSet(set: NftSet): void {
  if (set.timeout !== undefined && !set.flags.includes('timeout')) set.flags.push('timeout')
}

function parseQuoted(text: string, n: number): string {
  const m = /^"((?:[^"\\]|\\.)*)"$/.exec(text)
  if (!m) throw new ParseError(`expected a quoted string, found ${text.slice(0, 40)}`, n)
  return m[1]!.replace(/\\(.)/g, '$1')
}

/** Net `{`/`}` depth outside quoted strings. */
interface BraceScan {
  depth: number
  inString: boolean
  /** The previous character was a backslash inside a string. */
  escaped: boolean
}

/** Continues a brace count over `text` from `state` (strings and their escapes skipped). */
function scanBraces(text: string, state: BraceScan): BraceScan {
  let {depth, inString, escaped} = state
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (escaped) escaped = false
      else if (c === '\\') escaped = true
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{') depth++
    else if (c === '}') depth--
  }
  return {depth, inString, escaped}
}

function braceBalance(text: string): number {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{') depth++
    else if (c === '}') depth--
  }
  return depth
}

/** Index of `needle` outside quotes and braces, or -1. */
function topLevelIndexOf(text: string, needle: string): number {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') inString = true
    else if (c === '{') depth++
    else if (c === '}') depth--
    else if (depth === 0 && text.startsWith(needle, i)) return i
  }
  return -1
}

/** Splits on `sep` outside quotes and braces. */
function splitTopLevel(text: string, sep: string): string[] {
  const parts: string[] = []
  let rest = text
  for (;;) {
    const i = topLevelIndexOf(rest, sep)
    if (i < 0) break
    parts.push(rest.slice(0, i))
    rest = rest.slice(i + sep.length)
  }
  parts.push(rest)
  return parts
}

const ELEMENT_ATTRS = new Set(['timeout', 'expires', 'comment', 'counter'])

// `elements = { 172.30.0.41 . tcp . 80 comment "x" : goto service-..., ... }`
function parseElements(text: string, n: number): NftElement[] {
  const open = text.indexOf('{')
  const close = text.lastIndexOf('}')
  if (open < 0 || close < open) throw new ParseError('malformed elements list: expected "elements = { ... }"', n)
  const inner = text.slice(open + 1, close).trim()
  if (inner === '') return []
  return splitTopLevel(inner, ',').map((raw) => {
    const e = raw.trim()
    if (e === '') throw new ParseError('empty element in an elements list', n)
    const colon = topLevelIndexOf(e, ' : ')
    const keyPart = colon < 0 ? e : e.slice(0, colon)
    const el: NftElement = {key: ''}
    if (colon >= 0) {
      el.value = e.slice(colon + 3).trim()
      if (el.value === '') throw new ParseError(`element "${keyPart.slice(0, 40)}" has an empty value`, n)
    }
    const tok = tokenize(keyPart)
    let k = tok.findIndex((x) => ELEMENT_ATTRS.has(x))
    if (k < 0) k = tok.length
    el.key = tok.slice(0, k).join(' ')
    if (el.key === '') throw new ParseError(`element "${e.slice(0, 40)}" has no key`, n)
    for (let i = k; i < tok.length; i++) {
      const a = tok[i]!
      const v = tok[i + 1]
      if (a === 'timeout' && v !== undefined) el.timeout = parseNftTime(v, n)
      else if (a === 'expires' && v !== undefined) el.expires = Math.floor(parseNftTime(v, n))
      else if (a === 'comment' && v !== undefined) el.comment = parseQuoted(v, n)
      else if (a === 'counter' && tok[i + 1] === 'packets' && tok[i + 3] === 'bytes') {
        el.counter = {packets: Number(tok[i + 2]), bytes: Number(tok[i + 4])}
        i += 3
      } else throw new ParseError(`unexpected "${a}" in element "${e.slice(0, 60)}"`, n)
      i++
    }
    return el
  })
}

/** Whitespace tokens, keeping quoted strings (with their quotes) whole. */
function tokenize(text: string): string[] {
  const out: string[] = []
  const re = /"(?:[^"\\]|\\.)*"|\S+/g
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[0])
  return out
}

/** nft time strings (`3h`, `2h59m58s920ms`, `1d`) to seconds. */
export function parseNftTime(text: string, n = 1): number {
  const m = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(text)
  if (!m || text === '') throw new ParseError(`invalid time "${text.slice(0, 30)}": expected e.g. 3h, 10m30s, 500ms`, n)
  const [, d, h, mi, s, ms] = m
  return Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(mi ?? 0) * 60 + Number(s ?? 0) + Number(ms ?? 0) / 1000
}

/** Seconds to nft's time syntax (10800 → `3h`). */
export function formatNftTime(seconds: number): string {
  let rest = Math.round(seconds * 1000)
  if (rest === 0) return '0s'
  const parts: string[] = []
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000], ['ms', 1]] as const) {
    const q = Math.floor(rest / size)
    if (q > 0) parts.push(`${q}${unit}`)
    rest -= q * size
  }
  return parts.join('')
}

// --- JSON ------------------------------------------------------------------------------------------------------

type Json = unknown
type JsonObject = Record<string, unknown>

function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function parseNftJson(text: string): NftRuleset {
  const doc = parseJsonText(text, '`nft -j` JSON') as JsonObject
  const list = doc.nftables
  if (!Array.isArray(list)) throw new ParseError('"nftables" must be an array of objects', 1)
  const offsets = jsonArrayElementOffsets(text, 2)
  const rs: NftRuleset = {format: 'json', tables: []}
  const tableOf = (family: unknown, name: unknown, n: number, what: string): NftTable => {
    if (typeof family !== 'string' || !NFT_FAMILIES.includes(family as NftFamily)) throw new ParseError(`${what}: unknown or missing "family"`, n)
    if (typeof name !== 'string') throw new ParseError(`${what}: missing table name`, n)
    let t = findNftTable(rs, family as NftFamily, name)
    if (!t) {
      // `nft -j list set|map|chain ...` lists the object without its table.
      t = {family: family as NftFamily, name, flags: [], objects: [], sets: [], chains: []}
      rs.tables.push(t)
    }
    return t
  }
  list.forEach((entry, k) => {
    const n = lineAt(text, offsets[k] ?? 0)
    if (!isObject(entry)) throw new ParseError(`nftables[${k}] is not an object`, n)
    const keys = Object.keys(entry)
    if (keys.length !== 1) throw new ParseError(`nftables[${k}] must have exactly one key (metainfo, table, chain, rule, set, map, ...), found ${keys.length}`, n)
    const kind = keys[0]!
    const body = entry[kind]
    if (!isObject(body)) throw new ParseError(`nftables[${k}].${kind} is not an object`, n)
    const what = `nftables[${k}] (${kind})`
    const handle = typeof body.handle === 'number' ? body.handle : undefined
    switch (kind) {
      case 'metainfo':
        if (typeof body.version === 'string') rs.nftVersion = body.version
        return
      case 'table': {
        const t = tableOf(body.family, body.name, n, what)
        t.line = n
        if (handle !== undefined) t.handle = handle
        const flags = Array.isArray(body.flags) ? body.flags : typeof body.flags === 'string' ? [body.flags] : []
        // nft 1.0.6 prints garbage here for some tables (an object name), so keep only real table flags.
        t.flags = flags.filter((f): f is string => typeof f === 'string' && ['dormant', 'owner', 'persist'].includes(f))
        if (typeof body.comment === 'string') t.comment = body.comment
        return
      }
      case 'chain': {
        const t = tableOf(body.family, body.table, n, what)
        if (typeof body.name !== 'string') throw new ParseError(`${what}: missing "name"`, n)
        let c = findNftChain(t, body.name)
        if (!c) {
          c = {name: body.name, rules: []}
          t.chains.push(c)
        }
        c.line = n
        if (handle !== undefined) c.handle = handle
        if (typeof body.type === 'string') c.type = body.type
        if (typeof body.hook === 'string') c.hook = body.hook
        if (typeof body.prio === 'number') c.priority = body.prio
        if (typeof body.policy === 'string') c.policy = body.policy
        if (typeof body.dev === 'string') c.device = body.dev
        if (typeof body.comment === 'string') c.comment = body.comment
        return
      }
      case 'rule': {
        const t = tableOf(body.family, body.table, n, what)
        if (typeof body.chain !== 'string') throw new ParseError(`${what}: missing "chain"`, n)
        let c = findNftChain(t, body.chain)
        if (!c) {
          c = {name: body.chain, rules: []}
          t.chains.push(c)
        }
        if (!Array.isArray(body.expr)) throw new ParseError(`${what}: "expr" must be an array`, n)
        c.rules.push(jsonRule(body, t.family, n, what))
        return
      }
      case 'set':
      case 'map': {
        const t = tableOf(body.family, body.table, n, what)
        t.sets.push(jsonSet(kind, body, t.family, n, what))
        return
      }
      case 'element': {
        const t = tableOf(body.family, body.table, n, what)
        const s = typeof body.name === 'string' ? findNftSet(t, body.name) : undefined
        if (!s) throw new ParseError(`${what}: elements for a set that is not listed`, n)
        if (!Array.isArray(body.elem)) throw new ParseError(`${what}: "elem" must be an array`, n)
        s.elements.push(...body.elem.map((e) => jsonElement(e, s, t.family, n)))
        return
      }
      default: {
        const t = tableOf(body.family, body.table, n, what)
        if (typeof body.name !== 'string') throw new ParseError(`${what}: missing "name"`, n)
        const o: NftObject = {kind, name: body.name, line: n}
        if (handle !== undefined) o.handle = handle
        t.objects.push(o)
      }
    }
  })
  return {format: rs.format, ...(rs.nftVersion === undefined ? {} : {nftVersion: rs.nftVersion}), tables: rs.tables.map(orderTable)}
}

function jsonRule(body: JsonObject, family: NftFamily, n: number, what: string): NftRule {
  const ctx: RenderCtx = {family, state: {incomplete: false, line: n}}
  const exprs = body.expr as Json[]
  const parts = exprs.map((e) => renderStatement(e, ctx, 0))
  const rule: NftRule = {text: ''}
  if (typeof body.handle === 'number') rule.handle = body.handle
  if (typeof body.comment === 'string') {
    rule.comment = body.comment
    parts.push(`comment ${quote(body.comment)}`)
  }
  rule.text = parts.join(' ')
  for (const e of exprs) {
    if (isObject(e) && isObject(e.counter) && typeof e.counter.packets === 'number' && typeof e.counter.bytes === 'number') {
      rule.counter = {packets: e.counter.packets, bytes: e.counter.bytes}
      break
    }
  }
  if (ctx.state.incomplete) rule.textIncomplete = true
  rule.expr = exprs
  rule.line = n
  if (rule.text === '') throw new ParseError(`${what}: a rule with no expressions`, n)
  return rule
}

function jsonSet(kind: 'set' | 'map', body: JsonObject, family: NftFamily, n: number, what: string): NftSet {
  if (typeof body.name !== 'string') throw new ParseError(`${what}: missing "name"`, n)
  const s: NftSet = {kind, name: body.name, flags: [], elements: [], line: n}
  if (typeof body.handle === 'number') s.handle = body.handle
  const type = body.type
  if (typeof type === 'string') s.type = type
  else if (Array.isArray(type) && type.every((x) => typeof x === 'string')) s.type = type.join(' . ')
  else if (type !== undefined) throw new ParseError(`${what}: "type" must be a string or an array of strings`, n)
  if (kind === 'map' && typeof body.map === 'string') s.valueType = body.map
  if (Array.isArray(body.flags)) s.flags = body.flags.filter((f): f is string => typeof f === 'string')
  else if (typeof body.flags === 'string') s.flags = [body.flags]
  if (typeof body.timeout === 'number') s.timeout = body.timeout
  if (typeof body['gc-interval'] === 'number') s.gcInterval = body['gc-interval']
  if (typeof body.size === 'number') s.size = body.size
  if (typeof body.policy === 'string') s.policy = body.policy
  if (Array.isArray(body.stmt) && body.stmt.some((x) => isObject(x) && 'counter' in x)) s.counter = true
  if (body['auto-merge'] === true) s.autoMerge = true
  if (typeof body.comment === 'string') s.comment = body.comment
  if (body.elem !== undefined) {
    if (!Array.isArray(body.elem)) throw new ParseError(`${what}: "elem" must be an array`, n)
    s.elements = body.elem.map((e) => jsonElement(e, s, family, n))
  }
  return s
}

function jsonElement(e: Json, set: NftSet, family: NftFamily, n: number): NftElement {
  const ctx: RenderCtx = {family, state: {incomplete: false, line: n}}
  const keyTypes = (set.type ?? '').split(' . ')
  let keyExpr = e
  let valueExpr: Json | undefined
  if (set.kind === 'map') {
    if (!Array.isArray(e) || e.length !== 2) throw new ParseError(`map ${set.name}: each element must be a [key, value] pair`, n)
    keyExpr = e[0]
    valueExpr = e[1]
  }
  const el: NftElement = {key: ''}
  if (isObject(keyExpr) && isObject(keyExpr.elem)) {
    const meta = keyExpr.elem
    if (typeof meta.timeout === 'number') el.timeout = meta.timeout
    if (typeof meta.expires === 'number') el.expires = Math.floor(meta.expires)
    if (typeof meta.comment === 'string') el.comment = meta.comment
    if (isObject(meta.counter) && typeof meta.counter.packets === 'number' && typeof meta.counter.bytes === 'number')
      el.counter = {packets: meta.counter.packets, bytes: meta.counter.bytes}
    keyExpr = meta.val
  }
  el.key = renderTyped(keyExpr, keyTypes, ctx, 0)
  if (valueExpr !== undefined) el.value = renderTyped(valueExpr, [set.valueType ?? ''], ctx, 0)
  return orderElement(el)
}

// --- JSON expression → nft text --------------------------------------------------------------------------------

interface RenderCtx {
  family: NftFamily
  /** Shared by every derived context of one rule or element (copies keep the reference). */
  state: {incomplete: boolean; line: number}
  /** Print numbers as 0x%08x (marks). */
  hex?: boolean
  /** Quote strings (interface names). */
  quoteStrings?: boolean
}

const MAX_DEPTH = 48
const UNQUALIFIED_META = new Set(['iif', 'oif', 'iifname', 'oifname', 'iifgroup', 'oifgroup'])
const NAME_KEYS = new Set(['iifname', 'oifname', 'ibrname', 'obrname', 'ibriport', 'obriport', 'iifkind', 'oifkind'])
const VERDICTS = new Set(['accept', 'drop', 'continue', 'return', 'queue'])
const DEFAULT_REJECT: Record<NftFamily, string> = {ip: 'icmp', ip6: 'icmpv6', inet: 'icmpx', bridge: 'icmpx', netdev: 'icmpx', arp: 'icmp'}
const BITMASK_LEFTS = new Set(['tcp flags', 'ct state', 'ct status'])

function quote(s: string): string {
  return `"${s.replace(/(["\\])/g, '\\$1')}"`
}

function hex32(v: number): string {
  return `0x${(v >>> 0).toString(16).padStart(8, '0')}`
}

function unknown(kind: string, body: Json, ctx: RenderCtx): string {
  ctx.state.incomplete = true
  let s = JSON.stringify(body) ?? 'null'
  if (s.length > 120) s = s.slice(0, 117) + '...'
  return `[${kind} ${s}]`
}

/** A value whose datatype is known from a set declaration (one type per concat member). */
function renderTyped(v: Json, types: string[], ctx: RenderCtx, depth: number): string {
  if (isObject(v) && Array.isArray(v.concat)) {
    return v.concat.map((m, i) => renderTyped(m, [types[i] ?? ''], ctx, depth + 1)).join(' . ')
  }
  const t = types[0] ?? ''
  return renderValue(v, {...ctx, hex: t === 'mark' || t === 'ct_mark', quoteStrings: t === 'ifname'}, depth, ctx)
}

function renderStatement(st: Json, ctx: RenderCtx, depth: number): string {
  if (depth > MAX_DEPTH) throw new ParseError('nft JSON expression nested too deeply', ctx.state.line)
  if (!isObject(st)) return unknown('statement', st, ctx)
  const [kind] = Object.keys(st)
  if (kind === undefined) return unknown('statement', st, ctx)
  const b = st[kind]
  const o = isObject(b) ? b : {}
  switch (kind) {
    case 'match':
      return renderMatch(o, ctx, depth)
    case 'accept':
    case 'drop':
    case 'continue':
    case 'return':
      return kind
    case 'jump':
    case 'goto':
      return typeof o.target === 'string' ? `${kind} ${o.target}` : unknown(kind, b, ctx)
    case 'counter':
      if (typeof b === 'string') return `counter name ${quote(b)}`
      if (b === null) return 'counter'
      return `counter packets ${Number(o.packets ?? 0)} bytes ${Number(o.bytes ?? 0)}`
    case 'quota':
      if (typeof b === 'string') return `quota name ${quote(b)}`
      return unknown(kind, b, ctx)
    case 'mangle': {
      const key = renderExpr(o.key, ctx, depth + 1)
      const sub = {...ctx, hex: isMarkish(o.key)}
      const value = renderValue(o.value, sub, depth + 1, ctx)
      return `${key} set ${value}`
    }
    case 'masquerade':
    case 'snat':
    case 'dnat':
    case 'redirect':
      return renderNat(kind, o, ctx, depth)
    case 'reject': {
      if (b === null || (o.expr === 'port-unreachable' && o.type === DEFAULT_REJECT[ctx.family])) return 'reject'
      if (o.type === 'tcp reset') return 'reject with tcp reset'
      if (typeof o.type === 'string' && typeof o.expr === 'string') return `reject with ${o.type} ${o.expr}`
      return unknown(kind, b, ctx)
    }
    case 'log': {
      const parts = ['log']
      if (typeof o.prefix === 'string') parts.push(`prefix ${quote(o.prefix)}`)
      if (typeof o.level === 'string') parts.push(`level ${o.level}`)
      if (typeof o.group === 'number') parts.push(`group ${o.group}`)
      if (typeof o.snaplen === 'number') parts.push(`snaplen ${o.snaplen}`)
      if (typeof o['queue-threshold'] === 'number') parts.push(`queue-threshold ${o['queue-threshold']}`)
      if (Array.isArray(o.flags)) parts.push(`flags ${o.flags.join(',')}`)
      else if (typeof o.flags === 'string') parts.push(`flags ${o.flags}`)
      return parts.join(' ')
    }
    case 'limit': {
      const unit = typeof o.rate_unit === 'string' && o.rate_unit !== 'packets' ? ` ${o.rate_unit}` : ''
      let s = `limit rate ${o.inv === true ? 'over ' : ''}${Number(o.rate ?? 0)}${unit}/${String(o.per ?? 'second')}`
      const burst = typeof o.burst === 'number' ? o.burst : 0
      if (unit === '' && burst !== 5 && burst !== 0) s += ` burst ${burst} packets`
      else if (unit !== '' && burst > 0) s += ` burst ${burst}${typeof o.burst_unit === 'string' ? ` ${o.burst_unit}` : ' bytes'}`
      return s
    }
    case 'set': {
      // Dynamic set update: `update @s { ip saddr timeout 10s }`.
      if (typeof o.op === 'string' && typeof o.set === 'string') return `${o.op} ${o.set} { ${renderValue(o.elem, ctx, depth + 1, ctx)} }`
      return unknown(kind, b, ctx)
    }
    case 'notrack':
      return 'notrack'
    case 'vmap':
    case 'map':
      return `${renderExpr(o.key, ctx, depth + 1)} ${kind} ${renderValue(o.data, ctx, depth + 1, ctx)}`
    default:
      return unknown(kind, b, ctx)
  }
}

function renderNat(kind: string, o: JsonObject, ctx: RenderCtx, depth: number): string {
  const parts = [kind]
  if ((kind === 'snat' || kind === 'dnat') && typeof o.family === 'string') parts.push(o.family)
  const addr = o.addr === undefined ? undefined : renderValue(o.addr, ctx, depth + 1, ctx)
  const port = o.port === undefined ? undefined : renderValue(o.port, ctx, depth + 1, ctx)
  if (addr !== undefined || port !== undefined) {
    const a = addr === undefined ? '' : port !== undefined && addr.includes(':') && !addr.startsWith('[') ? `[${addr}]` : addr
    parts.push(`to ${a}${port === undefined ? '' : `:${port}`}`)
  }
  if (Array.isArray(o.flags)) parts.push(o.flags.join(','))
  else if (typeof o.flags === 'string') parts.push(o.flags)
  return parts.join(' ')
}

function renderMatch(o: JsonObject, ctx: RenderCtx, depth: number): string {
  const op = typeof o.op === 'string' ? o.op : '=='
  const left = o.left
  const sub: RenderCtx = {...ctx, hex: isMarkish(left), quoteStrings: isNameKey(left)}
  // `tcp flags & (syn|ack) == syn` prints as `tcp flags syn / syn,ack`.
  if (op === '==' && isObject(left) && Array.isArray(left['&']) && BITMASK_LEFTS.has(renderExpr(left['&'][0], ctx, depth + 1))) {
    const [inner, mask] = left['&'] as [Json, Json]
    return `${renderExpr(inner, ctx, depth + 1)} ${renderValue(o.right, sub, depth + 1, ctx)} / ${renderValue(mask, sub, depth + 1, ctx)}`
  }
  const l = renderExpr(left, sub, depth + 1)
  let r = renderValue(o.right, sub, depth + 1, ctx)
  if (isObject(left) && isObject(left.fib) && typeof o.right === 'boolean') r = o.right ? 'exists' : 'missing'
  let opText = ''
  if (op === '==') opText = isBinop(left) || BITMASK_LEFTS.has(l) ? '== ' : ''
  else if (op !== 'in') opText = `${op} `
  return `${l} ${opText}${r}`
}

function isBinop(e: Json): boolean {
  return isObject(e) && ['&', '|', '^', '<<', '>>'].some((k) => k in e)
}

function isMarkish(e: Json): boolean {
  if (!isObject(e)) return false
  if (isObject(e.meta) && e.meta.key === 'mark') return true
  if (isObject(e.ct) && e.ct.key === 'mark') return true
  for (const k of ['&', '|', '^']) if (Array.isArray(e[k])) return isMarkish((e[k] as Json[])[0])
  return false
}

function isNameKey(e: Json): boolean {
  return isObject(e) && isObject(e.meta) && typeof e.meta.key === 'string' && NAME_KEYS.has(e.meta.key)
}

/** Left-hand (selector) expressions. */
function renderExpr(e: Json, ctx: RenderCtx, depth: number): string {
  if (depth > MAX_DEPTH) throw new ParseError('nft JSON expression nested too deeply', ctx.state.line)
  if (!isObject(e)) return renderValue(e, ctx, depth, ctx)
  const [kind] = Object.keys(e)
  if (kind === undefined) return unknown('expression', e, ctx)
  const b = e[kind]
  const o = isObject(b) ? b : {}
  switch (kind) {
    case 'payload':
      if (typeof o.protocol === 'string' && typeof o.field === 'string') return `${o.protocol} ${o.field}`
      if (typeof o.base === 'string') return `@${o.base},${Number(o.offset)},${Number(o.len)}`
      return unknown(kind, b, ctx)
    case 'meta':
      if (typeof o.key !== 'string') return unknown(kind, b, ctx)
      return UNQUALIFIED_META.has(o.key) ? o.key : `meta ${o.key}`
    case 'ct': {
      if (typeof o.key !== 'string') return unknown(kind, b, ctx)
      const dir = typeof o.dir === 'string' ? `${o.dir} ` : ''
      const fam = typeof o.family === 'string' ? `${o.family} ` : ''
      return `ct ${dir}${fam}${o.key}`
    }
    case 'fib': {
      const flags = Array.isArray(o.flags) ? o.flags.join(' . ') : typeof o.flags === 'string' ? o.flags : ''
      return `fib ${flags} ${String(o.result)}`
    }
    case 'numgen':
      return `numgen ${String(o.mode)} mod ${Number(o.mod)}${typeof o.offset === 'number' && o.offset !== 0 ? ` offset ${o.offset}` : ''}`
    case 'jhash':
    case 'symhash': {
      let s = kind === 'jhash' ? `jhash ${renderExpr(o.expr, ctx, depth + 1)} mod ${Number(o.mod)}` : `symhash mod ${Number(o.mod)}`
      if (typeof o.seed === 'number') s += ` seed ${'0x' + (o.seed >>> 0).toString(16)}`
      if (typeof o.offset === 'number' && o.offset !== 0) s += ` offset ${o.offset}`
      return s
    }
    case 'tcp option':
      return typeof o.name === 'string' ? `tcp option ${o.name}${typeof o.field === 'string' ? ` ${o.field}` : ''}` : unknown(kind, b, ctx)
    case 'exthdr':
      return typeof o.name === 'string' ? `${o.name}${typeof o.field === 'string' ? ` ${o.field}` : ''}` : unknown(kind, b, ctx)
    case 'rt':
      return typeof o.key === 'string' ? `rt ${typeof o.family === 'string' ? `${o.family} ` : ''}${o.key}` : unknown(kind, b, ctx)
    case 'socket':
      return typeof o.key === 'string' ? `socket ${o.key}` : unknown(kind, b, ctx)
    case 'concat':
      return Array.isArray(b) ? b.map((m) => renderExpr(m, ctx, depth + 1)).join(' . ') : unknown(kind, b, ctx)
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>': {
      if (!Array.isArray(b) || b.length !== 2) return unknown(kind, b, ctx)
      const sub = {...ctx, hex: ctx.hex || isMarkish(b[0])}
      return `${renderExpr(b[0], sub, depth + 1)} ${kind} ${renderValue(b[1], sub, depth + 1, ctx)}`
    }
    default:
      return renderValue(e, ctx, depth, ctx)
  }
}

/** Right-hand values: literals, set references, anonymous sets, prefixes, ranges, verdicts. */
function renderValue(v: Json, ctx: RenderCtx, depth: number, root: RenderCtx): string {
  if (depth > MAX_DEPTH) throw new ParseError('nft JSON expression nested too deeply', ctx.state.line)
  if (typeof v === 'number') return ctx.hex ? hex32(v) : String(v)
  if (typeof v === 'boolean') return v ? 'exists' : 'missing'
  if (typeof v === 'string') return ctx.quoteStrings && !v.startsWith('@') ? quote(v) : v
  if (Array.isArray(v)) return v.map((x) => renderValue(x, ctx, depth + 1, root)).join(',')
  if (!isObject(v)) return unknown('value', v, root)
  const [kind] = Object.keys(v)
  if (kind === undefined) return unknown('value', v, root)
  const b = v[kind]
  const o = isObject(b) ? b : {}
  if (VERDICTS.has(kind) && (b === null || isObject(b))) return kind
  switch (kind) {
    case 'jump':
    case 'goto':
      return typeof o.target === 'string' ? `${kind} ${o.target}` : unknown(kind, b, root)
    case 'prefix':
      return `${renderValue(o.addr, ctx, depth + 1, root)}/${Number(o.len)}`
    case 'range':
      return Array.isArray(b) && b.length === 2 ? `${renderValue(b[0], ctx, depth + 1, root)}-${renderValue(b[1], ctx, depth + 1, root)}` : unknown(kind, b, root)
    case 'concat':
      return Array.isArray(b) ? b.map((m) => renderValue(m, ctx, depth + 1, root)).join(' . ') : unknown(kind, b, root)
    case 'set':
      if (!Array.isArray(b)) return renderValue(b, ctx, depth + 1, root)
      return `{ ${b.map((m) => (Array.isArray(m) && m.length === 2 ? `${renderValue(m[0], ctx, depth + 1, root)} : ${renderValue(m[1], {...ctx, hex: false}, depth + 1, root)}` : renderValue(m, ctx, depth + 1, root))).join(', ')} }`
    case 'elem': {
      let s = renderValue(o.val, ctx, depth + 1, root)
      if (typeof o.timeout === 'number') s += ` timeout ${formatNftTime(o.timeout)}`
      if (typeof o.expires === 'number') s += ` expires ${formatNftTime(o.expires)}`
      if (typeof o.comment === 'string') s += ` comment ${quote(o.comment)}`
      return s
    }
    default:
      return renderExpr(v, root, depth + 1)
  }
}

// --- key order -------------------------------------------------------------------------------------------------

const RULE_KEYS: ReadonlyArray<keyof NftRule> = ['text', 'handle', 'comment', 'counter', 'textIncomplete', 'expr', 'line']
const CHAIN_KEYS: ReadonlyArray<keyof NftChain> = ['name', 'handle', 'type', 'hook', 'priority', 'policy', 'device', 'comment', 'rules', 'line']
const SET_KEYS: ReadonlyArray<keyof NftSet> = [
  'kind',
  'name',
  'handle',
  'type',
  'typeof',
  'valueType',
  'flags',
  'timeout',
  'gcInterval',
  'size',
  'policy',
  'counter',
  'autoMerge',
  'comment',
  'elements',
  'line',
]
const ELEMENT_KEYS: ReadonlyArray<keyof NftElement> = ['key', 'value', 'timeout', 'expires', 'comment', 'counter']
const TABLE_KEYS: ReadonlyArray<keyof NftTable> = ['family', 'name', 'handle', 'flags', 'comment', 'objects', 'sets', 'chains', 'line']

function orderElement(e: NftElement): NftElement {
  return ordered(e, ELEMENT_KEYS)
}

function orderChain(c: NftChain): NftChain {
  // Rules come from the text parser in key order: their array is kept rather than copied for each of 100k chains.
  const rules = orderedAll(c.rules, RULE_KEYS)
  return ordered(rules === c.rules ? c : {...c, rules}, CHAIN_KEYS)
}

function orderTable(t: NftTable): NftTable {
  return ordered(
    {
      ...t,
      objects: t.objects.map((o) => ordered(o, ['kind', 'name', 'handle', 'body', 'line'])),
      sets: t.sets.map((s) => ordered({...s, elements: s.elements.map(orderElement)}, SET_KEYS)),
      chains: t.chains.map(orderChain),
    },
    TABLE_KEYS,
  )
}

// --- kube-proxy summary ----------------------------------------------------------------------------------------

/** One service port as kube-proxy's nftables mode programs it. */
export interface KubeProxyNftService {
  /** `namespace/name/protocol/port` as in the chain names (kube-proxy may truncate long names). */
  name: string
  /** The `service-…` chain, when the service has endpoints. */
  chain?: string
  /** service-ips keys (`IP . proto . port`) that go to the service chain: ClusterIPs. */
  clusterIPs: string[]
  /** service-ips keys that go to the external chain: externalIPs and load-balancer IPs. */
  externalIPs: string[]
  /** service-nodeports keys (`proto . port`). */
  nodePorts: string[]
  /** Endpoint `address:port`s targeted from the service chain. */
  endpoints: string[]
  /** Set when no-endpoint-services/-nodeports reject or drop this service. */
  noEndpoints?: 'reject' | 'drop'
}

const SERVICE_CHAIN_RE = /^(service|external|local|firewall|cluster)-([A-Z0-9]{8})-(.+)$/

/**
 * Per-service view of a kube-proxy nftables table (`ip kube-proxy` / `ip6 kube-proxy`): which VIPs and node ports
 * lead to which endpoints, from the service-ips / service-nodeports / no-endpoint-* maps and the service chains.
 * Sorted by name.
 */
export function summarizeKubeProxyTable(table: NftTable): KubeProxyNftService[] {
  const services = new Map<string, KubeProxyNftService>()
  const get = (key: string, name: string): KubeProxyNftService => {
    let s = services.get(key)
    if (!s) {
      s = {name, clusterIPs: [], externalIPs: [], nodePorts: [], endpoints: []}
      services.set(key, s)
    }
    return s
  }
  for (const c of table.chains) {
    const m = SERVICE_CHAIN_RE.exec(c.name)
    if (!m || m[1] !== 'service') continue
    const s = get(`${m[2]}-${m[3]}`, m[3]!)
    s.chain = c.name
    for (const r of c.rules) {
      for (const t of r.text.matchAll(/(?:goto|jump) (endpoint-[^\s,}]+)/g)) {
        const ep = endpointAddress(t[1]!)
        if (ep !== undefined && !s.endpoints.includes(ep)) s.endpoints.push(ep)
      }
    }
  }
  const targetOf = (el: NftElement): RegExpExecArray | null => {
    const v = /^(?:goto|jump) (\S+)$/.exec(el.value ?? '')
    return v ? SERVICE_CHAIN_RE.exec(v[1]!) : null
  }
  for (const el of findNftSet(table, 'service-ips')?.elements ?? []) {
    const t = targetOf(el)
    if (!t) continue
    const s = get(`${t[2]}-${t[3]}`, t[3]!)
    ;(t[1] === 'external' || t[1] === 'firewall' ? s.externalIPs : s.clusterIPs).push(el.key)
  }
  for (const el of findNftSet(table, 'service-nodeports')?.elements ?? []) {
    const t = targetOf(el)
    if (t) get(`${t[2]}-${t[3]}`, t[3]!).nodePorts.push(el.key)
  }
  for (const mapName of ['no-endpoint-services', 'no-endpoint-nodeports']) {
    for (const el of findNftSet(table, mapName)?.elements ?? []) {
      // kube-proxy comments these elements with `namespace/name:port`.
      const name = el.comment ?? el.key
      const s = [...services.values()].find((x) => x.name === name) ?? get(`noep:${name}`, name)
      s.noEndpoints = /\b(drop)\b/.test(el.value ?? '') ? 'drop' : 'reject'
      ;(mapName === 'no-endpoint-services' ? s.clusterIPs : s.nodePorts).push(el.key)
    }
  }
  return [...services.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** `endpoint-HASH-ns/svc/tcp/p80__10.180.0.1/80` → `10.180.0.1:80` (IPv6 colons are dots in chain names). */
function endpointAddress(chain: string): string | undefined {
  const i = chain.lastIndexOf('__')
  if (i < 0) return undefined
  const tail = chain.slice(i + 2)
  const slash = tail.lastIndexOf('/')
  if (slash < 0) return tail
  const addr = tail.slice(0, slash)
  const port = tail.slice(slash + 1)
  if (/^\d+\.\d+\.\d+\.\d+$/.test(addr)) return `${addr}:${port}`
  return `[${addr.replace(/\./g, ':')}]:${port}`
}

/** Tables kube-proxy owns (`kube-proxy` in ip/ip6), in listing order. */
export function kubeProxyTables(rs: NftRuleset, tableName = 'kube-proxy'): NftTable[] {
  return rs.tables.filter((t) => t.name === tableName && (t.family === 'ip' || t.family === 'ip6'))
}
