// How a node's kube-proxy rules route each Service port, read from a parsed iptables-save dump: frontends in
// nat KUBE-SERVICES / KUBE-NODEPORTS → KUBE-SVC/SVL/EXT/FW → KUBE-SEP DNAT, with each endpoint's effective share
// of new connections, plus the REJECT/DROP verdicts in filter. Works without comments (large-cluster mode): the
// chain hash ties a port's chains together, comments only add names. Pure.
import {ParseError} from '../../errors.js'
import type {IptablesChain, IptablesDump, IptablesRule, IptablesTable} from './save.js'
import {findTable} from './save.js'
import {type ParsedRule, type RuleMatch, optionValue} from './rule.js'

export type FrontendKind = 'clusterIP' | 'externalIP' | 'loadBalancerIP' | 'external' | 'nodePort' | 'nodePortLocalhost'

export interface ServiceFrontend {
  kind: FrontendKind
  /** Destination address without its /32 or /128; null for node ports (any local address). */
  address: string | null
  port: number | null
  protocol: string | null
  table: 'nat' | 'filter'
  /** The chain holding the rule: KUBE-SERVICES, KUBE-NODEPORTS, KUBE-EXTERNAL-SERVICES, KUBE-PROXY-FIREWALL. */
  chain: string
  /** nat: the chain jumped to (KUBE-SVC-…, KUBE-EXT-…); filter: the verdict (REJECT, DROP). */
  target: string
  /** For filter verdicts, the reason from the comment: `has no endpoints`, `has no local endpoints`, ... */
  reason: string | null
  line: number
}

export interface ServiceEndpoint {
  /** KUBE-SEP-… chain. */
  chain: string
  /** DNAT --to-destination of the SEP chain (`ip:port`, `[ip6]:port`); from the comment if the chain is missing. */
  destination: string | null
  /** Effective share of new connections entering the policy chain (0..1), from the chained statistic rules. */
  probability: number
  /** Packets counted on the SEP's DNAT rule (iptables-save -c), else null. */
  packets: number | null
  /** False when the SEP chain is not declared in nat (traffic would hit a missing chain). */
  exists: boolean
  /** Line of the policy-chain rule that jumps to this endpoint. */
  line: number
}

export interface PolicyChainRouting {
  name: string
  endpoints: ServiceEndpoint[]
  /** Share of new connections that matches no endpoint rule (should be 0). */
  unrouted: number
  /** Condition of the KUBE-MARK-MASQ rule: `! -s 10.0.0.0/8`, `! -i cbr0`, `all`; null when there is none. */
  masquerade: string | null
  /** ClientIP affinity timeout from the `recent --rcheck --seconds` rules, else null. */
  affinitySeconds: number | null
}

export interface ExternalChainRouting {
  name: string
  /** Where traffic goes after the short-circuits: KUBE-SVC-… (Cluster) or KUBE-SVL-… (Local); null = dropped in filter. */
  finalTarget: string | null
  /** eTP=Local short-circuits for pod and node-local traffic to KUBE-SVC-… */
  shortCircuit: boolean
  masqueradeAll: boolean
}

export interface ServicePortRouting {
  /** The 16-character hash shared by the port's KUBE-SVC/SVL/EXT/FW chains; null when only filter rules exist. */
  hash: string | null
  /** Service-port name `namespace/name[:port]` from comments; null in large-cluster mode without other comments. */
  name: string | null
  protocol: string | null
  frontends: ServiceFrontend[]
  cluster: PolicyChainRouting | null
  local: PolicyChainRouting | null
  external: ExternalChainRouting | null
  firewall: {name: string; allowedSources: string[]} | null
  healthCheckNodePort: number | null
  /** Inconsistencies found while walking, e.g. a jump to an undeclared chain. */
  problems: string[]
}

