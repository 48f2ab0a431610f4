// Whether one rule matches the packet: generic options (-s/-d/-p/-i/-o) and the `-m` matches kube-proxy uses.
import {type Addr, type AddrMatcher, addrIn, formatAddr, isMulticastAddr, parseAddrMatcher} from '../net/addr.js'
import {type ParsedRule, type RuleMatch, optionNegated, optionValue} from '../iptables/rule.js'
import {type Ctx, type Eval, type State, isLocalAddr} from './context.js'
import type {TraceProtocol} from './types.js'

export function parseNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^(0x[0-9a-fA-F]+|\d+)$/.test(text)) return undefined
  return Number(text) >>> 0
}

/** `value[/mask]` with mask defaulting to all ones. */
export function parseValueMask(text: string | undefined): {value: number; mask: number} | undefined {
  if (text === undefined) return undefined
  const [v, m] = text.split('/')
  const value = parseNumber(v)
  const mask = m === undefined ? 0xffffffff : parseNumber(m)
  if (value === undefined || mask === undefined) return undefined
  return {value, mask}
}

const PROTO_NUMBERS: Readonly<Record<string, string>> = {'6': 'tcp', '17': 'udp', '132': 'sctp', '1': 'icmp', '58': 'icmpv6'}

function protocolMatches(value: string, proto: TraceProtocol): boolean {
  const v = value.toLowerCase()
  if (v === 'all' || v === '0') return true
  return (PROTO_NUMBERS[v] ?? v) === proto
}

/** `80`, `1000:2000`, `:2000`, `1000:`. */
function portInRange(spec: string, port: number): boolean | undefined {
  const c = spec.indexOf(':')
  if (c === -1) {
    const p = parseNumber(spec)
    return p === undefined ? undefined : p === port
  }
  const lo = c === 0 ? 0 : parseNumber(spec.slice(0, c))
  const hi = c === spec.length - 1 ? 65535 : parseNumber(spec.slice(c + 1))
  if (lo === undefined || hi === undefined) return undefined
  return port >= lo && port <= hi
}

function interfaceMatches(pattern: string, name: string): boolean {
  return pattern.endsWith('+') ? name.startsWith(pattern.slice(0, -1)) : pattern === name
}

export function addrMatcher(ctx: Ctx, text: string): AddrMatcher | undefined {
  let m = ctx.addrCache.get(text)
  if (m === undefined) {
    m = parseAddrMatcher(text) ?? null
    ctx.addrCache.set(text, m)
  }
  return m ?? undefined
}

const NO: Eval = {kind: 'no'}

/** Records an assumption for the rule being evaluated (ctx.assumed) and in the trace's notes. */
function assume(ctx: Ctx, text: string): void {
  ctx.assumed.push(text)
  ctx.notes.add(`assumed: ${text}`)
}

/** Decides a rule for the packet state: no, yes, or yes with probability p (statistic). */
export function evaluateRule(ctx: Ctx, chain: string, rule: ParsedRule, st: State): Eval {
  ctx.assumed.length = 0
  // Destination first: in the big dispatch chains it is what rejects almost every rule.
  if (rule.destination) {
    const m = addrMatcher(ctx, rule.destination.value)
    if (!m) {
      ctx.notes.add(`-d ${rule.destination.value} in ${ctx.tableName} ${chain} is not an address; the rule is treated as not matching`)
      return NO
    }
    if (addrIn(st.dst, m) === rule.destination.negated) return NO
  }
  if (rule.protocol && protocolMatches(rule.protocol.value, ctx.packet.protocol) === rule.protocol.negated) return NO
  if (rule.fragment && !rule.fragment.negated) return NO // a first packet is never a non-first fragment
  if (rule.source) {
    const m = addrMatcher(ctx, rule.source.value)
    if (!m) {
      ctx.notes.add(`-s ${rule.source.value} in ${ctx.tableName} ${chain} is not an address; the rule is treated as not matching`)
      return NO
    }
    let hit: boolean
    if (ctx.src) hit = addrIn(ctx.src, m)
    else {
      // Unknown source: a pod is inside any network (the pod network), an outside client in none; neither is one
      // particular host (the hairpin rules), which needs no note.
      hit = m.family === ctx.family && !m.host && ctx.srcIsLocalPod
      if (!m.host) assume(ctx, `source unknown: taken to be ${hit ? 'inside' : 'outside'} ${rule.source.value} (${ctx.srcIsLocalPod ? 'a pod address' : 'an outside address'})`)
    }
    if (hit === rule.source.negated) return NO
  }
  if (rule.inInterface) {
    const r = inInterfaceMatches(ctx, rule.inInterface.value)
    if (r.assumption) assume(ctx, `${rule.inInterface.negated ? '! ' : ''}-i ${rule.inInterface.value}: ${r.assumption}`)
    if (r.hit === rule.inInterface.negated) return NO
  }
  if (rule.outInterface) {
    const r = outInterfaceMatches(ctx, rule.outInterface.value, st)
    if (r.assumption) assume(ctx, `${rule.outInterface.negated ? '! ' : ''}-o ${rule.outInterface.value}: ${r.assumption}`)
    if (r.hit === rule.outInterface.negated) return NO
  }
  let p = 1
  for (const m of rule.matches) {
    const r = evaluateMatch(ctx, chain, m, st)
    if (r === false) return NO
    if (typeof r === 'number') p *= r
  }
  if (p <= 0) return NO
  return {kind: 'yes', p, assumptions: [...ctx.assumed]}
}

