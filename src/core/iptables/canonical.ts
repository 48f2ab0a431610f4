// What `iptables-save` prints back for a rule given to iptables-restore, reproduced from the iptables 1.8 save
// paths (xshared save_rule_details, libxt_*.c) and checked rule by rule against the real binaries
// (test/integration/iptables/canonical.test.ts). Saved text is a fixed point: canonicalising it changes nothing.
import {ParseError} from '../../errors.js'
import {type IpFamily, canonicalAddress, canonicalHost} from './address.js'
import {MATCH_OPTIONS, type ParsedRule, type RuleMatch, type RuleTarget, TARGET_OPTIONS, parseRuleArgs} from './rule.js'

/**
 * Canonicalises one rule's arguments. `tokens` may start with `-A CHAIN` (kept in the output) or be the bare
 * arguments. Modules node-doctor does not know keep their options verbatim. Throws ParseError for arguments
 * iptables would refuse, or that it would expand into several rules (`-s a,b`).
 */
export function canonicalizeRule(tokens: readonly string[], family: IpFamily): string[] {
  let head: string[] = []
  let args = tokens
  if ((tokens[0] === '-A' || tokens[0] === '--append') && tokens.length >= 2) {
    head = ['-A', tokens[1] as string]
    args = tokens.slice(2)
  }
  return [...head, ...formatParsedRule(canonicalizeParsedRule(parseRuleArgs(args), family))]
}

/** Turns a (canonical) parsed rule back into argument tokens in iptables-save order. */
export function formatParsedRule(rule: ParsedRule): string[] {
  const out: string[] = []
  const generic = (flag: string, v: {value: string; negated: boolean} | null): void => {
    if (!v) return
    if (v.negated) out.push('!')
    out.push(flag, v.value)
  }
  generic('-s', rule.source)
  generic('-d', rule.destination)
  generic('-i', rule.inInterface)
  generic('-o', rule.outInterface)
  generic('-p', rule.protocol)
  if (rule.fragment) {
    if (rule.fragment.negated) out.push('!')
    out.push('-f')
  }
  for (const m of rule.matches) out.push('-m', m.name, ...m.options)
  if (rule.target) out.push(rule.target.goto ? '-g' : '-j', rule.target.name, ...rule.target.options)
  return out
}

/** The canonical form of an already parsed rule (a new object; the input is not modified). */
export function canonicalizeParsedRule(rule: ParsedRule, family: IpFamily): ParsedRule {
  const addr = (v: ParsedRule['source'], flag: string): ParsedRule['source'] => {
    if (!v) return null
    if (v.value.includes(',')) throw new ParseError(`${flag} ${v.value}: several addresses make iptables add one rule per address`)
    const c = canonicalAddress(v.value, family)
    if (!c) return {...v}
    if (c.any && !v.negated) return null
    return {value: c.text, negated: v.negated}
  }
  let protocol: ParsedRule['protocol'] = null
  if (rule.protocol) {
    const name = protocolName(rule.protocol.value)
    protocol = name === 'all' && !rule.protocol.negated ? null : {value: name, negated: rule.protocol.negated}
  }
  return {
    source: addr(rule.source, '-s'),
    destination: addr(rule.destination, '-d'),
    inInterface: rule.inInterface ? {...rule.inInterface} : null,
    outInterface: rule.outInterface ? {...rule.outInterface} : null,
    protocol,
    fragment: rule.fragment ? {...rule.fragment} : null,
    matches: rule.matches.map((m) => ({name: m.name, options: canonicalMatchOptions(m, family)})),
    target: rule.target ? {...rule.target, options: canonicalTargetOptions(rule.target, family)} : null,
  }
}

// Names iptables-save prints for protocol numbers (getprotobynumber on a Debian /etc/protocols).
const PROTOCOL_NAMES: Readonly<Record<string, string>> = {
  '0': 'all',
  '1': 'icmp',
  '2': 'igmp',
  '4': 'ipencap',
  '6': 'tcp',
  '17': 'udp',
  '33': 'dccp',
  '41': 'ipv6',
  '47': 'gre',
  '50': 'esp',
  '51': 'ah',
  '58': 'ipv6-icmp',
  '132': 'sctp',
  '136': 'udplite',
}
const PROTOCOL_ALIASES: Readonly<Record<string, string>> = {icmpv6: 'ipv6-icmp'}
const PROTOCOL_NUMBERS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(PROTOCOL_NAMES).map(([num, name]) => [name, Number(num)]),
)

