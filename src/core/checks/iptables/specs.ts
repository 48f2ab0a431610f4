// Catalog entries for the iptables rule diff (expected from the embedded proxier vs the node's iptables-save),
// and the mapping from diff differences to findings.
import type {IptablesDifference} from '../../diff/iptables.js'
import type {CheckSpec, FindingDraft} from '../types.js'

const RESTART_REMEDY =
  "Make kube-proxy do a full sync: restart the node's kube-proxy pod (`kubectl node-doctor fix kube-proxy NODE`, or " +
  '`kubectl -n kube-system delete pod <kube-proxy pod on NODE>`), then re-run the diff. If the difference comes back, ' +
  "look in kube-proxy's log for iptables-restore errors, and for another agent (CNI, firewall manager, a script) " +
  'that rewrites KUBE-* chains. Never run `kube-proxy --cleanup` or flush the tables on a live node.'

const LOOKS_AT =
  "The node's iptables-save (nat and filter tables), compared with the rules the embedded proxier regenerates from the " +
  "cluster's Services, EndpointSlices, the Node and the kube-proxy configuration for this kube-proxy version."

const REQUIRES = ['iptables-save', 'cluster:services', 'cluster:endpointSlices', 'cluster:nodes']

export const IPT_MISSING_CHAIN: CheckSpec = {
  id: 'IPT-001',
  area: 'iptables',
  severity: 'error',
  title: 'A chain kube-proxy should have programmed is missing',
  looksAt: LOOKS_AT,
  why: 'Without its KUBE-SVC/KUBE-SEP/KUBE-EXT chain a Service port (or one endpoint) is unreachable from this node: connections time out or are refused although `kubectl get endpoints` looks fine.',
  remedy: RESTART_REMEDY,
  requires: REQUIRES,
}

export const IPT_STALE_CHAIN: CheckSpec = {
  id: 'IPT-002',
  area: 'iptables',
  severity: 'warning',
  title: 'A stale kube-proxy chain remains for a Service or endpoint that no longer exists',
  looksAt: LOOKS_AT,
  why: 'kube-proxy deletes chains of removed Services and endpoints on its next sync. A stale chain means syncs are failing or kube-proxy is stuck; if anything still jumps to it, traffic goes to a dead endpoint.',
  remedy: RESTART_REMEDY,
  requires: REQUIRES,
}

export const IPT_MISSING_RULE: CheckSpec = {
  id: 'IPT-003',
  area: 'iptables',
  severity: 'error',
  title: 'A rule kube-proxy should have programmed is missing',
  looksAt: LOOKS_AT,
  why: 'A missing KUBE-SERVICES/KUBE-NODEPORTS/KUBE-SVC rule makes a ClusterIP, NodePort, external IP or endpoint unreachable from this node; a missing masquerade rule breaks return traffic.',
  remedy: RESTART_REMEDY,
  requires: REQUIRES,
}

export const IPT_EXTRA_RULE: CheckSpec = {
  id: 'IPT-004',
  area: 'iptables',
  severity: 'error',
  title: 'A KUBE-* chain holds a rule kube-proxy would not write',
  looksAt: LOOKS_AT,
  why: 'Extra rules in kube-proxy\'s chains send traffic to old endpoints, reject traffic that should pass, or shadow the real rules. They come from failed partial syncs, a second kube-proxy, or manual edits.',
  remedy: RESTART_REMEDY,
  requires: REQUIRES,
}

export const IPT_WRONG_PROBABILITY: CheckSpec = {
  id: 'IPT-005',
  area: 'iptables',
  severity: 'warning',
  title: 'Endpoint selection probabilities do not match the endpoint count',
  looksAt: LOOKS_AT,
  why: 'kube-proxy spreads connections with `statistic --probability 1/(n-i)` rules. Wrong probabilities mean the chain was written for a different endpoint count: load is skewed and some endpoints may get no traffic.',
  remedy: RESTART_REMEDY,
  requires: REQUIRES,
}

export const IPT_MISORDERED: CheckSpec = {
  id: 'IPT-006',
  area: 'iptables',
  severity: 'error',
  title: 'Rules in a kube-proxy chain are in the wrong order',
  looksAt: LOOKS_AT,
  why: 'Order matters in iptables: a KUBE-NODEPORTS jump that is not last in KUBE-SERVICES captures traffic meant for later Service rules, and misordered KUBE-SVC/KUBE-SEP rules change which endpoint is chosen or skip masquerading.',
  remedy: RESTART_REMEDY,
  requires: REQUIRES,
}

export const IPT_UNDEFINED_JUMP: CheckSpec = {
  id: 'IPT-007',
  area: 'iptables',
  severity: 'error',
  title: 'A rule jumps to a KUBE-* chain that does not exist',
  looksAt: "Every jump (-j/-g) in kube-proxy's chains of the node's iptables-save.",
  why: 'A jump to a missing chain is the signature of a half-applied restore: the Service port behind it does not work, and iptables-restore calls that touch the chain fail.',
  remedy: RESTART_REMEDY,
  requires: ['iptables-save'],
}

