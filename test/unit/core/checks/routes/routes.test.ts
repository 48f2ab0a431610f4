// Calico route checks over small in-code snapshots. IP plan and builders: test/support/calico-dns-builders.ts.
// Route listings are written in `ip route` shape; the fixture bundles carry real captured output.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {runChecks} from '../../../../../src/core/checks/run.js'
import {ROUTES_CHECKS} from '../../../../../src/core/checks/routes/index.js'
import {encapsFor} from '../../../../../src/core/checks/routes/compare.js'
import {parseCidr} from '../../../../../src/core/checks/routes/calico.js'
import type {Finding} from '../../../../../src/core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {
  blockAffinity,
  calicoCluster,
  calicoDaemonSet,
  calicoNode,
  calicoNodePod,
  clusterSnapshot,
  COLLECTED_AT,
  ipamBlock,
  ipPool,
  nodeSnapshot,
  planNodes,
  pod,
} from '../../../../support/calico-dns-builders.js'
import {readFixture} from '../../../../support/golden.js'

const BASE = [
  'default via 192.168.0.1 dev eth0 proto dhcp src 192.168.0.11 metric 100',
  '192.168.0.0/24 dev eth0 proto kernel scope link src 192.168.0.11',
  'local 192.168.0.11 dev eth0 table local proto kernel scope host src 192.168.0.11',
]
const WEB1 = pod('shop', 'web-1', 'node-a', '10.244.1.5', {labels: {app: 'web'}})
const WEB1_ROUTE = '10.244.1.5 dev cali1111111111a scope link'
const BLACKHOLE_A = 'blackhole 10.244.1.0/26 proto bird'
const IPIP_TO_B = '10.244.2.0/26 via 192.168.0.12 dev tunl0 proto bird onlink'

// The Calico checks (RT-001..008); the flannel and VPC-CNI ones are tested in cni-fixtures.test.ts and cni.test.ts.
const CALICO_CHECKS = ROUTES_CHECKS.filter((c) => Number(c.spec.id.slice(3)) <= 8)

function run(cluster: ClusterSnapshot, node: NodeSnapshot): {findings: Finding[]; status: Record<string, string>; reasons: Record<string, string | undefined>} {
  const out = runChecks(CALICO_CHECKS, cluster, [node])
  assert.deepEqual(out.errors, [])
  return {
    findings: out.findings,
    status: Object.fromEntries(out.results.map((r) => [r.id, r.status])),
    reasons: Object.fromEntries(out.results.map((r) => [r.id, r.reason])),
  }
}

const nodeA = (lines: string[], extra: Record<string, string> = {}) => nodeSnapshot('node-a', {'ip-route': [...BASE, ...lines].join('\n') + '\n', ...extra})
const only = (fs: Finding[], id: string) => fs.filter((f) => f.id === id)

describe('Calico routes: healthy nodes pass', () => {
  it('IPIP: remote block via tunl0 onlink, own blackhole, pod /32 to cali', () => {
    // BIRD's real `show protocols` with the mesh session to node-b Established (the healthy-ipip fixture's capture).
    const bird = readFixture('checks/routes/healthy-ipip/nodes/node-a/bird-protocols.txt')
    const r = run(calicoCluster({pods: [WEB1]}), nodeA([BLACKHOLE_A, WEB1_ROUTE, IPIP_TO_B], {'bird-protocols': bird}))
    assert.deepEqual(r.findings, [])
    assert.deepEqual(Object.values(r.status), Array(8).fill('passed'))
  })

  it('VXLAN: remote block via the VTEP on vxlan.calico (proto 80 or none), VTEP host route not stale', () => {
    const cluster = calicoCluster({ipipMode: 'Never', vxlanMode: 'Always', pods: [WEB1]})
    const lines = ['blackhole 10.244.1.0/26 proto 80', WEB1_ROUTE, '10.244.2.0/26 via 10.244.2.0 dev vxlan.calico proto 80 onlink', '10.244.2.0 dev vxlan.calico scope link']
    assert.deepEqual(run(cluster, nodeA(lines)).findings, [])
  })

  it('BGP without encapsulation: via the node IP on the uplink, ECMP accepted', () => {
    const cluster = calicoCluster({ipipMode: 'Never', nodes: ['node-a', 'node-b'], pods: [WEB1]})
    assert.deepEqual(run(cluster, nodeA([BLACKHOLE_A, WEB1_ROUTE, '10.244.2.0/26 via 192.168.0.12 dev eth0 proto bird'])).findings, [])
    const ecmp = ['10.244.2.0/26 proto bird', '\tnexthop via 192.168.0.12 dev eth0 weight 1', '\tnexthop via 192.168.0.1 dev eth0 weight 1']
    assert.deepEqual(run(cluster, nodeA([BLACKHOLE_A, WEB1_ROUTE, ...ecmp])).findings, [])
  })

  it('a borrowed address (/32 via a current node) and a pool-wide aggregate are accepted', () => {
    const cluster = calicoCluster({nodes: ['node-a', 'node-b', 'node-c'], pods: [WEB1]})
    const lines = [BLACKHOLE_A, WEB1_ROUTE, IPIP_TO_B, '10.244.3.7 via 192.168.1.13 dev tunl0 proto bird onlink', '10.244.0.0/16 via 192.168.0.1 dev eth0 proto bird']
    assert.deepEqual(run(cluster, nodeA(lines)).findings, [])
  })
})

