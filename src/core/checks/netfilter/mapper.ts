// The one mapper from netfilter differences (the iptables, IPVS and nftables diffs) to finding drafts. The diffs
// return typed differences only; this says what each means to an operator. The iptables-syntax chain and rule
// shapes (missing/stale chain, missing/extra rule, wrong order, missing built-in jump) are worded once for the
// iptables diff and the iptables part of the IPVS diff; each check area maps a difference's kind to its check id.
import type {IptablesDifference} from '../../diff/iptables.js'
import type {IpvsDifference} from '../../diff/ipvs.js'
import type {NftDifference} from '../../diff/nftables.js'
import type {IPFamily} from '../../proxier/ip.js'
import type {CheckSpec, FindingDraft} from '../types.js'
import {clip, forGroup, NEVER_CLEANUP} from './drafts.js'

/** A difference from one of the netfilter diffs, with what its wording needs (the IP family or the nft table). */
export type NetfilterDifference =
  | {dataplane: 'iptables'; family: IPFamily; difference: IptablesDifference}
  | {dataplane: 'ipvs'; family: IPFamily; difference: IpvsDifference}
  | {dataplane: 'nftables'; table: string; difference: NftDifference}

/** A short human summary of a rule body: its comment and what it matches, e.g. `"ns/svc:p cluster IP" 10.96.0.1:80/tcp → KUBE-SVC-X`. */
export function ruleSummary(rule: string): string {
  const comment = /--comment (?:"((?:[^"\\]|\\.)*)"|(\S+))/.exec(rule)
  const dst = /(?:^|\s)-d (\S+)/.exec(rule)?.[1]?.replace(/\/(32|128)$/, '')
  const dport = /--dport (\d+)/.exec(rule)?.[1]
  const proto = /(?:^|\s)-p (\S+)/.exec(rule)?.[1]
  const target = /(?:^|\s)-[jg] (\S+)(?: --to-destination (\S+))?/.exec(rule)
  const parts: string[] = []
  if (comment) parts.push(`"${comment[1] ?? comment[2]}"`)
  const match = [dst, dport ? `:${dport}` : '', proto && (dst || dport) ? `/${proto}` : ''].join('')
  if (match) parts.push(match)
  if (target) parts.push(`→ ${target[2] ?? target[1]}`)
  return parts.join(' ')
}

// ---------------------------------------------------------------------------------------------------------------
// iptables-syntax chains and rules (the iptables diff, and the iptables part of the IPVS diff)

/** The chain and rule shapes both iptables-syntax diffs report. */
type ChainShape =
  | {shape: 'missing-chain'; table: string; chain: string; expectedRules: readonly string[]; group?: string}
  | {shape: 'missing-rule'; table: string; chain: string; rule: string}
  | {shape: 'extra-rule'; table: string; chain: string; rule: string}
  | {shape: 'misordered'; table: string; chain: string; detail: string; rules: readonly string[]; group?: string}
  | {shape: 'missing-builtin-jump'; table: string; chain: string; rule: string}

/** How one diff words what the shapes leave open. */
interface IptablesDialect {
  /** Before the table name: `ip6tables ` (iptables diff) or `IPv6 ` (IPVS diff) for IPv6, else nothing. */
  fam: string
  /** What a missing rule is called: `the rule <summary>`, or `a rule IPVS mode writes`. */
  missingRule: (rule: string) => string
  /** An extra rule: `a rule kube-proxy would not write: <summary>`, or `... kube-proxy's IPVS mode would not write`. */
  extraRule: (rule: string) => string
}

const IPTABLES_DIALECT = (family: IPFamily): IptablesDialect => ({
  fam: family === 'ipv6' ? 'ip6tables ' : '',
  missingRule: (rule) => `the rule ${ruleSummary(rule)}`,
  extraRule: (rule) => `a rule kube-proxy would not write: ${ruleSummary(rule)}`,
})

const IPVS_DIALECT = (family: IPFamily): IptablesDialect => ({
  fam: family === 'ipv6' ? 'IPv6 ' : '',
  missingRule: () => 'a rule IPVS mode writes',
  extraRule: () => "a rule kube-proxy's IPVS mode would not write",
})

