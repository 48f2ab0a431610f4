// The fire/quiet scenarios behind test/fixtures/checks/routes-cni: flannel (vxlan, host-gw) and Amazon VPC CNI
// clusters built in code, and node-a set up in a netns by scripts/make-flannel-fixtures.ts to capture real
// `ip`/`bridge` output. IP plan as calico-dns-builders: nodes 192.168.0.0/24 (node-a .11, node-b .12; node-c
// 192.168.1.13 in another subnet), podCIDRs 10.244.N.0/24; VPC pods 192.168.0.5x. `fires` is the exact set of
// check ids with findings on node-a.
import type {DaemonSet, Node, Pod} from '../../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../src/core/model/snapshot.js'
import {clusterSnapshot, COLLECTED_AT, NODES, type NodeName, nodeSnapshot, pod} from './calico-dns-builders.js'
import type {CniNodeSetup} from './cni-netns.js'

export interface CniCase {
  name: string
  node: string
  cluster: () => ClusterSnapshot
  setup: CniNodeSetup
  fires: string[]
}

export const VTEP: Record<NodeName, string> = {'node-a': '02:fa:00:00:00:11', 'node-b': '02:fa:00:00:00:12', 'node-c': '02:fa:00:00:00:13'}
const LONG_AGO = '2026-11-01T00:00:00Z'

export function flannelNode(name: NodeName, backend: 'vxlan' | 'host-gw', o: {mac?: string; publicIp?: string} = {}): Node {
  const p = NODES[name]
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {'kubernetes.io/hostname': name},
      annotations: {
        'flannel.alpha.coreos.com/backend-data': backend === 'vxlan' ? JSON.stringify({VNI: 1, VtepMAC: o.mac ?? VTEP[name]}) : 'null',
        'flannel.alpha.coreos.com/backend-type': backend,
        'flannel.alpha.coreos.com/kube-subnet-manager': 'true',
        'flannel.alpha.coreos.com/public-ip': o.publicIp ?? p.ip,
      },
      creationTimestamp: LONG_AGO,
    },
    spec: {podCIDR: p.podCIDR, podCIDRs: [p.podCIDR]},
    status: {
      addresses: [
        {type: 'InternalIP', address: p.ip},
        {type: 'Hostname', address: name},
      ],
      conditions: [{type: 'Ready', status: 'True'}],
    },
  }
}

const daemonSet = (namespace: string, name: string): DaemonSet => ({apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name, namespace}, status: {desiredNumberScheduled: 3, numberReady: 3}})

const flannelPods = (names: readonly NodeName[]): Pod[] => [
  ...names.map((n) => pod('kube-flannel', `kube-flannel-ds-${n.slice(-1)}xyz`, n, NODES[n].ip, {labels: {app: 'flannel'}, hostNetwork: true, container: 'kube-flannel'})),
  pod('shop', 'web-a', 'node-a', '10.244.1.5', {labels: {app: 'web'}}),
  pod('shop', 'api-a', 'node-a', '10.244.1.6', {labels: {app: 'api'}}),
  pod('shop', 'web-b', 'node-b', '10.244.2.10', {labels: {app: 'web'}}),
]

export function flannelCluster(backend: 'vxlan' | 'host-gw', names: readonly NodeName[] = backend === 'vxlan' ? ['node-a', 'node-b', 'node-c'] : ['node-a', 'node-b']): ClusterSnapshot {
  return clusterSnapshot({nodes: names.map((n) => flannelNode(n, backend)), pods: flannelPods(names), daemonSets: [daemonSet('kube-flannel', 'kube-flannel-ds')]})
}

// --- flannel vxlan: routes, neighbours and FDB entries for node-b and node-c ---------------------------------------

const VX_ROUTE_B = ['10.244.2.0/24', 'via', '10.244.2.0', 'dev', 'flannel.1', 'onlink']
const VX_ROUTE_C = ['10.244.3.0/24', 'via', '10.244.3.0', 'dev', 'flannel.1', 'onlink']
const NEIGH_B: [string, string] = ['10.244.2.0', VTEP['node-b']]
const NEIGH_C: [string, string] = ['10.244.3.0', VTEP['node-c']]
const FDB_B: [string, string] = [VTEP['node-b'], '192.168.0.12']
const FDB_C: [string, string] = [VTEP['node-c'], '192.168.1.13']

function vxlanNode(o: {routes?: string[][]; neighbours?: Array<[string, string]>; fdb?: Array<[string, string]>; bridge?: string} = {}): CniNodeSetup {
  return {
    vxlan: {mac: VTEP['node-a'], addr: '10.244.1.0'},
    bridge: o.bridge ?? '10.244.1.1/24',
    bridgePods: ['10.244.1.5', '10.244.1.6'],
    neighbours: o.neighbours ?? [NEIGH_B, NEIGH_C],
    fdb: o.fdb ?? [FDB_B, FDB_C],
    routes: o.routes ?? [VX_ROUTE_B, VX_ROUTE_C],
  }
}