describe('RT-001 missing route to a remote block', () => {
  it('reports the block, the owner and the expected route; hints that the owner is down', () => {
    const cluster = calicoCluster({pods: [WEB1]})
    cluster.pods = cluster.pods.map((p) => (p.spec?.nodeName === 'node-b' && p.metadata.labels?.['k8s-app'] === 'calico-node' ? calicoNodePod('node-b', {ready: false, waiting: 'CrashLoopBackOff'}) : p))
    const r = run(cluster, nodeA([BLACKHOLE_A, WEB1_ROUTE]))
    const f = only(r.findings, 'RT-001')
    assert.equal(f.length, 1)
    assert.equal(f[0]!.severity, 'error')
    assert.equal(f[0]!.message, "no route to node-b's block 10.244.2.0/26: pods here cannot reach pods on node-b (calico-node on node-b is not ready (CrashLoopBackOff))")
    assert.deepEqual(f[0]!.subject, {kind: 'route', name: '10.244.2.0/26', in: 'table main'})
    assert.equal(f[0]!.group, 'routes to node-b')
    assert.deepEqual(f[0]!.evidence, [
      'expected: 10.244.2.0/26 via 192.168.0.12 dev tunl0 onlink (IPIP)',
      'IPPool default-ipv4-ippool 10.244.0.0/16: ipipMode Always, vxlanMode Never',
      'block owner: node-b (blockaffinity)',
    ])
    assert.equal(r.findings.length, 1, 'nothing else fires on node-a')
  })

  it('a pending affinity is not a block to route to', () => {
    const cluster = calicoCluster({pods: [WEB1]})
    cluster.calico.blockAffinities = [blockAffinity('node-a', '10.244.1.0/26'), blockAffinity('node-b', '10.244.2.0/26', 'pending')]
    cluster.calico.ipamBlocks = []
    assert.deepEqual(only(run(cluster, nodeA([BLACKHOLE_A, WEB1_ROUTE])).findings, 'RT-001'), [])
  })

  it('IPv6: judged from the ip6-route listing with the node VTEP as next hop', () => {
    const cluster = calicoCluster({ipipMode: 'Never', vxlanMode: 'Always', pods: [WEB1]})
    cluster.calico.ipPools.push(ipPool('default-ipv6-ippool', 'fd00:10:244::/48', {vxlanMode: 'Always'}))
    cluster.calico.blockAffinities.push(blockAffinity('node-a', 'fd00:10:244:1::/122'), blockAffinity('node-b', 'fd00:10:244:2::/122'))
    cluster.nodes[1]!.metadata.annotations!['projectcalico.org/IPv6VXLANTunnelAddr'] = 'fd00:10:244:2::'
    const v4 = [BLACKHOLE_A, WEB1_ROUTE, '10.244.2.0/26 via 10.244.2.0 dev vxlan.calico onlink']
    const v6 = 'blackhole fd00:10:244:1::/122 dev lo proto 80 metric 1024 pref medium\n'
    const r = run(cluster, nodeA(v4, {'ip6-route': v6}))
    assert.deepEqual(only(r.findings, 'RT-001').map((f) => [f.message, f.evidence[0]]), [
      ["no route to node-b's block fd00:10:244:2::/122: pods here cannot reach pods on node-b", 'expected: fd00:10:244:2::/122 via fd00:10:244:2:: dev vxlan-v6.calico onlink (VXLAN)'],
    ])
    // Without the IPv6 listing, IPv6 blocks are not judged.
    assert.deepEqual(only(run(cluster, nodeA(v4)).findings, 'RT-001'), [])
  })
})

