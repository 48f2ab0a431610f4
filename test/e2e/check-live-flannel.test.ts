// End to end, live, flannel VXLAN routes: the built CLI against the test API server holding two flannel Nodes
// (podCIDRs and flannel.alpha.coreos.com/* lease annotations, test/support/cni-route-cases.ts) and two "nodes" that
// are network namespaces with their own real sshd, a real flannel.1 vxlan device, cni0 bridge, routes, neighbour
// and FDB entries. node-a lacks the route to node-b's podCIDR (its neighbour and FDB entries are there); node-b is
// clean. The collection plan's `ip -j neigh show` and `bridge -j fdb show` run over SSH like every other item.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import type {KubeObject} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import {type CniNodeSetup, setupCniNode} from '../support/cni-netns.js'
import {flannelCluster, VTEP} from '../support/cni-route-cases.js'
import {type LiveCluster, liveClusterSkipReason, startNetnsCluster} from '../support/live-cluster.js'
import type {Netns as PodsNetns} from '../support/netns.js'

// node-a: neighbour and FDB entries for node-b, but no route to 10.244.2.0/24.
const NODE_A: CniNodeSetup = {
  vxlan: {mac: VTEP['node-a'], addr: '10.244.1.0'},
  bridge: '10.244.1.1/24',
  bridgePods: ['10.244.1.5', '10.244.1.6'],
  neighbours: [['10.244.2.0', VTEP['node-b']]],
  fdb: [[VTEP['node-b'], '192.168.0.12']],
  routes: [],
}

/** node-b as flanneld programs it (setupCniNode builds node-a's addresses: node-b's own are set after). */
function setupNodeB(ns: PodsNetns, pods: PodsNetns): void {
  setupCniNode(ns, pods, {bridge: '10.244.2.1/24', bridgePods: ['10.244.2.10'], routes: []})
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  ip('addr', 'del', '192.168.0.11/24', 'dev', 'eth0')
  ip('addr', 'add', '192.168.0.12/24', 'dev', 'eth0')
  ip('link', 'add', 'flannel.1', 'address', VTEP['node-b'], 'type', 'vxlan', 'id', '1', 'local', '192.168.0.12', 'dev', 'eth0', 'dstport', '8472', 'nolearning')
  ip('link', 'set', 'flannel.1', 'mtu', '1450', 'up')
  ip('addr', 'add', '10.244.2.0/32', 'dev', 'flannel.1')
  ip('neigh', 'replace', '10.244.1.0', 'lladdr', VTEP['node-a'], 'dev', 'flannel.1', 'nud', 'permanent')
  ns.exec(['bridge', 'fdb', 'append', VTEP['node-a'], 'dev', 'flannel.1', 'dst', '192.168.0.11', 'self', 'permanent'])
  ip('route', 'add', '10.244.1.0/24', 'via', '10.244.1.0', 'dev', 'flannel.1', 'onlink')
}

describe('check finds a missing flannel route live', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster

  before(async () => {
    const cluster = flannelCluster('vxlan', ['node-a', 'node-b'])
    c = await startNetnsCluster({
      nodes: [
        {name: 'node-a', setup: (node, {pods}) => setupCniNode(node, pods(), NODE_A)},
        {name: 'node-b', setup: (node, {pods}) => setupNodeB(node, pods())},
      ],
      objects: () => [...cluster.nodes, ...cluster.pods] as KubeObject[],
      sshHostName: true,
      tempPrefix: 'nd-live-fl-',
    })
  })
  after(async () => c?.stop())

  it("reports RT-009 on node-a (no route to node-b's podCIDR) and nothing on node-b", async () => {
    const r = await c.cli(['check', '--all', '--only', 'routes', '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.findings.map((f) => [f.node, f.id, f.subject.name]), [['node-a', 'RT-009', '10.244.2.0/24']])
    assert.match(report.findings[0]!.message, /no route to node-b's podCIDR 10\.244\.2\.0\/24/)
    // The neighbour and FDB checks really ran on both nodes, from the entries collected over SSH.
    for (const node of ['node-a', 'node-b']) {
      const passed = report.results.filter((x) => x.node === node && x.status === 'passed').map((x) => x.id)
      assert.ok(['RT-009', 'RT-010', 'RT-011'].every((id) => passed.includes(id) || (node === 'node-a' && id === 'RT-009')), `${node}: ${passed.join(', ')}`)
    }
  })

  it('check on the clean node alone exits 0', async () => {
    const r = await c.cli(['check', 'node-b', '--only', 'routes'])
    assert.equal(r.exitCode, 0, r.stdout + r.stderr)
  })
})
