// Catalog entries for the IPVS-mode diff (expected state from the embedded IPVS proxier vs the node's ipvsadm,
// kube-ipvs0 addresses, ipsets and iptables-save), and the mapping from diff differences to findings.
import type {IpvsDifference} from '../../diff/ipvs.js'
import type {IPFamily} from '../../proxier/ip.js'
import type {CheckSpec, FindingDraft} from '../types.js'

const NEVER_CLEANUP =
  'Never run `kube-proxy --cleanup` or `ipvsadm -C` on a live IPVS node: they flush ALL virtual servers, the live ones and any other agent\'s (keepalived, kube-vip).'

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
  'Connections are balanced to an address that is no longer an endpoint of the Service (a deleted or moved pod): they fail or reach the wrong workload. A weight-0 one is only draining (graceful termination) and should disappear once its connections end.',
)

export const IPVS_WRONG_WEIGHT = spec(
  'IPVS-005',
  'warning',
  'A real server has the wrong weight',
  'kube-proxy gives every chosen endpoint weight 1 and sets weight 0 only while draining a removed endpoint. Weight 0 on a ready endpoint starves it of new connections (the stuck graceful-termination bugs kubernetes/kubernetes #92019, #99162, #108319); weight 1 on a terminating endpoint keeps sending it new connections.',
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

const MAX_EVIDENCE = 20

function clip(lines: readonly string[]): string[] {
  return lines.length <= MAX_EVIDENCE ? [...lines] : [...lines.slice(0, MAX_EVIDENCE), `... ${lines.length - MAX_EVIDENCE} more`]
}

const SAVE_FLAG: Record<string, string> = {TCP: '-t', UDP: '-u', SCTP: '--sctp-service'}

/** `TCP 10.96.0.1:443` → `-t 10.96.0.1:443` (the ipvsadm service option). */
function svcOption(vs: string): string {
  const [proto, addr] = vs.split(' ')
  return `${SAVE_FLAG[proto ?? ''] ?? '-t'} ${addr ?? ''}`
}

const KIND_TEXT: Record<string, string> = {'cluster-ip': 'cluster IP', 'external-ip': 'external IP', 'load-balancer': 'load-balancer IP', 'node-port': 'NodePort'}

/** Findings for each check id, from the diff's differences. */
export function ipvsFindings(differences: readonly IpvsDifference[], family: IPFamily): Map<string, FindingDraft[]> {
  const byId = new Map<string, FindingDraft[]>()
  const fam = family === 'ipv6' ? 'IPv6 ' : ''
  const len = family === 'ipv6' ? 128 : 32
  for (const d of differences) {
    const spec = SPEC_BY_KIND[d.kind]
    let draft: FindingDraft
    switch (d.kind) {
      case 'missing-virtual-server':
        draft = {
          message: `${fam}virtual server ${d.vs} (${KIND_TEXT[d.expected.kind]} of ${d.group}) is missing`,
          subject: {kind: 'virtual-server', name: d.vs},
          evidence: clip([`expected: -A ${svcOption(d.vs)} -s ${d.expected.scheduler}${d.expected.persistence !== undefined ? ` -p ${d.expected.persistence}` : ''}`, ...d.expected.realServers.map((rs) => `expected: -a ${svcOption(d.vs)} -r ${rs.address.includes(':') ? `[${rs.address}]` : rs.address}:${rs.port} -m -w ${rs.weight}`)]),
        }
        break
      case 'stale-virtual-server':
        draft = {
          message: `stale ${fam}virtual server ${d.vs}: no current Service port needs it`,
          subject: {kind: 'virtual-server', name: d.vs},
          evidence: clip([`actual: ${d.vs}`, ...d.realServers.map((rs) => `actual:   -> ${rs}`)]),
        }
        break
      case 'missing-real-server':
        draft = {
          message: `virtual server ${d.vs} (${d.group}) lacks real server ${d.rs}`,
          subject: {kind: 'virtual-server', name: d.vs},
          evidence: [`expected: -a ${svcOption(d.vs)} -r ${d.rs} -m -w 1`],
        }
        break
      case 'extra-real-server':
        draft = {
          message:
            d.weight === 0
              ? `virtual server ${d.vs} still drains ${d.rs} (weight 0), which is no longer an endpoint`
              : `virtual server ${d.vs}${d.group ? ` (${d.group})` : ''} sends traffic to ${d.rs}, which is not a current endpoint`,
          subject: {kind: 'virtual-server', name: d.vs},
          evidence: [`actual: -a ${svcOption(d.vs)} -r ${d.rs}${d.weight !== undefined ? ` -w ${d.weight}` : ''}`],
          ...(d.weight === 0 ? {severity: 'info' as const} : {}),
        }
        break
      case 'wrong-weight':
        draft = {
          message:
            d.actual === 0
              ? `real server ${d.rs} of ${d.vs} (${d.group}) has weight 0 although the endpoint is ready: it gets no new connections`
              : `real server ${d.rs} of ${d.vs} (${d.group}) has weight ${d.actual}, expected ${d.expected}${d.expected === 0 ? ' (the endpoint is terminating)' : ''}`,
          subject: {kind: 'virtual-server', name: d.vs},
          evidence: [`expected: -a ${svcOption(d.vs)} -r ${d.rs} -m -w ${d.expected}`, `actual:   -a ${svcOption(d.vs)} -r ${d.rs} -w ${d.actual}`],
        }
        break
      case 'wrong-scheduler':
        draft = {
          message: `virtual server ${d.vs} (${d.group}) uses scheduler ${d.actual}, kube-proxy is configured for ${d.expected}`,
          subject: {kind: 'virtual-server', name: d.vs},
          evidence: [`expected: ${d.expected}`, `actual:   ${d.actual}`],
        }
        break
      case 'wrong-persistence':
        draft = {
          message:
            d.expected === undefined
              ? `virtual server ${d.vs} (${d.group}) is persistent (${d.actual} s) but the Service has no ClientIP affinity`
              : d.actual === undefined
                ? `virtual server ${d.vs} (${d.group}) lacks persistence: the Service's ClientIP affinity (${d.expected} s) is not applied`
                : `virtual server ${d.vs} (${d.group}) persists for ${d.actual} s, the Service's affinity timeout is ${d.expected} s`,
          subject: {kind: 'virtual-server', name: d.vs},
          evidence: [`expected: ${d.expected === undefined ? 'no persistence' : `persistent ${d.expected}`}`, `actual:   ${d.actual === undefined ? 'no persistence' : `persistent ${d.actual}`}`],
        }
        break
      case 'missing-dummy-interface':
        draft = {
          message: `the kube-ipvs0 interface does not exist: none of the ${d.addresses.length} Service address(es) is local, so no virtual server is reached`,
          subject: {kind: 'link', name: 'kube-ipvs0'},
          evidence: clip(d.addresses.map((a) => `expected: ${a}/${len} dev kube-ipvs0`)),
        }
        break
      case 'missing-address':
        draft = {
          message: `${d.address} is not bound to kube-ipvs0${d.group ? ` (${d.group})` : ''}`,
          subject: {kind: 'address', name: d.address, in: 'kube-ipvs0'},
          evidence: [`expected: ${d.address}/${len} dev kube-ipvs0`],
        }
        break
      case 'stale-address':
        draft = {
          message: `kube-ipvs0 holds ${d.address}, which no Service uses`,
          subject: {kind: 'address', name: d.address, in: 'kube-ipvs0'},
          evidence: [`actual: ${d.address} dev kube-ipvs0`],
          remedy: `Restart kube-proxy so it resyncs; if the address stays: \`ip addr del ${d.address}/${len} dev kube-ipvs0\`. ${NEVER_CLEANUP}`,
        }
        break
      case 'missing-ipset':
        draft = {
          message: `ipset ${d.set} does not exist${d.entries.length > 0 ? ` (it should hold ${d.entries.length} entries)` : ''}`,
          subject: {kind: 'ipset', name: d.set},
          evidence: clip(d.entries.map((e) => `expected: add ${d.set} ${e}`)),
        }
        break
      case 'missing-ipset-entry':
        draft = {
          message: `ipset ${d.set} lacks ${d.entry}${d.group ? ` (${d.group})` : ''}`,
          subject: {kind: 'ipset', name: d.set},
          evidence: [`expected: add ${d.set} ${d.entry}`],
        }
        break
      case 'stale-ipset-entry':
        draft = {
          message: `ipset ${d.set} holds ${d.entry}, which no current Service port needs`,
          subject: {kind: 'ipset', name: d.set},
          evidence: [`actual: add ${d.set} ${d.entry}`],
          remedy: `Restart kube-proxy so it resyncs; if the entry stays: \`ipset del ${d.set} ${d.entry}\`. ${NEVER_CLEANUP}`,
        }
        break
      case 'missing-iptables-chain':
        draft = {
          message: `chain ${d.chain} is missing from the ${fam}${d.table} table`,
          subject: {kind: 'chain', name: d.chain, in: d.table},
          evidence: clip(d.expectedRules.map((r) => `expected: -A ${d.chain} ${r}`)),
        }
        break
      case 'missing-iptables-rule':
        draft = {
          message: `${d.chain} in ${fam}${d.table} lacks a rule IPVS mode writes`,
          subject: {kind: 'rule', name: `-A ${d.chain} ${d.rule}`, in: d.table},
          evidence: [`expected: -A ${d.chain} ${d.rule}`],
        }
        break
      case 'missing-builtin-jump':
        draft = {
          message: `built-in chain ${d.chain} in ${fam}${d.table} lacks kube-proxy's jump`,
          subject: {kind: 'rule', name: `-A ${d.chain} ${d.rule}`, in: d.table},
          evidence: [`expected: -A ${d.chain} ${d.rule}`],
        }
        break
      case 'extra-iptables-rule':
        draft = {
          message: `${d.chain} in ${fam}${d.table} has a rule kube-proxy's IPVS mode would not write`,
          subject: {kind: 'rule', name: `-A ${d.chain} ${d.rule}`, in: d.table},
          evidence: [`actual: -A ${d.chain} ${d.rule}`],
        }
        break
      case 'misordered-iptables-chain':
        draft = {
          message: `${d.chain} in ${fam}${d.table}: the rules are all present but in the wrong order`,
          subject: {kind: 'chain', name: d.chain, in: d.table},
          evidence: clip(d.rules.map((r) => `actual: -A ${d.chain} ${r}`)),
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
