// Writes the fire/quiet bundles for NODE-025 (the kubelet's clusterDNS against node-local-dns, across nodes) under
// test/fixtures/checks/node-dns/<case>/ and its cases.json. Three nodes each: the node artifacts are the real namespace
// captures of scripts/make-node-datapath-fixtures.ts (bridge-ok: node-local-dns's addresses bound on a nodelocaldns link
// with node-cache's rules; hairpin-off: a node without node-local-dns), renamed per node. The API side is what a cluster
// with the upstream node-local-dns DaemonSet holds: its pods (owner reference DaemonSet node-local-dns, as the DaemonSet
// controller sets it) on the nodes it covers, Service kube-system/kube-dns, and each node's kubelet /configz (the body a
// real kubelet serves, test/fixtures/config/kubelet/configz.json, with that node's clusterDNS).
// Run after make-node-datapath-fixtures.ts: node --import tsx scripts/make-node-dns-fixtures.ts
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Node, Pod, Service} from '../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../src/core/model/snapshot.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'

const ROOT = 'test/fixtures/checks/node-dns'
const withCache = await readBundle('test/fixtures/checks/node-datapath/bridge-ok')
const withoutCache = await readBundle('test/fixtures/checks/node-datapath/hairpin-off')
const CONFIGZ = readFileSync('test/fixtures/config/kubelet/configz.json', 'utf8')
const KUBE_DNS_IP = '172.30.0.10'
const LINK_LOCAL = '169.254.20.10'
const NODES = ['node-a', 'node-b', 'node-c'] as const

interface NodeCase {
  /** A node-local-dns pod runs there (its capture has the listen addresses and rules). */
  cache: boolean
  clusterDNS: string
}

interface Case {
  dir: string
  nodes: Record<(typeof NODES)[number], NodeCase>
}

const CASES: Case[] = [
  // Every node runs node-local-dns and points its pods at the link-local address.
  {dir: 'cluster-dns-ok', nodes: {'node-a': {cache: true, clusterDNS: LINK_LOCAL}, 'node-b': {cache: true, clusterDNS: LINK_LOCAL}, 'node-c': {cache: true, clusterDNS: LINK_LOCAL}}},
  // node-a is outside the DaemonSet (a new node pool) but got the same kubelet configuration as the others.
  {dir: 'cluster-dns-no-cache', nodes: {'node-a': {cache: false, clusterDNS: LINK_LOCAL}, 'node-b': {cache: true, clusterDNS: LINK_LOCAL}, 'node-c': {cache: true, clusterDNS: LINK_LOCAL}}},
  // A half-applied change: node-a still points at the kube-dns ClusterIP (node-local-dns listens there too: it works).
  {dir: 'cluster-dns-mixed', nodes: {'node-a': {cache: true, clusterDNS: KUBE_DNS_IP}, 'node-b': {cache: true, clusterDNS: LINK_LOCAL}, 'node-c': {cache: true, clusterDNS: LINK_LOCAL}}},
]

function snapshotFor(name: string, c: NodeCase): NodeSnapshot {
  const n = structuredClone((c.cache ? withCache : withoutCache).nodes[0]!)
  n.node = name
  return n
}

function nodeObject(name: string, i: number): Node {
  const n = structuredClone(withCache.cluster.nodes[0]!)
  n.metadata = {...n.metadata, name, labels: {...n.metadata.labels, 'kubernetes.io/hostname': name}}
  n.spec = {podCIDR: `10.0.${i + 1}.0/24`, podCIDRs: [`10.0.${i + 1}.0/24`]}
  n.status = {addresses: [{type: 'InternalIP', address: `192.168.0.${i + 2}`}, {type: 'Hostname', address: name}]}
  return n
}

function cachePod(node: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: `node-local-dns-${node.slice(-1)}x4q2`, namespace: 'kube-system', labels: {'k8s-app': 'node-local-dns'}, ownerReferences: [{kind: 'DaemonSet', name: 'node-local-dns', controller: true}]},
    spec: {nodeName: node, hostNetwork: true, containers: [{name: 'node-cache', image: 'registry.k8s.io/dns/k8s-dns-node-cache:1.26.4'}]},
    status: {phase: 'Running', conditions: [{type: 'Ready', status: 'True'}]},
  } as Pod
}

const kubeDns: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {name: 'kube-dns', namespace: 'kube-system', labels: {'k8s-app': 'kube-dns'}},
  spec: {type: 'ClusterIP', clusterIP: KUBE_DNS_IP, clusterIPs: [KUBE_DNS_IP], selector: {'k8s-app': 'kube-dns'}, ports: [{name: 'dns', protocol: 'UDP', port: 53, targetPort: 53}, {name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: 53}]},
} as Service

function configz(clusterDNS: string): string {
  const body = JSON.parse(CONFIGZ) as {kubeletconfig: Record<string, unknown>}
  body.kubeletconfig['clusterDNS'] = [clusterDNS]
  return JSON.stringify(body, null, 2) + '\n'
}

function clusterFor(c: Case): ClusterSnapshot {
  const cluster = structuredClone(withCache.cluster)
  cluster.nodes = NODES.map(nodeObject)
  cluster.services = [...cluster.services.filter((s) => s.metadata.name !== 'kube-dns'), kubeDns]
  cluster.pods = [...cluster.pods, ...NODES.filter((n) => c.nodes[n].cache).map(cachePod)]
  cluster.configz = Object.fromEntries(NODES.map((n) => [n, configz(c.nodes[n].clusterDNS)]))
  return cluster
}

for (const c of CASES) {
  const path = join(ROOT, c.dir)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: {...withCache.manifest, context: `fixture-node-dns-${c.dir}`, nodes: [...NODES]}, cluster: clusterFor(c), nodes: NODES.map((n) => snapshotFor(n, c.nodes[n]))})
  console.log(`wrote ${path}`)
}
mkdirSync(ROOT, {recursive: true})
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify({'NODE-025': {fire: 'cluster-dns-no-cache', quiet: 'cluster-dns-ok', node: 'node-a'}}, null, 2) + '\n')
