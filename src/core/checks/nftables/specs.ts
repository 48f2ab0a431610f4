// Catalog entries for the nftables diff (expected `kube-proxy` table from the embedded proxier vs the node's nft
// listing), and which check reports each kind of difference (the wording is the one netfilter mapper's).
import type {NftDifference} from '../../diff/nftables.js'
import {netfilterDrafts} from '../netfilter/mapper.js'
import type {CheckSpec, FindingDraft} from '../types.js'

const RESTART_REMEDY =
  "Make kube-proxy do a full sync: restart the node's kube-proxy pod (`kubectl -n kube-system delete pod <kube-proxy pod on NODE>`), " +
  "then re-run the diff. If the difference comes back, look in kube-proxy's log for `nftables sync failed` and at " +
  'kubeproxy_sync_proxy_rules_nftables_sync_failures_total, and for another agent that edits the kube-proxy table. ' +
  "The table is kube-proxy's alone: never add rules to it by hand, and never `nft delete table` it on a live node."

const LOOKS_AT =
  "The node's `nft list ruleset` (table ip/ip6 kube-proxy), compared with the table the embedded proxier regenerates " +
  "from the cluster's Services, EndpointSlices, ServiceCIDRs, the Node and the kube-proxy configuration for this version."

const REQUIRES = ['nft-ruleset', 'cluster:services', 'cluster:endpointSlices', 'cluster:nodes']

function spec(id: string, severity: CheckSpec['severity'], title: string, why: string, remedy = RESTART_REMEDY): CheckSpec {
  return {id, area: 'nftables', severity, title, looksAt: LOOKS_AT, why, remedy, requires: REQUIRES}
}

export const NFT_MISSING_TABLE = spec(
  'NFT-001',
  'error',
  'kube-proxy runs in nftables mode but its kube-proxy table is missing',
  'Without `table ip kube-proxy` (or `ip6`) no Service works on this node for that family: kube-proxy never synced, its sync keeps failing (old kernel, nft < 1.0.1, missing nft_fib), or something deleted the table.',
  "Check kube-proxy's log on the node for nftables errors (kernel ≥ 5.13 with CONFIG_NFT_FIB_IPV4/IPV6 is required), then restart the kube-proxy pod. " +
    'If another tool flushes the whole ruleset (`nft flush ruleset` in a firewall script), make it leave the kube-proxy tables alone.',
)
export const NFT_MISSING_CHAIN = spec(
  'NFT-002',
  'error',
  'A chain kube-proxy should have programmed is missing',
  'A missing service-/external-/endpoint- chain makes a Service port or one endpoint unreachable (the verdict map points at nothing); a missing base chain disables a whole hook.',
)
export const NFT_STALE_CHAIN = spec(
  'NFT-003',
  'warning',
  'A stale chain remains in the kube-proxy table',
  'kube-proxy flushes chains of removed Services and endpoints and deletes them a second later. A chain that stays means syncs are failing, or a second kube-proxy (another version) writes the same table.',
)
export const NFT_MISSING_RULE = spec(
  'NFT-004',
  'error',
  'A rule kube-proxy should have programmed is missing',
  'Missing dispatch, masquerade or DNAT rules break Service traffic or its return path; a missing jump from a base chain skips the no-endpoint reject or the LoadBalancer source-range firewall.',
)
export const NFT_EXTRA_RULE = spec(
  'NFT-005',
  'error',
  'The kube-proxy table holds a rule kube-proxy would not write',
  'Extra rules send traffic to old endpoints, drop traffic that should pass or shadow the real rules. kube-proxy rewrites its chains on every full sync, so they come from a stuck kube-proxy, a second one, or manual edits.',
)
export const NFT_MISORDERED = spec(
  'NFT-006',
  'error',
  'Rules in a kube-proxy chain are in the wrong order',
  'Order matters: the masquerade rule must run before endpoint selection, affinity lookups before `numgen`, and the short-circuit rules of an external chain before its policy jump.',
)
export const NFT_MISSING_ELEMENT = spec(
  'NFT-007',
  'error',
  'A set or verdict-map element kube-proxy should have programmed is missing',
  'kube-proxy dispatches with verdict maps: without its service-ips / service-nodeports element a ClusterIP, external IP, LoadBalancer IP or NodePort is not handled at all; without its no-endpoint element, traffic to a Service without endpoints hangs instead of being rejected.',
)
export const NFT_EXTRA_ELEMENT = spec(
  'NFT-008',
  'warning',
  'A set or verdict-map element of a removed or changed Service remains',
  'A stale service-ips or service-nodeports element keeps sending traffic for an IP or port that no longer belongs to the Service; a stale no-endpoint element rejects traffic to a Service that now has endpoints.',
)
export const NFT_WRONG_ELEMENT = spec(
  'NFT-009',
  'error',
  'A verdict-map element points at the wrong chain or verdict',
  'The element exists but sends traffic elsewhere: to another Service port, to a chain kube-proxy no longer uses, or to drop/reject although endpoints exist.',
)
export const NFT_DEFINITION = spec(
  'NFT-010',
  'warning',
  'A set, map or base chain of the kube-proxy table is defined differently',
  'A base chain with another hook or priority runs before or after DNAT and filters the wrong addresses; a missing or mistyped set or map makes every rule that references it fail to load, so kube-proxy cannot sync at all.',
)

export const NFTABLES_DIFF_SPECS: readonly CheckSpec[] = [
  NFT_MISSING_TABLE,
  NFT_MISSING_CHAIN,
  NFT_STALE_CHAIN,
  NFT_MISSING_RULE,
  NFT_EXTRA_RULE,
  NFT_MISORDERED,
  NFT_MISSING_ELEMENT,
  NFT_EXTRA_ELEMENT,
  NFT_WRONG_ELEMENT,
  NFT_DEFINITION,
]

const SPEC_BY_KIND: Record<NftDifference['kind'], CheckSpec> = {
  'missing-table': NFT_MISSING_TABLE,
  'missing-chain': NFT_MISSING_CHAIN,
  'stale-chain': NFT_STALE_CHAIN,
  'missing-rule': NFT_MISSING_RULE,
  'extra-rule': NFT_EXTRA_RULE,
  misordered: NFT_MISORDERED,
  'missing-element': NFT_MISSING_ELEMENT,
  'extra-element': NFT_EXTRA_ELEMENT,
  'wrong-element': NFT_WRONG_ELEMENT,
  definition: NFT_DEFINITION,
}

/** The NFT check that reports each kind of difference. */
export function nftablesSpecFor(d: NftDifference): CheckSpec {
  return SPEC_BY_KIND[d.kind]
}

/** Finding drafts per check id for the differences in one table (`ip kube-proxy` or `ip6 kube-proxy`). */
export function nftablesFindings(diffs: readonly NftDifference[], table: string): Map<string, FindingDraft[]> {
  return netfilterDrafts(
    diffs.map((difference) => ({dataplane: 'nftables' as const, table, difference})),
    nftablesSpecFor,
  )
}
