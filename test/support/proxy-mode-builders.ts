// Builders for the PROXY and CT check tests and fixtures. One node, node-a (192.168.0.11); kube-proxy pod
// kube-proxy-a on it; Services kube-system/kube-dns 10.96.0.10 (53/UDP) with CoreDNS at 10.244.1.2 and 10.244.2.2,
// and shop/web 10.96.1.1:80/TCP (NodePort 30080). Timestamps around COLLECTED_AT.
import type {ConfigMap, DaemonSet, Pod, Service} from '../../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../src/core/model/snapshot.js'
import {clusterSnapshot, endpointSlice, nodeSnapshot, planNodes, pod, type PodOptions, service} from './calico-dns-builders.js'

export const NODE = 'node-a'
export const KUBE_PROXY_POD = 'kube-proxy-a'

export function kubeProxyConfigMap(config: string | undefined): ConfigMap {
  const text = config === undefined ? undefined : `apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.244.0.0/16\n${config}`
  return {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: text === undefined ? {} : {'config.conf': text}}
}

const COMMAND = ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)']

export function kubeProxyDaemonSet(version: string, extraArgs: string[] = []): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {namespace: 'kube-system', name: 'kube-proxy'},
    spec: {selector: {matchLabels: {'k8s-app': 'kube-proxy'}}, template: {spec: {containers: [{name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${version}`, command: [...COMMAND, ...extraArgs]}]}}},
    status: {desiredNumberScheduled: 1, numberReady: 1},
  }
}

export function kubeProxyPod(version: string, o: PodOptions & {extraArgs?: string[]} = {}): Pod {
  const p = pod('kube-system', KUBE_PROXY_POD, NODE, '192.168.0.11', {...o, labels: {'k8s-app': 'kube-proxy'}, hostNetwork: true, container: 'kube-proxy'})
  p.spec!.containers = [{name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${version}`, command: [...COMMAND, ...(o.extraArgs ?? [])]}]
  return p
}

export function dnsService(): Service {
  return service('kube-system', 'kube-dns', '10.96.0.10', {'k8s-app': 'kube-dns'}, {ports: [{name: 'dns', protocol: 'UDP', port: 53}]})
}

export function dnsSlice(ips: string[]) {
  const s = endpointSlice('kube-system', 'kube-dns', ips.map((ip) => ({ip})))
  s.ports = [{name: 'dns', protocol: 'UDP', port: 53}]
  return s
}

export interface ProxyWorld {
  version?: string
  /** Extra ConfigMap lines (e.g. `mode: ipvs\n`); null: no ConfigMap. */
  config?: string | null
  pod?: Pod | null
  logs?: string
  dnsEndpoints?: string[]
}

export function proxyCluster(w: ProxyWorld = {}): ClusterSnapshot {
  const version = w.version ?? 'v1.31.4'
  const podObj = w.pod === null ? undefined : (w.pod ?? kubeProxyPod(version))
  return clusterSnapshot({
    serverVersion: version,
    nodes: planNodes(['node-a']),
    services: [dnsService(), service('shop', 'web', '10.96.1.1', {app: 'web'}, {type: 'NodePort', ports: [{name: 'http', protocol: 'TCP', port: 80, nodePort: 30080}]})],
    endpointSlices: [dnsSlice(w.dnsEndpoints ?? ['10.244.1.2', '10.244.2.2']), endpointSlice('shop', 'web', [{ip: '10.244.1.10'}])],
    configMaps: w.config === null ? [] : [kubeProxyConfigMap(w.config ?? 'mode: iptables\n')],
    daemonSets: [kubeProxyDaemonSet(version)],
    pods: podObj ? [podObj] : [],
    kubeProxyLogs: podObj && w.logs !== undefined ? {[podObj.metadata.name]: w.logs} : {},
  })
}

export function proxyNode(artifacts: Record<string, string>): NodeSnapshot {
  return nodeSnapshot(NODE, artifacts)
}

/** kube-proxy's /healthz JSON. */
export function healthzBody(lastUpdated: string, currentTime: string): string {
  return `{"lastUpdated": "${lastUpdated}","currentTime": "${currentTime}", "nodeEligible": true}`
}

/** A /metrics excerpt with the sync timestamps (per ip_family) and failure counters. */
export function metricsText(o: {lastSync: number; lastQueued: number; restoreFailures?: number; partialFailures?: number; family?: boolean}): string {
  const fam = o.family === false ? '' : '{ip_family="IPv4"}'
  return [
    '# HELP kubeproxy_sync_proxy_rules_last_timestamp_seconds [ALPHA] The last time proxy rules were successfully synced',
    '# TYPE kubeproxy_sync_proxy_rules_last_timestamp_seconds gauge',
    `kubeproxy_sync_proxy_rules_last_timestamp_seconds${fam} ${o.lastSync}`,
    '# HELP kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds [ALPHA] The last time a sync of proxy rules was queued',
    '# TYPE kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds gauge',
    `kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds${fam} ${o.lastQueued}`,
    '# HELP kubeproxy_sync_proxy_rules_iptables_restore_failures_total [ALPHA] Cumulative proxy iptables restore failures',
    '# TYPE kubeproxy_sync_proxy_rules_iptables_restore_failures_total counter',
    `kubeproxy_sync_proxy_rules_iptables_restore_failures_total${fam} ${o.restoreFailures ?? 0}`,
    '# HELP kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total [ALPHA] Cumulative proxy iptables partial restore failures',
    '# TYPE kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total counter',
    `kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total${fam} ${o.partialFailures ?? 0}`,
    '',
  ].join('\n')
}

/** /proc/modules lines for the given modules. */
export function procModules(names: readonly string[]): string {
  return names.map((n, i) => `${n} ${16384 + i * 4096} 0 - Live 0xffffffffc0${String(100000 + i).padStart(6, '0')}`).join('\n') + '\n'
}

/** `ip -j -d link show` with lo, eth0 and optionally kube-ipvs0. */
export function ipLinkJson(kubeIpvs0: boolean): string {
  const links: object[] = [
    {ifindex: 1, ifname: 'lo', flags: ['LOOPBACK', 'UP', 'LOWER_UP'], mtu: 65536, operstate: 'UNKNOWN', link_type: 'loopback', address: '00:00:00:00:00:00'},
    {ifindex: 2, ifname: 'eth0', flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], mtu: 1500, operstate: 'UP', link_type: 'ether', address: '52:54:00:12:34:56'},
  ]
  if (kubeIpvs0) links.push({ifindex: 5, ifname: 'kube-ipvs0', flags: ['BROADCAST', 'NOARP'], mtu: 1500, operstate: 'DOWN', link_type: 'ether', address: '8a:1b:2c:3d:4e:5f', linkinfo: {info_kind: 'dummy'}})
  return JSON.stringify(links)
}

/** An `ipvsadm -Sn` listing for kube-dns and web's ClusterIPs. */
export const IPVSADM_SAVE = [
  '-A -t 10.96.1.1:80 -s rr',
  '-a -t 10.96.1.1:80 -r 10.244.1.10:8080 -m -w 1',
  '-A -u 10.96.0.10:53 -s rr',
  '-a -u 10.96.0.10:53 -r 10.244.1.2:53 -m -w 1',
  '-a -u 10.96.0.10:53 -r 10.244.2.2:53 -m -w 1',
  '',
].join('\n')

// --- CT-001 frontends beyond the ClusterIP ---------------------------------------------------------------------

/** games/quake: UDP 27960 as LoadBalancer (ClusterIP 10.96.5.5, nodePort 30960, externalIP 203.0.113.10, LB IP 198.51.100.20). */
export const GAME = {clusterIP: '10.96.5.5', port: 27960, nodePort: 30960, externalIP: '203.0.113.10', lbIP: '198.51.100.20'} as const

export function gameService(): Service {
  const s = service('games', 'quake', GAME.clusterIP, {app: 'quake'}, {
    type: 'LoadBalancer',
    externalIPs: [GAME.externalIP],
    ports: [{name: 'game', protocol: 'UDP', port: GAME.port, nodePort: GAME.nodePort}],
  })
  s.status = {loadBalancer: {ingress: [{ip: GAME.lbIP, ipMode: 'VIP'}]}}
  return s
}

export function gameSlice(ips: string[]) {
  const s = endpointSlice('games', 'quake', ips.map((ip) => ({ip})))
  s.ports = [{name: 'game', protocol: 'UDP', port: GAME.port}]
  return s
}

/** `proxyCluster(w)` plus games/quake served by `gameEndpoints`. */
export function proxyClusterWithGame(w: ProxyWorld, gameEndpoints: string[]): ClusterSnapshot {
  const c = proxyCluster(w)
  c.services = [...c.services, gameService()]
  c.endpointSlices = [...c.endpointSlices, gameSlice(gameEndpoints)]
  return c
}
