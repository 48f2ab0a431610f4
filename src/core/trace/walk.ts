// Follows one new connection through a node's iptables rules: nat PREROUTING (or OUTPUT for host traffic) to the DNAT,
// then the filter verdict and the nat POSTROUTING masquerade decision. `-m statistic` rules fork the trace, so the
// result is a distribution over endpoints. Semantics follow kube-proxy's test tracer (pkg/proxy/iptables/
// proxier_test.go tracePacket) but walk the real built-in chains and carry the packet mark instead of assuming.
import {type Addr, type AddrMatcher, addrIn, formatAddr, isLoopbackAddr, matcherHost, parseAddrMatcher, toAddr} from '../net/addr.js'
import {type IpFamily, joinHostPort} from '../net/ip.js'
import {type ParsedRule, optionValue} from '../iptables/rule.js'
import type {IptablesDump} from '../iptables/save.js'
import {type CachedRule, type Ctx, type Exit, type Hook, type State} from './context.js'
import {addrMatcher, evaluateRule, parseNumber, parseValueMask} from './matches.js'
import {type TraceRules, type TraceTable, dumpTraceRules} from './rules.js'
import {NO_DNAT, type TraceBranch, type TraceNode, type TracePacket, type TraceResult} from './types.js'

const MAX_DEPTH = 64
const EPSILON = 1e-12

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
export function traceIptables(dump: IptablesDump | TraceRules, packet: TracePacket, node: TraceNode): TraceResult {
  const rules = 'tables' in dump ? dumpTraceRules(dump) : dump
  const notes = new Set<string>()
  const dst = toAddr(packet.dst)
  if (!dst) throw new RangeError(`trace destination ${packet.dst} is not an IP address`)
  const family = dst.family
  const local = node.localAddresses
    .map((a) => parseAddrMatcher(a.includes('/') ? (a.split('/')[0] as string) : a))
    .filter((m): m is AddrMatcher => m !== undefined && m.family === family)
  if (rules.family !== family) notes.add(`the dump is ${rules.family} but the destination is ${family}: no address rule can match`)
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
  const nat = rules.table('nat')
  const filter = rules.table('filter')
  const ctxFor = (table: TraceTable, tableName: 'nat' | 'filter', hook: Hook): Ctx => ({
    table,
    tableName,
    hook,
    packet,
    src,
    srcIsLocalPod,
    podInterface: node.podInterface,
    routeDevice: node.routeDevice,
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
