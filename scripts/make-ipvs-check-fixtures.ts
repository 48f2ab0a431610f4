// Writes the fire/quiet bundles for the IPVS checks under test/fixtures/checks/ipvs/<case>/ and its cases.json.
// The cluster is the iptables checks' clean bundle switched to IPVS mode (kube-proxy v1.33, one endpoint of
// default/sticky terminating); node-a's `ipvsadm -Sn`, `ip -j addr`, `ipset save` and `iptables-save` are what a
// healthy node shows (the round trip of the ipsets, kube-ipvs0 and iptables rules through the real tools is proven
// by test/integration/proxier/ipvs-roundtrip.test.ts), with one planted fault per case.
// Run: node --import tsx scripts/make-ipvs-check-fixtures.ts
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {ipvsLiveInput} from '../src/core/checks/ipvs/live.js'
import type {NodeSnapshot} from '../src/core/model/snapshot.js'
import {generateIpvsState} from '../src/core/proxier/ipvs/generate.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'
import {healthyNodeArtifacts, ipAddrJson, type NodeArtifacts} from '../test/unit/core/proxier/ipvs/helpers.js'
import {clusterInMode} from './lib/proxy-mode-cluster.js'

const ROOT = 'test/fixtures/checks/ipvs'
const base = await readBundle('test/fixtures/checks/iptables/clean')

const cluster = clusterInMode(base.cluster, 'ipvs', 'registry.k8s.io/kube-proxy:v1.33.2')
for (const s of cluster.endpointSlices) {
  for (const e of s.endpoints ?? []) if (e.addresses?.[0] === '10.0.2.31') e.conditions = {ready: false, serving: true, terminating: true}
}

const INTERFACES = [
  {name: 'lo', addrs: [['127.0.0.1', 8] as [string, number]]},
  {name: 'eth0', addrs: [['192.168.0.2', 24] as [string, number], ['2001:db8::2', 64] as [string, number]]},
]

function node(a: NodeArtifacts): NodeSnapshot {
  const n = structuredClone(base.nodes[0]!)
  const art = (id: string, source: string, content: string) => ({id, source, exitCode: 0, content})
  n.artifacts = {
    ...n.artifacts,
    'proxy-mode': {...n.artifacts['proxy-mode']!, content: 'ipvs'},
    'iptables-save': art('iptables-save', 'iptables-save', a.iptablesSave),
    ipvsadm: art('ipvsadm', 'ipvsadm -Sn', a.ipvsadm),
    ipset: art('ipset', 'ipset save', a.ipset),
    'ip-addr': art('ip-addr', 'ip -j addr show', a.ipAddr),
  }
  return n
}

// The expected state needs the node's artifacts only for runtime facts: start from an empty IPVS node.
const empty: NodeArtifacts = {ipvsadm: '', ipset: '', ipAddr: ipAddrJson([], INTERFACES), iptablesSave: base.nodes[0]!.artifacts['iptables-save']!.content!}
const input = ipvsLiveInput(cluster, node(empty))
if (!input.ok) throw new Error(input.reason)
const state = generateIpvsState({...input.render.input, ipvs: input.ipvs})
const healthy: NodeArtifacts = {...healthyNodeArtifacts(state), ipAddr: ipAddrJson(state.boundAddresses, INTERFACES)}
// A real node still shows the terminating endpoint as a weight-0 real server while its connections drain (kube-proxy's
// graceful termination): kube-proxy does not expect it, and the checks must accept it. Every case carries it.
const DRAINING = '-a -t 172.30.6.1:80 -r 10.0.2.31:8080 -m -w 0'
const lines = healthy.ipvsadm.split('\n')
const lastOfVs = lines.findLastIndex((l) => l.startsWith('-a -t 172.30.6.1:80 '))
if (lastOfVs < 0) throw new Error('no real server of 172.30.6.1:80 to put the draining one after')
const clean: NodeArtifacts = {...healthy, ipvsadm: [...lines.slice(0, lastOfVs + 1), DRAINING, ...lines.slice(lastOfVs + 1)].join('\n')}

const swap = (text: string, from: string, to: string): string => {
  if (!text.split('\n').includes(from)) throw new Error(`line not found: ${from}`)
  return text.split('\n').flatMap((l) => (l === from ? (to === '' ? [] : [to]) : [l])).join('\n')
}

