// Diff of kube-proxy's IPVS-mode state: expected (from the embedded IPVS proxier) vs what the node shows in
// `ipvsadm -Sn`/`-Ln`, `ip addr` (kube-ipvs0), `ipset save`/`list` and `iptables-save`. Everything is compared as
// sets: ipvsadm's listing order is not meaningful (its address sort is not even numeric), nor is kube-proxy's.
//
// Only the proxier's own family is compared (each kube-proxy instance touches only its family), and virtual servers
// in ipvs.excludeCIDRs are left alone, as kube-proxy's cleanLegacyService does. Each input is optional: a missing
// one is simply not compared. A weight-0 real server that is not expected is draining (kube-proxy's graceful
// termination) and accepted; one that is expected at weight 1 is a wrong weight.
import type {IptablesDump} from '../parse/iptables-save.js'
import {entryKey, type IpsetTable} from '../parse/ipset.js'
import type {IpvsTable, IpvsVirtualServer} from '../parse/ipvsadm.js'
import {formatAddrPort} from '../parse/ipvsadm.js'
import {findInterface, type LinkTable} from '../parse/links.js'
import {CanonicalRuleCache} from '../iptables/canonical-cache.js'
import {type IPFamily, parseIPSloppy} from '../proxier/ip.js'
import {inExcludeCIDRs} from '../proxier/ipvs/config.js'
import type {ExpectedVirtualServer, IpvsState} from '../proxier/ipvs/generate.js'
import type {IptablesTableName} from '../proxier/iptables/ruleset.js'
import {multisetDiff} from './iptables.js'
import {viewFromDump} from './iptables-view.js'

export type IpvsDifference =
  | {kind: 'missing-virtual-server'; vs: string; expected: ExpectedVirtualServer; group: string}
  | {kind: 'stale-virtual-server'; vs: string; realServers: string[]}
  | {kind: 'missing-real-server'; vs: string; rs: string; group: string}
  | {kind: 'extra-real-server'; vs: string; rs: string; weight?: number; group?: string}
  | {kind: 'wrong-weight'; vs: string; rs: string; expected: number; actual: number; group: string}
  | {kind: 'wrong-scheduler'; vs: string; expected: string; actual: string; group: string}
  | {kind: 'wrong-persistence'; vs: string; expected?: number; actual?: number; group: string}
  | {kind: 'missing-dummy-interface'; addresses: string[]}
  | {kind: 'missing-address'; address: string; group?: string}
  | {kind: 'stale-address'; address: string}
  | {kind: 'missing-ipset'; set: string; entries: string[]}
  | {kind: 'missing-ipset-entry'; set: string; entry: string; group?: string}
  | {kind: 'stale-ipset-entry'; set: string; entry: string}
  | {kind: 'missing-iptables-chain'; table: IptablesTableName; chain: string; expectedRules: string[]}
  | {kind: 'missing-iptables-rule'; table: IptablesTableName; chain: string; rule: string}
  | {kind: 'extra-iptables-rule'; table: IptablesTableName; chain: string; rule: string}
  | {kind: 'misordered-iptables-chain'; table: IptablesTableName; chain: string; rules: string[]}
  | {kind: 'missing-builtin-jump'; table: IptablesTableName; chain: string; rule: string}

/** The node's state; each part is optional. */
export interface IpvsActual {
  ipvs?: IpvsTable
  /** `ip addr` of the node (at least kube-ipvs0). */
  links?: LinkTable
  ipsets?: IpsetTable
  /** iptables-save (or ip6tables-save, matching the family). */
  iptables?: IptablesDump
}

export interface IpvsDiffOptions {
  /** ipvs.excludeCIDRs: virtual servers there are never stale. */
  excludeCIDRs?: readonly string[]
}

/** Chains whose rule order kube-proxy does not define (appended in service-map order). */
const UNORDERED = new Set(['filter/KUBE-IPVS-OUT-FILTER'])

/** A real server as the diff names it: `10.0.2.9:8080`, `[fd00::9]:8080` (canonical IPv6 text). */
export function rsKey(address: string, port: number, family: IPFamily): string {
  // ipvsadm and the proxier print IPv4 canonically already; only IPv6 text can differ (zeros, case).
  return family === 'ipv4' ? `${address}:${port}` : formatAddrPort(parseIPSloppy(address)?.text ?? address, port, family)
}

function schedulerText(scheduler: string | undefined, flags: readonly string[]): string {
  const f = [...flags].sort()
  return f.length > 0 ? `${scheduler ?? '?'} (${f.join(',')})` : (scheduler ?? '?')
}

/**
 * Compares the expected state with the node's. Deterministic: virtual-server differences in expected order, then
 * stale ones in input order, then kube-ipvs0, ipsets (kube-proxy's set order) and iptables (nat, then filter).
 */
