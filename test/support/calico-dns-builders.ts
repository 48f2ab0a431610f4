// Builders for the route, DNS and endpoint check tests and fixtures: Calico nodes, pools, blocks, pods, Services.
// IP plan: nodes 192.168.0.0/24 (node-a .11, node-b .12; node-c 192.168.1.13 sits in another subnet), pool
// 10.244.0.0/16 with /26 blocks (node-a 10.244.1.0/26, node-b 10.244.2.0/26, node-c 10.244.3.0/26; each node's
// tunnel address is its block's first address), services 10.96.0.0/12. Snapshots are taken at COLLECTED_AT.
import type {DaemonSet, EndpointSlice, KubeObject, Node, Pod, Service} from '../../src/core/model/k8s.js'
import {type ClusterSnapshot, emptyClusterSnapshot, type NodeSnapshot, SNAPSHOT_API_VERSION} from '../../src/core/model/snapshot.js'

export const COLLECTED_AT = '2026-12-02T12:00:00.000Z'
const LONG_AGO = '2026-11-01T00:00:00Z'

export const NODES = {
  'node-a': {ip: '192.168.0.11', block: '10.244.1.0/26', tunnel: '10.244.1.0', podCIDR: '10.244.1.0/24'},
  'node-b': {ip: '192.168.0.12', block: '10.244.2.0/26', tunnel: '10.244.2.0', podCIDR: '10.244.2.0/24'},
  'node-c': {ip: '192.168.1.13', block: '10.244.3.0/26', tunnel: '10.244.3.0', podCIDR: '10.244.3.0/24'},
} as const
export type NodeName = keyof typeof NODES

export function calicoNode(name: string, ip: string, options: {prefix?: number; vtep?: string; ipip?: string; podCIDR?: string; ready?: boolean; annotate?: boolean} = {}): Node {
  const annotations: Record<string, string> = {}
  if (options.annotate !== false) annotations['projectcalico.org/IPv4Address'] = `${ip}/${options.prefix ?? 24}`
  if (options.ipip) annotations['projectcalico.org/IPv4IPIPTunnelAddr'] = options.ipip
  if (options.vtep) annotations['projectcalico.org/IPv4VXLANTunnelAddr'] = options.vtep
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {name, labels: {'kubernetes.io/hostname': name}, annotations, creationTimestamp: LONG_AGO},
    spec: options.podCIDR ? {podCIDR: options.podCIDR, podCIDRs: [options.podCIDR]} : {},
    status: {
      addresses: [
        {type: 'InternalIP', address: ip},
        {type: 'Hostname', address: name},
      ],
      conditions: [{type: 'Ready', status: options.ready === false ? 'False' : 'True'}],
    },
  }
}

/** node-a..node-c per the IP plan; `encap` decides which tunnel annotation each node carries. */
export function planNodes(names: readonly NodeName[] = ['node-a', 'node-b'], encap: 'ipip' | 'vxlan' | 'none' = 'ipip'): Node[] {
  return names.map((n) => {
    const p = NODES[n]
    return calicoNode(n, p.ip, {...(encap === 'ipip' ? {ipip: p.tunnel} : encap === 'vxlan' ? {vtep: p.tunnel} : {}), podCIDR: p.podCIDR})
  })
}

export function ipPool(name: string, cidr: string, modes: {ipipMode?: string; vxlanMode?: string} = {}): KubeObject {
  return {
    apiVersion: 'crd.projectcalico.org/v1',
    kind: 'IPPool',
    metadata: {name},
    spec: {cidr, blockSize: cidr.includes(':') ? 122 : 26, ipipMode: modes.ipipMode ?? 'Never', vxlanMode: modes.vxlanMode ?? 'Never', natOutgoing: true, nodeSelector: 'all()'},
  } as KubeObject
}

const cidrName = (cidr: string) => cidr.replace(/[.:/]/g, '-')

export function blockAffinity(node: string, cidr: string, state = 'confirmed'): KubeObject {
  return {apiVersion: 'crd.projectcalico.org/v1', kind: 'BlockAffinity', metadata: {name: `${node}-${cidrName(cidr)}`}, spec: {node, cidr, state, deleted: 'false'}} as KubeObject
}

export function ipamBlock(cidr: string, node: string | undefined): KubeObject {
  return {
    apiVersion: 'crd.projectcalico.org/v1',
    kind: 'IPAMBlock',
    metadata: {name: cidrName(cidr)},
    spec: {cidr, ...(node ? {affinity: `host:${node}`} : {}), strictAffinity: false, deleted: false, allocations: [], unallocated: [], attributes: []},
  } as KubeObject
}

export interface PodOptions {
  labels?: Record<string, string>
  ready?: boolean
  phase?: string
  hostNetwork?: boolean
  terminating?: boolean
  created?: string
  /** Restarts of the first container, with the last termination `agoSeconds` before COLLECTED_AT. */
  restarts?: {count: number; agoSeconds?: number; reason?: string}
  waiting?: string
  container?: string
}

