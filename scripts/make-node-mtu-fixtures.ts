// Writes the fire/quiet bundles for the CNI MTU checks (NODE-010 configured MTU, NODE-011 drift, NODE-012 routed pod
// veths) under test/fixtures/checks/node-mtu/<case>/ and its cases.json. Real kernel state: each case is a fresh network
// namespace shaped like a Calico IPIP node (as make-node-prereq-fixtures.ts's rp-mtu-ok: eth0 a veth carrying the
// InternalIP 192.168.0.2/24, tunl0 a veth stand-in since this kernel has no ipip link type, the route to node-b's pods
// through tunl0) plus pod veths named as Calico names them (cali + 11 hex digits) with a /32 route each, or a flannel
// VXLAN node (flannel.1 a real vxlan device on eth0, cni0 with pod veths). The artifacts are the real outputs of
// `ip -j -d link show`, `ip -j addr show` and `ip -d route show table all` in the namespace; flannel's
// `flannel-subnet-env` is the plan's own `cat /run/flannel/subnet.env`, run in a mount namespace with a tmpfs on /run
// holding a subnet.env in the format flanneld writes. The cluster is rp-mtu-ok's (node-a, node-b, an IPIP pool,
// calico-node-4m8qz on node-a) with the calico.yaml manifest's wiring: kube-system/calico-config `veth_mtu` and the
// calico-node container's FELIX_IPINIPMTU / FELIX_VXLANMTU / FELIX_WIREGUARDMTU from it (configMapKeyRef).
// Needs root. Run: node --import tsx scripts/make-node-mtu-fixtures.ts
import {execFileSync} from 'node:child_process'
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Artifact, ClusterSnapshot, NodeSnapshot} from '../src/core/model/snapshot.js'
import type {ConfigMap, Pod} from '../src/core/model/k8s.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'
import {captureInNs, inNs, planArgv, planArtifact, withNetns} from './lib/node-netns.js'

const ROOT = 'test/fixtures/checks/node-mtu'
const calicoBase = await readBundle('test/fixtures/checks/node/rp-mtu-ok')
const flannelBase = await readBundle('test/fixtures/checks/node/flannel-mtu-ok')

interface Case {
  dir: string
  cni: 'calico' | 'flannel'
  /** calico-config veth_mtu now, or FLANNEL_MTU in subnet.env. */
  configured: string
  /** The tunnel device's MTU (tunl0 or flannel.1): what the running agent applied. */
  tunnelMtu: number
  /** The pod veths' MTUs (the pods keep the MTU they were created with). */
  podMtus: number[]
}

const CASES: Case[] = [
  // Everything at the configured 1440 (IPIP on a 1500 underlay: at most 1480 fits).
  {dir: 'calico-mtu-ok', cni: 'calico', configured: '1440', tunnelMtu: 1440, podMtus: [1440, 1440]},
  // veth_mtu raised to 1500 after calico-node started: the next restart gives tunl0 and new pods 1500 (too big); until then
  // tunl0 and the pods still have 1440 (drift).
  {dir: 'calico-veth-mtu-too-big', cni: 'calico', configured: '1500', tunnelMtu: 1440, podMtus: [1440, 1440]},
  // veth_mtu lowered to 1400 and calico-node restarted (tunl0 1400), the pods not recreated: they still send 1440.
  {dir: 'calico-pods-above-tunnel', cni: 'calico', configured: '1400', tunnelMtu: 1400, podMtus: [1440, 1400]},
  // flannel VXLAN on a 1500 underlay: FLANNEL_MTU 1450 everywhere.
  {dir: 'flannel-subnet-mtu-ok', cni: 'flannel', configured: '1450', tunnelMtu: 1450, podMtus: [1450]},
  // The pods were created before flannel came back with a smaller MTU: one pod veth at 1400 while FLANNEL_MTU says 1450.
  {dir: 'flannel-pod-mtu-drift', cni: 'flannel', configured: '1450', tunnelMtu: 1450, podMtus: [1450, 1400]},
]

/** The plan's flannel-subnet-env command, run where /run/flannel/subnet.env holds `content`. */
function subnetEnv(content: string): Artifact {
  const out = execFileSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs tmpfs /run && mkdir /run/flannel && cat > /run/flannel/subnet.env && exec "$@"', 'sh', ...planArgv('flannel-subnet-env')], {encoding: 'utf8', input: content})
  return planArtifact('flannel-subnet-env', out)
}

const CALI = ['cali1b2c3d4e5f6', 'cali7a8b9c0d1e2']