function chainDraft(s: ChainShape, w: IptablesDialect): FindingDraft {
  const where = `${w.fam}${s.table}`
  switch (s.shape) {
    case 'missing-chain':
      return {
        message: `chain ${s.chain}${forGroup(s.group)} is missing from the ${where} table`,
        subject: {kind: 'chain', name: s.chain, in: s.table},
        evidence: clip(s.expectedRules.map((r) => `expected: -A ${s.chain} ${r}`)),
      }
    case 'missing-rule':
      return {message: `${s.chain} in ${where} lacks ${w.missingRule(s.rule)}`, subject: {kind: 'rule', name: `-A ${s.chain} ${s.rule}`, in: s.table}, evidence: [`expected: -A ${s.chain} ${s.rule}`]}
    case 'extra-rule':
      return {message: `${s.chain} in ${where} has ${w.extraRule(s.rule)}`, subject: {kind: 'rule', name: `-A ${s.chain} ${s.rule}`, in: s.table}, evidence: [`actual: -A ${s.chain} ${s.rule}`]}
    case 'misordered':
      return {
        message: `${s.chain} in ${where}${forGroup(s.group)}: ${s.detail}`,
        subject: {kind: 'chain', name: s.chain, in: s.table},
        evidence: clip(s.rules.map((r) => `actual: -A ${s.chain} ${r}`)),
      }
    case 'missing-builtin-jump':
      return {message: `built-in chain ${s.chain} in ${where} lacks kube-proxy's jump`, subject: {kind: 'rule', name: `-A ${s.chain} ${s.rule}`, in: s.table}, evidence: [`expected: -A ${s.chain} ${s.rule}`]}
  }
}