export function diffIpvs(expected: IpvsState, actual: IpvsActual, options: IpvsDiffOptions = {}): IpvsDifference[] {
  const out: IpvsDifference[] = []
  const family = expected.family
  if (actual.ipvs) diffVirtualServers(out, expected, actual.ipvs, options)
  if (actual.links) diffDummy(out, expected, actual.links)
  if (actual.ipsets) diffIpsets(out, expected, actual.ipsets)
  if (actual.iptables) diffIptablesPart(out, expected, actual.iptables, family)
  return out
}

function diffVirtualServers(out: IpvsDifference[], expected: IpvsState, table: IpvsTable, options: IpvsDiffOptions): void {
  const family = expected.family
  const actual = new Map<string, IpvsVirtualServer>()
  for (const vs of table.virtualServers) {
    if (vs.protocol === 'fwmark' || vs.family !== family) continue
    // Canonical address text, so `[fd00:0::1]` and `[fd00::1]` match.
    const addr = parseIPSloppy(vs.address ?? '')?.text ?? vs.address ?? ''
    actual.set(`${vs.protocol.toUpperCase()} ${formatAddrPort(addr, vs.port ?? 0, family)}`, vs)
  }
  const seen = new Set<string>()
  for (const exp of expected.virtualServers) {
    const act = actual.get(exp.id)
    const group = exp.servicePort
    if (!act) {
      out.push({kind: 'missing-virtual-server', vs: exp.id, expected: exp, group})
      continue
    }
    seen.add(exp.id)
    if (act.scheduler !== undefined && (act.scheduler !== exp.scheduler || [...act.schedulerFlags].sort().join(',') !== [...exp.schedulerFlags].sort().join(','))) {
      out.push({kind: 'wrong-scheduler', vs: exp.id, expected: schedulerText(exp.scheduler, exp.schedulerFlags), actual: schedulerText(act.scheduler, act.schedulerFlags), group})
    }
    const actPersist = act.persistence?.timeoutSeconds
    if (act.scheduler !== undefined && actPersist !== exp.persistence) {
      out.push({kind: 'wrong-persistence', vs: exp.id, ...(exp.persistence !== undefined ? {expected: exp.persistence} : {}), ...(actPersist !== undefined ? {actual: actPersist} : {}), group})
    }
    const actRS = new Map(act.realServers.map((rs) => [rsKey(rs.address, rs.port, family), rs]))
    const expKeys = new Set<string>()
    for (const rs of exp.realServers) {
      const key = rsKey(rs.address, rs.port, family)
      expKeys.add(key)
      const a = actRS.get(key)
      if (!a) {
        out.push({kind: 'missing-real-server', vs: exp.id, rs: key, group})
        continue
      }
      if (a.weight !== undefined && a.weight !== rs.weight) out.push({kind: 'wrong-weight', vs: exp.id, rs: key, expected: rs.weight, actual: a.weight, group})
    }
    for (const [key, a] of actRS) {
      if (expKeys.has(key)) continue
      // Weight 0 on a real server kube-proxy no longer uses is its graceful termination (GracefulDeleteRS): it stays
      // until its connections end, then kube-proxy deletes it. Accepted, never required.
      if (a.weight === 0) continue
      out.push({kind: 'extra-real-server', vs: exp.id, rs: key, ...(a.weight !== undefined ? {weight: a.weight} : {}), group})
    }
  }
  const exclude = options.excludeCIDRs ?? []
  for (const [id, vs] of actual) {
    if (seen.has(id)) continue
    if (inExcludeCIDRs(vs.address ?? '', exclude, family)) continue
    out.push({kind: 'stale-virtual-server', vs: id, realServers: vs.realServers.map((rs) => `${rsKey(rs.address, rs.port, family)}${rs.weight !== undefined ? ` weight ${rs.weight}` : ''}`)})
  }
}

function diffDummy(out: IpvsDifference[], expected: IpvsState, links: LinkTable): void {
  const family = expected.family
  const groups = new Map<string, string>()
  for (const vs of expected.virtualServers) if (!groups.has(vs.address)) groups.set(vs.address, vs.servicePort)
  const dev = findInterface(links, 'kube-ipvs0')
  if (!dev) {
    if (expected.boundAddresses.length > 0) out.push({kind: 'missing-dummy-interface', addresses: [...expected.boundAddresses]})
    return
  }
  const actual = new Set<string>()
  for (const a of dev.addresses) {
    if (a.scope === 'link') continue
    const ip = parseIPSloppy(a.local)
    if (ip && ip.family === family) actual.add(ip.text)
  }
  const want = new Set(expected.boundAddresses)
  for (const address of expected.boundAddresses) {
    if (!actual.has(address)) {
      const group = groups.get(address)
      out.push({kind: 'missing-address', address, ...(group !== undefined ? {group} : {})})
    }
  }
  for (const address of actual) if (!want.has(address)) out.push({kind: 'stale-address', address})
}

