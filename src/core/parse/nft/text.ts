// `nft [-a] list ruleset` / `nft list table ...` text → the listing model, line by line.
import {ParseError} from '../../../errors.js'
import {type InputLine, lastContentLineNumber} from '../sniff.js'
import {type NftChain, type NftElement, type NftFamily, type NftObject, type NftRule, type NftRuleset, type NftSet, type NftTable, NFT_FAMILIES, findNftTable, orderTable} from './model.js'

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

export function parseNftText(lines: InputLine[]): NftRuleset {
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
        const scan = scanBraces(t, NEW_SCAN)
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

const NEW_SCAN: Readonly<BraceScan> = {depth: 0, inString: false, escaped: false}

/**
 * The one quote/brace walk of this parser: continues over `text` from `state`, skipping quoted strings (and their
 * backslash escapes) and counting braces. With `stopAt`, it stops at the first index outside strings and braces
 * where `text` continues with `stopAt` (`stoppedAt`, else -1).
 */
function scanBraces(text: string, state: Readonly<BraceScan>, stopAt?: string): BraceScan & {stoppedAt: number} {
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
    else if (stopAt !== undefined && depth === 0 && text.startsWith(stopAt, i)) return {depth, inString, escaped, stoppedAt: i}
  }
  return {depth, inString, escaped, stoppedAt: -1}
}

function braceBalance(text: string): number {
  return scanBraces(text, NEW_SCAN).depth
}

/** Index of `needle` outside quotes and braces, or -1. */
function topLevelIndexOf(text: string, needle: string): number {
  return scanBraces(text, NEW_SCAN, needle).stoppedAt
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