function protocolName(p: string): string {
  const l = p.toLowerCase()
  if (/^\d+$/.test(l)) return PROTOCOL_NAMES[String(Number(l))] ?? String(Number(l))
  return PROTOCOL_ALIASES[l] ?? l
}

/** Splits a module's option tokens into `{neg, name, values}` entries. */
interface Opt {
  neg: boolean
  name: string
  values: string[]
}

function splitOptions(options: readonly string[], table: Readonly<Record<string, number>> | undefined): Opt[] {
  const out: Opt[] = []
  let neg = false
  for (let i = 0; i < options.length; i++) {
    const t = options[i] as string
    if (t === '!') {
      neg = true
      continue
    }
    const arity = table?.[t]
    if (arity !== undefined) {
      out.push({neg, name: t, values: options.slice(i + 1, i + 1 + arity)})
      i += arity
      neg = false
    } else if (t.startsWith('--') || out.length === 0) {
      out.push({neg, name: t, values: []})
      neg = false
    } else (out[out.length - 1] as Opt).values.push(t)
  }
  return out
}

/** The last occurrence of any of `names`, like iptables' later-option-wins for repeated flags. */
function last(opts: readonly Opt[], ...names: string[]): Opt | undefined {
  for (let i = opts.length - 1; i >= 0; i--) if (names.includes((opts[i] as Opt).name)) return opts[i]
  return undefined
}

function emit(out: string[], o: Opt | undefined, name: string, ...values: string[]): void {
  if (!o) return
  if (o.neg) out.push('!')
  out.push(name, ...values)
}

function canonicalMatchOptions(m: RuleMatch, family: IpFamily): string[] {
  const opts = splitOptions(m.options, MATCH_OPTIONS[m.name])
  switch (m.name) {
    case 'tcp':
    case 'udp':
    case 'udplite':
      return portMatch(m.name, opts)
    case 'sctp':
      return sctpMatch(opts)
    case 'statistic':
      return statisticMatch(opts)
    case 'recent':
      return recentMatch(opts, family)
    case 'mark':
      return markMatch(opts)
    case 'conntrack':
      return conntrackMatch(opts)
    case 'state':
      return stateMatch(opts)
    case 'addrtype':
      return addrtypeMatch(opts)
    case 'multiport':
      return multiportMatch(opts)
    default:
      return [...m.options]
  }
}

function canonicalTargetOptions(t: RuleTarget, family: IpFamily): string[] {
  const opts = splitOptions(t.options, TARGET_OPTIONS[t.name])
  switch (t.name) {
    case 'MARK':
      return markTarget(opts)
    case 'REJECT':
      return rejectTarget(opts, family)
    case 'DNAT':
      return natTarget(opts, '--to-destination', family)
    case 'SNAT':
      return natTarget(opts, '--to-source', family)
    case 'MASQUERADE':
      return masqueradeTarget(opts)
    case 'LOG':
      return logTarget(opts)
    default:
      return [...t.options]
  }
}

// ---- ports (tcp/udp/sctp/multiport) ----

/** Parses a numeric port (or `a:b` range); null for service names, which are kept verbatim. */
function portRange(v: string): [number, number] | null {
  const m = /^(\d*)(?::(\d*))?$/.exec(v)
  if (!m) return null
  const a = m[1] === '' ? 0 : Number(m[1])
  const b = m[2] === undefined ? a : m[2] === '' ? 65535 : Number(m[2])
  if (a > 65535 || b > 65535 || (m[1] === '' && m[2] === undefined)) return null
  return [a, b]
}

function formatRange(r: [number, number]): string {
  return r[0] === r[1] ? String(r[0]) : `${r[0]}:${r[1]}`
}

const TCP_FLAGS: ReadonlyArray<[string, number]> = [
  ['FIN', 0x01],
  ['SYN', 0x02],
  ['RST', 0x04],
  ['PSH', 0x08],
  ['ACK', 0x10],
  ['URG', 0x20],
]

