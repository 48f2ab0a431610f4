// Writes the canal bundles for NODE-012 (Calico's pod veths behind flannel's tunnel) under
// test/fixtures/checks/node-mtu/canal-*/. Real kernel state, as make-node-mtu-fixtures.ts builds its flannel node: a fresh
// network namespace with eth0 (a veth carrying the InternalIP 192.168.0.2/24), flannel.1 a real vxlan device on eth0 with
// the route to node-b's podCIDR through it, and, as canal has them instead of cni0 and its bridge ports, Calico's pod
// veths (cali + 11 hex digits, a /32 route each). The pods' MTU is canal's veth_mtu (rke2-canal: calico.vethuMTU 1450);
// one case leaves a pod at 1500, as a pod created with a veth_mtu above flannel's MTU. The artifacts are the real
// outputs of `ip -j -d link show`, `ip -j addr show` and `ip -d route show table all`, and the plan's own
// `cat /run/flannel/subnet.env` over a tmpfs holding the file flanneld writes. The cluster is flannel-mtu-ok's.
// Needs root. Run: node --import tsx scripts/make-canal-mtu-fixtures.ts
import {execFileSync} from 'node:child_process'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {COLLECTION_PLAN} from '../src/core/collection/plan.js'
import type {Artifact, NodeSnapshot} from '../src/core/model/snapshot.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'

const ROOT = 'test/fixtures/checks/node-mtu'
const base = await readBundle('test/fixtures/checks/node/flannel-mtu-ok')

const CASES: Array<{dir: string; podMtus: number[]}> = [
  {dir: 'canal-mtu-ok', podMtus: [1450, 1450]},
  {dir: 'canal-pod-mtu-too-big', podMtus: [1500, 1450]},
]
const CALI = ['cali1b2c3d4e5f6', 'cali7a8b9c0d1e2']

const inNs = (ns: string, argv: string[]): string => execFileSync('ip', ['netns', 'exec', ns, ...argv], {encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe']})
const artifact = (id: string, source: string, content: string): Artifact => ({id, source, exitCode: 0, content})

function subnetEnv(content: string): Artifact {
  const argv = COLLECTION_PLAN.find((p) => p.id === 'flannel-subnet-env')!.argv
  const out = execFileSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs tmpfs /run && mkdir /run/flannel && cat > /run/flannel/subnet.env && exec "$@"', 'sh', ...argv], {encoding: 'utf8', input: content})
  return artifact('flannel-subnet-env', argv.join(' '), out)
}

function capture(podMtus: number[]): NodeSnapshot {
  const ns = `nd-canal-${process.pid}`
  execFileSync('ip', ['netns', 'add', ns])
  try {
    const ip = (...a: string[]) => inNs(ns, ['ip', ...a])
    ip('link', 'set', 'lo', 'up')
    ip('link', 'add', 'eth0', 'address', '02:00:00:00:03:01', 'type', 'veth', 'peer', 'name', 'eth0-peer', 'address', '02:00:00:00:03:02')
    for (const l of ['eth0', 'eth0-peer']) ip('link', 'set', l, 'up')
    ip('addr', 'add', '192.168.0.2/24', 'dev', 'eth0')
    ip('route', 'add', 'default', 'via', '192.168.0.1', 'dev', 'eth0')
    // flannel.1 takes eth0's MTU minus 50 (1450) when created on it.
    ip('link', 'add', 'flannel.1', 'address', '02:00:00:00:03:03', 'type', 'vxlan', 'id', '1', 'dstport', '8472', 'dev', 'eth0', 'nolearning')
    ip('link', 'set', 'flannel.1', 'up')
    ip('addr', 'add', '10.0.1.0/32', 'dev', 'flannel.1')
    ip('route', 'add', '10.0.2.0/24', 'via', '10.0.2.0', 'dev', 'flannel.1', 'onlink')
    podMtus.forEach((mtu, i) => {
      ip('link', 'add', CALI[i]!, 'mtu', String(mtu), 'address', `ee:ee:ee:ee:ee:0${i}`, 'type', 'veth', 'peer', 'name', `pod${i}-eth0`)
      for (const l of [CALI[i]!, `pod${i}-eth0`]) ip('link', 'set', l, 'up')
      ip('route', 'add', `10.0.1.${i + 5}/32`, 'dev', CALI[i]!, 'scope', 'link')
    })
    const n = structuredClone(base.nodes[0]!)
    n.artifacts['flannel-subnet-env'] = subnetEnv('FLANNEL_NETWORK=10.0.0.0/16\nFLANNEL_SUBNET=10.0.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n')
    n.artifacts['ip-link'] = artifact('ip-link', 'ip -j -d link show', inNs(ns, ['ip', '-j', '-d', 'link', 'show']))
    n.artifacts['ip-addr'] = artifact('ip-addr', 'ip -j addr show', inNs(ns, ['ip', '-j', 'addr', 'show']))
    n.artifacts['ip-route'] = artifact('ip-route', 'ip -d route show table all', inNs(ns, ['ip', '-d', 'route', 'show', 'table', 'all']))
    return n
  } finally {
    execFileSync('ip', ['netns', 'del', ns])
  }
}

for (const c of CASES) {
  const path = join(ROOT, c.dir)
  const node = capture(c.podMtus)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: {...base.manifest, context: `fixture-node-mtu-${c.dir}`}, cluster: structuredClone(base.cluster), nodes: [node]})
  console.log(`wrote ${path}`)
}