function capture(c: Case): NodeSnapshot {
  return withNetns('nd-mtu', (ns) => {
    const ip = (...a: string[]) => inNs(ns, ['ip', ...a])
    ip('link', 'set', 'lo', 'up')
    ip('link', 'add', 'eth0', 'address', '02:00:00:00:03:01', 'type', 'veth', 'peer', 'name', 'eth0-peer', 'address', '02:00:00:00:03:02')
    for (const l of ['eth0', 'eth0-peer']) ip('link', 'set', l, 'up')
    ip('addr', 'add', '192.168.0.2/24', 'dev', 'eth0')
    ip('route', 'add', 'default', 'via', '192.168.0.1', 'dev', 'eth0')
    const base = c.cni === 'calico' ? calicoBase : flannelBase
    const n = structuredClone(base.nodes[0]!)
    if (c.cni === 'calico') {
      ip('link', 'add', 'tunl0', 'address', '02:00:00:00:03:05', 'type', 'veth', 'peer', 'name', 'tunl0-peer', 'address', '02:00:00:00:03:06')
      ip('link', 'set', 'tunl0-peer', 'up')
      ip('link', 'set', 'tunl0', 'mtu', String(c.tunnelMtu), 'up')
      ip('addr', 'add', '10.0.1.0/32', 'dev', 'tunl0')
      ip('route', 'add', '10.0.2.0/24', 'via', '192.168.0.3', 'dev', 'tunl0', 'proto', 'bird', 'onlink')
      c.podMtus.forEach((mtu, i) => {
        // Calico's CNI plugin: the host end cali…, the pod end eth0 in the pod (here a peer in the same namespace), one MTU.
        ip('link', 'add', CALI[i]!, 'mtu', String(mtu), 'address', `ee:ee:ee:ee:ee:0${i}`, 'type', 'veth', 'peer', 'name', `pod${i}-eth0`)
        for (const l of [CALI[i]!, `pod${i}-eth0`]) ip('link', 'set', l, 'up')
        ip('route', 'add', `10.0.1.${i + 5}/32`, 'dev', CALI[i]!, 'scope', 'link')
      })
    } else {
      ip('link', 'add', 'flannel.1', 'address', '02:00:00:00:03:03', 'type', 'vxlan', 'id', '1', 'dstport', '8472', 'dev', 'eth0', 'nolearning')
      ip('link', 'set', 'flannel.1', 'mtu', String(c.tunnelMtu), 'up')
      ip('addr', 'add', '10.0.1.0/32', 'dev', 'flannel.1')
      ip('link', 'add', 'cni0', 'address', '02:00:00:00:03:04', 'type', 'bridge')
      ip('link', 'set', 'cni0', 'mtu', String(c.tunnelMtu))
      c.podMtus.forEach((mtu, i) => {
        const veth = `veth5e0c${i}a7b`
        ip('link', 'add', veth, 'address', `02:00:00:00:03:1${i}`, 'mtu', String(mtu), 'type', 'veth', 'peer', 'name', `pod${i}-eth0`)
        ip('link', 'set', veth, 'master', 'cni0')
        ip('link', 'set', veth, 'type', 'bridge_slave', 'hairpin', 'on') // flannel's bridge delegate sets hairpinMode
        for (const l of [veth, `pod${i}-eth0`]) ip('link', 'set', l, 'up')
      })
      ip('link', 'set', 'cni0', 'up')
      ip('addr', 'add', '10.0.1.1/24', 'dev', 'cni0')
      ip('route', 'add', '10.0.2.0/24', 'via', '10.0.2.0', 'dev', 'flannel.1', 'onlink')
      // flanneld's subnet.env (pkg/subnet WriteSubnetFile): network, this node's subnet, the backend's MTU, masquerade.
      n.artifacts['flannel-subnet-env'] = subnetEnv(`FLANNEL_NETWORK=10.0.0.0/16\nFLANNEL_SUBNET=10.0.1.1/24\nFLANNEL_MTU=${c.configured}\nFLANNEL_IPMASQ=true\n`)
    }
    for (const id of ['ip-link', 'ip-addr', 'ip-route']) n.artifacts[id] = captureInNs(ns, id)
    return n
  })
}

/** calico.yaml's wiring: calico-config veth_mtu feeds the CNI config and Felix's tunnel MTUs through the environment. */
function clusterFor(c: Case): ClusterSnapshot {
  if (c.cni === 'flannel') return structuredClone(flannelBase.cluster)
  const cluster = structuredClone(calicoBase.cluster)
  const cm: ConfigMap = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'calico-config'}, data: {typha_service_name: 'none', calico_backend: 'bird', veth_mtu: c.configured}}
  cluster.configMaps = [...cluster.configMaps, cm]
  const fromVethMtu = (name: string) => ({name, valueFrom: {configMapKeyRef: {name: 'calico-config', key: 'veth_mtu'}}})
  const pod = cluster.pods.find((p) => p.metadata.name === 'calico-node-4m8qz') as Pod
  pod.spec!.containers![0]!.env = [
    {name: 'DATASTORE_TYPE', value: 'kubernetes'},
    {name: 'CALICO_IPV4POOL_IPIP', value: 'Always'},
    fromVethMtu('FELIX_IPINIPMTU'),
    fromVethMtu('FELIX_VXLANMTU'),
    fromVethMtu('FELIX_WIREGUARDMTU'),
    {name: 'FELIX_IPV6SUPPORT', value: 'false'},
  ]
  return cluster
}

for (const c of CASES) {
  const path = join(ROOT, c.dir)
  const node = capture(c)
  rmSync(path, {recursive: true, force: true})
  const base = c.cni === 'calico' ? calicoBase : flannelBase
  await writeBundle(path, {manifest: {...base.manifest, context: `fixture-node-mtu-${c.dir}`}, cluster: clusterFor(c), nodes: [node]})
  console.log(`wrote ${path}`)
}
const cases = {
  'NODE-010': {fire: 'calico-veth-mtu-too-big', quiet: 'calico-mtu-ok', node: 'node-a'},
  'NODE-011': {fire: 'calico-veth-mtu-too-big', quiet: 'calico-mtu-ok', node: 'node-a'},
  'NODE-012': {fire: 'calico-pods-above-tunnel', quiet: 'calico-mtu-ok', node: 'node-a'},
}
mkdirSync(ROOT, {recursive: true})
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
