// Follows one new connection through a node's iptables rules: nat PREROUTING (or OUTPUT for host traffic) to the DNAT,
// then the filter verdict and the nat POSTROUTING masquerade decision. `-m statistic` rules fork the trace, so the
// result is a distribution over endpoints. Semantics follow kube-proxy's test tracer (pkg/proxy/iptables/
// proxier_test.go tracePacket) but walk the real built-in chains and carry the packet mark instead of assuming.
import {type IpFamily, parseIPv4, parseIPv6} from '../iptables/address.js'
import {type ParsedRule, type RuleMatch, optionNegated, optionValue} from '../iptables/rule.js'
import {type IptablesDump, type IptablesRule, type IptablesTable, findTable} from '../parse/iptables-save.js'
import {type ParsedCIDR, cidrContains, isLoopback, joinHostPort, parseCIDRSloppy, parseIPSloppy} from '../proxier/ip.js'

export type TraceProtocol = 'tcp' | 'udp' | 'sctp'
export type TraceOrigin = 'pod' | 'host' | 'external'
export type TraceVerdict = 'ACCEPT' | 'DROP' | 'REJECT' | 'no-rule'

export interface TracePacket {
  protocol: TraceProtocol
  dst: string
  dport: number
  /** Source address; unknown when absent (then `-s` matches are decided by assumption and noted). */
  src?: string
  /** The source is a pod on this node: it arrives on a pod interface (decides `-i` matches). Default: from === 'pod'. */
  srcIsLocalPod?: boolean
  /** pod and external traffic enters at nat PREROUTING, host traffic at nat OUTPUT. */
  from: TraceOrigin
}

export interface TraceNode {
  /** The node's addresses (IP or IP/len); loopback is always local. Decides `--dst-type LOCAL` and INPUT vs FORWARD. */
  localAddresses: readonly string[]
  /**
   * Where a local pod's traffic arrives, when known (kube-proxy's BridgeInterface / InterfaceNamePrefix detector).
   * Without it, `-i` matches for local pods are assumed to hold (and noted).
   */
  podInterface?: {bridge: string} | {prefix: string}
}

/** One rule whose target was taken. ruleIndex is 0-based (iptables -L --line-numbers shows ruleIndex + 1). */
export interface TraceStep {
  table: 'nat' | 'filter'
  chain: string
  ruleIndex: number
  /** The rule as in the dump, `-A CHAIN ...`. */
  rule: string
  /** For a `-m statistic` rule: the probability with which this branch took it. */
  probability?: number
  /** What was assumed to decide a match the packet alone cannot (interfaces, unknown source). */
  assumptions?: string[]
}

export interface TraceBranch {
  probability: number
  path: TraceStep[]
  /** The DNAT destination, `ip:port` (`[ip6]:port`). */
  dnat?: string
  masquerade: boolean
  verdict: TraceVerdict
  /** The policy of the filter chain the branch fell through (verdict no-rule). */
  policy?: string
  /** Aggregation key: DROP or REJECT, else the DNAT destination, else NO_DNAT. */
  outcome: string
}

export interface TraceResult {
  packet: TracePacket
  /** The source address used (given, or assumed for host traffic); absent when unknown. */
  src?: string
  entryChain: 'PREROUTING' | 'OUTPUT'
  branches: TraceBranch[]
  /** outcome → probability (sums to 1). */
  endpoints: Record<string, number>
  /** outcome → probability of the branches to it that are masqueraded. */
  masqueraded: Record<string, number>
  notes: string[]
}

/** Outcome of a branch that reaches its original destination unchanged. */
export const NO_DNAT = 'no-dnat'

const MAX_DEPTH = 64
const EPSILON = 1e-12

// ---------------------------------------------------------------------------------------------------------------
// Addresses

interface Addr {
  family: IpFamily
  /** IPv4: one 32-bit word; IPv6: eight 16-bit words. */
  words: number[]
}