function diffIpsets(out: IpvsDifference[], expected: IpvsState, table: IpsetTable): void {
  const actual = new Map(table.sets.map((s) => [s.name, s]))
  for (const set of expected.ipsets) {
    const act = actual.get(set.name)
    if (!act) {
      out.push({kind: 'missing-ipset', set: set.name, entries: [...set.entries]})
      continue
    }
    const want = new Map(set.entries.map((e) => [entryKey(e), e]))
    const have = new Map(act.members.map((m) => [entryKey(m.text), m.text]))
    for (const [key, entry] of want) {
      if (have.has(key)) continue
      const group = set.groups.get(entry)
      out.push({kind: 'missing-ipset-entry', set: set.name, entry, ...(group !== undefined ? {group} : {})})
    }
    for (const [key, entry] of have) if (!want.has(key)) out.push({kind: 'stale-ipset-entry', set: set.name, entry})
  }
  // Other sets (another agent's, or the pre-SCTP-hash KUBE-NODE-PORT-SCTP) are not kube-proxy's current ones: left alone.
}

/** The expected IPVS-mode iptables rules as canonical iptables-save bodies: table → chain → rules. */
export function expectedIptablesView(expected: IpvsState): Map<IptablesTableName, Map<string, string[]>> {
  const canonical = new CanonicalRuleCache(expected.family)
  const view = new Map<IptablesTableName, Map<string, string[]>>()
  for (const table of ['nat', 'filter'] as const) {
    const chains = new Map<string, string[]>()
    for (const c of expected.iptables.chains[table]) chains.set(c, [])
    view.set(table, chains)
  }
  for (const r of expected.iptables.rules) view.get(r.table)!.get(r.chain)!.push(canonical.format(r.args))
  return view
}

function diffIptablesPart(out: IpvsDifference[], expected: IpvsState, dump: IptablesDump, family: IPFamily): void {
  const canonical = new CanonicalRuleCache(family)
  const actual = viewFromDump(dump)
  for (const [table, chains] of expectedIptablesView(expected)) {
    const act = actual.get(table)
    for (const [chain, rules] of chains) {
      const actRules = act?.get(chain)
      if (actRules === undefined) {
        out.push({kind: 'missing-iptables-chain', table, chain, expectedRules: rules})
        continue
      }
      const {missing, extra} = multisetDiff(rules, actRules)
      for (const rule of missing) out.push({kind: 'missing-iptables-rule', table, chain, rule})
      for (const rule of extra) out.push({kind: 'extra-iptables-rule', table, chain, rule})
      if (missing.length === 0 && extra.length === 0 && !UNORDERED.has(`${table}/${chain}`) && rules.join('\n') !== actRules.join('\n')) {
        out.push({kind: 'misordered-iptables-chain', table, chain, rules: [...actRules]})
      }
    }
  }
  for (const j of expected.iptables.builtinJumps) {
    const rule = canonical.format(j.args)
    if (!(actual.get(j.table)?.get(j.chain) ?? []).includes(rule)) out.push({kind: 'missing-builtin-jump', table: j.table, chain: j.chain, rule})
  }
}

const SAVE_BUILTINS: Record<IptablesTableName, readonly string[]> = {nat: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'], filter: ['INPUT', 'FORWARD', 'OUTPUT']}

/**
 * The expected IPVS-mode iptables state as `iptables-save` would print it after kube-proxy's sync: built-in chains
 * with only kube-proxy's jumps (inserted at the top, so in reverse list order), then its chains sorted by name.
 */
export function expectedIptablesSave(expected: IpvsState): string {
  const canonical = new CanonicalRuleCache(expected.family)
  const lines: string[] = []
  for (const [table, chains] of expectedIptablesView(expected)) {
    lines.push(`*${table}`)
    for (const b of SAVE_BUILTINS[table]) lines.push(`:${b} ACCEPT [0:0]`)
    const names = [...chains.keys()].sort()
    for (const c of names) lines.push(`:${c} - [0:0]`)
    const jumps = expected.iptables.builtinJumps.filter((j) => j.table === table).reverse()
    for (const b of SAVE_BUILTINS[table]) for (const j of jumps) if (j.chain === b) lines.push(`-A ${b} ${canonical.format(j.args)}`)
    for (const c of names) for (const r of chains.get(c)!) lines.push(`-A ${c} ${r}`)
    lines.push('COMMIT')
  }
  return `${lines.join('\n')}\n`
}