export const IPT_MISSING_BUILTIN_JUMP: CheckSpec = {
  id: 'IPT-008',
  area: 'iptables',
  severity: 'error',
  title: 'A jump from a built-in chain into kube-proxy\'s chains is missing',
  looksAt: 'The PREROUTING, OUTPUT, POSTROUTING, INPUT and FORWARD chains of the node\'s iptables-save, for the jumps kube-proxy installs with `iptables -I`.',
  why: 'Without e.g. `-A PREROUTING -j KUBE-SERVICES` no Service rule is ever consulted for that path: all Services break for pods (PREROUTING) or host processes (OUTPUT). Firewall managers that reset built-in chains cause this.',
  remedy:
    'kube-proxy re-inserts its jumps on every sync; if they stay missing, something removes them after each sync (firewalld, ufw, a node bootstrap script). Find it and make it keep the KUBE-* jumps, then restart kube-proxy.',
  requires: ['iptables-save'],
}

export const IPTABLES_DIFF_SPECS: readonly CheckSpec[] = [
  IPT_MISSING_CHAIN,
  IPT_STALE_CHAIN,
  IPT_MISSING_RULE,
  IPT_EXTRA_RULE,
  IPT_WRONG_PROBABILITY,
  IPT_MISORDERED,
  IPT_UNDEFINED_JUMP,
  IPT_MISSING_BUILTIN_JUMP,
]

const SPEC_BY_KIND: Record<IptablesDifference['kind'], CheckSpec> = {
  'missing-chain': IPT_MISSING_CHAIN,
  'stale-chain': IPT_STALE_CHAIN,
  'missing-rule': IPT_MISSING_RULE,
  'extra-rule': IPT_EXTRA_RULE,
  'wrong-probability': IPT_WRONG_PROBABILITY,
  misordered: IPT_MISORDERED,
  'undefined-jump': IPT_UNDEFINED_JUMP,
  'missing-builtin-jump': IPT_MISSING_BUILTIN_JUMP,
}

const MAX_EVIDENCE = 20

function clip(lines: readonly string[]): string[] {
  return lines.length <= MAX_EVIDENCE ? [...lines] : [...lines.slice(0, MAX_EVIDENCE), `... ${lines.length - MAX_EVIDENCE} more`]
}

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

function forGroup(group: string | undefined): string {
  return group ? ` (${group})` : ''
}

/** Finding drafts per check id, for differences found on one node and IP family. */
export function iptablesFindings(diffs: readonly IptablesDifference[], family: 'ipv4' | 'ipv6' = 'ipv4'): Map<string, FindingDraft[]> {
  const byId = new Map<string, FindingDraft[]>()
  const fam = family === 'ipv6' ? 'ip6tables ' : ''
  for (const d of diffs) {
    const spec = SPEC_BY_KIND[d.kind]
    let draft: FindingDraft
    switch (d.kind) {
      case 'missing-chain':
        draft = {
          message: `chain ${d.chain}${forGroup(d.group)} is missing from the ${fam}${d.table} table`,
          subject: {kind: 'chain', name: d.chain, in: d.table},
          evidence: clip(d.expectedRules.map((r) => `expected: -A ${d.chain} ${r}`)),
        }
        break
      case 'stale-chain':
        draft = {
          message: `stale chain ${d.chain}${forGroup(d.group)} in the ${fam}${d.table} table: no current Service port or endpoint needs it`,
          subject: {kind: 'chain', name: d.chain, in: d.table},
          evidence: clip(d.actualRules.map((r) => `actual: -A ${d.chain} ${r}`)),
        }
        break
      case 'missing-rule':
        draft = {
          message: `${d.chain} in ${fam}${d.table} lacks the rule ${ruleSummary(d.rule)}`,
          subject: {kind: 'rule', name: `-A ${d.chain} ${d.rule}`, in: d.table},
          evidence: [`expected: -A ${d.chain} ${d.rule}`],
        }
        break
      case 'extra-rule':
        draft = {
          message: `${d.chain} in ${fam}${d.table} has a rule kube-proxy would not write: ${ruleSummary(d.rule)}`,
          subject: {kind: 'rule', name: `-A ${d.chain} ${d.rule}`, in: d.table},
          evidence: [`actual: -A ${d.chain} ${d.rule}`],
        }
        break
      case 'wrong-probability':
        draft = {
          message: `${d.chain}${forGroup(d.group)} picks an endpoint with the wrong probability`,
          subject: {kind: 'rule', name: `-A ${d.chain} ${d.actual}`, in: d.table},
          evidence: [`expected: -A ${d.chain} ${d.expected}`, `actual:   -A ${d.chain} ${d.actual}`],
        }
        break
      case 'misordered':
        draft = {
          message: `${d.chain} in ${fam}${d.table}${forGroup(d.group)}: ${d.detail}`,
          subject: {kind: 'chain', name: d.chain, in: d.table},
          evidence: clip(d.rules.map((r) => `actual: -A ${d.chain} ${r}`)),
        }
        break
      case 'undefined-jump':
        draft = {
          message: `${d.chain} in ${fam}${d.table} jumps to ${d.target}, which does not exist${forGroup(d.group)}`,
          subject: {kind: 'rule', name: `-A ${d.chain} ${d.rule}`, in: d.table},
          evidence: [`actual: -A ${d.chain} ${d.rule}`],
        }
        break
      case 'missing-builtin-jump':
        draft = {
          message: `built-in chain ${d.chain} in ${fam}${d.table} lacks kube-proxy's jump`,
          subject: {kind: 'rule', name: `-A ${d.chain} ${d.rule}`, in: d.table},
          evidence: [`expected: -A ${d.chain} ${d.rule}`],
        }
        break
    }
    if ('group' in d && d.group !== undefined) draft.group = d.group
    const list = byId.get(spec.id) ?? []
    list.push(draft)
    byId.set(spec.id, list)
  }
  return byId
}
