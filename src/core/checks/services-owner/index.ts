// SVC-001: kube-proxy's dataplane left behind on a node whose Services something else implements (the classic state
// after moving to Cilium's kube-proxy replacement: KUBE-SERVICES still hooked into nat PREROUTING/OUTPUT, stale
// KUBE-SVC chains, kube-ipvs0 holding Service IPs, `table ip kube-proxy`). SVC-002: kube-proxy still runs there too,
// so two owners program the same Services. Who owns Services comes from core/layout (NodeFacts.resolvedLayout).
import type {ResolvedServicesOwner} from '../../layout/resolve.js'
import {SERVICES_OWNER_TITLE} from '../../layout/resolve.js'
import {findTable} from '../../iptables/save.js'
import type {Check, CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'

const OTHER_OWNERS = ['cilium', 'calico-ebpf', 'ovn-kubernetes', 'kube-router', 'antrea'] as const

const OWNER_LOOKS_AT =
  'Who implements Services on the node (kube-system/cilium-config `kube-proxy-replacement`, FELIX_BPFENABLED on ' +
  'calico-node, the OVN-Kubernetes management link ovn-k8s-mp0, kube-router --run-service-proxy; see the node\'s layout line)'

export const SVC_LEFTOVERS: CheckSpec = {
  id: 'SVC-001',
  area: 'proxy-mode',
  severity: 'warning',
  title: "kube-proxy's rules are still on a node whose Services another component implements",
  looksAt:
    `${OWNER_LOOKS_AT}, against what kube-proxy leaves behind: nat PREROUTING/OUTPUT jumps to KUBE-SERVICES and ` +
    'KUBE-SVC/SEP/EXT/FW/SVL chains (iptables-save), the kube-ipvs0 link and IPVS virtual servers on Service IPs or ' +
    'NodePorts (ipvsadm -Sn, ip -j link), and `table ip kube-proxy` / `table ip6 kube-proxy` (nft list ruleset).',
  why:
    'Removing the kube-proxy DaemonSet does not remove its rules: they stay until a reboot or a cleanup. Stale ' +
    'KUBE-SERVICES rules still DNAT Service traffic that reaches netfilter to endpoints that may be long gone, ' +
    'kube-ipvs0 keeps answering for Service IPs, and every diagnosis has two dataplanes to reason about.',
  remedy:
    'Remove kube-proxy\'s leftovers on the node: run `kube-proxy --cleanup` on it (a privileged pod with hostNetwork and ' +
    'the kube-proxy image of the cluster\'s version, e.g. `kubectl debug node/NODE -it --profile=sysadmin ' +
    '--image=registry.k8s.io/kube-proxy:vX.Y.Z -- kube-proxy --cleanup`), or drain and reboot the node. By hand: ' +
    '`iptables-save | grep -v KUBE | iptables-restore` is NOT safe (it drops the other owner\'s rules too); delete ' +
    'exactly the objects the finding names: `iptables -t nat -D PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES` ' +
    '(and the same in OUTPUT), then `iptables -t nat -F CHAIN; iptables -t nat -X CHAIN` for each KUBE-* chain, ' +
    '`ip link delete kube-ipvs0`, `ipvsadm -D -t VIP:PORT` for each listed virtual server, `nft delete table ip kube-proxy`.',
  requires: [],
}

export const SVC_TWO_OWNERS: CheckSpec = {
  id: 'SVC-002',
  area: 'proxy-mode',
  // NOTE: a warning, not an error: Cilium tolerates a kube-proxy beside its replacement during a migration, and
  // its BPF path takes the traffic first; the state is still two dataplanes to keep consistent.
  severity: 'warning',
  title: 'kube-proxy runs on a node whose Services another component implements (two owners)',
  looksAt: `${OWNER_LOOKS_AT}, against a kube-proxy on the node: its process, its pod in kube-system, or k3s's embedded one.`,
  why:
    'Both program the same Services: kube-proxy rewrites its netfilter rules on every sync while the replacement ' +
    'handles the traffic before or after them, so which one answers depends on the path a packet takes (socket, ' +
    'host network, NodePort from outside). Endpoint changes reach the two at different times.',
  remedy:
    'Keep one owner. With Cilium\'s kube-proxy replacement: delete the kube-proxy DaemonSet and its ConfigMap ' +
    '(`kubectl -n kube-system delete ds kube-proxy; kubectl -n kube-system delete cm kube-proxy`), on k3s restart it with ' +
    '`--disable-kube-proxy` (disable-kube-proxy: true in /etc/rancher/k3s/config.yaml), on RKE2 remove the kube-proxy ' +
    'static pod (disable-kube-proxy: true in /etc/rancher/rke2/config.yaml); then remove the leftovers (SVC-001). ' +
    'To keep kube-proxy instead, set the replacement off (cilium-config kube-proxy-replacement: "false") and restart its agents.',
  requires: [],
}

const LEFTOVER_CHAIN = /^KUBE-(SVC|SEP|SVL|EXT|FW|XLB)-|^KUBE-SERVICES$|^KUBE-NODEPORTS$/

function ownerText(o: ResolvedServicesOwner): string {
  return `${SERVICES_OWNER_TITLE[o.owner]} (${o.reason})`
}

function notDecided(ctx: CheckContext): ResolvedServicesOwner | {skip: string} {
  const o = factsOf(ctx).resolvedLayout.servicesOwner
  if (o.owner === 'unknown') return {skip: 'who implements Services on this node is unknown'}
  if (!(OTHER_OWNERS as readonly string[]).includes(o.owner)) return {skip: `Services on this node are implemented by ${SERVICES_OWNER_TITLE[o.owner]}`}
  return o
}

/** SVC-001. */
export function checkLeftovers(ctx: CheckContext): CheckOutcome {
  const o = notDecided(ctx)
  if ('skip' in o) return {status: 'skipped', reason: o.skip}
  const facts = factsOf(ctx)
  const drafts: FindingDraft[] = []
  const ipt = facts.iptablesSave()
  if (ipt?.ok) {
    const nat = findTable(ipt.value, 'nat')
    const jumps: string[] = []
    for (const hook of ['PREROUTING', 'OUTPUT']) {
      const chain = nat?.chains.find((c) => c.name === hook)
      for (const r of chain?.rules ?? []) if (/(^|\s)-j KUBE-SERVICES(\s|$)/.test(r.text)) jumps.push(r.text)
    }
    const chains = (nat?.chains ?? []).map((c) => c.name).filter((n) => LEFTOVER_CHAIN.test(n))
    if (jumps.length > 0 || chains.some((c) => c !== 'KUBE-SERVICES' && c !== 'KUBE-NODEPORTS')) {
      const svc = chains.filter((c) => /^KUBE-SVC-/.test(c)).length
      drafts.push({
        message:
          `kube-proxy's iptables rules are still on the node although Services are implemented by ${ownerText(o)}: ` +
          `${jumps.length > 0 ? `${jumps.length} jump(s) to KUBE-SERVICES in nat PREROUTING/OUTPUT, ` : ''}${chains.length} KUBE-* chain(s) (${svc} KUBE-SVC)`,
        subject: {kind: 'chain', name: jumps.length > 0 ? 'KUBE-SERVICES' : chains[0]!, in: 'nat'},
        evidence: [...jumps, ...chains.slice(0, 20), ...(chains.length > 20 ? [`… ${chains.length - 20} more chains`] : [])],
        group: 'iptables',
      })
    }
  }
  const dp = facts.proxy.dataplane
  // kube-router implements Services with IPVS itself: its virtual servers are not leftovers.
  if (o.owner !== 'kube-router') {
    const vips = servicesVirtualServers(ctx, dp.ipvsServices ?? [])
    if (vips.length > 0 || dp.kubeIpvs0?.present === true) {
      drafts.push({
        message: `kube-proxy's IPVS state is still on the node although Services are implemented by ${ownerText(o)}: ${dp.kubeIpvs0?.present ? 'link kube-ipvs0' : ''}${dp.kubeIpvs0?.present && vips.length > 0 ? ' and ' : ''}${vips.length > 0 ? `${vips.length} IPVS virtual server(s) on Service addresses` : ''}`,
        subject: {kind: dp.kubeIpvs0?.present ? 'link' : 'virtual-server', name: dp.kubeIpvs0?.present ? 'kube-ipvs0' : vips[0]!},
        evidence: [...(dp.kubeIpvs0?.present ? [`kube-ipvs0 ${dp.kubeIpvs0.addresses.join(' ')}`.trim()] : []), ...vips.slice(0, 20)],
        group: 'ipvs',
      })
    }
  }
  if ((dp.nftTables?.length ?? 0) > 0) {
    drafts.push({
      message: `kube-proxy's nftables table is still on the node although Services are implemented by ${ownerText(o)}: ${dp.nftTables!.map((t) => `table ${t}`).join(', ')}`,
      subject: {kind: 'nft-object', name: `table ${dp.nftTables![0]}`},
      evidence: dp.nftTables!.map((t) => `table ${t}`),
      remedy: `Delete the table(s): ${dp.nftTables!.map((t) => `\`nft delete table ${t}\``).join(', ')} (or run \`kube-proxy --cleanup\` on the node, or reboot it).`,
      group: 'nftables',
    })
  }
  return drafts.length > 0 ? {status: 'failed', findings: drafts} : {status: 'passed'}
}