function parseTcpFlags(v: string): number | null {
  let out = 0
  for (const f of v.toUpperCase().split(',')) {
    if (f === 'ALL') out |= 0x3f
    else if (f === 'NONE') continue
    else {
      const e = TCP_FLAGS.find(([n]) => n === f)
      if (!e) return null
      out |= e[1]
    }
  }
  return out
}

function formatTcpFlags(v: number): string {
  const names = TCP_FLAGS.filter(([, bit]) => (v & bit) !== 0).map(([n]) => n)
  return names.length === 0 ? 'NONE' : names.join(',')
}

function portMatch(name: string, opts: readonly Opt[]): string[] {
  const out: string[] = []
  const port = (o: Opt | undefined, flag: string): void => {
    if (!o) return
    const v = o.values[0] ?? ''
    const r = portRange(v)
    if (!r) return emit(out, o, flag, v)
    // tcp_save/udp_save print a port option only when it narrows the full range.
    if (r[0] === 0 && r[1] === 65535) return
    emit(out, o, flag, formatRange(r))
  }
  port(last(opts, '--sport', '--source-port'), '--sport')
  port(last(opts, '--dport', '--destination-port'), '--dport')
  if (name === 'tcp') {
    const option = last(opts, '--tcp-option')
    if (option) emit(out, option, '--tcp-option', String(Number(option.values[0])))
    const syn = last(opts, '--syn', '--tcp-flags')
    if (syn) {
      if (syn.name === '--syn') emit(out, syn, '--tcp-flags', 'FIN,SYN,RST,ACK', 'SYN')
      else {
        const mask = parseTcpFlags(syn.values[0] ?? '')
        const comp = parseTcpFlags(syn.values[1] ?? '')
        if (mask === null || comp === null) emit(out, syn, '--tcp-flags', ...syn.values)
        else emit(out, syn, '--tcp-flags', formatTcpFlags(mask), formatTcpFlags(comp))
      }
    }
  }
  const known = new Set(['--sport', '--source-port', '--dport', '--destination-port', '--tcp-option', '--syn', '--tcp-flags'])
  for (const o of opts) if (!known.has(o.name)) emit(out, o, o.name, ...o.values)
  return out
}

function sctpMatch(opts: readonly Opt[]): string[] {
  const out: string[] = []
  // libxt_sctp prints a given port option even when it spans the whole range.
  for (const [names, flag] of [
    [['--sport', '--source-port'], '--sport'],
    [['--dport', '--destination-port'], '--dport'],
  ] as const) {
    const o = last(opts, ...names)
    if (!o) continue
    const v = o.values[0] ?? ''
    const r = portRange(v)
    emit(out, o, flag, r ? formatRange(r) : v)
  }
  for (const o of opts) if (!['--sport', '--source-port', '--dport', '--destination-port'].includes(o.name)) emit(out, o, o.name, ...o.values)
  return out
}

function multiportMatch(opts: readonly Opt[]): string[] {
  const out: string[] = []
  for (const o of opts) {
    const flag =
      o.name === '--source-ports' ? '--sports' : o.name === '--destination-ports' ? '--dports' : o.name
    const list = (o.values[0] ?? '').split(',').map((p) => {
      const r = portRange(p)
      return r ? formatRange(r) : p
    })
    emit(out, o, flag, list.join(','))
  }
  return out
}

// ---- statistic ----

const TWO31 = 2147483648

/**
 * A statistic probability as iptables-save prints it: stored as lround(p·2³¹) and printed with `%.11f`
 * (glibc rounds exact ties to even, which JavaScript's toFixed does not).
 */
export function savedProbability(text: string): string | null {
  if (!/^\s*[+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)) return null
  const p = Number(text)
  if (!(p >= 0 && p <= 1)) return null
  const k = BigInt(Math.round(p * TWO31))
  const scaled = k * 100000000000n
  let q = scaled / BigInt(TWO31)
  const r = scaled % BigInt(TWO31)
  const twice = 2n * r
  if (twice > BigInt(TWO31) || (twice === BigInt(TWO31) && q % 2n === 1n)) q += 1n
  const s = q.toString().padStart(12, '0')
  return `${s.slice(0, -11)}.${s.slice(-11)}`
}

