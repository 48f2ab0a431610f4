// Writes the fire/quiet bundles for the node forwarding prerequisites (NODE-001..004) under
// test/fixtures/checks/node/<case>/ and its cases.json, from real kernel state: each case is a fresh network namespace
// (ip_forward and the br_netfilter keys are per network namespace) with a bridge `cni0` and a veth port attached, the
// sysctls set inside it, kube-proxy's ruleset from the iptables checks' clean bundle loaded with iptables-restore and
// the planted fault applied; the artifacts are the real outputs of the plan's own commands run inside the namespace
// (`sysctl ...` exactly as the `sysctls` plan item, `ip -j -d link show`, `iptables-save`). The cluster (dual-stack
// node-a) is the iptables checks' clean bundle. The `modules` artifact is left out: /proc/modules is not per namespace
// (and absent on some test hosts), and the checks read it only when the br_netfilter keys are missing, a case these
// namespaces cannot show while the module is loaded (that path is covered by unit tests with a /proc/modules text).
// NODE-005..007's cases (reverse-path filtering, overlay MTU) are described where they are built, below.
// Needs root. Run: node --import tsx scripts/make-node-prereq-fixtures.ts [CASE_DIR...]
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {NodeSnapshot} from '../src/core/model/snapshot.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'
import {captureInNs, inNs, withNetns} from './lib/node-netns.js'

const ROOT = 'test/fixtures/checks/node'
const BASE = 'test/fixtures/checks/iptables/clean'
const base = await readBundle(BASE)
const kubeProxyRules = readFileSync(join(BASE, 'nodes/node-a/iptables-save.txt'), 'utf8')

interface Case {
  dir: string
  sysctls: Record<string, string>
  forwardPolicy: 'ACCEPT' | 'DROP'
  /** Flush the FORWARD chain after loading kube-proxy's rules (its jumps are gone). */
  flushForward?: boolean
}

const GOOD = {
  'net.ipv4.ip_forward': '1',
  'net.ipv6.conf.all.forwarding': '1',
  'net.bridge.bridge-nf-call-iptables': '1',
  'net.bridge.bridge-nf-call-ip6tables': '1',
  'net.ipv4.conf.all.route_localnet': '1',
}

const CASES: Case[] = [
  // Docker-style DROP policy, but kube-proxy's FORWARD -> KUBE-FORWARD jump accepts pod traffic.
  {dir: 'forwarding-ok', sysctls: GOOD, forwardPolicy: 'DROP'},
  {dir: 'ip-forward-off', sysctls: {...GOOD, 'net.ipv4.ip_forward': '0'}, forwardPolicy: 'ACCEPT'},
  {dir: 'bridge-nf-off', sysctls: {...GOOD, 'net.bridge.bridge-nf-call-iptables': '0'}, forwardPolicy: 'ACCEPT'},
  {dir: 'forward-drop', sysctls: GOOD, forwardPolicy: 'DROP', flushForward: true},
  {dir: 'route-localnet-off', sysctls: {...GOOD, 'net.ipv4.conf.all.route_localnet': '0'}, forwardPolicy: 'ACCEPT'},
]

/** The base node with the artifacts `ids` captured in `ns` in place of its own (and no modules listing). */
function nodeCapturing(ns: string, ids: string[]): NodeSnapshot {
  const n = structuredClone(base.nodes[0]!)
  const {modules: _modules, ...rest} = n.artifacts
  n.artifacts = {...rest, ...Object.fromEntries(ids.map((id) => [id, captureInNs(ns, id)]))}
  return n
}

function capture(c: Case): NodeSnapshot {
  return withNetns('nd-prereq', (ns) => {
    for (const [k, v] of Object.entries(c.sysctls)) inNs(ns, ['sysctl', '-q', '-w', `${k}=${v}`])
    inNs(ns, ['ip', 'link', 'add', 'cni0', 'type', 'bridge'])
    inNs(ns, ['ip', 'link', 'add', 'veth3f2a1c9d', 'type', 'veth', 'peer', 'name', 'pod-eth0'])
    inNs(ns, ['ip', 'link', 'set', 'veth3f2a1c9d', 'master', 'cni0'])
    for (const l of ['cni0', 'veth3f2a1c9d', 'pod-eth0']) inNs(ns, ['ip', 'link', 'set', l, 'up'])
    inNs(ns, ['iptables-restore'], kubeProxyRules)
    inNs(ns, ['iptables', '-P', 'FORWARD', c.forwardPolicy])
    if (c.flushForward) inNs(ns, ['iptables', '-F', 'FORWARD'])
    return nodeCapturing(ns, ['sysctls', 'ip-link', 'iptables-save'])
  })
}