function iptablesDraft(d: IptablesDifference, family: IPFamily): FindingDraft {
  const w = IPTABLES_DIALECT(family)
  const where = `${w.fam}${d.table}`
  switch (d.kind) {
    case 'missing-chain':
      return chainDraft({shape: 'missing-chain', table: d.table, chain: d.chain, expectedRules: d.expectedRules, ...(d.group === undefined ? {} : {group: d.group})}, w)
    case 'stale-chain':
      return {
        message: `stale chain ${d.chain}${forGroup(d.group)} in the ${where} table: no current Service port or endpoint needs it`,
        subject: {kind: 'chain', name: d.chain, in: d.table},
        evidence: clip(d.actualRules.map((r) => `actual: -A ${d.chain} ${r}`)),
      }
    case 'missing-rule':
    case 'extra-rule':
    case 'missing-builtin-jump':
      return chainDraft({shape: d.kind, table: d.table, chain: d.chain, rule: d.rule}, w)
    case 'wrong-probability':
      return {
        message: `${d.chain}${forGroup(d.group)} picks an endpoint with the wrong probability`,
        subject: {kind: 'rule', name: `-A ${d.chain} ${d.actual}`, in: d.table},
        evidence: [`expected: -A ${d.chain} ${d.expected}`, `actual:   -A ${d.chain} ${d.actual}`],
      }
    case 'misordered':
      return chainDraft({shape: 'misordered', table: d.table, chain: d.chain, detail: d.detail, rules: d.rules, ...(d.group === undefined ? {} : {group: d.group})}, w)
    case 'undefined-jump':
      return {
        message: `${d.chain} in ${where} jumps to ${d.target}, which does not exist${forGroup(d.group)}`,
        subject: {kind: 'rule', name: `-A ${d.chain} ${d.rule}`, in: d.table},
        evidence: [`actual: -A ${d.chain} ${d.rule}`],
      }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// IPVS

const SAVE_FLAG: Record<string, string> = {TCP: '-t', UDP: '-u', SCTP: '--sctp-service'}

/** `TCP 10.96.0.1:443` → `-t 10.96.0.1:443` (the ipvsadm service option). */
function svcOption(vs: string): string {
  const [proto, addr] = vs.split(' ')
  return `${SAVE_FLAG[proto ?? ''] ?? '-t'} ${addr ?? ''}`
}

const KIND_TEXT: Record<string, string> = {'cluster-ip': 'cluster IP', 'external-ip': 'external IP', 'load-balancer': 'load-balancer IP', 'node-port': 'NodePort'}

function ipvsDraft(d: IpvsDifference, family: IPFamily): FindingDraft {
  const w = IPVS_DIALECT(family)
  const fam = w.fam
  const len = family === 'ipv6' ? 128 : 32
  switch (d.kind) {
    case 'missing-virtual-server':
      return {
        message: `${fam}virtual server ${d.vs} (${KIND_TEXT[d.expected.kind]} of ${d.group}) is missing`,
        subject: {kind: 'virtual-server', name: d.vs},
        evidence: clip([
          `expected: -A ${svcOption(d.vs)} -s ${d.expected.scheduler}${d.expected.persistence !== undefined ? ` -p ${d.expected.persistence}` : ''}`,
          ...d.expected.realServers.map((rs) => `expected: -a ${svcOption(d.vs)} -r ${rs.address.includes(':') ? `[${rs.address}]` : rs.address}:${rs.port} -m -w ${rs.weight}`),
        ]),
      }
    case 'stale-virtual-server':
      return {
        message: `stale ${fam}virtual server ${d.vs}: no current Service port needs it`,
        subject: {kind: 'virtual-server', name: d.vs},
        evidence: clip([`actual: ${d.vs}`, ...d.realServers.map((rs) => `actual:   -> ${rs}`)]),
      }
    case 'missing-real-server':
      return {message: `virtual server ${d.vs} (${d.group}) lacks real server ${d.rs}`, subject: {kind: 'virtual-server', name: d.vs}, evidence: [`expected: -a ${svcOption(d.vs)} -r ${d.rs} -m -w 1`]}
    case 'extra-real-server':
      return {
        // A weight-0 extra is draining and never reaches here (core/diff/ipvs.ts accepts it).
        message: `virtual server ${d.vs}${d.group ? ` (${d.group})` : ''} sends traffic to ${d.rs}, which is not a current endpoint`,
        subject: {kind: 'virtual-server', name: d.vs},
        evidence: [`actual: -a ${svcOption(d.vs)} -r ${d.rs}${d.weight !== undefined ? ` -w ${d.weight}` : ''}`],
      }
    case 'wrong-weight':
      return {
        message:
          d.actual === 0
            ? `real server ${d.rs} of ${d.vs} (${d.group}) has weight 0 although the endpoint is ready: it gets no new connections`
            : `real server ${d.rs} of ${d.vs} (${d.group}) has weight ${d.actual}, expected ${d.expected}`,
        subject: {kind: 'virtual-server', name: d.vs},
        evidence: [`expected: -a ${svcOption(d.vs)} -r ${d.rs} -m -w ${d.expected}`, `actual:   -a ${svcOption(d.vs)} -r ${d.rs} -w ${d.actual}`],
      }
    case 'wrong-scheduler':
      return {
        message: `virtual server ${d.vs} (${d.group}) uses scheduler ${d.actual}, kube-proxy is configured for ${d.expected}`,
        subject: {kind: 'virtual-server', name: d.vs},
        evidence: [`expected: ${d.expected}`, `actual:   ${d.actual}`],
      }
    case 'wrong-persistence':
      return {
        message:
          d.expected === undefined
            ? `virtual server ${d.vs} (${d.group}) is persistent (${d.actual} s) but the Service has no ClientIP affinity`
            : d.actual === undefined
              ? `virtual server ${d.vs} (${d.group}) lacks persistence: the Service's ClientIP affinity (${d.expected} s) is not applied`
              : `virtual server ${d.vs} (${d.group}) persists for ${d.actual} s, the Service's affinity timeout is ${d.expected} s`,
        subject: {kind: 'virtual-server', name: d.vs},
        evidence: [`expected: ${d.expected === undefined ? 'no persistence' : `persistent ${d.expected}`}`, `actual:   ${d.actual === undefined ? 'no persistence' : `persistent ${d.actual}`}`],
      }
    case 'missing-dummy-interface':
      return {
        message: `the kube-ipvs0 interface does not exist: none of the ${d.addresses.length} Service address(es) is local, so no virtual server is reached`,
        subject: {kind: 'link', name: 'kube-ipvs0'},
        evidence: clip(d.addresses.map((a) => `expected: ${a}/${len} dev kube-ipvs0`)),
      }
    case 'missing-address':
      return {message: `${d.address} is not bound to kube-ipvs0${d.group ? ` (${d.group})` : ''}`, subject: {kind: 'address', name: d.address, in: 'kube-ipvs0'}, evidence: [`expected: ${d.address}/${len} dev kube-ipvs0`]}
    case 'stale-address':
      return {
        message: `kube-ipvs0 holds ${d.address}, which no Service uses`,
        subject: {kind: 'address', name: d.address, in: 'kube-ipvs0'},
        evidence: [`actual: ${d.address} dev kube-ipvs0`],
        remedy: `Restart kube-proxy so it resyncs; if the address stays: \`ip addr del ${d.address}/${len} dev kube-ipvs0\`. ${NEVER_CLEANUP}`,
      }
    case 'missing-ipset':
      return {
        message: `ipset ${d.set} does not exist${d.entries.length > 0 ? ` (it should hold ${d.entries.length} entries)` : ''}`,
        subject: {kind: 'ipset', name: d.set},
        evidence: clip(d.entries.map((e) => `expected: add ${d.set} ${e}`)),
      }
    case 'missing-ipset-entry':
      return {message: `ipset ${d.set} lacks ${d.entry}${d.group ? ` (${d.group})` : ''}`, subject: {kind: 'ipset', name: d.set}, evidence: [`expected: add ${d.set} ${d.entry}`]}
    case 'stale-ipset-entry':
      return {
        message: `ipset ${d.set} holds ${d.entry}, which no current Service port needs`,
        subject: {kind: 'ipset', name: d.set},
        evidence: [`actual: add ${d.set} ${d.entry}`],
        remedy: `Restart kube-proxy so it resyncs; if the entry stays: \`ipset del ${d.set} ${d.entry}\`. ${NEVER_CLEANUP}`,
      }
    case 'missing-iptables-chain':
      return chainDraft({shape: 'missing-chain', table: d.table, chain: d.chain, expectedRules: d.expectedRules}, w)
    case 'missing-iptables-rule':
      return chainDraft({shape: 'missing-rule', table: d.table, chain: d.chain, rule: d.rule}, w)
    case 'missing-builtin-jump':
      return chainDraft({shape: 'missing-builtin-jump', table: d.table, chain: d.chain, rule: d.rule}, w)
    case 'extra-iptables-rule':
      return chainDraft({shape: 'extra-rule', table: d.table, chain: d.chain, rule: d.rule}, w)
    case 'misordered-iptables-chain':
      return chainDraft({shape: 'misordered', table: d.table, chain: d.chain, detail: 'the rules are all present but in the wrong order', rules: d.rules}, w)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// nftables

function nftDraft(d: NftDifference, table: string): FindingDraft {
  switch (d.kind) {
    case 'missing-table':
      return {message: `table ${d.table} does not exist although kube-proxy runs in nftables mode`, subject: {kind: 'table', name: d.table}, evidence: [`expected: table ${d.table}`]}
    case 'missing-chain':
      return {message: `chain ${d.chain}${forGroup(d.group)} is missing from table ${table}`, subject: {kind: 'chain', name: d.chain, in: table}, evidence: clip(d.expectedRules.map((r) => `expected: ${r}`))}
    case 'stale-chain':
      return {
        message: `stale chain ${d.chain}${forGroup(d.group)} in table ${table}: no current Service port or endpoint needs it`,
        subject: {kind: 'chain', name: d.chain, in: table},
        evidence: clip(d.actualRules.map((r) => `actual: ${r}`)),
      }
    case 'missing-rule':
      return {message: `chain ${d.chain} in ${table} lacks the rule \`${d.rule}\``, subject: {kind: 'rule', name: `${d.chain}: ${d.rule}`, in: table}, evidence: [`expected: ${d.rule}`]}
    case 'extra-rule':
      return {message: `chain ${d.chain} in ${table} has a rule kube-proxy would not write: \`${d.rule}\``, subject: {kind: 'rule', name: `${d.chain}: ${d.rule}`, in: table}, evidence: [`actual: ${d.rule}`]}
    case 'misordered':
      return {
        message: `chain ${d.chain} in ${table}${forGroup(d.group)} has kube-proxy's rules in another order`,
        subject: {kind: 'chain', name: d.chain, in: table},
        evidence: clip([...d.expected.map((r) => `expected: ${r}`), ...d.actual.map((r) => `actual:   ${r}`)]),
      }
    case 'missing-element':
      return {message: `${d.set} in ${table} lacks the element \`${d.element}\``, subject: {kind: 'element', name: d.element, in: `${table} ${d.set}`}, evidence: [`expected: ${d.element}`]}
    case 'extra-element':
      return {message: `${d.set} in ${table} holds an element kube-proxy would not write: \`${d.element}\``, subject: {kind: 'element', name: d.element, in: `${table} ${d.set}`}, evidence: [`actual: ${d.element}`]}
    case 'wrong-element':
      return {
        message: `${d.set} in ${table} maps ${d.key} to \`${d.actual}\` instead of \`${d.expected}\``,
        subject: {kind: 'element', name: d.key, in: `${table} ${d.set}`},
        evidence: [`expected: ${d.key} : ${d.expected}`, `actual:   ${d.key} : ${d.actual}`],
      }
    case 'definition':
      return {message: `${d.object} in ${table}: ${d.detail}`, subject: {kind: d.object.startsWith('chain ') ? 'chain' : 'set', name: d.object.replace(/^\S+ /, ''), in: table}, evidence: [`${d.object}: ${d.detail}`]}
  }
}

// ---------------------------------------------------------------------------------------------------------------

/** The finding draft for one difference (its group, when it has one, names the Service port it belongs to). */
export function netfilterDraft(x: NetfilterDifference): FindingDraft {
  const draft = x.dataplane === 'iptables' ? iptablesDraft(x.difference, x.family) : x.dataplane === 'ipvs' ? ipvsDraft(x.difference, x.family) : nftDraft(x.difference, x.table)
  const d = x.difference
  if ('group' in d && d.group !== undefined) draft.group = d.group
  return draft
}

/** Drafts per check id, in difference order: each area's catalog says which check reports which kind. */
export function netfilterDrafts<D extends NetfilterDifference>(diffs: Iterable<D>, specFor: (d: D['difference']) => CheckSpec): Map<string, FindingDraft[]> {
  const byId = new Map<string, FindingDraft[]>()
  for (const x of diffs) {
    const id = specFor(x.difference).id
    const list = byId.get(id) ?? []
    list.push(netfilterDraft(x))
    byId.set(id, list)
  }
  return byId
}