describe('RT-002 stale routes', () => {
  it('a route to the block of a removed node, and one nobody owns, and a /32 via an unknown next hop', () => {
    const cluster = calicoCluster({pods: [WEB1]})
    cluster.calico.blockAffinities.push(blockAffinity('node-gone', '10.244.4.0/26'))
    const lines = [
      BLACKHOLE_A,
      WEB1_ROUTE,
      IPIP_TO_B,
      '10.244.4.0/26 via 192.168.0.14 dev tunl0 proto bird onlink',
      '10.244.9.0/26 via 192.168.0.12 dev tunl0 proto bird onlink',
      '10.244.2.77 via 192.168.0.99 dev tunl0 proto bird onlink',
    ]
    const f = only(run(cluster, nodeA(lines)).findings, 'RT-002')
    assert.deepEqual(
      f.map((x) => [x.severity, x.subject.name, x.message]),
      [
        ['warning', '10.244.4.0/26', "stale route 10.244.4.0/26 via 192.168.0.14 dev tunl0 proto bird onlink: the block is affine to node node-gone, which no longer exists; its next hop 192.168.0.14 is no current node's address"],
        ['warning', '10.244.9.0/26', 'stale route 10.244.9.0/26 via 192.168.0.12 dev tunl0 proto bird onlink: no IPAM block covers this range'],
        ['warning', '10.244.2.77', "stale route 10.244.2.77 via 192.168.0.99 dev tunl0 proto bird onlink: its next hop 192.168.0.99 is no current node's address (a removed node?)"],
      ],
    )
  })

  it('a blackhole for an IPAM block without affinity is stale; routes outside the pools are never judged', () => {
    const cluster = calicoCluster({pods: [WEB1]})
    cluster.calico.ipamBlocks.push(ipamBlock('10.244.5.0/26', undefined))
    const f = only(run(cluster, nodeA([BLACKHOLE_A, WEB1_ROUTE, IPIP_TO_B, 'blackhole 10.244.5.0/26 proto bird', '172.16.0.0/16 via 192.168.0.1 dev eth0'])).findings, 'RT-002')
    assert.deepEqual(f.map((x) => x.message), ['stale route blackhole 10.244.5.0/26 proto bird: no node holds a confirmed affinity for block 10.244.5.0/26'])
  })
})