const CASES: Array<{id: string; dir: string; plant: (a: NodeArtifacts) => NodeArtifacts}> = [
  {
    id: 'IPVS-001',
    dir: 'missing-virtual-server',
    plant: (a) => ({...a, ipvsadm: swap(swap(a.ipvsadm, '-A -t 172.30.3.2:80 -s rr', ''), '-a -t 172.30.3.2:80 -r 10.0.2.9:80 -m -w 1', '')}),
  },
  {id: 'IPVS-002', dir: 'stale-virtual-server', plant: (a) => ({...a, ipvsadm: `${a.ipvsadm}-A -t 172.30.99.1:80 -s rr\n-a -t 172.30.99.1:80 -r 10.0.9.9:80 -m -w 1\n`})},
  {id: 'IPVS-003', dir: 'missing-real-server', plant: (a) => ({...a, ipvsadm: swap(a.ipvsadm, '-a -t 172.30.6.1:80 -r 10.0.1.30:8080 -m -w 1', '')})},
  {id: 'IPVS-004', dir: 'extra-real-server', plant: (a) => ({...a, ipvsadm: `${a.ipvsadm}-a -t 172.30.3.1:80 -r 10.0.2.77:80 -m -w 1\n`})},
  {id: 'IPVS-005', dir: 'wrong-weight', plant: (a) => ({...a, ipvsadm: swap(a.ipvsadm, '-a -t 172.30.6.1:80 -r 10.0.2.30:8080 -m -w 1', '-a -t 172.30.6.1:80 -r 10.0.2.30:8080 -m -w 0')})},
  {id: 'IPVS-006', dir: 'wrong-scheduler', plant: (a) => ({...a, ipvsadm: swap(a.ipvsadm, '-A -t 172.30.3.2:80 -s rr', '-A -t 172.30.3.2:80 -s wrr')})},
  {id: 'IPVS-007', dir: 'wrong-persistence', plant: (a) => ({...a, ipvsadm: swap(a.ipvsadm, '-A -t 172.30.6.1:80 -s rr -p 600', '-A -t 172.30.6.1:80 -s rr')})},
  {id: 'IPVS-008', dir: 'missing-address', plant: (a) => ({...a, ipAddr: ipAddrJson(state.boundAddresses.filter((x) => x !== '172.30.6.1'), INTERFACES)})},
  {id: 'IPVS-009', dir: 'stale-address', plant: (a) => ({...a, ipAddr: ipAddrJson([...state.boundAddresses, '172.30.99.1'], INTERFACES)})},
  {id: 'IPVS-010', dir: 'missing-ipset-entry', plant: (a) => ({...a, ipset: swap(a.ipset, 'add KUBE-CLUSTER-IP 172.30.6.1,tcp:80', '')})},
  {id: 'IPVS-011', dir: 'stale-ipset-entry', plant: (a) => ({...a, ipset: `${a.ipset}add KUBE-LOAD-BALANCER-SOURCE-CIDR 1.2.3.4,tcp:80,0.0.0.0/1\n`})},
  {id: 'IPVS-012', dir: 'missing-iptables-rule', plant: (a) => ({...a, iptablesSave: swap(a.iptablesSave, '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully', '')})},
  {id: 'IPVS-013', dir: 'extra-iptables-rule', plant: (a) => ({...a, iptablesSave: swap(a.iptablesSave, '-A KUBE-SOURCE-RANGES-FIREWALL -j DROP', '-A KUBE-SOURCE-RANGES-FIREWALL -s 0.0.0.0/1 -j RETURN\n-A KUBE-SOURCE-RANGES-FIREWALL -j DROP')})},
]

async function write(dir: string, a: NodeArtifacts): Promise<void> {
  const path = join(ROOT, dir)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: base.manifest, cluster, nodes: [node(a)]})
}

await write('clean', clean)
for (const c of CASES) await write(c.dir, c.plant(structuredClone(clean)))
const cases = Object.fromEntries(CASES.map((c) => [c.id, {fire: c.dir, quiet: 'clean', node: 'node-a'}]))
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
console.log(`wrote ${CASES.length + 1} bundles under ${ROOT}`)