/** IPVS virtual servers on a Service's ClusterIP, externalIP, load-balancer IP or NodePort: kube-proxy's, not another user's. */
function servicesVirtualServers(ctx: CheckContext, ids: readonly string[]): string[] {
  const ips = new Set<string>()
  const nodePorts = new Set<number>()
  for (const s of ctx.cluster.services) {
    for (const ip of [s.spec.clusterIP, ...(s.spec.clusterIPs ?? []), ...(s.spec.externalIPs ?? []), ...(s.status?.loadBalancer?.ingress ?? []).map((i) => i.ip)]) if (ip) ips.add(ip)
    for (const p of s.spec.ports ?? []) if (p.nodePort) nodePorts.add(p.nodePort)
  }
  return ids.filter((id) => {
    const m = /^\S+ \[?([^\]]+?)\]?:(\d+)$/.exec(id)
    return m !== null && (ips.has(m[1]!) || nodePorts.has(Number(m[2])))
  })
}

/** SVC-002. */
export function checkTwoOwners(ctx: CheckContext): CheckOutcome {
  const o = notDecided(ctx)
  if ('skip' in o) return {status: 'skipped', reason: o.skip}
  if (!o.kubeProxyAlsoRunning) return {status: 'passed'}
  const layout = factsOf(ctx).resolvedLayout
  return {
    status: 'failed',
    findings: [
      {
        message: `Two Services implementations on the node: ${ownerText(o)}, and kube-proxy (${o.kubeProxyAlsoRunning})`,
        subject: {kind: 'process', name: 'kube-proxy'},
        evidence: [o.kubeProxyAlsoRunning, `Services owner: ${ownerText(o)}`, `kube-proxy: ${layout.kubeProxy.detail}`],
      },
    ],
  }
}

/** The SVC checks run only where another component is known to implement Services; unknown never skips, they self-skip. */
export const SERVICES_OWNER_CHECKS: readonly Check[] = [
  {spec: SVC_LEFTOVERS, when: {servicesOwner: [...OTHER_OWNERS]}, run: checkLeftovers},
  {spec: SVC_TWO_OWNERS, when: {servicesOwner: [...OTHER_OWNERS]}, run: checkTwoOwners},
]