function statisticMatch(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const mode = last(opts, '--mode')
  const modeValue = mode?.values[0]
  if (modeValue === 'random') {
    out.push('--mode', 'random')
    const p = last(opts, '--probability')
    if (p) emit(out, p, '--probability', savedProbability(p.values[0] ?? '') ?? (p.values[0] ?? ''))
    return out
  }
  if (modeValue === 'nth') {
    out.push('--mode', 'nth')
    const every = last(opts, '--every')
    if (every) emit(out, every, '--every', String(Number(every.values[0])))
    const packet = last(opts, '--packet')
    out.push('--packet', packet ? String(Number(packet.values[0])) : '0')
    return out
  }
  return opts.flatMap((o) => [...(o.neg ? ['!'] : []), o.name, ...o.values])
}

// ---- recent ----

function recentMatch(opts: readonly Opt[], family: IpFamily): string[] {
  const out: string[] = []
  const has = (n: string): Opt | undefined => last(opts, n)
  const commands = ['--set', '--rcheck', '--update', '--remove'].map(has).filter((o): o is Opt => o !== undefined)
  if (commands.some((c) => c.neg)) out.push('!')
  for (const c of ['--set', '--rcheck', '--update', '--remove']) if (has(c)) out.push(c)
  const seconds = has('--seconds')
  if (seconds && Number(seconds.values[0]) !== 0) out.push('--seconds', String(Number(seconds.values[0])))
  if (has('--reap')) out.push('--reap')
  const hit = has('--hitcount')
  if (hit && Number(hit.values[0]) !== 0) out.push('--hitcount', String(Number(hit.values[0])))
  if (has('--rttl')) out.push('--rttl')
  out.push('--name', has('--name')?.values[0] ?? 'DEFAULT')
  const mask = has('--mask')?.values[0]
  const canonMask = mask === undefined ? null : canonicalHost(mask, family)
  out.push(
    '--mask',
    mask === undefined ? (family === 'ipv4' ? '255.255.255.255' : 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff') : (canonMask ?? mask),
  )
  const side = last(opts, '--rsource', '--rdest')
  out.push(side?.name === '--rdest' ? '--rdest' : '--rsource')
  return out
}

// ---- mark ----

/** strtoul(s, 0) as xtables_strtoui uses it: 0x hex, leading-0 octal, else decimal; null when invalid. */
function parseUint32(s: string): number | null {
  let v: number
  if (/^0[xX][0-9a-fA-F]+$/.test(s)) v = parseInt(s.slice(2), 16)
  else if (/^0[0-7]*$/.test(s)) v = parseInt(s, 8)
  else if (/^[1-9]\d*$/.test(s)) v = parseInt(s, 10)
  else return null
  return v <= 0xffffffff ? v : null
}

function hex(v: number): string {
  return '0x' + (v >>> 0).toString(16)
}

function parseMarkMask(v: string): [number, number] | null {
  const [a, b] = v.split('/')
  const mark = parseUint32(a ?? '')
  const mask = b === undefined ? 0xffffffff : parseUint32(b)
  return mark === null || mask === null ? null : [mark, mask]
}

function markMatch(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const o = last(opts, '--mark')
  if (!o) return []
  const mm = parseMarkMask(o.values[0] ?? '')
  if (!mm) emit(out, o, '--mark', ...o.values)
  else emit(out, o, '--mark', mm[1] === 0xffffffff ? hex(mm[0]) : `${hex(mm[0])}/${hex(mm[1])}`)
  return out
}

function markTarget(opts: readonly Opt[]): string[] {
  const o = last(opts, '--set-xmark', '--set-mark', '--and-mark', '--or-mark', '--xor-mark')
  if (!o) return opts.flatMap((x) => [x.name, ...x.values])
  const v = o.values[0] ?? ''
  let mark: number
  let mask: number
  if (o.name === '--set-xmark' || o.name === '--set-mark') {
    const mm = parseMarkMask(v)
    if (!mm) return [o.name, v]
    mark = mm[0]
    mask = o.name === '--set-mark' ? (mm[0] | mm[1]) >>> 0 : mm[1]
  } else {
    const x = parseUint32(v)
    if (x === null) return [o.name, v]
    if (o.name === '--and-mark') [mark, mask] = [0, ~x >>> 0]
    else if (o.name === '--or-mark') [mark, mask] = [x, x]
    else [mark, mask] = [x, 0]
  }
  return ['--set-xmark', `${hex(mark)}/${hex(mask)}`]
}

// ---- conntrack / state ----

const CT_STATES = ['INVALID', 'NEW', 'RELATED', 'ESTABLISHED', 'UNTRACKED', 'SNAT', 'DNAT']
const CT_STATUSES = ['NONE', 'EXPECTED', 'SEEN_REPLY', 'ASSURED', 'CONFIRMED']

function orderedList(v: string, order: readonly string[]): string {
  const given = v.split(',').map((s) => s.toUpperCase())
  if (given.some((s) => !order.includes(s))) return v
  return order.filter((s) => given.includes(s)).join(',')
}

const CONNTRACK_ORDER = [
  '--ctstate',
  '--ctproto',
  '--ctorigsrc',
  '--ctorigdst',
  '--ctreplsrc',
  '--ctrepldst',
  '--ctorigsrcport',
  '--ctorigdstport',
  '--ctreplsrcport',
  '--ctrepldstport',
  '--ctstatus',
  '--ctexpire',
  '--ctdir',
]

function conntrackMatch(opts: readonly Opt[]): string[] {
  const out: string[] = []
  for (const name of CONNTRACK_ORDER) {
    const o = last(opts, name)
    if (!o) continue
    const v = o.values[0] ?? ''
    if (name === '--ctstate') emit(out, o, name, orderedList(v, CT_STATES))
    else if (name === '--ctstatus') emit(out, o, name, orderedList(v, CT_STATUSES))
    else if (name === '--ctproto') emit(out, o, name, String(PROTOCOL_NUMBERS[protocolName(v)] ?? v))
    else emit(out, o, name, ...o.values)
  }
  for (const o of opts) if (!CONNTRACK_ORDER.includes(o.name)) emit(out, o, o.name, ...o.values)
  return out
}

function stateMatch(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const o = last(opts, '--state')
  if (o) emit(out, o, '--state', orderedList(o.values[0] ?? '', CT_STATES.slice(0, 5)))
  return out
}

// ---- addrtype ----

const ADDR_TYPES = [
  'UNSPEC',
  'UNICAST',
  'LOCAL',
  'BROADCAST',
  'ANYCAST',
  'MULTICAST',
  'BLACKHOLE',
  'UNREACHABLE',
  'PROHIBIT',
  'THROW',
  'NAT',
  'XRESOLVE',
]

function addrtypeMatch(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const src = last(opts, '--src-type')
  if (src) emit(out, src, '--src-type', orderedList(src.values[0] ?? '', ADDR_TYPES))
  const dst = last(opts, '--dst-type')
  if (dst) emit(out, dst, '--dst-type', orderedList(dst.values[0] ?? '', ADDR_TYPES))
  if (last(opts, '--limit-iface-in')) out.push('--limit-iface-in')
  if (last(opts, '--limit-iface-out')) out.push('--limit-iface-out')
  return out
}

// ---- targets ----

const REJECT4: Readonly<Record<string, string>> = {
  'icmp-net-unreachable': 'icmp-net-unreachable',
  'net-unreach': 'icmp-net-unreachable',
  'icmp-host-unreachable': 'icmp-host-unreachable',
  'host-unreach': 'icmp-host-unreachable',
  'icmp-proto-unreachable': 'icmp-proto-unreachable',
  'proto-unreach': 'icmp-proto-unreachable',
  'icmp-port-unreachable': 'icmp-port-unreachable',
  'port-unreach': 'icmp-port-unreachable',
  'icmp-net-prohibited': 'icmp-net-prohibited',
  'net-prohib': 'icmp-net-prohibited',
  'icmp-host-prohibited': 'icmp-host-prohibited',
  'host-prohib': 'icmp-host-prohibited',
  'tcp-reset': 'tcp-reset',
  'tcp-rst': 'tcp-reset',
  'icmp-admin-prohibited': 'icmp-admin-prohibited',
  'admin-prohib': 'icmp-admin-prohibited',
}
const REJECT6: Readonly<Record<string, string>> = {
  'icmp6-no-route': 'icmp6-no-route',
  'no-route': 'icmp6-no-route',
  'icmp6-adm-prohibited': 'icmp6-adm-prohibited',
  'adm-prohibited': 'icmp6-adm-prohibited',
  'icmp6-addr-unreachable': 'icmp6-addr-unreachable',
  'addr-unreach': 'icmp6-addr-unreachable',
  'icmp6-port-unreachable': 'icmp6-port-unreachable',
  'port-unreach': 'icmp6-port-unreachable',
  'tcp-reset': 'tcp-reset',
  'icmp6-policy-fail': 'icmp6-policy-fail',
  'policy-fail': 'icmp6-policy-fail',
  'icmp6-reject-route': 'icmp6-reject-route',
  'reject-route': 'icmp6-reject-route',
}

function rejectTarget(opts: readonly Opt[], family: IpFamily): string[] {
  const o = last(opts, '--reject-with')
  const table = family === 'ipv4' ? REJECT4 : REJECT6
  const v = o?.values[0]
  if (v === undefined) return ['--reject-with', family === 'ipv4' ? 'icmp-port-unreachable' : 'icmp6-port-unreachable']
  return ['--reject-with', table[v] ?? v]
}

/** `ip[-ip][:port[-port]]`, IPv6 addresses in brackets when ports follow; addresses printed canonically. */
function natRange(v: string, family: IpFamily): string {
  let addrPart = v
  let portPart: string | null = null
  if (family === 'ipv6') {
    const m = /^\[([^\]]*)\](?::(.*))?$/.exec(v)
    if (m) {
      addrPart = m[1] ?? ''
      portPart = m[2] ?? null
    }
  } else {
    const c = v.indexOf(':')
    if (c !== -1) {
      addrPart = v.slice(0, c)
      portPart = v.slice(c + 1)
    }
  }
  const addrs = addrPart === '' ? [] : addrPart.split('-').map((a) => canonicalHost(a, family) ?? a)
  let addrText = addrs.length === 2 && addrs[0] === addrs[1] ? (addrs[0] as string) : addrs.join('-')
  if (portPart !== null) {
    const ports = portPart.split('-')
    const portText = ports.length === 2 && ports[0] === ports[1] ? (ports[0] as string) : ports.join('-')
    if (family === 'ipv6' && addrText !== '') addrText = `[${addrText}]`
    return `${addrText}:${portText}`
  }
  return addrText
}