export interface ServiceAnalysis {
  family: IptablesDump['family']
  servicePorts: ServicePortRouting[]
  /** The `-j KUBE-NODEPORTS` rule(s) at the end of nat KUBE-SERVICES, as saved (without `-A KUBE-SERVICES`). */
  nodePortsJumps: string[]
  /** KUBE-SVC/SVL/EXT/FW/SEP chains that no frontend or policy chain reaches (stale, or partially synced). */
  unreferencedChains: string[]
  problems: string[]
}

const SERVICE_CHAIN = /^KUBE-(SVC|SVL|EXT|FW|XLB)-([A-Z0-9]{16})$/
const FRONTEND_SUFFIX = / (cluster IP|external IP|loadbalancer IP)$/
const FILTER_REASON = / (has no endpoints|has no local endpoints|traffic not accepted by KUBE-FW-[A-Z0-9]{16}|health check node port)$/

interface Decoded {
  rule: IptablesRule
  p: ParsedRule
}

/** Walks the nat and filter tables of `dump`. Rules that cannot be decoded are reported in `problems`. */
export function analyzeServices(dump: IptablesDump): ServiceAnalysis {
  const analysis: ServiceAnalysis = {family: dump.family, servicePorts: [], nodePortsJumps: [], unreferencedChains: [], problems: []}
  const nat = findTable(dump, 'nat')
  const filter = findTable(dump, 'filter')
  const byHash = new Map<string, ServicePortRouting>()
  const reached = new Set<string>()

  const decode = (rule: IptablesRule): Decoded | null => {
    try {
      return {rule, p: rule.parsed}
    } catch (err) {
      if (!(err instanceof ParseError)) throw err
      analysis.problems.push(`line ${rule.line}: cannot decode rule in ${rule.chain}: ${err.message}`)
      return null
    }
  }
  const entryFor = (hash: string): ServicePortRouting => {
    let e = byHash.get(hash)
    if (!e) {
      e = emptyEntry(hash)
      byHash.set(hash, e)
      analysis.servicePorts.push(e)
    }
    return e
  }

  if (nat) {
    for (const rule of nat.chain('KUBE-SERVICES')?.eachRule() ?? []) {
      const d = decode(rule)
      if (!d?.p.target) continue
      if (d.p.target.name === 'KUBE-NODEPORTS') {
        analysis.nodePortsJumps.push(rule.text.slice(rule.text.indexOf(' ', 3) + 1))
        continue
      }
      const m = SERVICE_CHAIN.exec(d.p.target.name)
      if (!m) continue
      const e = entryFor(m[2] as string)
      const comment = commentOf(d.p)
      const suffix = comment ? FRONTEND_SUFFIX.exec(comment) : null
      if (comment && suffix) e.name ??= comment.slice(0, suffix.index)
      let kind: FrontendKind
      if (m[1] === 'SVC' || m[1] === 'SVL') kind = 'clusterIP'
      else if (m[1] === 'FW' || suffix?.[1] === 'loadbalancer IP') kind = 'loadBalancerIP'
      else if (suffix?.[1] === 'external IP') kind = 'externalIP'
      else kind = 'external'
      e.frontends.push(frontend(d, kind, 'nat', d.p.target.name, null))
    }
    for (const rule of nat.chain('KUBE-NODEPORTS')?.eachRule() ?? []) {
      const d = decode(rule)
      if (!d?.p.target) continue
      const m = SERVICE_CHAIN.exec(d.p.target.name)
      if (!m) continue
      const e = entryFor(m[2] as string)
      const comment = commentOf(d.p)
      if (comment && !comment.includes(' ')) e.name ??= comment
      const localhost = d.p.destination !== null && !d.p.destination.negated && d.p.destination.value.startsWith('127.')
      e.frontends.push(frontend(d, localhost ? 'nodePortLocalhost' : 'nodePort', 'nat', d.p.target.name, null))
    }
    for (const e of analysis.servicePorts) resolveChains(e, nat, decode, reached)
    for (const chain of nat.chains) {
      if ((SERVICE_CHAIN.test(chain.name) || chain.name.startsWith('KUBE-SEP-')) && !reached.has(chain.name)) {
        analysis.unreferencedChains.push(chain.name)
      }
    }
  }

  if (filter) attachFilterVerdicts(filter, analysis, decode)

  analysis.servicePorts.sort(
    (a, b) =>
      cmp(a.name === null ? 1 : 0, b.name === null ? 1 : 0) ||
      cmp(a.name ?? '', b.name ?? '') ||
      cmp(a.protocol ?? '', b.protocol ?? '') ||
      cmp(a.hash ?? '', b.hash ?? ''),
  )
  return analysis
}

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function emptyEntry(hash: string | null): ServicePortRouting {
  return {
    hash,
    name: null,
    protocol: null,
    frontends: [],
    cluster: null,
    local: null,
    external: null,
    firewall: null,
    healthCheckNodePort: null,
    problems: [],
  }
}