// Arguments name the cases to write (`forwarding-ok rp-mtu-ok ...`); none writes them all.
const ONLY = new Set(process.argv.slice(2))
const wanted = (dir: string) => ONLY.size === 0 || ONLY.has(dir)
for (const c of CASES.filter((x) => wanted(x.dir))) {
  const path = join(ROOT, c.dir)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: {...base.manifest, context: `fixture-node-${c.dir}`}, cluster: base.cluster, nodes: [capture(c)]})
}
const cases: Record<string, {fire: string; quiet: string; node: string}> = {
  'NODE-001': {fire: 'ip-forward-off', quiet: 'forwarding-ok', node: 'node-a'},
  'NODE-002': {fire: 'bridge-nf-off', quiet: 'forwarding-ok', node: 'node-a'},
  'NODE-003': {fire: 'forward-drop', quiet: 'forwarding-ok', node: 'node-a'},
  'NODE-004': {fire: 'route-localnet-off', quiet: 'forwarding-ok', node: 'node-a'},
}

// ---- NODE-005..007 (issue #19 items 2 and 3): reverse-path filtering and overlay MTU ----
// Each case is a namespace shaped like a Calico IPIP node: eth0 (the InternalIP 192.168.0.2/24) and a second NIC
// eth1 are veths (their peers stay in the namespace), tunl0 is a veth stand-in (this kernel has no ipip link type; the
// checks know tunl0 by name), vxlan.calico is a real vxlan device on eth0. The cluster adds node-b (InternalIP per
// case, podCIDR 10.0.2.0/24, reached by IPIP through tunl0 like a Calico route), an IPIP pool and a calico-node pod on
// node-a (ready, or crash-looping for the loose-RPF case: that part is API data, edited here).
interface RpMtuCase {
  dir: string
  rpFilterAll: string
  /** node-b's InternalIP: in eth0's subnet (symmetric) or in another subnet only the default route reaches. */
  nodeB: string
  /** Where the default route goes: eth0 (the cluster network) or eth1 (a public NIC). */
  defaultVia: 'eth0' | 'eth1'
  tunl0Mtu: number
  calicoNodeCrashing?: boolean
}

const RP_MTU_CASES: RpMtuCase[] = [
  // Strict mode everywhere, single default route through the cluster NIC: every path back is symmetric.
  {dir: 'rp-mtu-ok', rpFilterAll: '1', nodeB: '192.168.0.3', defaultVia: 'eth0', tunl0Mtu: 1480},
  // Strict mode, default route through the public NIC eth1: node-b (192.168.1.3, another subnet of the cluster network)
  // sends to 192.168.0.2 on eth0, the route back leaves through eth1.
  {dir: 'rp-strict-asymmetric', rpFilterAll: '1', nodeB: '192.168.1.3', defaultVia: 'eth1', tunl0Mtu: 1480},
  {dir: 'rp-loose-calico', rpFilterAll: '2', nodeB: '192.168.0.3', defaultVia: 'eth0', tunl0Mtu: 1480, calicoNodeCrashing: true},
  // The planted MTU fault: tunl0 at 1500 on a 1500 underlay (at most 1480 fits).
  {dir: 'mtu-tunl0-too-big', rpFilterAll: '1', nodeB: '192.168.0.3', defaultVia: 'eth0', tunl0Mtu: 1500},
]

