// Catalog entries for the IPVS-mode diff (expected state from the embedded IPVS proxier vs the node's ipvsadm,
// kube-ipvs0 addresses, ipsets and iptables-save), and which check reports each kind of difference (the wording is
// the one netfilter mapper's).
import type {IpvsDifference} from '../../diff/ipvs.js'
import type {IPFamily} from '../../proxier/ip.js'
import {NEVER_CLEANUP} from '../netfilter/drafts.js'
import {netfilterDrafts} from '../netfilter/mapper.js'
import type {CheckSpec, FindingDraft} from '../types.js'


const RESTART_REMEDY =
  "Make kube-proxy do a full sync: restart the node's kube-proxy pod (`kubectl node-doctor fix kube-proxy NODE`, or " +
  '`kubectl -n kube-system delete pod <kube-proxy pod on NODE>`), ' +
  "then re-run the diff. If the difference comes back, read kube-proxy's log for IPVS, ipset or iptables-restore errors " +
  '("Failed to add IPVS service", "Failed to sync endpoint", "Failed to bind service address to dummy device"), and look ' +
  'for another agent that edits IPVS, ipsets or KUBE-* chains. ' +
  NEVER_CLEANUP

const LOOKS_AT =
  "The node's `ipvsadm -Sn` (or `-Ln`), `ip addr` (kube-ipvs0), `ipset save` and `iptables-save`, compared as sets with the " +
  "state the embedded IPVS proxier regenerates from the cluster's Services, EndpointSlices, the Node and the kube-proxy " +
  'configuration (ipvs.scheduler, excludeCIDRs, nodePortAddresses) for this kube-proxy version. Runs only where kube-proxy runs IPVS mode.'

const REQUIRES = ['cluster:services', 'cluster:endpointSlices', 'cluster:nodes']

const spec = (id: string, severity: CheckSpec['severity'], title: string, why: string, remedy: string = RESTART_REMEDY): CheckSpec => ({
  id,
  area: 'ipvs',
  severity,
  title,
  looksAt: LOOKS_AT,
  why,
  remedy,
  requires: REQUIRES,
})

export const IPVS_MISSING_VS = spec(
  'IPVS-001',
  'error',
  'A virtual server kube-proxy should have programmed is missing',
  'Without its virtual server a ClusterIP, NodePort (on that node address), external IP or load-balancer IP port is not load-balanced on this node: connections are refused or time out although the Service and its endpoints look fine.',
)

export const IPVS_STALE_VS = spec(
  'IPVS-002',
  'warning',
  'A virtual server exists that no current Service port needs',
  "kube-proxy deletes virtual servers of removed Services on every sync (except addresses in ipvs.excludeCIDRs). A stale one means kube-proxy is not syncing (stuck, crash-looping, or another mode now runs), or another agent owns it: traffic to that address:port still goes to the old real servers.",
  "If kube-proxy is healthy and syncing, it deletes the virtual server itself; otherwise fix kube-proxy first (PROXY-006/007/008). If another agent (keepalived, kube-vip, a load balancer) owns the address, add its CIDR to ipvs.excludeCIDRs so kube-proxy leaves it alone. To remove one by hand: `ipvsadm -D -t ADDR:PORT` (-u for UDP, --sctp-service for SCTP). " +
    NEVER_CLEANUP,
)

export const IPVS_MISSING_RS = spec(
  'IPVS-003',
  'error',
  'A real server (endpoint) is missing from a virtual server',
  'The endpoint receives no traffic from this node through that virtual server: load concentrates on the remaining endpoints, and with none left the Service port is unreachable from here.',
)

export const IPVS_EXTRA_RS = spec(
  'IPVS-004',
  'error',
  'A virtual server sends traffic to a real server that is not a current endpoint',
  'Connections are balanced to an address kube-proxy does not use for that virtual server (a deleted, moved, not-ready or remote pod under a Local traffic policy): they fail or reach the wrong workload. Only real servers with a weight above 0 are reported: a weight-0 one is draining (kube-proxy\'s graceful termination keeps it until its connections end) and is accepted.',
)

export const IPVS_WRONG_WEIGHT = spec(
  'IPVS-005',
  'warning',
  'A real server has the wrong weight',
  'kube-proxy gives every chosen endpoint weight 1 and sets weight 0 only while draining a removed endpoint. Weight 0 on a ready endpoint starves it of new connections (the stuck graceful-termination bugs kubernetes/kubernetes #92019, #99162, #108319): kube-proxy leaves an existing real server\'s weight alone until its next restart.',
)

export const IPVS_WRONG_SCHEDULER = spec(
  'IPVS-006',
  'warning',
  "A virtual server's scheduler differs from ipvs.scheduler",
  'kube-proxy creates every virtual server with the configured scheduler (rr when unset) and updates ones that differ. A different scheduler means the configuration changed without a kube-proxy restart, or something else edits IPVS: load is spread differently from what the cluster configuration says.',
)

export const IPVS_WRONG_PERSISTENCE = spec(
  'IPVS-007',
  'warning',
  "A virtual server's persistence does not match the Service's session affinity",
  'sessionAffinity: ClientIP becomes IPVS persistence with the affinity timeout (default 10800 s). Missing persistence breaks client affinity on this node; persistence on a Service without affinity pins clients to one endpoint and skews the load.',
)

export const IPVS_MISSING_ADDRESS = spec(
  'IPVS-008',
  'error',
  'A Service IP is not bound to kube-ipvs0 (or kube-ipvs0 is missing)',
  "IPVS only sees packets to local addresses: a ClusterIP, external or load-balancer IP missing from the kube-ipvs0 dummy interface is not treated as local, so its virtual server is never hit and the Service is unreachable from this node.",
)

