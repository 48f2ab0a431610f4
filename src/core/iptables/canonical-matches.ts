// iptables-save's printing of the match modules kube-proxy uses (libxt_tcp/udp/sctp/multiport, statistic, recent,
// mark, conntrack/state, addrtype); modules node-doctor does not know keep their options verbatim.
import {canonicalHost} from '../net/inet.js'
import type {IpFamily} from '../net/ip.js'
import {type Opt, PROTOCOL_NUMBERS, emit, hex, last, parseMarkMask, protocolName, splitOptions} from './canonical-options.js'
import {MATCH_OPTIONS, type RuleMatch} from './rule.js'

export function canonicalMatchOptions(m: RuleMatch, family: IpFamily): string[] {
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

function markMatch(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const o = last(opts, '--mark')
  if (!o) return []
  const mm = parseMarkMask(o.values[0] ?? '')
  if (!mm) emit(out, o, '--mark', ...o.values)
  else emit(out, o, '--mark', mm[1] === 0xffffffff ? hex(mm[0]) : `${hex(mm[0])}/${hex(mm[1])}`)
  return out
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