function rpMtuCluster(c: RpMtuCase): typeof base.cluster {
  const cluster = structuredClone(base.cluster)
  const a = cluster.nodes.find((n) => n.metadata.name === 'node-a')!
  a.status!.addresses = [{type: 'InternalIP', address: '192.168.0.2'}, {type: 'Hostname', address: 'node-a'}]
  a.spec = {podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24']}
  const b = structuredClone(a)
  b.metadata = {...b.metadata, name: 'node-b', ...(b.metadata.uid ? {uid: `${b.metadata.uid}-b`} : {})}
  b.status!.addresses = [{type: 'InternalIP', address: c.nodeB}, {type: 'Hostname', address: 'node-b'}]
  b.spec = {podCIDR: '10.0.2.0/24', podCIDRs: ['10.0.2.0/24']}
  cluster.nodes.push(b)
  cluster.calico.ipPools = [
    {apiVersion: 'crd.projectcalico.org/v1', kind: 'IPPool', metadata: {name: 'default-ipv4-ippool'}, spec: {cidr: '10.0.0.0/16', ipipMode: 'Always', vxlanMode: 'Never', natOutgoing: true, nodeSelector: 'all()'}},
  ]
  const crashing = c.calicoNodeCrashing === true
  cluster.pods.push({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {namespace: 'kube-system', name: 'calico-node-4m8qz', labels: {'k8s-app': 'calico-node'}},
    spec: {nodeName: 'node-a', hostNetwork: true, containers: [{name: 'calico-node', image: 'docker.io/calico/node:v3.26.4'}]},
    status: {
      phase: 'Running',
      conditions: [{type: 'Ready', status: crashing ? 'False' : 'True'}],
      containerStatuses: [
        crashing
          ? {name: 'calico-node', ready: false, restartCount: 7, state: {waiting: {reason: 'CrashLoopBackOff'}}, lastState: {terminated: {reason: 'Error', exitCode: 1, finishedAt: '2026-12-02T11:58:30Z'}}}
          : {name: 'calico-node', ready: true, restartCount: 0, state: {running: {startedAt: '2026-11-01T00:00:00Z'}}},
      ],
    },
  } as (typeof cluster.pods)[number])
  return cluster
}

function captureRpMtu(c: RpMtuCase): NodeSnapshot {
  return withNetns('nd-rpmtu', (ns) => {
    const ip = (...a: string[]) => inNs(ns, ['ip', ...a])
    for (const [k, v] of Object.entries(GOOD)) inNs(ns, ['sysctl', '-q', '-w', `${k}=${v}`])
    inNs(ns, ['sysctl', '-q', '-w', `net.ipv4.conf.all.rp_filter=${c.rpFilterAll}`])
    ip('link', 'set', 'lo', 'up')
    ip('link', 'add', 'eth0', 'address', '02:00:00:00:01:01', 'type', 'veth', 'peer', 'name', 'eth0-peer', 'address', '02:00:00:00:01:02')
    ip('link', 'add', 'eth1', 'address', '02:00:00:00:01:03', 'type', 'veth', 'peer', 'name', 'eth1-peer', 'address', '02:00:00:00:01:04')
    ip('link', 'add', 'tunl0', 'address', '02:00:00:00:01:05', 'type', 'veth', 'peer', 'name', 'tunl0-peer', 'address', '02:00:00:00:01:06')
    for (const l of ['eth0', 'eth0-peer', 'eth1', 'eth1-peer', 'tunl0-peer']) ip('link', 'set', l, 'up')
    ip('link', 'set', 'tunl0', 'mtu', String(c.tunl0Mtu), 'up')
    ip('link', 'add', 'vxlan.calico', 'address', '02:00:00:00:01:07', 'type', 'vxlan', 'id', '4096', 'dstport', '4789', 'dev', 'eth0')
    ip('link', 'set', 'vxlan.calico', 'mtu', '1450', 'up')
    ip('addr', 'add', '192.168.0.2/24', 'dev', 'eth0')
    ip('addr', 'add', '203.0.113.2/24', 'dev', 'eth1')
    ip('addr', 'add', '10.0.1.0/32', 'dev', 'tunl0')
    ip('route', 'add', 'default', 'via', c.defaultVia === 'eth0' ? '192.168.0.1' : '203.0.113.1', 'dev', c.defaultVia)
    ip('route', 'add', '10.0.2.0/24', 'via', c.nodeB, 'dev', 'tunl0', 'proto', 'bird', 'onlink')
    inNs(ns, ['iptables-restore'], kubeProxyRules)
    return nodeCapturing(ns, ['sysctls', 'ip-link', 'ip-addr', 'ip-route', 'iptables-save'])
  })
}

for (const c of RP_MTU_CASES.filter((x) => wanted(x.dir))) {
  const path = join(ROOT, c.dir)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: {...base.manifest, context: `fixture-node-${c.dir}`}, cluster: rpMtuCluster(c), nodes: [captureRpMtu(c)]})
}
// NODE-008: a flannel VXLAN node (no Calico in the cluster): cni0 with a pod veth, flannel.1 on eth0 at 1450 carrying
// the route to node-b's pods; the pod veth at 1450 (quiet) or left at 1500, as a pod created before an MTU change.
interface PodMtuCase {
  dir: string
  vethMtu: number
}
const POD_MTU_CASES: PodMtuCase[] = [
  {dir: 'flannel-mtu-ok', vethMtu: 1450},
  {dir: 'flannel-pod-mtu-too-big', vethMtu: 1500},
]

