// RT-008 (Calico BGP peers not Established) over in-code clusters and the real BIRD captures of
// test/fixtures/parse/bgp (BIRD 1.6.8 in network namespaces) and calicoctl-shaped outputs.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {ROUTES_CHECKS} from '../../../../../src/core/checks/routes/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {Finding} from '../../../../../src/core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {calicoCluster, calicoNode, clusterSnapshot, nodeSnapshot, planNodes} from '../../../../support/calico-dns-builders.js'
import {expectGolden, readFixture} from '../../../../support/golden.js'

const RT_008 = ROUTES_CHECKS.filter((c) => c.spec.id === 'RT-008')
const bgp = (f: string) => readFixture(`parse/bgp/${f}`)

function run(cluster: ClusterSnapshot, node: NodeSnapshot): {status: string; reason?: string; findings: Finding[]} {
  const out = runChecks(RT_008, cluster, [node])
  assert.deepEqual(out.errors, [])
  const r = out.results[0]!
  return {status: r.status, ...(r.reason === undefined ? {} : {reason: r.reason}), findings: out.findings}
}

/** node-a's snapshot with some artifacts failed the way collection records it. */
function withErrors(node: NodeSnapshot, errors: Record<string, string>): NodeSnapshot {
  for (const [id, error] of Object.entries(errors)) node.artifacts[id] = {id, source: id, exitCode: 1, content: '', error}
  return node
}

const threeNodes = () => calicoCluster({nodes: ['node-a', 'node-b', 'node-c']})

/** calico-node pods whose spec states the networking backend, as the Tigera operator renders them. */
function withBackend(cluster: ClusterSnapshot, backend: string): ClusterSnapshot {
  for (const p of cluster.pods) for (const c of p.spec?.containers ?? []) c.env = [{name: 'CALICO_NETWORKING_BACKEND', value: backend}]
  return cluster
}

