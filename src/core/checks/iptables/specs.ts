// Catalog entries for the iptables rule diff (expected from the embedded proxier vs the node's iptables-save),
// and which check reports each kind of difference (the wording is the one netfilter mapper's).
import type {IptablesDifference} from '../../diff/iptables.js'
import {netfilterDrafts} from '../netfilter/mapper.js'
import type {CheckSpec, FindingDraft} from '../types.js'

export {ruleSummary} from '../netfilter/mapper.js'

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

/** The IPT check that reports each kind of difference. */
export function iptablesSpecFor(d: IptablesDifference): CheckSpec {
  return SPEC_BY_KIND[d.kind]
}

/** Finding drafts per check id, for differences found on one node and IP family. */
export function iptablesFindings(diffs: readonly IptablesDifference[], family: 'ipv4' | 'ipv6' = 'ipv4'): Map<string, FindingDraft[]> {
  return netfilterDrafts(
    diffs.map((difference) => ({dataplane: 'iptables' as const, family, difference})),
    iptablesSpecFor,
  )
}