function capturePodMtu(c: PodMtuCase): NodeSnapshot {
  return withNetns('nd-podmtu', (ns) => {
    const ip = (...a: string[]) => inNs(ns, ['ip', ...a])
    for (const [k, v] of Object.entries(GOOD)) inNs(ns, ['sysctl', '-q', '-w', `${k}=${v}`])
    ip('link', 'set', 'lo', 'up')
    ip('link', 'add', 'eth0', 'address', '02:00:00:00:02:01', 'type', 'veth', 'peer', 'name', 'eth0-peer', 'address', '02:00:00:00:02:02')
    for (const l of ['eth0', 'eth0-peer']) ip('link', 'set', l, 'up')
    ip('addr', 'add', '192.168.0.2/24', 'dev', 'eth0')
    ip('link', 'add', 'flannel.1', 'address', '02:00:00:00:02:03', 'type', 'vxlan', 'id', '1', 'dstport', '8472', 'dev', 'eth0', 'nolearning')
    ip('link', 'set', 'flannel.1', 'mtu', '1450', 'up')
    ip('addr', 'add', '10.0.1.0/32', 'dev', 'flannel.1')
    ip('link', 'add', 'cni0', 'address', '02:00:00:00:02:04', 'type', 'bridge')
    ip('link', 'set', 'cni0', 'mtu', '1450')
    ip('link', 'add', 'veth7d41c2a9', 'address', '02:00:00:00:02:05', 'mtu', String(c.vethMtu), 'type', 'veth', 'peer', 'name', 'pod-eth0', 'address', '02:00:00:00:02:06')
    ip('link', 'set', 'veth7d41c2a9', 'master', 'cni0')
    for (const l of ['cni0', 'veth7d41c2a9', 'pod-eth0']) ip('link', 'set', l, 'up')
    ip('addr', 'add', '10.0.1.1/24', 'dev', 'cni0')
    ip('route', 'add', 'default', 'via', '192.168.0.1', 'dev', 'eth0')
    ip('route', 'add', '10.0.2.0/24', 'via', '10.0.2.0', 'dev', 'flannel.1', 'onlink')
    inNs(ns, ['iptables-restore'], kubeProxyRules)
    return nodeCapturing(ns, ['sysctls', 'ip-link', 'ip-addr', 'ip-route', 'iptables-save'])
  })
}

function flannelCluster(): typeof base.cluster {
  const cluster = rpMtuCluster({dir: '', rpFilterAll: '0', nodeB: '192.168.0.3', defaultVia: 'eth0', tunl0Mtu: 1480})
  cluster.calico.ipPools = []
  cluster.pods = cluster.pods.filter((p) => p.metadata.labels?.['k8s-app'] !== 'calico-node')
  return cluster
}

for (const c of POD_MTU_CASES.filter((x) => wanted(x.dir))) {
  const path = join(ROOT, c.dir)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: {...base.manifest, context: `fixture-node-${c.dir}`}, cluster: flannelCluster(), nodes: [capturePodMtu(c)]})
}
cases['NODE-005'] = {fire: 'rp-strict-asymmetric', quiet: 'rp-mtu-ok', node: 'node-a'}
cases['NODE-006'] = {fire: 'rp-loose-calico', quiet: 'rp-mtu-ok', node: 'node-a'}
cases['NODE-007'] = {fire: 'mtu-tunl0-too-big', quiet: 'rp-mtu-ok', node: 'node-a'}
cases['NODE-008'] = {fire: 'flannel-pod-mtu-too-big', quiet: 'flannel-mtu-ok', node: 'node-a'}

writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
console.log(`wrote ${[...CASES, ...RP_MTU_CASES, ...POD_MTU_CASES].filter((x) => wanted(x.dir)).length} bundles under ${ROOT}`)