function natTarget(opts: readonly Opt[], rangeOpt: string, family: IpFamily): string[] {
  const out: string[] = []
  for (const o of opts) if (o.name === rangeOpt) out.push(rangeOpt, natRange(o.values[0] ?? '', family))
  for (const f of ['--random', '--random-fully', '--persistent']) if (last(opts, f)) out.push(f)
  for (const o of opts) if (![rangeOpt, '--random', '--random-fully', '--persistent'].includes(o.name)) out.push(o.name, ...o.values)
  return out
}

function masqueradeTarget(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const ports = last(opts, '--to-ports')
  if (ports) {
    const p = (ports.values[0] ?? '').split('-')
    out.push('--to-ports', p.length === 2 && p[0] === p[1] ? (p[0] as string) : p.join('-'))
  }
  if (last(opts, '--random')) out.push('--random')
  if (last(opts, '--random-fully')) out.push('--random-fully')
  return out
}

const LOG_LEVELS: Readonly<Record<string, number>> = {
  emerg: 0,
  alert: 1,
  crit: 2,
  error: 3,
  err: 3,
  warning: 4,
  warn: 4,
  notice: 5,
  info: 6,
  debug: 7,
}

function logTarget(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const prefix = last(opts, '--log-prefix')
  if (prefix && (prefix.values[0] ?? '') !== '') out.push('--log-prefix', prefix.values[0] as string)
  const level = last(opts, '--log-level')
  if (level) {
    const v = level.values[0] ?? ''
    const n = /^\d+$/.test(v) ? Number(v) : LOG_LEVELS[v.toLowerCase()]
    if (n === undefined) out.push('--log-level', v)
    else if (n !== 4) out.push('--log-level', String(n))
  }
  for (const f of ['--log-tcp-sequence', '--log-tcp-options', '--log-ip-options', '--log-uid', '--log-macdecode']) {
    if (last(opts, f)) out.push(f)
  }
  return out
}
