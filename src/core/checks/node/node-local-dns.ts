// NODE-021: node-local-dns wiring on the node (issue #19 item 6), when a node-local-dns DaemonSet exists: its listen
// addresses bound on the node, the NOTRACK rules it installs in the raw table, and (IPVS mode) the kubelet's
// clusterDNS pointing at the link-local address. Rule shapes from kubernetes/dns cmd/node-cache/app/cache_app.go
// (initIptables): for each -localip, raw PREROUTING `-p tcp|udp -d IP --dport 53 -j NOTRACK` and raw OUTPUT ones,
// re-added every -syncinterval (default 60 s) while node-cache runs with -setupiptables (default true).
import type {DaemonSet, Pod} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import type {CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {effectiveConfig, kubeletView, valueAt} from '../kubelet/view.js'

export const NODE_LOCAL_DNS: CheckSpec = {
  id: 'NODE-021',
  area: 'routes',
  severity: 'error',
  title: 'node-local-dns is not wired on the node: listen address not bound, NOTRACK rules missing, or clusterDNS wrong for IPVS mode',
  looksAt:
    'Only where a node-local-dns DaemonSet runs in kube-system (name node-local-dns/nodelocaldns or label k8s-app=node-local-dns). Its `-localip` addresses ' +
    '(from the container args; 169.254.20.10 and the kube-dns ClusterIP in the upstream manifest) against the node\'s addresses (`ip -j addr show`, the ' +
    '`nodelocaldns` link); for each IPv4 one, the NOTRACK rules node-cache installs in the raw table of `iptables-save` (PREROUTING, `-d IP --dport 53` for udp and tcp); ' +
    "in IPVS mode the kubelet's clusterDNS; in nftables mode an info finding (node-cache programs iptables rules only, kubernetes/dns#682). Not judged when the DaemonSet runs with `-setupiptables=false` (rules), or for IPv6 listen addresses (ip6tables).",
  why:
    'node-local-dns answers pods on a link-local address bound to a dummy interface on each node. Without the address bound, queries to it go nowhere; without ' +
    'the NOTRACK rules the queries are conntracked again (the DNS conntrack races it exists to avoid come back) and, where the kube-dns ClusterIP is one of its ' +
    "addresses, kube-proxy's DNAT takes the queries away from the local cache. In IPVS mode the kube-dns ClusterIP is bound to kube-ipvs0, so only a clusterDNS of the " +
    'link-local address reaches the cache (kubernetes/kubernetes#98758, awslabs/amazon-eks-ami#636).',
  remedy:
    'Check the node-local-dns pod on the node (`kubectl -n kube-system get pods -l k8s-app=node-local-dns -o wide`, then its log for "Error adding iptables rule"): it ' +
    're-creates the interface and the rules every sync interval while it runs. In IPVS mode set the kubelet\'s clusterDNS to the link-local address ' +
    '(`clusterDNS: [169.254.20.10]` in the KubeletConfiguration) and restart the kubelet.',
  requires: ['ip-addr', 'iptables-save', 'cluster:daemonSets'],
}

/** The node-local-dns DaemonSet, when the cluster runs one. */
export function nodeLocalDnsDaemonSet(daemonSets: readonly DaemonSet[]): DaemonSet | undefined {
  return daemonSets.find((d) => d.metadata.namespace === 'kube-system' && (/^(node-local-dns|nodelocaldns)$/.test(d.metadata.name) || d.metadata.labels?.['k8s-app'] === 'node-local-dns'))
}

/** Whether node-local-dns runs on the node: a pod of the DaemonSet there; `unknown` when none of its pods is listed at all. */
export function nodeLocalDnsOnNode(cluster: ClusterSnapshot, ds: DaemonSet, node: string): 'yes' | 'no' | 'unknown' {
  const selector = Object.entries(ds.spec?.selector?.matchLabels ?? {})
  const ofDs = (p: Pod) =>
    p.metadata.namespace === ds.metadata.namespace &&
    ((p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' && o.name === ds.metadata.name) ||
      (selector.length > 0 && selector.every(([k, v]) => p.metadata.labels?.[k] === v)))
  const pods = cluster.pods.filter(ofDs)
  if (pods.length === 0) return 'unknown'
  return pods.some((p) => p.spec?.nodeName === node) ? 'yes' : 'no'
}

export interface NodeLocalDnsArgs {
  localIPs: string[]
  setupIptables: boolean
  interfaceName: string
}

/** node-cache's flags (Go flag syntax: -x v, -x=v, --x v) from the DaemonSet's container args; undefined without -localip. */
export function nodeLocalDnsArgs(ds: DaemonSet): NodeLocalDnsArgs | undefined {
  const containers = ds.spec?.template?.spec?.containers ?? []
  const c = containers.find((x) => x.name === 'node-cache') ?? containers[0]
  const args = [...(c?.command ?? []), ...(c?.args ?? [])]
  const flag = (name: string): string | undefined => {
    for (let i = 0; i < args.length; i++) {
      const m = new RegExp(`^--?${name}(?:=(.*))?$`).exec(args[i] ?? '')
      if (m) return m[1] ?? args[i + 1]
    }
    return undefined
  }
  const localip = flag('localip')
  if (!localip) return undefined
  const setup = flag('setupiptables')
  return {
    localIPs: localip.split(',').map((s) => s.trim()).filter((s) => s !== ''),
    setupIptables: setup === undefined || !/^(false|0)$/i.test(setup),
    interfaceName: flag('interfacename') ?? 'nodelocaldns',
  }
}

function hasNotrack(rules: readonly string[], ip: string, proto: 'udp' | 'tcp'): boolean {
  return rules.some(
    (r) => new RegExp(`(^|\\s)-d ${ip.replaceAll('.', '\\.')}(/32)?(\\s|$)`).test(r) && new RegExp(`(^|\\s)-p ${proto}(\\s|$)`).test(r) && /--dport 53(\s|$)/.test(r) && /-j (NOTRACK|CT --notrack)(\s|$)/.test(r),
  )
}

export function checkNodeLocalDns(ctx: CheckContext): CheckOutcome {
  const ds = nodeLocalDnsDaemonSet(ctx.cluster.daemonSets)
  if (!ds) return {status: 'skipped', reason: 'not applicable: no node-local-dns DaemonSet in kube-system'}
  const args = nodeLocalDnsArgs(ds)
  if (!args) return {status: 'skipped', reason: `cannot tell: the ${ds.metadata.name} DaemonSet's container has no -localip argument`}
  // A node the DaemonSet does not cover has nothing to bind or program; pointing clusterDNS there is NODE-025's.
  if (nodeLocalDnsOnNode(ctx.cluster, ds, ctx.node.node) === 'no') return {status: 'skipped', reason: `not applicable: no ${ds.metadata.name} pod runs on this node (NODE-025 judges its clusterDNS)`}
  const facts = factsOf(ctx)
  const findings: FindingDraft[] = []
  const unknown: string[] = []
  const dsRef = `DaemonSet kube-system/${ds.metadata.name}: -localip ${args.localIPs.join(',')}${args.setupIptables ? '' : ', -setupiptables=false'}`

  // Listen addresses bound on the node.
  const links = facts.links('ip-addr')
  if (!links?.ok) unknown.push(links ? 'the address listing could not be parsed' : 'missing input: ip-addr')
  else {
    const bound = new Set(links.value.interfaces.filter((i) => i.name !== 'kube-ipvs0').flatMap((i) => i.addresses.map((a) => a.local)))
    const iface = links.value.interfaces.find((i) => i.name === args.interfaceName)
    const missing = args.localIPs.filter((ip) => !bound.has(ip))
    if (missing.length > 0) {
      findings.push({
        message: `node-local-dns listen address(es) ${missing.join(', ')} are not bound on the node${iface ? '' : ` (no ${args.interfaceName} interface)`}: pods whose resolv.conf points there get no answer`,
        subject: {kind: 'link', name: args.interfaceName},
        evidence: [dsRef, iface ? `${args.interfaceName}: ${iface.addresses.map((a) => `${a.local}/${a.prefixlen}`).join(' ') || 'no addresses'}` : `no ${args.interfaceName} link in ip -j addr show`],
      })
    }
  }

  // NOTRACK rules in the raw table (IPv4 listen addresses; iptables-save is read as IPv4).
  if (args.setupIptables) {
    const dump = facts.iptablesSave()
    if (!dump?.ok) unknown.push(dump ? 'iptables-save could not be parsed' : 'missing input: iptables-save')
    else {
      const raw = dump.value.tables.find((t) => t.name === 'raw')
      const prerouting = raw?.chain('PREROUTING')?.rules.map((r) => r.text) ?? []
      for (const ip of args.localIPs.filter((x) => !x.includes(':'))) {
        const lacking = (['udp', 'tcp'] as const).filter((p) => !hasNotrack(prerouting, ip, p))
        if (lacking.length === 0) continue
        findings.push({
          message: `the raw table has no NOTRACK rule for node-local-dns on ${ip}:53 (${lacking.join(', ')}) in PREROUTING: pod queries to it are conntracked${ip.startsWith('169.254.') ? '' : " and kube-proxy's DNAT for that ClusterIP takes them away from the local cache"}`,
          subject: {kind: 'chain', name: 'PREROUTING', in: 'raw'},
          evidence: [dsRef, ...(raw ? [`raw PREROUTING: ${prerouting.length} rule(s)`, ...prerouting.slice(0, 6)] : ['no raw table in iptables-save'])],
        })
      }
    }
  }

  // IPVS mode: the kube-dns ClusterIP sits on kube-ipvs0, so only the link-local address reaches the cache.
  if (facts.proxyMode === 'ipvs') {
    const eff = effectiveConfig(kubeletView(ctx))
    if (!eff.ok) unknown.push(`the kubelet's clusterDNS: ${eff.reason}`)
    else {
      const list = valueAt(eff.value.cfg, 'clusterDNS')
      const dns = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []
      const linkLocal = args.localIPs.filter((ip) => ip.startsWith('169.254.') || ip.toLowerCase().startsWith('fe80:'))
      if (linkLocal.length > 0 && !dns.some((ip) => linkLocal.includes(ip))) {
        findings.push({
          message: `kube-proxy runs IPVS mode but the kubelet's clusterDNS (${dns.join(', ') || 'empty'}) is not node-local-dns's link-local address (${linkLocal.join(', ')}): pods bypass the local cache`,
          subject: {kind: 'field', name: 'clusterDNS', in: 'KubeletConfiguration'},
          evidence: [dsRef, `clusterDNS: [${dns.join(', ')}] (${eff.value.basis})`, 'kube-proxy mode: ipvs'],
          severity: 'warning',
        })
      }
    }
  }
  // nftables mode: node-cache programs iptables rules only, and kubernetes/dns#682 (open) asks for nftables support.
  if (facts.proxyMode === 'nftables') {
    findings.push({
      message:
        "kube-proxy runs nftables mode, for which node-local-dns has no documented support: node-cache programs only iptables rules (kubernetes/dns#682, open). " +
        `Check that pods' queries to ${args.localIPs.join(', ')} are answered by the local cache`,
      subject: {kind: 'DaemonSet', name: ds.metadata.name, namespace: 'kube-system'},
      evidence: [dsRef, 'kube-proxy mode: nftables'],
      severity: 'info',
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (unknown.length > 0) return {status: 'skipped', reason: `cannot tell: ${unknown.join('; ')}`}
  return {status: 'passed'}
}