function commentOf(p: ParsedRule): string | null {
  for (const m of p.matches) if (m.name === 'comment') return optionValue(m.options, '--comment') ?? null
  return null
}

function portMatch(p: ParsedRule): RuleMatch | undefined {
  return p.matches.find((m) => m.name === 'tcp' || m.name === 'udp' || m.name === 'sctp')
}

function stripHostPrefix(addr: string): string {
  return addr.endsWith('/32') || addr.endsWith('/128') ? addr.slice(0, addr.lastIndexOf('/')) : addr
}

function frontend(d: Decoded, kind: FrontendKind, table: 'nat' | 'filter', target: string, reason: string | null): ServiceFrontend {
  const dport = portMatch(d.p) ? optionValue((portMatch(d.p) as RuleMatch).options, '--dport') : undefined
  const dst = d.p.destination && !d.p.destination.negated ? stripHostPrefix(d.p.destination.value) : null
  return {
    kind,
    address: kind === 'nodePort' || kind === 'nodePortLocalhost' ? null : dst,
    port: dport !== undefined && /^\d+$/.test(dport) ? Number(dport) : null,
    protocol: d.p.protocol && !d.p.protocol.negated ? d.p.protocol.value : null,
    table,
    chain: d.rule.chain,
    target,
    reason,
    line: d.rule.line,
  }
}

type Decode = (rule: IptablesRule) => Decoded | null

function resolveChains(e: ServicePortRouting, nat: IptablesTable, decode: Decode, reached: Set<string>): void {
  e.protocol = e.frontends.find((f) => f.protocol !== null)?.protocol ?? null
  const h = e.hash as string
  const jumped = new Set(e.frontends.map((f) => f.target))
  const chainOrProblem = (name: string): IptablesChain | null => {
    const c = nat.chain(name)
    if (c) reached.add(name)
    else if (jumped.has(name)) e.problems.push(`jump to ${name}, which nat does not declare`)
    return c ?? null
  }

  const fw = chainOrProblem(`KUBE-FW-${h}`)
  if (fw) {
    const allowed: string[] = []
    for (const rule of fw.eachRule()) {
      const d = decode(rule)
      if (d?.p.target && d.p.source && !d.p.source.negated) {
        allowed.push(d.p.source.value)
        jumped.add(d.p.target.name)
      }
    }
    e.firewall = {name: fw.name, allowedSources: allowed}
  }
  const ext = chainOrProblem(`KUBE-EXT-${h}`) ?? chainOrProblem(`KUBE-XLB-${h}`)
  if (ext) {
    const r: ExternalChainRouting = {name: ext.name, finalTarget: null, shortCircuit: false, masqueradeAll: false}
    for (const rule of ext.eachRule()) {
      const d = decode(rule)
      if (!d?.p.target) continue
      const conditional = d.p.source !== null || d.p.inInterface !== null || d.p.matches.some((m) => m.name !== 'comment')
      if (d.p.target.name === 'KUBE-MARK-MASQ') {
        if (!conditional) r.masqueradeAll = true
      } else if (conditional) {
        r.shortCircuit = true
        jumped.add(d.p.target.name)
      } else {
        r.finalTarget = d.p.target.name
        jumped.add(d.p.target.name)
      }
    }
    e.external = r
  }
  const svc = chainOrProblem(`KUBE-SVC-${h}`)
  if (svc) e.cluster = policyChain(svc, nat, decode, reached, e)
  const svl = chainOrProblem(`KUBE-SVL-${h}`)
  if (svl) e.local = policyChain(svl, nat, decode, reached, e)
  for (const t of jumped) {
    if (SERVICE_CHAIN.test(t) && !nat.chain(t) && !e.problems.some((p) => p.includes(t))) {
      e.problems.push(`jump to ${t}, which nat does not declare`)
    }
  }
}