function inInterfaceMatches(ctx: Ctx, pattern: string): {hit: boolean; assumption?: string} {
  const hook = ctx.hook
  if (hook === 'OUTPUT' || hook === 'POSTROUTING') return {hit: false}
  if (ctx.packet.from === 'host') return {hit: interfaceMatches(pattern, 'lo')} // looped back to INPUT
  if (ctx.packet.inInterface !== undefined) return {hit: interfaceMatches(pattern, ctx.packet.inInterface)}
  if (pattern === 'lo') return {hit: false}
  if (ctx.srcIsLocalPod) {
    const pi = ctx.podInterface
    if (!pi) return {hit: true, assumption: 'in-interface unknown; taken to be the local pod\'s interface'}
    if ('bridge' in pi) return {hit: interfaceMatches(pattern, pi.bridge)}
    const base = pattern.endsWith('+') ? pattern.slice(0, -1) : pattern
    if (pattern.endsWith('+') && pi.prefix.startsWith(base)) return {hit: true}
    if (!base.startsWith(pi.prefix)) return {hit: false}
    return {hit: false, assumption: `the pod's interface (${pi.prefix}…) is taken not to be this one`}
  }
  return {hit: false, assumption: 'in-interface unknown; taken to be the node\'s uplink, not this one'}
}

function outInterfaceMatches(ctx: Ctx, pattern: string, st: State): {hit: boolean; assumption?: string} {
  const hook = ctx.hook
  if (hook === 'PREROUTING' || hook === 'INPUT') return {hit: false}
  if (isLocalAddr(ctx, st.dst)) return {hit: interfaceMatches(pattern, 'lo')}
  const dev = ctx.routeDevice?.(formatAddr(st.dst))
  if (dev !== undefined) return {hit: interfaceMatches(pattern, dev)}
  return {hit: false, assumption: 'out-interface unknown; taken not to be this one'}
}

const ADDR_TYPES = new Set(['UNSPEC', 'UNICAST', 'LOCAL', 'BROADCAST', 'ANYCAST', 'MULTICAST', 'BLACKHOLE', 'UNREACHABLE', 'PROHIBIT', 'THROW', 'NAT', 'XRESOLVE'])

function addrType(ctx: Ctx, a: Addr | undefined, isSource: boolean): string | undefined {
  if (!a) {
    if (!isSource) return undefined
    return ctx.packet.from === 'host' ? 'LOCAL' : 'UNICAST'
  }
  if (isLocalAddr(ctx, a)) return 'LOCAL'
  if (isMulticastAddr(a)) return 'MULTICAST'
  if (a.family === 'ipv4' && a.words[0] === 0xffffffff) return 'BROADCAST'
  return 'UNICAST'
}

