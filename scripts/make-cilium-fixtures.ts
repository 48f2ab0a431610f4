// Writes the fire/quiet bundles for Cilium's route checks (RT-013, RT-014) under test/fixtures/checks/cilium-routes/
// <case>/ and its cases.json, from node-a set up in a network namespace with the real `ip` (root needed): cilium_host
// and cilium_net as the veth pair the agent creates, cilium_host holding the node's router IP (/32), cilium_vxlan a real
// vxlan link in external (collect-metadata) mode on port 8472, and the routes the agent installs in the mode's form
// (tunnel: `<CIDR> via <cilium_host IP> dev cilium_host src <cilium_host IP> mtu 1450 proto kernel`; native with
// auto-direct-node-routes: `<CIDR> via <node IP> dev eth0 proto kernel`). The artifacts are captured with the
// collection plan's commands.
// IP plan: nodes 192.168.0.0/24 (node-a .11, node-b .12; node-c 192.168.1.13 behind the gateway), Node podCIDRs
// 10.244.N.0/24 (kube-controller-manager's, unused by Cilium here), Cilium cluster-pool CIDRs 10.0.N.0/24 with the
// router IP 10.0.N.141.
// Run: node --import tsx scripts/make-cilium-fixtures.ts
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ConfigMap, DaemonSet, KubeObject} from '../src/core/model/k8s.js'
import {type ClusterSnapshot, SNAPSHOT_API_VERSION} from '../src/core/model/snapshot.js'
import {writeBundle} from '../src/transports/bundle/bundle.js'
import {calicoNode, clusterSnapshot, NODES, type NodeName, nodeSnapshot, pod} from '../test/support/calico-dns-builders.js'
import {createNetns, type Netns, netnsUnavailable} from '../test/support/netns.js'
import {addDefaultRoute, captureNode, setupNodeUplink} from '../test/support/node-netns.js'

const ROOT = 'test/fixtures/checks/cilium-routes'
const CIDR: Record<NodeName, string> = {'node-a': '10.0.1.0/24', 'node-b': '10.0.2.0/24', 'node-c': '10.0.3.0/24'}
const ROUTER: Record<NodeName, string> = {'node-a': '10.0.1.141', 'node-b': '10.0.2.141', 'node-c': '10.0.3.141'}
const NAMES = Object.keys(NODES) as NodeName[]

function ciliumNode(name: NodeName): KubeObject {
  return {
    apiVersion: 'cilium.io/v2',
    kind: 'CiliumNode',
    metadata: {name, labels: {'kubernetes.io/hostname': name}},
    spec: {
      addresses: [
        {type: 'InternalIP', ip: NODES[name].ip},
        {type: 'CiliumInternalIP', ip: ROUTER[name]},
      ],
      health: {ipv4: ROUTER[name].replace(/141$/, '77')},
      ipam: {podCIDRs: [CIDR[name]]},
    },
  } as KubeObject
}

function cluster(config: Record<string, string>): ClusterSnapshot {
  const cm: ConfigMap = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'cilium-config', namespace: 'kube-system'}, data: {'kube-proxy-replacement': 'true', ipam: 'cluster-pool', 'cluster-pool-ipv4-cidr': '10.0.0.0/8', ...config}}
  const ds: DaemonSet = {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'cilium', namespace: 'kube-system', labels: {'k8s-app': 'cilium'}}, status: {desiredNumberScheduled: 3, numberReady: 3}}
  const nodes = NAMES.map((n) => {
    const node = calicoNode(n, NODES[n].ip, {podCIDR: NODES[n].podCIDR})
    delete node.metadata.annotations
    return node
  })
  const pods = NAMES.map((n) => pod('kube-system', `cilium-${n.slice(-1)}xyz`, n, NODES[n].ip, {labels: {'k8s-app': 'cilium'}, hostNetwork: true, container: 'cilium-agent'}))
  return {...clusterSnapshot({nodes, pods, daemonSets: [ds], configMaps: [cm]}), ciliumNodes: NAMES.map(ciliumNode)}
}