export function pod(namespace: string, name: string, nodeName: string, ip: string | string[] | undefined, o: PodOptions = {}): Pod {
  const ips = ip === undefined ? [] : Array.isArray(ip) ? ip : [ip]
  const ready = o.ready ?? true
  const restarts = o.restarts
  const finishedAt = restarts?.agoSeconds !== undefined ? new Date(Date.parse(COLLECTED_AT) - restarts.agoSeconds * 1000).toISOString() : undefined
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name, namespace, labels: o.labels ?? {}, creationTimestamp: o.created ?? LONG_AGO, ...(o.terminating ? {deletionTimestamp: COLLECTED_AT} : {})},
    spec: {nodeName, containers: [{name: o.container ?? 'main', image: 'registry.example/app:1'}], ...(o.hostNetwork ? {hostNetwork: true} : {})},
    status: {
      phase: o.phase ?? 'Running',
      ...(ips[0] !== undefined ? {podIP: ips[0], podIPs: ips.map((i) => ({ip: i}))} : {}),
      conditions: [{type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: LONG_AGO} as {type: string; status: string}],
      containerStatuses: [
        {
          name: o.container ?? 'main',
          ready,
          restartCount: restarts?.count ?? 0,
          state: o.waiting ? {waiting: {reason: o.waiting}} : {running: {startedAt: LONG_AGO}},
          ...(restarts ? {lastState: {terminated: {reason: restarts.reason ?? 'Error', exitCode: 1, ...(finishedAt ? {finishedAt} : {})}}} : {}),
        },
      ],
    },
  }
}

export function calicoNodePod(node: string, o: PodOptions = {}): Pod {
  const ip = NODES[node as NodeName]?.ip ?? '192.168.0.99'
  return pod('kube-system', `calico-node-${node.replace(/^node-/, '')}xyz`, node, ip, {...o, labels: {'k8s-app': 'calico-node'}, hostNetwork: true, container: 'calico-node'})
}

export function calicoDaemonSet(desired: number, ready: number): DaemonSet {
  return {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'calico-node', namespace: 'kube-system'}, status: {desiredNumberScheduled: desired, numberReady: ready}}
}

export function service(namespace: string, name: string, clusterIP: string, selector: Record<string, string> | undefined, extra: Partial<Service['spec']> = {}): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {name, namespace},
    spec: {type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ports: [{name: 'p', protocol: 'TCP', port: 80}], ...(selector ? {selector} : {}), ...extra},
  }
}

export interface EndpointSpec {
  ip: string
  node?: string
  pod?: string
  ready?: boolean | null
  terminating?: boolean
}

export function endpointSlice(namespace: string, svc: string, endpoints: EndpointSpec[], o: {name?: string; addressType?: 'IPv4' | 'IPv6'; managedBy?: string} = {}): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: o.name ?? `${svc}-abcde`,
      namespace,
      labels: {'kubernetes.io/service-name': svc, 'endpointslice.kubernetes.io/managed-by': o.managedBy ?? 'endpointslice-controller.k8s.io'},
    },
    addressType: o.addressType ?? 'IPv4',
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: {ready: e.ready === undefined ? true : e.ready, serving: e.ready !== false, terminating: e.terminating ?? false},
      ...(e.node ? {nodeName: e.node} : {}),
      ...(e.pod ? {targetRef: {kind: 'Pod', name: e.pod, namespace}} : {}),
    })),
    ports: [{name: 'p', protocol: 'TCP', port: 80}],
  }
}

export function clusterSnapshot(parts: Partial<Omit<ClusterSnapshot, 'calico'>> & {calico?: Partial<ClusterSnapshot['calico']>} = {}): ClusterSnapshot {
  const base = emptyClusterSnapshot(COLLECTED_AT)
  const {calico, ...rest} = parts
  return {...base, ...rest, calico: {...base.calico, ...calico}}
}

export function nodeSnapshot(node: string, artifacts: Record<string, string>): NodeSnapshot {
  const commands: Record<string, string> = {
    'ip-route': 'ip -d route show table all',
    'ip6-route': 'ip -6 route show',
    'ip-addr': 'ip -j addr show',
    'ip-link': 'ip -j -d link show',
    'bird-protocols': 'birdc -s /var/run/calico/bird.ctl show protocols',
    'bird6-protocols': 'birdc6 -s /var/run/calico/bird6.ctl show protocols',
  }
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'NodeSnapshot',
    node,
    collectedAt: COLLECTED_AT,
    transport: 'ssh',
    artifacts: Object.fromEntries(Object.entries(artifacts).map(([id, content]) => [id, {id, source: commands[id] ?? id, exitCode: 0, content}])),
    errors: [],
  }
}

/** A healthy Calico cluster on the IP plan: pool, confirmed affinities and IPAM blocks, one calico-node pod per node. */
export function calicoCluster(o: {nodes?: NodeName[]; ipipMode?: string; vxlanMode?: string; pods?: Pod[]} = {}): ClusterSnapshot {
  const names = o.nodes ?? ['node-a', 'node-b']
  const encap = o.vxlanMode && o.vxlanMode !== 'Never' ? 'vxlan' : o.ipipMode === 'Never' ? 'none' : 'ipip'
  return clusterSnapshot({
    nodes: planNodes(names, encap),
    pods: [...names.map((n) => calicoNodePod(n)), ...(o.pods ?? [])],
    calico: {
      ipPools: [ipPool('default-ipv4-ippool', '10.244.0.0/16', {ipipMode: o.ipipMode ?? 'Always', vxlanMode: o.vxlanMode ?? 'Never'})],
      blockAffinities: names.map((n) => blockAffinity(n, NODES[n].block)),
      ipamBlocks: names.map((n) => ipamBlock(NODES[n].block, n)),
    },
  })
}