/** true/false, or a probability for statistic. */
function evaluateMatch(ctx: Ctx, chain: string, m: RuleMatch, st: State): boolean | number {
  const o = m.options
  switch (m.name) {
    case 'comment':
      return true
    case 'nfacct':
      return true
    case 'tcp':
    case 'udp':
    case 'udplite':
    case 'sctp': {
      if (m.name !== ctx.packet.protocol) return false
      for (let i = 0; i < o.length; i++) {
        const opt = o[i] as string
        if (opt === '!') continue
        const negated = o[i - 1] === '!'
        if (opt === '--dport' || opt === '--destination-port') {
          const r = portInRange(o[++i] ?? '', st.dport)
          if (r === undefined || r === negated) return false
        } else if (opt === '--sport' || opt === '--source-port') {
          const spec = o[++i] ?? ''
          assume(ctx, `${negated ? '! ' : ''}--sport ${spec}: the source port is unknown; taken to be outside it`)
          if (!negated) return false
        } else if (opt === '--syn' || opt === '--tcp-flags') {
          // A new TCP connection's first packet carries SYN only.
          let hit: boolean
          if (opt === '--syn') hit = true
          else {
            const mask = new Set((o[++i] ?? '').split(','))
            const comp = new Set((o[++i] ?? '').split(','))
            const flags = new Set(['SYN'])
            const all = ['SYN', 'ACK', 'FIN', 'RST', 'URG', 'PSH', 'ECE', 'CWR']
            hit = all.every((f) => !(mask.has(f) || mask.has('ALL')) || flags.has(f) === (comp.has(f) || comp.has('ALL')))
          }
          if (hit === negated) return false
        } else {
          ctx.notes.add(`-m ${m.name} ${opt} (in ${ctx.tableName} ${chain}) is not modelled; the rule is treated as not matching`)
          return false
        }
      }
      return true
    }
    case 'multiport': {
      const negated = o[0] === '!'
      const opt = o[negated ? 1 : 0]
      const list = o[negated ? 2 : 1] ?? ''
      if (opt === '--dports' || opt === '--destination-ports' || opt === '--ports') {
        const hit = list.split(',').some((spec) => portInRange(spec, st.dport) === true)
        return hit !== negated
      }
      assume(ctx, `-m multiport ${o.join(' ')}: the source port is unknown; taken to be outside the list`)
      return negated
    }
    case 'statistic': {
      const mode = optionValue(o, '--mode')
      if (mode === 'random') {
        const p = Number(optionValue(o, '--probability'))
        if (!Number.isFinite(p) || p < 0 || p > 1) return false
        // The kernel keeps the probability as a 31-bit fraction.
        const q = Math.floor(p * 2147483648 + 0.5) / 2147483648
        return optionNegated(o, '--probability') ? 1 - q : q
      }
      if (mode === 'nth') {
        const every = Number(optionValue(o, '--every'))
        if (!Number.isInteger(every) || every < 1) return false
        ctx.notes.add(`-m statistic --mode nth --every ${every} is traced as probability 1/${every}`)
        return optionNegated(o, '--every') ? 1 - 1 / every : 1 / every
      }
      return false
    }
    case 'recent': {
      // A first packet has no entry in any recent list: --rcheck/--update/--remove fail, --set succeeds.
      if (o.includes('--set')) return !optionNegated(o, '--set')
      for (const opt of ['--rcheck', '--update', '--remove']) {
        if (o.includes(opt)) {
          assume(ctx, `-m recent ${opt}: no affinity entry yet (first packet)`)
          return optionNegated(o, opt)
        }
      }
      return false
    }
    case 'mark': {
      const vm = parseValueMask(optionValue(o, '--mark'))
      if (!vm) return false
      const hit = ((st.mark & vm.mask) >>> 0) === ((vm.value & vm.mask) >>> 0)
      return hit !== optionNegated(o, '--mark')
    }
    case 'conntrack':
    case 'state': {
      const opt = m.name === 'state' ? '--state' : '--ctstate'
      for (const other of o) {
        if (other.startsWith('--') && other !== opt) {
          ctx.notes.add(`-m conntrack ${other} (in ${ctx.tableName} ${chain}) is not modelled; the rule is treated as not matching`)
          return false
        }
      }
      const list = optionValue(o, opt)
      if (list === undefined) return false
      const states = new Set(['NEW', ...(st.ctDnat ? ['DNAT'] : [])])
      const hit = list.split(',').some((s) => states.has(s.toUpperCase()))
      return hit !== optionNegated(o, opt)
    }
    case 'addrtype': {
      for (const [opt, isSource] of [['--src-type', true], ['--dst-type', false]] as const) {
        const list = optionValue(o, opt)
        if (list === undefined) continue
        const types = list.split(',').map((t) => t.toUpperCase())
        if (types.some((t) => !ADDR_TYPES.has(t))) return false
        const t = addrType(ctx, isSource ? ctx.src : st.dst, isSource)
        if (t === undefined) return false
        if (types.includes(t) === optionNegated(o, opt)) return false
      }
      if (o.includes('--limit-iface-in') || o.includes('--limit-iface-out')) assume(ctx, '-m addrtype --limit-iface-*: the type is taken from the node-wide address list')
      return true
    }
    case 'icmp':
    case 'icmp6':
      return false
    default:
      ctx.notes.add(`unknown match -m ${m.name} (in ${ctx.tableName} ${chain}) is treated as not matching`)
      return false
  }
}
