// NODE-025: the kubelet's clusterDNS against node-local-dns (issue #19 item 6, "clusterDNS pointing at it or at kube-dns
// consistently across nodes"). Judged per node, so a node's result does not depend on which other nodes were analysed
// with it (the dashboard analyses nodes one by one and merges them): the node's own clusterDNS (files + flags, or its
// running kubelet) against the node-local-dns DaemonSet's `-localip` addresses and whether its pod is on this node;
// then, for consistency, against the other nodes of the run through what the ClusterSnapshot holds for each of them:
// their running kubelets' /configz, read for every node under examination (app/read-cluster.ts).
// NODE-021 judges the IPVS-mode clusterDNS (the link-local address is required there); this check leaves IPVS to it.
import {factKey} from '../../facts/node-facts.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import {findDnsService} from '../dns/index.js'
import {effectiveConfig, kubeletView, valueAt} from '../kubelet/view.js'
import type {CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {nodeLocalDnsArgs, nodeLocalDnsDaemonSet, nodeLocalDnsOnNode} from './node-local-dns.js'

export const NODE_LOCAL_DNS_CLUSTER_DNS: CheckSpec = {
  id: 'NODE-025',
  area: 'dns',
  severity: 'error',
  title: "The kubelet's clusterDNS does not match node-local-dns on the node: its address where no node-local-dns runs, the cache bypassed, or unlike the other nodes",
  looksAt:
    "Only where a node-local-dns DaemonSet runs in kube-system (as NODE-021 finds it). The kubelet's clusterDNS (the running kubelet's /configz when read, else its files " +
    "and flags) against the DaemonSet's `-localip` addresses, the ClusterIP(s) of Service kube-system/kube-dns, and whether a pod of the DaemonSet is on the node " +
    '(kube-system pods: its owner reference or its selector labels). Then the clusterDNS of the other nodes examined in the same run, from their running kubelets ' +
    "(/configz, read through the API's nodes/proxy for every node under examination), among the nodes that have node-local-dns the same way (a pod on them or not). " +
    'IPVS mode is NODE-021\'s. With only one node examined (or no other node\'s /configz readable), the comparison cannot be made and the check says so.',
  why:
    "clusterDNS is the nameserver the kubelet writes into every pod's resolv.conf. node-local-dns answers on a link-local address (169.254.20.10 upstream) bound on " +
    'each node it runs on, and in iptables mode also on the kube-dns ClusterIP. A node whose clusterDNS is the link-local address but which has no node-local-dns ' +
    'pod (a nodeSelector or taint keeps the DaemonSet off it, a new node pool) gives its pods no DNS at all (awslabs/amazon-eks-ami#636). A node whose clusterDNS is ' +
    "none of node-local-dns's addresses bypasses the cache: it works, but the conntrack races node-local-dns exists to avoid come back. Nodes configured unlike " +
    'the others are a half-applied change, which breaks when node-local-dns is removed or moved.',
  remedy:
    'Make the kubelet configuration the same on every node that runs node-local-dns: `clusterDNS: [169.254.20.10]` (the DaemonSet\'s -localip) in the KubeletConfiguration ' +
    "(or `--cluster-dns`), or the kube-dns ClusterIP where node-local-dns also binds it (iptables mode); then restart the kubelet and recreate the node's pods (they keep " +
    'their resolv.conf). On a node the DaemonSet does not cover, either let the DaemonSet run there (`kubectl -n kube-system get ds node-local-dns -o yaml`: nodeSelector, ' +
    'tolerations) or set clusterDNS back to the kube-dns ClusterIP (`kubectl -n kube-system get svc kube-dns`).',
  requires: ['cluster:daemonSets', 'cluster:services', 'cluster:pods'],
}

/** Each node's clusterDNS from its running kubelet (/configz), once per run; nodes whose body does not parse are left out. */
const RUNNING_CLUSTER_DNS = factKey<ReadonlyMap<string, string[]>>('running kubelets clusterDNS')

function runningClusterDns(cluster: ClusterSnapshot): ReadonlyMap<string, string[]> {
  const out = new Map<string, string[]>()
  for (const [node, body] of Object.entries(cluster.configz)) {
    // The kubelet serves JSON: a plain parse is enough for one field (the kubelet checks of that node report a bad body).
    try {
      const cfg = (JSON.parse(body) as {kubeletconfig?: {clusterDNS?: unknown}} | null)?.kubeletconfig
      if (cfg && typeof cfg === 'object') out.set(node, stringList(cfg.clusterDNS))
    } catch {
      // not JSON: left out
    }
  }
  return out
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
}

const show = (dns: readonly string[]) => dns.join(', ') || 'empty'

export function checkNodeLocalDnsClusterDns(ctx: CheckContext): CheckOutcome {
  const ds = nodeLocalDnsDaemonSet(ctx.cluster.daemonSets)
  if (!ds) return {status: 'skipped', reason: 'not applicable: no node-local-dns DaemonSet in kube-system'}
  const args = nodeLocalDnsArgs(ds)
  if (!args) return {status: 'skipped', reason: `cannot tell: the ${ds.metadata.name} DaemonSet's container has no -localip argument`}
  const facts = factsOf(ctx)
  const eff = effectiveConfig(kubeletView(ctx))
  if (!eff.ok) return {status: 'skipped', reason: `cannot tell: the kubelet's clusterDNS: ${eff.reason}`}
  const dns = stringList(valueAt(eff.value.cfg, 'clusterDNS'))
  if (dns.length === 0) return {status: 'skipped', reason: 'not judged: clusterDNS is empty (KUBELET-016 reports it)'}
  const svc = findDnsService(ctx.cluster)
  const kubeDnsIPs = new Set([...(svc?.spec.clusterIPs ?? []), ...(svc?.spec.clusterIP ? [svc.spec.clusterIP] : [])])
  // The addresses only node-local-dns answers on (the kube-dns ClusterIP has CoreDNS behind it wherever the cache is not).
  const cacheOnly = args.localIPs.filter((ip) => !kubeDnsIPs.has(ip))
  const here = nodeLocalDnsOnNode(ctx.cluster, ds, ctx.node.node)
  const node = ctx.node.node
  const dsRef = `DaemonSet kube-system/${ds.metadata.name}: -localip ${args.localIPs.join(',')}`
  const own = `clusterDNS: [${dns.join(', ')}] (${eff.value.basis})`
  const podRef = here === 'yes' ? `a ${ds.metadata.name} pod runs on ${node}` : here === 'no' ? `no ${ds.metadata.name} pod on ${node} (its pods are on other nodes)` : `no ${ds.metadata.name} pod listed`
  const svcRef = `Service kube-system/kube-dns: ClusterIP ${[...kubeDnsIPs].join(', ') || 'none'}`
  const subject = {kind: 'field', name: 'clusterDNS', in: 'KubeletConfiguration'}
  const findings: FindingDraft[] = []

  const toCacheOnly = dns.filter((ip) => cacheOnly.includes(ip))
  if (here === 'no' && toCacheOnly.length > 0) {
    findings.push({
      message: `clusterDNS points at node-local-dns's ${toCacheOnly.join(', ')} but no node-local-dns pod runs on this node: pods here get no DNS answer`,
      subject,
      evidence: [own, dsRef, podRef, svcRef],
    })
  }
  if (here === 'yes' && facts.proxyMode !== 'ipvs' && !dns.some((ip) => args.localIPs.includes(ip)) && dns.some((ip) => kubeDnsIPs.has(ip))) {
    findings.push({
      message: `pods on this node bypass node-local-dns: clusterDNS (${show(dns)}) is the kube-dns ClusterIP, which node-local-dns does not listen on (-localip ${args.localIPs.join(',')})`,
      subject,
      evidence: [own, dsRef, podRef, svcRef],
      severity: 'warning',
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}

  // Consistency: the other examined nodes with node-local-dns the same way, by their running kubelets.
  const running = facts.run.derive(RUNNING_CLUSTER_DNS, runningClusterDns)
  const others = [...new Set(Object.keys(ctx.cluster.configz))].filter((n) => n !== node).sort()
  if (others.length === 0) return {status: 'skipped', reason: "cannot tell: one node (no other node's kubelet /configz in this run to compare clusterDNS with)"}
  const peers = others.filter((n) => running.has(n) && nodeLocalDnsOnNode(ctx.cluster, ds, n) === here)
  if (peers.length === 0) return {status: 'skipped', reason: `cannot tell: none of the other nodes (${others.length}) has node-local-dns the same way with a readable /configz`}
  const key = (d: readonly string[]) => d.join(',')
  const counts = new Map<string, string[]>()
  for (const n of peers) {
    const k = key(running.get(n)!)
    counts.set(k, [...(counts.get(k) ?? []), n])
  }
  const mine = counts.get(key(dns))?.length ?? 0
  const [major, majorNodes] = [...counts].sort((a, b) => b[1].length - a[1].length)[0]!
  // Differs from a strict majority of the comparable nodes (self counted with its own value).
  if (major !== key(dns) && majorNodes.length > mine + 1) {
    return {
      status: 'failed',
      findings: [
        {
          message: `clusterDNS (${show(dns)}) differs from ${majorNodes.length} of the ${peers.length} other nodes ${here === 'no' ? 'without' : 'with'} node-local-dns (${show(major.split(',').filter((s) => s !== ''))}): a half-applied kubelet change`,
          subject,
          evidence: [own, ...majorNodes.slice(0, 5).map((n) => `${n}: clusterDNS [${running.get(n)!.join(', ')}] (running (/configz))`), ...(majorNodes.length > 5 ? [`… and ${majorNodes.length - 5} more`] : []), dsRef, podRef],
          severity: 'info',
        },
      ],
    }
  }
  return {status: 'passed'}
}