function toAddr(text: string): Addr | undefined {
  const p = parseIPSloppy(text)
  if (!p) return undefined
  if (p.family === 'ipv4') return {family: 'ipv4', words: [(((p.bytes[0] as number) << 24) | ((p.bytes[1] as number) << 16) | ((p.bytes[2] as number) << 8) | (p.bytes[3] as number)) >>> 0]}
  const words: number[] = []
  for (let i = 0; i < 16; i += 2) words.push(((p.bytes[i] as number) << 8) | (p.bytes[i + 1] as number))
  return {family: 'ipv6', words}
}

interface AddrMatcher {
  family: IpFamily
  net: number[]
  mask: number[]
  /** A single host (/32, /128) rather than a network. */
  host: boolean
}

const DOTTED_QUAD = /^([1-9]?\d|1\d\d|2[0-4]\d|25[0-5])\.([1-9]?\d|1\d\d|2[0-4]\d|25[0-5])\.([1-9]?\d|1\d\d|2[0-4]\d|25[0-5])\.([1-9]?\d|1\d\d|2[0-4]\d|25[0-5])$/

function quadValue(m: RegExpExecArray): number {
  return ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0
}

/** An iptables `-s`/`-d` value (`addr`, `addr/len`, `addr/dotted-mask`); undefined when not an address. */
function parseAddrMatcher(text: string): AddrMatcher | undefined {
  const slash = text.indexOf('/')
  const a = slash === -1 ? text : text.slice(0, slash)
  const m = slash === -1 ? null : text.slice(slash + 1)
  const quad = DOTTED_QUAD.exec(a)
  // Plain dotted quads (all of iptables-save's output) skip inet_aton's slower general parse.
  const v4 = quad && a.length <= 15 ? quadValue(quad) : a.includes('.') ? parseIPv4(a) : null
  if (v4 !== null) {
    let mask = 0xffffffff
    if (m !== null) {
      if (/^\d{1,2}$/.test(m) && Number(m) <= 32) mask = Number(m) === 0 ? 0 : (0xffffffff << (32 - Number(m))) >>> 0
      else {
        const dotted = parseIPv4(m)
        if (dotted === null) return undefined
        mask = dotted
      }
    }
    return {family: 'ipv4', net: [(v4 & mask) >>> 0], mask: [mask], host: mask === 0xffffffff}
  }
  const v6 = parseIPv6(a)
  if (!v6) return undefined
  let mask = new Array<number>(8).fill(0xffff)
  if (m !== null) {
    if (/^\d{1,3}$/.test(m) && Number(m) <= 128) {
      const len = Number(m)
      mask = Array.from({length: 8}, (_, i) => {
        const b = Math.max(0, Math.min(16, len - 16 * i))
        return b === 0 ? 0 : (0xffff << (16 - b)) & 0xffff
      })
    } else {
      const w = parseIPv6(m)
      if (!w) return undefined
      mask = w
    }
  }
  return {family: 'ipv6', net: v6.map((w, i) => w & (mask[i] as number)), mask, host: mask.every((w) => w === 0xffff)}
}

function addrIn(addr: Addr, m: AddrMatcher): boolean {
  if (addr.family !== m.family) return false
  return addr.words.every((w, i) => (m.family === 'ipv4' ? ((w & (m.mask[i] as number)) >>> 0) === m.net[i] : (w & (m.mask[i] as number)) === m.net[i]))
}