const HOSTGW_B = ['10.244.2.0/24', 'via', '192.168.0.12', 'dev', 'eth0']
const hostgwNode = (routes: string[][] = [HOSTGW_B]): CniNodeSetup => ({bridge: '10.244.1.1/24', bridgePods: ['10.244.1.5', '10.244.1.6'], routes})

// --- Amazon VPC CNI: pods with VPC addresses, one host route each ----------------------------------------------------

const ENI_PODS = {eni1a2b3c4d5e6: '192.168.0.55', eni6e5d4c3b2a1: '192.168.0.56'}
const ENI_ROUTES = Object.entries(ENI_PODS).map(([dev, ip]) => [ip, 'dev', dev, 'scope', 'link'])

function awsCluster(): ClusterSnapshot {
  const nodes = (['node-a', 'node-b'] as const).map((n): Node => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {name: n, labels: {'kubernetes.io/hostname': n}, creationTimestamp: LONG_AGO},
    spec: {providerID: `aws:///eu-west-1a/i-0${n === 'node-a' ? 'a' : 'b'}1234567890abcd`},
    status: {addresses: [{type: 'InternalIP', address: NODES[n].ip}], conditions: [{type: 'Ready', status: 'True'}]},
  }))
  return clusterSnapshot({
    nodes,
    daemonSets: [daemonSet('kube-system', 'aws-node')],
    pods: [
      ...nodes.map((n) => pod('kube-system', `aws-node-${n.metadata.name.slice(-1)}xyz`, n.metadata.name, NODES[n.metadata.name as NodeName].ip, {labels: {'k8s-app': 'aws-node'}, hostNetwork: true, container: 'aws-node'})),
      pod('shop', 'web-a', 'node-a', '192.168.0.55', {labels: {app: 'web'}}),
      pod('shop', 'api-a', 'node-a', '192.168.0.56', {labels: {app: 'api'}}),
      pod('shop', 'web-b', 'node-b', '192.168.0.80', {labels: {app: 'web'}}),
    ],
  })
}

const without = <T>(list: T[], drop: T) => list.filter((x) => x !== drop)

export const CNI_ROUTE_CASES: CniCase[] = [
  {name: 'flannel-vxlan-healthy', node: 'node-a', cluster: () => flannelCluster('vxlan'), setup: vxlanNode(), fires: []},
  {name: 'flannel-vxlan-missing-route', node: 'node-a', cluster: () => flannelCluster('vxlan'), setup: vxlanNode({routes: [VX_ROUTE_C]}), fires: ['RT-009']},
  {
    // node-b's flannel.1 was recreated with a new MAC; this node still resolves the gateway to the old one.
    name: 'flannel-vxlan-wrong-neighbour-mac',
    node: 'node-a',
    cluster: () => flannelCluster('vxlan'),
    setup: vxlanNode({neighbours: [['10.244.2.0', '02:fa:00:00:00:99'], NEIGH_C]}),
    fires: ['RT-010'],
  },
  {name: 'flannel-vxlan-missing-fdb', node: 'node-a', cluster: () => flannelCluster('vxlan'), setup: vxlanNode({fdb: [FDB_C]}), fires: ['RT-011']},
  {
    // cni0 kept 10.244.9.1/24 from an earlier podCIDR; the node's podCIDR is now 10.244.1.0/24.
    name: 'flannel-cni0-old-podcidr',
    node: 'node-a',
    cluster: () => flannelCluster('vxlan'),
    setup: {...vxlanNode({bridge: '10.244.9.1/24'}), bridgePods: []},
    fires: ['RT-009'],
  },
  {name: 'flannel-hostgw-healthy', node: 'node-a', cluster: () => flannelCluster('host-gw'), setup: hostgwNode(), fires: []},
  {name: 'flannel-hostgw-missing-route', node: 'node-a', cluster: () => flannelCluster('host-gw'), setup: hostgwNode([]), fires: ['RT-009']},
  {name: 'aws-vpc-healthy', node: 'node-a', cluster: awsCluster, setup: {routedPods: ENI_PODS, routes: ENI_ROUTES}, fires: []},
  {name: 'aws-vpc-pod-route-missing', node: 'node-a', cluster: awsCluster, setup: {routedPods: ENI_PODS, routes: without(ENI_ROUTES, ENI_ROUTES[1]!)}, fires: ['RT-012']},
]

/** The ids these cases cover, and the quiet case of each. */
export const CNI_QUIET: Record<string, string> = {'RT-009': 'flannel-vxlan-healthy', 'RT-010': 'flannel-vxlan-healthy', 'RT-011': 'flannel-vxlan-healthy', 'RT-012': 'aws-vpc-healthy'}

const SOURCES: Record<string, string> = {'ip-neigh': 'ip -j neigh show', 'bridge-fdb': 'bridge -j fdb show'}

export function cniNodeSnapshot(node: string, artifacts: Record<string, string>): NodeSnapshot {
  const s = nodeSnapshot(node, artifacts)
  for (const [id, a] of Object.entries(s.artifacts)) if (SOURCES[id]) a.source = SOURCES[id]
  return s
}

export {COLLECTED_AT}