const ENDPOINT_COMMENT = / -> (\S+)$/

function policyChain(chain: IptablesChain, nat: IptablesTable, decode: Decode, reached: Set<string>, e: ServicePortRouting): PolicyChainRouting {
  const out: PolicyChainRouting = {name: chain.name, endpoints: [], unrouted: 1, masquerade: null, affinitySeconds: null}
  let remaining = 1
  for (const rule of chain.eachRule()) {
    const d = decode(rule)
    if (!d?.p.target) continue
    const t = d.p.target.name
    if (t === 'KUBE-MARK-MASQ') {
      out.masquerade = masqueradeCondition(d.p)
      continue
    }
    if (!t.startsWith('KUBE-SEP-')) continue
    const comment = commentOf(d.p)
    if (comment) {
      const m = ENDPOINT_COMMENT.exec(comment)
      if (m) e.name ??= comment.slice(0, m.index)
    }
    const recent = d.p.matches.find((m) => m.name === 'recent')
    if (recent && recent.options.includes('--rcheck')) {
      const s = optionValue(recent.options, '--seconds')
      if (s !== undefined) out.affinitySeconds = Number(s)
      continue
    }
    const stat = d.p.matches.find((m) => m.name === 'statistic' && optionValue(m.options, '--mode') === 'random')
    const p = stat ? Number(optionValue(stat.options, '--probability') ?? '1') : 1
    const share = remaining * (Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 0)
    remaining -= share
    out.endpoints.push(endpoint(t, share, d, comment, nat, decode, reached, e))
  }
  // Quantisation leaves ~1e-10 behind after the last unconditional rule; anything larger is a real gap.
  out.unrouted = remaining < 1e-6 ? 0 : remaining
  if (out.unrouted > 0) {
    e.problems.push(`${chain.name}: ${(out.unrouted * 100).toFixed(1)}% of new connections match no endpoint rule`)
  }
  return out
}

function masqueradeCondition(p: ParsedRule): string {
  const parts: string[] = []
  if (p.source) parts.push(`${p.source.negated ? '! ' : ''}-s ${p.source.value}`)
  if (p.inInterface) parts.push(`${p.inInterface.negated ? '! ' : ''}-i ${p.inInterface.value}`)
  return parts.length > 0 ? parts.join(' ') : 'all'
}

function endpoint(
  sep: string,
  share: number,
  d: Decoded,
  comment: string | null,
  nat: IptablesTable,
  decode: Decode,
  reached: Set<string>,
  e: ServicePortRouting,
): ServiceEndpoint {
  const chain = nat.chain(sep)
  const fromComment = comment ? (ENDPOINT_COMMENT.exec(comment)?.[1] ?? null) : null
  const ep: ServiceEndpoint = {chain: sep, destination: fromComment, probability: share, packets: null, exists: chain !== undefined, line: d.rule.line}
  if (!chain) {
    e.problems.push(`${d.rule.chain} jumps to ${sep}, which nat does not declare`)
    return ep
  }
  reached.add(sep)
  let dnat = false
  for (const rule of chain.eachRule()) {
    if (!rule.text.includes(' -j DNAT')) continue
    const r = decode(rule)
    if (r?.p.target?.name !== 'DNAT') continue
    const to = optionValue(r.p.target.options, '--to-destination')
    if (to !== undefined) ep.destination = to
    ep.packets = rule.counters ? rule.counters.packets : null
    dnat = true
  }
  if (!dnat) e.problems.push(`${sep} has no DNAT rule`)
  return ep
}