export const IPVS_STALE_ADDRESS = spec(
  'IPVS-009',
  'warning',
  'kube-ipvs0 holds an address no Service uses',
  'kube-proxy removes unused addresses from kube-ipvs0 on every sync. A stale one makes the node treat that address as its own: it answers ARP for it unless strictARP is set (a conflict with MetalLB or kube-vip on another node), and traffic to it is rejected locally instead of being routed.',
  "Restart kube-proxy so it resyncs; if the address stays, remove it by hand: `ip addr del ADDR/32 dev kube-ipvs0` (/128 for IPv6). " + NEVER_CLEANUP,
)

export const IPVS_MISSING_IPSET_ENTRY = spec(
  'IPVS-010',
  'error',
  'An ipset kube-proxy matches on lacks an entry (or the set is missing)',
  "IPVS mode's iptables rules mark, accept and masquerade traffic by ipset membership (KUBE-CLUSTER-IP, KUBE-NODE-PORT-*, KUBE-LOAD-BALANCER*, KUBE-LOOP-BACK ...). A missing entry means the virtual server exists but its traffic is not masqueraded (broken replies from other nodes), is rejected by KUBE-IPVS-FILTER, or skips the source-range firewall.",
)

export const IPVS_STALE_IPSET_ENTRY = spec(
  'IPVS-011',
  'warning',
  'An ipset holds an entry no Service port needs',
  'kube-proxy deletes set entries of removed Services on every sync. A stale entry means syncs fail or stopped; it keeps old traffic marked or accepted (a stale KUBE-LOAD-BALANCER-SOURCE-CIDR entry keeps a source range open).',
  "Restart kube-proxy so it resyncs; if the entry stays, `ipset del SET ENTRY` removes it. Do not destroy or flush kube-proxy's sets on a live node. " + NEVER_CLEANUP,
)

export const IPVS_MISSING_IPTABLES = spec(
  'IPVS-012',
  'error',
  'An iptables rule, chain or built-in jump IPVS mode needs is missing',
  'IPVS mode still relies on iptables for masquerading (KUBE-POSTROUTING, KUBE-MARK-MASQ), NodePort marking, the load-balancer source-range firewall and KUBE-IPVS-FILTER. Without them replies to NodePort and off-node traffic break, or source ranges are not enforced. Firewall managers that reset the built-in chains cause the missing jumps.',
)

export const IPVS_EXTRA_IPTABLES = spec(
  'IPVS-013',
  'warning',
  "IPVS mode's KUBE-* chains hold rules kube-proxy would not write, or in the wrong order",
  'Extra or reordered rules in the IPVS-mode chains change which traffic is masqueraded, accepted or rejected (the ACCEPT rules must stay last in nat KUBE-SERVICES). They come from an older kube-proxy version, a failed restore, or manual edits.',
)

export const IPVS_DIFF_SPECS: readonly CheckSpec[] = [
  IPVS_MISSING_VS,
  IPVS_STALE_VS,
  IPVS_MISSING_RS,
  IPVS_EXTRA_RS,
  IPVS_WRONG_WEIGHT,
  IPVS_WRONG_SCHEDULER,
  IPVS_WRONG_PERSISTENCE,
  IPVS_MISSING_ADDRESS,
  IPVS_STALE_ADDRESS,
  IPVS_MISSING_IPSET_ENTRY,
  IPVS_STALE_IPSET_ENTRY,
  IPVS_MISSING_IPTABLES,
  IPVS_EXTRA_IPTABLES,
]

const SPEC_BY_KIND: Record<IpvsDifference['kind'], CheckSpec> = {
  'missing-virtual-server': IPVS_MISSING_VS,
  'stale-virtual-server': IPVS_STALE_VS,
  'missing-real-server': IPVS_MISSING_RS,
  'extra-real-server': IPVS_EXTRA_RS,
  'wrong-weight': IPVS_WRONG_WEIGHT,
  'wrong-scheduler': IPVS_WRONG_SCHEDULER,
  'wrong-persistence': IPVS_WRONG_PERSISTENCE,
  'missing-dummy-interface': IPVS_MISSING_ADDRESS,
  'missing-address': IPVS_MISSING_ADDRESS,
  'stale-address': IPVS_STALE_ADDRESS,
  'missing-ipset': IPVS_MISSING_IPSET_ENTRY,
  'missing-ipset-entry': IPVS_MISSING_IPSET_ENTRY,
  'stale-ipset-entry': IPVS_STALE_IPSET_ENTRY,
  'missing-iptables-chain': IPVS_MISSING_IPTABLES,
  'missing-iptables-rule': IPVS_MISSING_IPTABLES,
  'missing-builtin-jump': IPVS_MISSING_IPTABLES,
  'extra-iptables-rule': IPVS_EXTRA_IPTABLES,
  'misordered-iptables-chain': IPVS_EXTRA_IPTABLES,
}

/** The IPVS check that reports each kind of difference. */
export function ipvsSpecFor(d: IpvsDifference): CheckSpec {
  return SPEC_BY_KIND[d.kind]
}

/** Findings for each check id, from the diff's differences. */
export function ipvsFindings(differences: readonly IpvsDifference[], family: IPFamily): Map<string, FindingDraft[]> {
  return netfilterDrafts(
    differences.map((difference) => ({dataplane: 'ipvs' as const, family, difference})),
    ipvsSpecFor,
  )
}