function formatAddr(a: Addr): string {
  if (a.family === 'ipv4') {
    const v = a.words[0] as number
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`
  }
  const bytes: number[] = []
  for (const w of a.words) bytes.push(w >> 8, w & 255)
  return parseIPSloppy(bytesToV6Text(bytes))?.text ?? bytesToV6Text(bytes)
}

function bytesToV6Text(bytes: readonly number[]): string {
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16))
  return groups.join(':')
}

function isLoopbackAddr(a: Addr): boolean {
  if (a.family === 'ipv4') return (a.words[0] as number) >>> 24 === 127
  return a.words.every((w, i) => (i === 7 ? w === 1 : w === 0))
}

function isMulticastAddr(a: Addr): boolean {
  if (a.family === 'ipv4') return (a.words[0] as number) >>> 28 === 0xe
  return (a.words[0] as number) >>> 8 === 0xff
}

// ---------------------------------------------------------------------------------------------------------------
// Destination parsing and origin resolution (shared with the command so both use the same forms)

export interface TraceDestination {
  dst: string
  dport: number
  protocol: TraceProtocol
}

/** `IP:PORT[/PROTO]` or `[IPv6]:PORT[/PROTO]` (protocol tcp, udp or sctp, default tcp); undefined when malformed. */
export function parseTraceDestination(text: string): TraceDestination | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]/]+)):(\d{1,5})(?:\/([A-Za-z]+))?$/.exec(text.trim())
  if (!m) return undefined
  const host = m[1] ?? m[2] ?? ''
  const ip = parseIPSloppy(host)
  if (!ip || (m[1] !== undefined && ip.family !== 'ipv6')) return undefined
  const port = Number(m[3])
  if (port < 1 || port > 65535) return undefined
  const proto = (m[4] ?? 'tcp').toLowerCase()
  if (proto !== 'tcp' && proto !== 'udp' && proto !== 'sctp') return undefined
  return {dst: ip.text, dport: port, protocol: proto}
}

export interface ResolvedOrigin {
  from: TraceOrigin
  src?: string
  srcIsLocalPod: boolean
  /** How the source was chosen, for the output. */
  description: string
}

/**
 * Turns `--from` (an IP, `pod`, `host` or `external`) into the packet's origin. An IP on the node is host traffic,
 * an IP in the node's podCIDRs a local pod, anything else arrives from outside (remote pods included). `pod`
 * without an IP takes the last usable address of the node's podCIDR of the family (unlikely to be an endpoint).
 * Returns an error string for anything else.
 */
export function resolveTraceOrigin(
  from: string,
  node: {localAddresses: readonly string[]; podCIDRs: readonly string[]},
  family: IpFamily,
): ResolvedOrigin | {error: string} {
  const podCIDRs = node.podCIDRs.map((c) => parseCIDRSloppy(c)).filter((c): c is ParsedCIDR => c !== undefined && c.family === family)
  if (from === 'host') return {from: 'host', srcIsLocalPod: false, description: 'the node itself'}
  if (from === 'external') return {from: 'external', srcIsLocalPod: false, description: 'a client outside the cluster (address unknown)'}
  if (from === 'pod') {
    const cidr = podCIDRs[0]
    if (!cidr) return {from: 'pod', srcIsLocalPod: true, description: 'a pod on the node (address unknown: the node has no podCIDR of this family)'}
    const bytes = [...cidr.network]
    const hostBits = bytes.length * 8 - cidr.prefix
    // Set every host bit, then clear the lowest: the last usable address (for /31, /32 and /127, /128: the network).
    for (let bit = 0; bit < hostBits; bit++) {
      const i = bytes.length - 1 - Math.floor(bit / 8)
      bytes[i] = (bytes[i] as number) | (1 << bit % 8)
    }
    if (hostBits >= 2) bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) & 0xfe
    const addr = bytes.length === 4 ? bytes.join('.') : (parseIPSloppy(bytesToV6Text(bytes))?.text ?? bytesToV6Text(bytes))
    return {from: 'pod', src: addr, srcIsLocalPod: true, description: `a pod on the node (assumed address ${addr} in podCIDR ${cidr.text})`}
  }
  const ip = parseIPSloppy(from)
  if (!ip) return {error: `--from ${JSON.stringify(from)} is not an IP address, pod, host or external`}
  if (ip.family !== family) return {error: `--from ${ip.text} is ${ip.family} but the destination is ${family}`}
  const local = isLoopback(ip) || node.localAddresses.some((a) => parseIPSloppy(a.split('/')[0] ?? '')?.text === ip.text)
  if (local) return {from: 'host', src: ip.text, srcIsLocalPod: false, description: `the node itself (${ip.text})`}
  const pod = podCIDRs.find((c) => cidrContains(c, ip))
  if (pod) return {from: 'pod', src: ip.text, srcIsLocalPod: true, description: `a pod on the node (${ip.text} in podCIDR ${pod.text})`}
  return {from: 'external', src: ip.text, srcIsLocalPod: false, description: `${ip.text}, arriving from the network`}
}

// ---------------------------------------------------------------------------------------------------------------
// The walk

type Hook = 'PREROUTING' | 'INPUT' | 'FORWARD' | 'OUTPUT' | 'POSTROUTING'

interface State {
  probability: number
  mark: number
  path: TraceStep[]
  dst: Addr
  dport: number
  dnat?: string
  /** conntrack's virtual DNAT state: set once the destination was rewritten. */
  ctDnat: boolean
  masquerade: boolean
  verdict: TraceVerdict
  policy?: string
  /** A DROP/REJECT ended the packet: later phases are skipped. */
  done: boolean
}

type Exit =
  | {kind: 'return'; st: State}
  | {kind: 'terminal'; st: State; target: string; rule: ParsedRule}

type Eval = {kind: 'no'} | {kind: 'yes'; p: number; assumptions: string[]}

interface CachedRule {
  rule: IptablesRule
  /** Parsed on first use; null when the rule could not be parsed. */
  parsed?: ParsedRule | null
  /** The rule's `[!] -d` read from its text without parsing, when it is plainly there; lets walks skip most rules. */
  dstHint: {matcher: AddrMatcher; negated: boolean} | null
}

interface Ctx {
  table: IptablesTable
  tableName: 'nat' | 'filter'
  hook: Hook
  packet: TracePacket
  src: Addr | undefined
  srcIsLocalPod: boolean
  podInterface: TraceNode['podInterface']
  family: IpFamily
  local: AddrMatcher[]
  notes: Set<string>
  cache: Map<string, CachedRule[]>
  addrCache: Map<string, AddrMatcher | null>
  /** Scratch list of the assumptions made while evaluating the current rule. */
  assumed: string[]
}

function cloneState(st: State, probability: number): State {
  return {...st, probability, path: [...st.path]}
}

function rulesOf(ctx: Ctx, chainName: string): CachedRule[] | undefined {
  const key = `${ctx.tableName}/${chainName}`
  let rules = ctx.cache.get(key)
  if (rules) return rules
  const chain = ctx.table.chain(chainName)
  if (!chain) return undefined
  rules = []
  for (const r of chain.eachRule()) rules.push({rule: r, dstHint: dstHint(ctx, r.text)})
  ctx.cache.set(key, rules)
  return rules
}

/**
 * `[!] -d ADDR` when it comes before any match and any quote (iptables-save prints the generic options first), so
 * it cannot be part of another option's value; null otherwise (the rule is then parsed to be decided).
 */
function dstHint(ctx: Ctx, text: string): CachedRule['dstHint'] {
  const i = text.indexOf(' -d ')
  if (i === -1) return null
  const quote = text.indexOf('"')
  const match = text.indexOf(' -m ')
  if ((quote !== -1 && quote < i) || (match !== -1 && match < i)) return null
  let end = text.indexOf(' ', i + 4)
  if (end === -1) end = text.length
  const matcher = addrMatcher(ctx, text.slice(i + 4, end))
  return matcher ? {matcher, negated: text.startsWith(' !', i - 2)} : null
}

function parsedRule(ctx: Ctx, chainName: string, r: CachedRule): ParsedRule | null {
  if (r.parsed === undefined) {
    try {
      r.parsed = r.rule.parsed
    } catch (err) {
      r.parsed = null
      ctx.notes.add(`${ctx.tableName} ${chainName}: line ${r.rule.line} could not be parsed (${(err as Error).message}); it is skipped`)
    }
  }
  return r.parsed
}

function isLocalAddr(ctx: Pick<Ctx, 'local'>, a: Addr): boolean {
  return isLoopbackAddr(a) || ctx.local.some((m) => addrIn(a, m))
}

const BUILTIN: ReadonlySet<string> = new Set(['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING'])

/** Runs `st` through a chain; every flow leaves as a `return` (fell off the end, RETURN) or a terminal target. */
function runChain(ctx: Ctx, chainName: string, st: State, stack: readonly string[]): Exit[] {
  const rules = rulesOf(ctx, chainName)
  if (!rules) {
    ctx.notes.add(`${ctx.tableName} chain ${chainName} does not exist in the dump`)
    return [{kind: 'return', st}]
  }
  const out: Exit[] = []
  const queue: Array<{index: number; st: State}> = [{index: 0, st}]
  for (let item = queue.shift(); item; item = queue.shift()) {
    let cur = item.st
    let handedOff = false
    for (let k = item.index; k < rules.length; k++) {
      const cached = rules[k] as CachedRule
      const hint = cached.dstHint
      if (hint && addrIn(cur.dst, hint.matcher) === hint.negated) continue
      const parsed = parsedRule(ctx, chainName, cached)
      if (!parsed) continue
      const target = parsed.target
      if (!target) continue // comment-only rule: whether it matches or not, it does nothing
      const ev = evaluateRule(ctx, chainName, parsed, cur)
      if (ev.kind === 'no') continue
      if (ev.p < 1) {
        const rest = cloneState(cur, cur.probability * (1 - ev.p))
        if (rest.probability > EPSILON) queue.push({index: k + 1, st: rest})
        cur = cloneState(cur, cur.probability * ev.p)
        if (cur.probability <= EPSILON) {
          handedOff = true
          break
        }
      }
      cur.path.push({
        table: ctx.tableName,
        chain: chainName,
        ruleIndex: k,
        rule: cached.rule.text,
        ...(ev.p < 1 ? {probability: ev.p} : {}),
        ...(ev.assumptions.length > 0 ? {assumptions: ev.assumptions} : {}),
      })
      const name = target.name
      if (name === 'RETURN') {
        out.push({kind: 'return', st: cur})
        handedOff = true
        break
      }
      if (TERMINAL_TARGETS.has(name)) {
        out.push({kind: 'terminal', st: cur, target: name, rule: parsed})
        handedOff = true
        break
      }
      if (name === 'MARK') {
        cur.mark = applyMark(ctx, chainName, target.options, cur.mark)
        continue
      }
      if (ctx.table.chain(name) && !BUILTIN.has(name)) {
        if (stack.includes(name) || name === chainName) {
          ctx.notes.add(`jump loop: ${[...stack, chainName, name].join(' → ')}; the jump is not followed`)
          continue
        }
        if (stack.length + 1 >= MAX_DEPTH) {
          ctx.notes.add(`jump depth over ${MAX_DEPTH} at ${ctx.tableName} ${chainName} → ${name}; the jump is not followed`)
          continue
        }
        const subs = runChain(ctx, name, cur, [...stack, chainName])
        for (const s of subs) {
          if (s.kind === 'terminal') out.push(s)
          else if (target.goto) out.push(s)
          else queue.push({index: k + 1, st: s.st})
        }
        handedOff = true
        break
      }
      if (!NON_TERMINATING_TARGETS.has(name)) {
        ctx.notes.add(`${ctx.tableName} ${chainName} rule ${k + 1} jumps to ${name}, which is neither a user chain of the ${ctx.tableName} table nor a known target; treated as a no-op`)
      }
    }
    if (!handedOff) out.push({kind: 'return', st: cur})
  }
  return out
}

const TERMINAL_TARGETS: ReadonlySet<string> = new Set(['ACCEPT', 'DROP', 'REJECT', 'DNAT', 'REDIRECT', 'MASQUERADE', 'SNAT', 'NETMAP', 'QUEUE', 'NFQUEUE'])
const NON_TERMINATING_TARGETS: ReadonlySet<string> = new Set(['LOG', 'NFLOG', 'ULOG', 'TRACE', 'CONNMARK', 'AUDIT', 'CT', 'NOTRACK', 'CHECKSUM', 'TCPMSS'])

function parseNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^(0x[0-9a-fA-F]+|\d+)$/.test(text)) return undefined
  return Number(text) >>> 0
}

/** `value[/mask]` with mask defaulting to all ones. */
function parseValueMask(text: string | undefined): {value: number; mask: number} | undefined {
  if (text === undefined) return undefined
  const [v, m] = text.split('/')
  const value = parseNumber(v)
  const mask = m === undefined ? 0xffffffff : parseNumber(m)
  if (value === undefined || mask === undefined) return undefined
  return {value, mask}
}

function applyMark(ctx: Ctx, chain: string, options: readonly string[], mark: number): number {
  const xmark = parseValueMask(optionValue(options, '--set-xmark'))
  if (xmark) return ((mark & ~xmark.mask) ^ xmark.value) >>> 0
  const set = parseValueMask(optionValue(options, '--set-mark'))
  if (set) return ((mark & ~set.mask) | set.value) >>> 0
  const or = parseNumber(optionValue(options, '--or-mark'))
  if (or !== undefined) return (mark | or) >>> 0
  const and = parseNumber(optionValue(options, '--and-mark'))
  if (and !== undefined) return (mark & and) >>> 0
  const xor = parseNumber(optionValue(options, '--xor-mark'))
  if (xor !== undefined) return (mark ^ xor) >>> 0
  ctx.notes.add(`MARK ${options.join(' ')} in ${ctx.tableName} ${chain} is not understood; the mark is left unchanged`)
  return mark
}

// ---------------------------------------------------------------------------------------------------------------
// Matches

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

function addrMatcher(ctx: Ctx, text: string): AddrMatcher | undefined {
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
function evaluateRule(ctx: Ctx, chain: string, rule: ParsedRule, st: State): Eval {
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

// ---------------------------------------------------------------------------------------------------------------
// Phases

/** The DNAT target's first address and port (`ip`, `ip:port`, `[ip6]:port`, ranges `a-b:p-q`). */
function parseNatDestination(text: string, family: IpFamily, dport: number): {addr: Addr; port: number} | undefined {
  let host: string
  let port: string | undefined
  const b = /^\[([^\]]+)\](?::(.+))?$/.exec(text)
  if (b) {
    host = b[1] as string
    port = b[2]
  } else if (family === 'ipv6') host = text
  else {
    const c = text.indexOf(':')
    host = c === -1 ? text : text.slice(0, c)
    port = c === -1 ? undefined : text.slice(c + 1)
  }
  const addr = toAddr(host.split('-')[0] ?? '')
  if (!addr) return undefined
  const p = port === undefined ? dport : Number(port.split('-')[0])
  if (!Number.isInteger(p) || p < 0 || p > 65535) return undefined
  return {addr, port: p}
}

function natPhase(ctx: Ctx, chain: Hook, st: State): State[] {
  const out: State[] = []
  for (const e of runChain(ctx, chain, st, [])) {
    const s = e.st
    if (e.kind === 'terminal') {
      if (e.target === 'DNAT' || e.target === 'REDIRECT') {
        let to: {addr: Addr; port: number} | undefined
        if (e.target === 'DNAT') {
          const text = optionValue(e.rule.target?.options ?? [], '--to-destination')
          to = text === undefined ? undefined : parseNatDestination(text, ctx.family, s.dport)
        } else {
          const ports = optionValue(e.rule.target?.options ?? [], '--to-ports')
          const addr = chain === 'OUTPUT' ? toAddr(ctx.family === 'ipv4' ? '127.0.0.1' : '::1') : ctx.local.map(matcherHost).find((a) => a !== undefined)
          const port = ports === undefined ? s.dport : Number(ports.split('-')[0])
          to = addr ? {addr, port} : undefined
        }
        if (!to) ctx.notes.add(`${e.target} without a usable destination in nat ${chain}; the destination is left unchanged`)
        else {
          s.dst = to.addr
          s.dport = to.port
          s.dnat = joinHostPort(formatAddr(to.addr), to.port)
          s.ctDnat = true
        }
      } else if (e.target === 'DROP' || e.target === 'REJECT') {
        s.verdict = e.target
        s.done = true
      }
    }
    out.push(s)
  }
  return out
}

function matcherHost(m: AddrMatcher): Addr | undefined {
  return m.host ? {family: m.family, words: m.net} : undefined
}

function filterPhase(ctx: Ctx, chain: Hook, st: State): State[] {
  const policy = ctx.table.chain(chain)?.policy ?? undefined
  const out: State[] = []
  for (const e of runChain(ctx, chain, st, [])) {
    const s = e.st
    if (e.kind === 'terminal' && (e.target === 'DROP' || e.target === 'REJECT')) {
      s.verdict = e.target
      s.done = true
    } else if (e.kind === 'terminal' && e.target === 'ACCEPT') {
      delete s.policy
      s.verdict = 'ACCEPT'
    } else if (e.kind === 'terminal') {
      ctx.notes.add(`filter ${chain}: ${e.target} is not a filter verdict; the branch is left undecided`)
    } else if (s.verdict === 'no-rule' && policy) s.policy = policy
    out.push(s)
  }
  return out
}

function postroutingPhase(ctx: Ctx, st: State): State[] {
  return runChain(ctx, 'POSTROUTING', st, []).map((e) => {
    if (e.kind === 'terminal' && (e.target === 'MASQUERADE' || e.target === 'SNAT')) e.st.masquerade = true
    return e.st
  })
}

/**
 * Traces a new connection (first packet, conntrack state NEW) through the dump. Every branch of a `-m statistic`
 * fork is followed with its probability; `endpoints` sums them by outcome. Never throws for odd rules: what cannot
 * be evaluated is treated as not matching and named in `notes`.
 */
export function traceIptables(dump: IptablesDump, packet: TracePacket, node: TraceNode): TraceResult {
  const notes = new Set<string>()
  const dst = toAddr(packet.dst)
  if (!dst) throw new RangeError(`trace destination ${packet.dst} is not an IP address`)
  const family = dst.family
  const local = node.localAddresses
    .map((a) => parseAddrMatcher(a.includes('/') ? (a.split('/')[0] as string) : a))
    .filter((m): m is AddrMatcher => m !== undefined && m.family === family)
  if (dump.family !== family) notes.add(`the dump is ${dump.family} but the destination is ${family}: no address rule can match`)
  const srcIsLocalPod = packet.srcIsLocalPod ?? packet.from === 'pod'
  let src = packet.src === undefined ? undefined : toAddr(packet.src)
  if (packet.src !== undefined && !src) throw new RangeError(`trace source ${packet.src} is not an IP address`)
  if (!src && packet.from === 'host') {
    // The kernel picks the source: loopback for a loopback destination, else the node's address.
    src = isLoopbackAddr(dst) ? dst : (local.map(matcherHost).find((a) => a !== undefined && !isLoopbackAddr(a)) ?? toAddr(family === 'ipv4' ? '127.0.0.1' : '::1'))
    if (src) notes.add(`source address taken to be ${formatAddr(src)} (host traffic)`)
  }
  const cache = new Map<string, CachedRule[]>()
  const addrCache = new Map<string, AddrMatcher | null>()
  const nat = findTable(dump, 'nat')
  const filter = findTable(dump, 'filter')
  const ctxFor = (table: IptablesTable, tableName: 'nat' | 'filter', hook: Hook): Ctx => ({
    table,
    tableName,
    hook,
    packet,
    src,
    srcIsLocalPod,
    podInterface: node.podInterface,
    family,
    local,
    notes,
    cache,
    addrCache,
    assumed: [],
  })
  const entryChain = packet.from === 'host' ? 'OUTPUT' : 'PREROUTING'
  let states: State[] = [{probability: 1, mark: 0, path: [], dst, dport: packet.dport, ctDnat: false, masquerade: false, verdict: 'no-rule', done: false}]

  const phase = (f: (st: State) => State[]): void => {
    states = states.flatMap((st) => (st.done ? [st] : f(st)))
  }
  if (nat) phase((st) => natPhase(ctxFor(nat, 'nat', entryChain), entryChain, st))
  else notes.add('the dump has no nat table: nothing is DNATed')

  const isLocal = (st: State): boolean => isLoopbackAddr(st.dst) || local.some((m) => addrIn(st.dst, m))
  if (!filter) notes.add('the dump has no filter table: no filter verdict')
  const filterAt = (hook: Hook, when: (st: State) => boolean): void => {
    if (filter) phase((st) => (when(st) ? filterPhase(ctxFor(filter, 'filter', hook), hook, st) : [st]))
  }
  const postrouting = (when: (st: State) => boolean): void => {
    if (nat) phase((st) => (when(st) ? postroutingPhase(ctxFor(nat, 'nat', 'POSTROUTING'), st) : [st]))
  }
  if (packet.from === 'host') {
    // OUTPUT, POSTROUTING, then (looped back over lo) INPUT for a local destination.
    filterAt('OUTPUT', () => true)
    postrouting(() => true)
    filterAt('INPUT', isLocal)
  } else {
    filterAt('INPUT', isLocal)
    filterAt('FORWARD', (st) => !isLocal(st))
    postrouting((st) => !isLocal(st))
  }

  const branches: TraceBranch[] = states.map((st) => ({
    probability: st.probability,
    path: st.path,
    ...(st.dnat !== undefined ? {dnat: st.dnat} : {}),
    masquerade: st.masquerade,
    verdict: st.verdict,
    ...(st.verdict === 'no-rule' && st.policy !== undefined ? {policy: st.policy} : {}),
    outcome: st.verdict === 'DROP' || st.verdict === 'REJECT' ? st.verdict : (st.dnat ?? NO_DNAT),
  }))
  const endpoints: Record<string, number> = {}
  const masqueraded: Record<string, number> = {}
  for (const b of branches) {
    endpoints[b.outcome] = (endpoints[b.outcome] ?? 0) + b.probability
    if (b.masquerade) masqueraded[b.outcome] = (masqueraded[b.outcome] ?? 0) + b.probability
  }
  return {
    packet,
    ...(src ? {src: formatAddr(src)} : {}),
    entryChain,
    branches,
    endpoints,
    masqueraded,
    notes: [...notes],
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Comparison

export interface TraceComparison {
  same: boolean
  /** Outcomes the expected rules reach and the actual ones never do. */
  missing: Array<{outcome: string; expected: number}>
  /** Outcomes only the actual rules reach. */
  extra: Array<{outcome: string; actual: number}>
  /** Outcomes both reach with different probabilities. */
  changed: Array<{outcome: string; actual: number; expected: number}>
  /** Outcomes both reach where the masqueraded share differs (0 = never, 1 = always). */
  masquerade: Array<{outcome: string; actual: number; expected: number}>
}

const TOLERANCE = 1e-6

/** Compares two traces' outcome distributions and masquerade shares, within 1e-6 (statistic quantisation). */
export function compareTraces(actual: TraceResult, expected: TraceResult): TraceComparison {
  const c: TraceComparison = {same: true, missing: [], extra: [], changed: [], masquerade: []}
  const keys = [...new Set([...Object.keys(expected.endpoints), ...Object.keys(actual.endpoints)])].sort(compareOutcomes)
  for (const k of keys) {
    const a = actual.endpoints[k] ?? 0
    const e = expected.endpoints[k] ?? 0
    if (a <= TOLERANCE && e > TOLERANCE) c.missing.push({outcome: k, expected: e})
    else if (e <= TOLERANCE && a > TOLERANCE) c.extra.push({outcome: k, actual: a})
    else if (Math.abs(a - e) > TOLERANCE) c.changed.push({outcome: k, actual: a, expected: e})
    if (a > TOLERANCE && e > TOLERANCE && k !== 'DROP' && k !== 'REJECT') {
      const am = (actual.masqueraded[k] ?? 0) / a
      const em = (expected.masqueraded[k] ?? 0) / e
      if (Math.abs(am - em) > TOLERANCE) c.masquerade.push({outcome: k, actual: am, expected: em})
    }
  }
  c.same = c.missing.length + c.extra.length + c.changed.length + c.masquerade.length === 0
  return c
}

/** Endpoints first (in address order), then no-dnat, REJECT, DROP. */
export function compareOutcomes(a: string, b: string): number {
  const rank = (k: string): number => (k === NO_DNAT ? 1 : k === 'REJECT' ? 2 : k === 'DROP' ? 3 : 0)
  const d = rank(a) - rank(b)
  if (d !== 0) return d
  return a < b ? -1 : a > b ? 1 : 0
}