function attachFilterVerdicts(filter: IptablesTable, analysis: ServiceAnalysis, decode: Decode): void {
  // Indexes over the nat-derived entries, so large dumps with many REJECT rules stay linear.
  const names = new Map<string, ServicePortRouting[]>()
  const addresses = new Map<string, ServicePortRouting>()
  const hashes = new Map<string, ServicePortRouting>()
  const index = (e: ServicePortRouting): void => {
    if (e.name !== null) names.set(e.name, [...(names.get(e.name) ?? []), e])
    if (e.hash !== null) hashes.set(e.hash, e)
    for (const g of e.frontends) if (g.table === 'nat') addresses.set(`${g.address}|${g.port}|${g.protocol}`, e)
  }
  for (const e of analysis.servicePorts) index(e)
  const byName = (name: string, protocol: string | null): ServicePortRouting | undefined =>
    names.get(name)?.find((e) => protocol === null || e.protocol === null || e.protocol === protocol)
  const byAddress = (f: ServiceFrontend): ServicePortRouting | undefined => addresses.get(`${f.address}|${f.port}|${f.protocol}`)
  const create = (name: string | null, protocol: string | null): ServicePortRouting => {
    const e = emptyEntry(null)
    e.name = name
    e.protocol = protocol
    analysis.servicePorts.push(e)
    index(e)
    return e
  }
  for (const chainName of ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-PROXY-FIREWALL', 'KUBE-NODEPORTS']) {
    for (const rule of filter.chain(chainName)?.eachRule() ?? []) {
      const d = decode(rule)
      if (!d?.p.target) continue
      const verdict = d.p.target.name
      const comment = commentOf(d.p)
      const rm = comment ? FILTER_REASON.exec(comment) : null
      const name = comment && rm ? comment.slice(0, rm.index) : null
      const reason = rm ? (rm[1] as string) : null
      if (chainName === 'KUBE-NODEPORTS') {
        if (verdict !== 'ACCEPT' || reason !== 'health check node port' || name === null) continue
        const dport = portMatch(d.p) ? optionValue((portMatch(d.p) as RuleMatch).options, '--dport') : undefined
        const e = byName(name, null) ?? create(name, null)
        e.healthCheckNodePort = dport !== undefined ? Number(dport) : null
        continue
      }
      if (verdict !== 'REJECT' && verdict !== 'DROP') continue
      const isNodePort = d.p.destination === null && d.p.matches.some((m) => m.name === 'addrtype')
      const kind: FrontendKind =
        chainName === 'KUBE-SERVICES'
          ? 'clusterIP'
          : chainName === 'KUBE-PROXY-FIREWALL'
            ? 'loadBalancerIP'
            : isNodePort
              ? 'nodePort'
              : 'external'
      const f = frontend(d, kind, 'filter', verdict, reason)
      const fwHash = reason?.startsWith('traffic not accepted by KUBE-FW-') ? reason.slice(-16) : null
      const e = (fwHash ? hashes.get(fwHash) : undefined) ?? (name ? byName(name, f.protocol) : undefined) ?? byAddress(f) ?? create(name, f.protocol)
      if (f.kind === 'external') {
        const natTwin = e.frontends.find((g) => g.table === 'nat' && g.address === f.address && g.port === f.port)
        if (natTwin) f.kind = natTwin.kind
      }
      e.frontends.push(f)
    }
  }
}