describe('RT-003 wrong gateway or device', () => {
  it('after switching the pool from IPIP to VXLAN, the tunl0 route is left over', () => {
    const cluster = calicoCluster({ipipMode: 'Never', vxlanMode: 'Always', pods: [WEB1]})
    const f = only(run(cluster, nodeA([BLACKHOLE_A, WEB1_ROUTE, IPIP_TO_B])).findings, 'RT-003')
    assert.equal(f.length, 1)
    assert.equal(
      f[0]!.message,
      "the route to node-b's block 10.244.2.0/26 is wrong: it still uses the IPIP tunnel (tunl0) although the pool no longer does: left over from before the encapsulation changed",
    )
    assert.deepEqual(f[0]!.evidence, [
      'actual:   10.244.2.0/26 via 192.168.0.12 dev tunl0 proto bird onlink',
      'expected: 10.244.2.0/26 via 10.244.2.0 dev vxlan.calico onlink (VXLAN)',
      'IPPool default-ipv4-ippool 10.244.0.0/16: ipipMode Never, vxlanMode Always',
    ])
  })

  it("a next hop that is another node's address, one that is nobody's, and a blackholed remote block", () => {
    const cluster = calicoCluster({nodes: ['node-a', 'node-b', 'node-c'], pods: [WEB1]})
    const lines = [
      BLACKHOLE_A,
      WEB1_ROUTE,
      '10.244.2.0/26 via 192.168.1.13 dev tunl0 proto bird onlink',
      'blackhole 10.244.3.0/26 proto bird',
    ]
    const f = only(run(cluster, nodeA(lines)).findings, 'RT-003')
    assert.deepEqual(f.map((x) => x.message), [
      "the route to node-b's block 10.244.2.0/26 is wrong: its next hop belongs to node node-c, not to node-b",
      "the route to node-c's block 10.244.3.0/26 is wrong: it is a blackhole route here, so traffic to node-c's pods is dropped (two nodes claim the block?)",
    ])
    const wrongIp = calicoCluster({pods: [WEB1]})
    const g = only(run(wrongIp, nodeA([BLACKHOLE_A, WEB1_ROUTE, '10.244.2.0/26 via 172.17.0.12 dev tunl0 proto bird onlink'])).findings, 'RT-003')
    assert.equal(g[0]!.message, "the route to node-b's block 10.244.2.0/26 is wrong: its next hop 172.17.0.12 is not an address of node-b (wrong IP autodetected?)")
  })

  it("this node's own block routed to another node", () => {
    const cluster = calicoCluster({pods: [WEB1]})
    const f = only(run(cluster, nodeA([WEB1_ROUTE, IPIP_TO_B, '10.244.1.0/26 via 192.168.0.12 dev tunl0 proto bird onlink'])).findings, 'RT-003')
    assert.equal(f.length, 1)
    assert.match(f[0]!.message, /^this node's own block 10\.244\.1\.0\/26 is routed away \(10\.244\.1\.0\/26 via 192\.168\.0\.12 dev tunl0 proto bird onlink\)/)
  })

  it('CrossSubnet: same-subnet peers are routed directly, others through the tunnel', () => {
    const cluster = calicoCluster({ipipMode: 'CrossSubnet', nodes: ['node-a', 'node-b', 'node-c'], pods: [WEB1]})
    const good = [BLACKHOLE_A, WEB1_ROUTE, '10.244.2.0/26 via 192.168.0.12 dev eth0 proto bird', '10.244.3.0/26 via 192.168.1.13 dev tunl0 proto bird onlink']
    assert.deepEqual(run(cluster, nodeA(good)).findings, [])
    const swapped = [BLACKHOLE_A, WEB1_ROUTE, IPIP_TO_B, '10.244.3.0/26 via 192.168.1.13 dev eth0 proto bird']
    assert.deepEqual(only(run(cluster, nodeA(swapped)).findings, 'RT-003').map((x) => x.subject.name), ['10.244.2.0/26', '10.244.3.0/26'])
  })
})

describe('RT-004 missing blackhole', () => {
  it("is reported for a confirmed own block, not for a podCIDR", () => {
    const f = only(run(calicoCluster({pods: [WEB1]}), nodeA([WEB1_ROUTE, IPIP_TO_B])).findings, 'RT-004')
    assert.deepEqual(f.map((x) => [x.severity, x.message]), [
      ['warning', "no blackhole route for this node's block 10.244.1.0/26: traffic to its unused addresses leaves the node, and BIRD may not be advertising the block"],
    ])
    const podCidr = calicoCluster({pods: [WEB1]})
    podCidr.calico.blockAffinities = []
    podCidr.calico.ipamBlocks = []
    const r = run(podCidr, nodeA([WEB1_ROUTE, '10.244.2.0/24 via 192.168.0.12 dev tunl0 proto bird onlink']))
    assert.deepEqual(r.findings, [])
  })
})

describe('RT-005 pod without its /32', () => {
  it('missing, routed elsewhere, linkdown; not for hostNetwork, finished, terminating or brand-new pods', () => {
    const pods = [
      WEB1,
      pod('shop', 'web-2', 'node-a', '10.244.1.6'),
      pod('shop', 'web-3', 'node-a', '10.244.1.7'),
      pod('shop', 'web-4', 'node-a', '10.244.1.8'),
      pod('shop', 'host', 'node-a', '192.168.0.11', {hostNetwork: true}),
      pod('shop', 'done', 'node-a', '10.244.1.9', {phase: 'Succeeded', ready: false}),
      pod('shop', 'leaving', 'node-a', '10.244.1.10', {terminating: true}),
      pod('shop', 'new', 'node-a', '10.244.1.11', {created: new Date(Date.parse(COLLECTED_AT) - 5000).toISOString()}),
    ]
    const lines = [BLACKHOLE_A, IPIP_TO_B, '10.244.1.6 via 192.168.0.12 dev tunl0 proto bird onlink', '10.244.1.7 dev cali2222222222b scope link linkdown', '10.244.1.8 dev cali3333333333c scope link']
    const f = only(run(calicoCluster({pods}), nodeA(lines)).findings, 'RT-005')
    assert.deepEqual(
      f.map((x) => [x.severity, x.subject.name, x.message]),
      [
        ['error', 'web-1', "pod shop/web-1 (10.244.1.5) has no route to its cali interface: nothing can reach it, not even kubelet's probes"],
        ['error', 'web-2', 'pod shop/web-2 (10.244.1.6) is routed via 10.244.1.6 via 192.168.0.12 dev tunl0 proto bird onlink instead of its cali interface: it is unreachable'],
        ['warning', 'web-3', "pod shop/web-3 (10.244.1.7): its route to the cali interface is linkdown: the pod's end of the veth is down"],
      ],
    )
  })
})

describe('RT-006 cali route without a pod', () => {
  it('warns for a leftover route, errors when the IP now belongs to a pod elsewhere', () => {
    const elsewhere = pod('shop', 'moved', 'node-b', '10.244.1.30')
    const lines = [BLACKHOLE_A, WEB1_ROUTE, IPIP_TO_B, '10.244.1.20 dev cali4444444444d scope link', '10.244.1.30 dev cali5555555555e scope link']
    const f = only(run(calicoCluster({pods: [WEB1, elsewhere]}), nodeA(lines)).findings, 'RT-006')
    assert.deepEqual(
      f.map((x) => [x.severity, x.message]),
      [
        ['warning', 'route 10.244.1.20 dev cali4444444444d scope link has no pod on this node: it outlived its pod'],
        ['error', 'route 10.244.1.30 dev cali5555555555e scope link has no pod on this node, and the IP now belongs to pod shop/moved on node-b: traffic from here to that pod goes into a dead veth'],
      ],
    )
  })

  it('a terminating pod still owns its route', () => {
    const leaving = pod('shop', 'leaving', 'node-a', '10.244.1.20', {terminating: true})
    assert.deepEqual(run(calicoCluster({pods: [WEB1, leaving]}), nodeA([BLACKHOLE_A, WEB1_ROUTE, IPIP_TO_B, '10.244.1.20 dev cali4444444444d scope link'])).findings, [])
  })
})

describe('RT-007 calico-node on this node', () => {
  const lines = [BLACKHOLE_A, WEB1_ROUTE, IPIP_TO_B]
  it('not ready, and restarting within the hour, are errors; an old restart is not', () => {
    for (const [opts, summary] of [
      [{ready: false, waiting: 'CrashLoopBackOff', restarts: {count: 7, agoSeconds: 30}}, 'not ready (CrashLoopBackOff)'],
      [{restarts: {count: 3, agoSeconds: 600, reason: 'OOMKilled'}}, 'restarting: 3 restarts, last 10m before collection (OOMKilled)'],
    ] as const) {
      const cluster = calicoCluster({pods: [WEB1]})
      cluster.pods = cluster.pods.map((p) => (p.metadata.name === 'calico-node-axyz' ? calicoNodePod('node-a', opts) : p))
      const f = only(run(cluster, nodeA(lines)).findings, 'RT-007')
      assert.deepEqual(f.map((x) => [x.severity, x.message]), [['error', `calico-node pod kube-system/calico-node-axyz is ${summary}`]])
      assert.ok(f[0]!.evidence.some((e) => e.startsWith('container calico-node: ')))
    }
    const old = calicoCluster({pods: [WEB1]})
    old.pods = old.pods.map((p) => (p.metadata.name === 'calico-node-axyz' ? calicoNodePod('node-a', {restarts: {count: 2, agoSeconds: 86400 * 3}}) : p))
    assert.equal(run(old, nodeA(lines)).status['RT-007'], 'passed')
  })

  it('no calico-node pod on the node while others run; skipped when Calico runs outside Kubernetes', () => {
    const cluster = calicoCluster({pods: [WEB1]})
    cluster.pods = cluster.pods.filter((p) => p.metadata.name !== 'calico-node-axyz')
    cluster.daemonSets = [calicoDaemonSet(2, 1)]
    const f = only(run(cluster, nodeA(lines)).findings, 'RT-007')
    assert.deepEqual(f.map((x) => [x.message, x.subject]), [['no calico-node pod runs on node-a: nothing programs routes or policy for new pods here', {kind: 'Node', name: 'node-a'}]])
    assert.deepEqual(f[0]!.evidence, ['calico-node pods on other nodes: calico-node-bxyz@node-b', 'DaemonSet kube-system/calico-node: desired 2, ready 1'])
    cluster.pods = [WEB1]
    assert.equal(run(cluster, nodeA(lines)).reasons['RT-007'], 'no calico-node pods in the snapshot (Calico may run outside Kubernetes, e.g. as a systemd service)')
  })
})

describe('skips and fallbacks', () => {
  it('skips every RT check when the cluster has no Calico', () => {
    const cluster = clusterSnapshot({nodes: planNodes(), pods: [WEB1]})
    const r = run(cluster, nodeA([WEB1_ROUTE]))
    assert.deepEqual(new Set(Object.values(r.reasons)), new Set(['no Calico in this cluster: no IPPools (crd.projectcalico.org) and no calico-node pods']))
  })

  it('skips with the parse error when ip-route is unreadable, and on a missing artifact', () => {
    const r = run(calicoCluster(), nodeSnapshot('node-a', {'ip-route': 'this is not a route listing\n'}))
    assert.match(r.reasons['RT-001']!, /^cannot read the ip-route artifact: /)
    assert.equal(r.status['RT-007'], 'passed')
    assert.equal(run(calicoCluster(), nodeSnapshot('node-a', {})).reasons['RT-001'], 'missing input: ip-route')
  })

  it('falls back to node podCIDRs without IPAM data, accepting any Calico encapsulation when no pool is visible', () => {
    const cluster = clusterSnapshot({nodes: planNodes(['node-a', 'node-b']), pods: [WEB1, calicoNodePod('node-a'), calicoNodePod('node-b')]})
    for (const route of ['10.244.2.0/24 via 192.168.0.12 dev tunl0 proto bird onlink', '10.244.2.0/24 via 192.168.0.12 dev eth0 proto bird']) {
      assert.deepEqual(run(cluster, nodeA([WEB1_ROUTE, route])).findings, [])
    }
    const missing = only(run(cluster, nodeA([WEB1_ROUTE])).findings, 'RT-001')
    assert.deepEqual(missing.map((f) => f.evidence.at(-1)), ['block owner: node-b (podcidr)'])
  })

  it('skips the block checks when nothing says who owns which block', () => {
    const cluster = clusterSnapshot({nodes: [calicoNode('node-a', '192.168.0.11'), calicoNode('node-b', '192.168.0.12')], pods: [WEB1, calicoNodePod('node-a')]})
    const r = run(cluster, nodeA([WEB1_ROUTE]))
    assert.match(r.reasons['RT-001']!, /^cannot tell which blocks each node owns/)
    assert.equal(r.status['RT-005'], 'passed')
  })

  it('Canal: flannel routes the blocks, so only the pod-route checks run', () => {
    const cluster = calicoCluster({pods: [WEB1]})
    cluster.calico.blockAffinities = []
    cluster.calico.ipamBlocks = []
    const r = run(cluster, nodeA(['10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink']))
    for (const id of ['RT-001', 'RT-002', 'RT-003', 'RT-004']) assert.equal(r.reasons[id], 'pod blocks are routed by flannel here (flannel.1: Canal), not by Calico')
    assert.deepEqual(r.findings.map((f) => [f.id, f.subject.name]), [['RT-005', 'web-1']])
  })

  it('IPPools left over after moving to another CNI: nothing is judged on a node without Calico', () => {
    const cluster = calicoCluster({pods: [WEB1]})
    cluster.pods = [WEB1]
    const r = run(cluster, nodeA(['10.244.1.5 dev lxc1234 scope link', '10.244.2.0/26 via 192.168.0.12 dev cilium_host']))
    assert.deepEqual(r.findings, [])
    assert.equal(r.reasons['RT-005'], 'Calico objects exist, but there is no calico-node pod and no Calico device (tunl0, vxlan.calico, cali*) in the route table of this node')
  })

  it('encapsFor follows ipipMode/vxlanMode and the subnet relation', () => {
    const pool = (ipipMode: 'Always' | 'CrossSubnet' | 'Never', vxlanMode: 'Always' | 'CrossSubnet' | 'Never') => ({name: 'p', cidr: parseCidr('10.0.0.0/16')!, ipipMode, vxlanMode})
    assert.deepEqual(encapsFor(pool('Always', 'Never'), true, 'inet'), ['ipip'])
    assert.deepEqual(encapsFor(pool('CrossSubnet', 'Never'), true, 'inet'), ['none'])
    assert.deepEqual(encapsFor(pool('CrossSubnet', 'Never'), false, 'inet'), ['ipip'])
    assert.deepEqual(encapsFor(pool('Never', 'CrossSubnet'), undefined, 'inet'), ['vxlan', 'none'])
    assert.deepEqual(encapsFor(pool('Always', 'Never'), true, 'inet6'), ['none'], 'IPIP is IPv4 only')
    assert.deepEqual(encapsFor(undefined, true, 'inet'), ['ipip', 'vxlan', 'none'])
  })
})