describe('RT-008 BGP peers', () => {
  it('passes when every session is Established', () => {
    const text = bgp('birdc-established.txt').split('\n').filter((l) => !/Mesh_192_168_1_13|Global_/.test(l)).join('\n')
    assert.equal(run(threeNodes(), nodeSnapshot('node-a', {'bird-protocols': text})).status, 'passed')
  })

  it('reports each session that is not Established, naming the peer node and what the state means', () => {
    const cluster = threeNodes()
    cluster.nodes = cluster.nodes.map((n) => (n.metadata.name === 'node-c' ? calicoNode('node-c', '192.168.1.13', {ipip: '10.244.3.0', podCIDR: '10.244.3.0/24', ready: false}) : n))
    const r = run(cluster, nodeSnapshot('node-a', {'bird-protocols': bgp('birdc-peer-shutdown.txt'), 'bird6-protocols': bgp('birdc6.txt')}))
    assert.equal(r.status, 'failed')
    assert.deepEqual(r.findings.map((f) => f.subject.name), ['192.168.0.12', '192.168.1.13', '192.168.0.1:1790', '[fd00:1::1]:1790'])
    expectGolden('checks/routes/bgp-findings.golden.json', JSON.stringify(r.findings.map((f) => ({message: f.message, subject: f.subject, evidence: f.evidence})), null, 2) + '\n')
    const c = r.findings.find((f) => f.subject.name === '192.168.1.13')!
    assert.match(c.message, /\(node-to-node mesh, node node-c\) is not Established \(BIRD state down since 15:39:32\)/)
    assert.match(c.message, /node-c is NotReady/)
  })

  it('falls back to calicoctl node status where BIRD could not be asked', () => {
    const node = withErrors(nodeSnapshot('node-a', {'calico-node-status': bgp('calicoctl-node-status.txt')}), {
      'bird-protocols': 'birdcl is not installed on the node',
      'bird6-protocols': 'birdcl is not installed on the node',
    })
    const r = run(threeNodes(), node)
    assert.equal(r.status, 'failed')
    assert.deepEqual(r.findings.map((f) => [f.subject.name, f.evidence[0]]), [
      ['192.168.1.13', 'calicoctl node status, line 8: start 15:39:30 Active Socket: Network is unreachable'],
      ['192.168.0.1', 'calicoctl node status, line 10: start 15:39:30 Connect'],
    ])
    assert.match(r.findings[0]!.message, /this node has no path to the peer address/)
  })

  it('BIRD wins over calicoctl for a family it answered for', () => {
    const established = bgp('birdc-established.txt').split('\n').filter((l) => !/Mesh_192_168_1_13|Global_/.test(l)).join('\n')
    assert.equal(run(threeNodes(), nodeSnapshot('node-a', {'bird-protocols': established, 'calico-node-status': bgp('calicoctl-node-status.txt')})).status, 'passed')
  })

  it('BIRD not running where the pools route by BGP is a finding; with VXLAN-only pools it is expected', () => {
    const node = () => nodeSnapshot('node-a', {'calico-node-status': bgp('calicoctl-bird-not-running.txt')})
    const ipip = run(calicoCluster(), node())
    assert.equal(ipip.status, 'failed')
    assert.match(ipip.findings[0]!.message, /BIRD is not running on node-a although Calico routes by BGP here/)
    assert.deepEqual(ipip.findings[0]!.evidence, ["calicoctl node status: INFO: BIRDv4 process: 'bird' is not running.", 'IPPools routed by BGP: default-ipv4-ippool 10.244.0.0/16 (ipipMode Always)'])
    const vxlan = run(calicoCluster({ipipMode: 'Never', vxlanMode: 'Always'}), node())
    assert.equal(vxlan.status, 'skipped')
    assert.match(vxlan.reason!, /BIRDv4 process: 'bird' is not running\. \(the IPPools use VXLAN only, so no BGP is needed\)/)
  })

  it('skips, with the reason, when calico-node runs without BGP', () => {
    const r = run(withBackend(calicoCluster({ipipMode: 'Never', vxlanMode: 'Always'}), 'vxlan'), nodeSnapshot('node-a', {'bird-protocols': bgp('birdc-established.txt')}))
    assert.deepEqual([r.status, r.reason], ['skipped', 'calico-node runs without BGP (CALICO_NETWORKING_BACKEND=vxlan on pod kube-system/calico-node-axyz): there are no BGP peers to judge'])
    assert.equal(run(withBackend(calicoCluster(), 'bird'), nodeSnapshot('node-a', {'bird-protocols': bgp('birdc-established.txt')})).status, 'failed')
  })

  it('skips, naming each source, when no BGP status was collected or BIRD was unreachable', () => {
    const node = withErrors(nodeSnapshot('node-a', {'bird-protocols': bgp('birdc-no-socket.txt')}), {'calico-node-status': 'calicoctl is not installed on the node'})
    const r = run(calicoCluster(), node)
    assert.equal(r.status, 'skipped')
    assert.equal(
      r.reason,
      'no BGP peer status for this node (bird-protocols: Unable to connect to server control socket (/var/run/calico/bird.ctl): No such file or directory; ' +
        'bird6-protocols: not collected; calico-node-status: calicoctl is not installed on the node)',
    )
    const garbled = run(calicoCluster(), nodeSnapshot('node-a', {'bird-protocols': 'BIRD 1.6.8 ready.\nname proto table state since info\nkernel1\n'}))
    assert.match(garbled.reason!, /bird-protocols cannot be read: a protocol row has name, proto, table, state and since; .* \(line 3\)/)
  })

  it('skips without Calico', () => {
    const r = run(clusterSnapshot({nodes: planNodes(['node-a'])}), nodeSnapshot('node-a', {'bird-protocols': bgp('birdc-established.txt')}))
    assert.deepEqual([r.status, r.reason], ['skipped', 'no Calico in this cluster: no IPPools (crd.projectcalico.org) and no calico-node pods'])
  })
})