const TUNNEL = {'routing-mode': 'tunnel', 'tunnel-protocol': 'vxlan'}
const NATIVE = {'routing-mode': 'native', 'auto-direct-node-routes': 'true', 'ipv4-native-routing-cidr': '10.0.0.0/8'}

const hostRoute = (dst: string, mtu?: string) => [dst, 'via', ROUTER['node-a'], 'dev', 'cilium_host', 'proto', 'kernel', 'src', ROUTER['node-a'], ...(mtu ? ['mtu', mtu] : [])]
const LOCAL = hostRoute(CIDR['node-a'])
const TUNNEL_B = hostRoute(CIDR['node-b'], '1450')
const TUNNEL_C = hostRoute(CIDR['node-c'], '1450')
const DIRECT_B = [CIDR['node-b'], 'via', NODES['node-b'].ip, 'dev', 'eth0', 'proto', 'kernel']

interface Case {
  name: string
  config: Record<string, string>
  tunnel: boolean
  routes: string[][]
}

const CASES: Case[] = [
  {name: 'cilium-tunnel-healthy', config: TUNNEL, tunnel: true, routes: [LOCAL, TUNNEL_B, TUNNEL_C]},
  {name: 'cilium-tunnel-missing-route', config: TUNNEL, tunnel: true, routes: [LOCAL, TUNNEL_C]},
  {name: 'cilium-tunnel-missing-local-route', config: TUNNEL, tunnel: true, routes: [TUNNEL_B, TUNNEL_C]},
  // node-c sits behind the gateway: auto-direct-node-routes installs nothing for it.
  {name: 'cilium-native-healthy', config: NATIVE, tunnel: false, routes: [LOCAL, DIRECT_B]},
  // The route to node-b as tunnel mode left it, after the switch to native routing.
  {name: 'cilium-native-tunnel-leftover', config: NATIVE, tunnel: false, routes: [LOCAL, TUNNEL_B]},
]

const mac = (n: number) => `02:00:00:00:02:${n.toString(16).padStart(2, '0')}`

function setup(ns: Netns, c: Case): void {
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  setupNodeUplink(ns, `${NODES['node-a'].ip}/24`, mac)
  ip('link', 'add', 'cilium_host', 'address', mac(3), 'type', 'veth', 'peer', 'name', 'cilium_net', 'address', mac(4))
  ip('link', 'set', 'cilium_host', 'mtu', '1500', 'up')
  ip('link', 'set', 'cilium_net', 'mtu', '1500', 'up')
  ip('addr', 'add', `${ROUTER['node-a']}/32`, 'dev', 'cilium_host', 'scope', 'link')
  if (c.tunnel) {
    ip('link', 'add', 'cilium_vxlan', 'address', mac(5), 'type', 'vxlan', 'external', 'dstport', '8472')
    ip('link', 'set', 'cilium_vxlan', 'mtu', '1500', 'up')
  }
  addDefaultRoute(ns, NODES['node-a'].ip)
  for (const r of c.routes) ip('route', 'add', ...r)
}

const why = netnsUnavailable()
if (why) throw new Error(`Cilium fixtures capture real ip output: ${why}`)

for (const c of CASES) {
  const ns = createNetns('nd-cil')
  let artifacts: Record<string, string>
  try {
    setup(ns, c)
    artifacts = captureNode(ns)
  } finally {
    ns.destroy()
  }
  const out = join(ROOT, c.name)
  rmSync(out, {recursive: true, force: true})
  await writeBundle(out, {
    manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: 'Bundle', createdAt: '2026-12-02T12:00:02.000Z', tool: {name: 'node-doctor', version: '0.1.0'}, context: `fixture-${c.name}`, nodes: ['node-a']},
    cluster: cluster(c.config),
    nodes: [nodeSnapshot('node-a', artifacts)],
  })
  console.log(`wrote ${out}`)
}
const cases = {
  'RT-013': {fire: 'cilium-tunnel-missing-route', quiet: 'cilium-tunnel-healthy', node: 'node-a'},
  'RT-014': {fire: 'cilium-tunnel-missing-local-route', quiet: 'cilium-tunnel-healthy', node: 'node-a'},
}
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
console.log(`wrote ${ROOT}/cases.json`)
