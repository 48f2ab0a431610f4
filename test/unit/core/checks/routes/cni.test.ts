// The flannel and VPC-CNI route checks beyond the fire/quiet bundles: DirectRouting, stale routes, a wrong FDB
// destination, the backend taken from the layout, Canal, CNIs that are not modelled, orphan and branch-ENI pod
// routes, Azure CNI modes. Inputs are the real captures under test/fixtures/checks/routes-cni (node-a built in a
// netns by scripts/make-flannel-fixtures.ts) with single lines changed in their real format, and the layout
// discovery captures of test/fixtures/layouts/discovery. IP plan: test/support/cni-route-cases.ts.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {ROUTES_CHECKS} from '../../../../../src/core/checks/routes/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {Finding} from '../../../../../src/core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES, readFixture} from '../../../../support/golden.js'

const CNI_IDS = new Set(['RT-009', 'RT-010', 'RT-011', 'RT-012'])
const CHECKS = ROUTES_CHECKS.filter((c) => CNI_IDS.has(c.spec.id))

async function bundle(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(FIXTURES, 'checks', 'routes-cni', name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

function edit(node: NodeSnapshot, id: string, change: (text: string) => string): NodeSnapshot {
  const a = node.artifacts[id]!
  return {...node, artifacts: {...node.artifacts, [id]: {...a, content: change(a.content)}}}
}

function withLayout(node: NodeSnapshot, discovery: string): NodeSnapshot {
  return {...node, artifacts: {...node.artifacts, layout: {id: 'layout', source: 'sh -c <layout discovery>', exitCode: 0, content: readFixture(`layouts/discovery/${discovery}.txt`)}}}
}

function run(cluster: ClusterSnapshot, node: NodeSnapshot): {findings: Finding[]; status: Record<string, string>} {
  const out = runChecks(CHECKS, cluster, [node])
  assert.deepEqual(out.errors, [])
  return {findings: out.findings, status: Object.fromEntries(out.results.map((r) => [r.id, r.status === 'skipped' ? `skipped: ${r.reason}` : r.status]))}
}

const ROUTE_B = /^unicast 10\.244\.2\.0\/24 via 10\.244\.2\.0 dev flannel\.1 .*\n/m

describe('flannel routes', () => {
  it('DirectRouting: a same-subnet node routed via its public IP needs no neighbour or FDB entry', async () => {
    const {cluster, node} = await bundle('flannel-vxlan-healthy')
    let n = edit(node, 'ip-route', (t) => t.replace(ROUTE_B, 'unicast 10.244.2.0/24 via 192.168.0.12 dev eth0 table main proto boot scope global \n'))
    n = edit(n, 'ip-neigh', (t) => JSON.stringify((JSON.parse(t) as Array<{dst: string}>).filter((e) => e.dst !== '10.244.2.0')))
    n = edit(n, 'bridge-fdb', (t) => JSON.stringify((JSON.parse(t) as Array<{dst?: string}>).filter((e) => e.dst !== '192.168.0.12')))
    assert.deepEqual(run(cluster, n).status, {'RT-009': 'passed', 'RT-010': 'passed', 'RT-011': 'passed', 'RT-012': run(cluster, n).status['RT-012']!})
    // node-c is on another subnet: a direct route to it is wrong.
    const c = edit(node, 'ip-route', (t) => t.replace(/^unicast 10\.244\.3\.0\/24 .*\n/m, 'unicast 10.244.3.0/24 via 192.168.0.1 dev eth0 table main proto boot scope global \n'))
    const f = run(cluster, c).findings.filter((x) => x.id === 'RT-009')
    assert.equal(f.length, 1)
    assert.match(f[0]!.message, /route to node-c's podCIDR 10\.244\.3\.0\/24 is wrong: its next hop 192\.168\.0\.1 is not node-c's public IP 192\.168\.1\.13/)
  })

  it('a route through flannel.1 to no current lease is stale (warning); the cluster-wide route is not', async () => {
    const {cluster, node} = await bundle('flannel-vxlan-healthy')
    const n = edit(node, 'ip-route', (t) => t + 'unicast 10.244.7.0/24 via 10.244.7.0 dev flannel.1 table main proto boot scope global onlink \nunicast 10.244.0.0/16 dev flannel.1 table main proto boot scope global \n')
    const f = run(cluster, n).findings
    assert.deepEqual(f.map((x) => [x.id, x.severity, x.subject.name]), [['RT-009', 'warning', '10.244.7.0/24']])
    assert.match(f[0]!.message, /^stale route 10\.244\.7\.0\/24 via 10\.244\.7\.0 dev flannel\.1 onlink: no current Node's flannel lease/)
  })

  it("an FDB entry that sends the VTEP to an old address; a node's public-ip that changed", async () => {
    const {cluster, node} = await bundle('flannel-vxlan-healthy')
    const n = edit(node, 'bridge-fdb', (t) => t.replace('"dst":"192.168.0.12"', '"dst":"192.168.0.99"'))
    const f = run(cluster, n).findings
    assert.deepEqual(f.map((x) => x.id), ['RT-011'])
    assert.match(f[0]!.message, /flannel\.1 sends node-b's VTEP 02:fa:00:00:00:12 to 192\.168\.0\.99, not to its public IP 192\.168\.0\.12/)
    assert.equal(f[0]!.group, 'routes to node-b')
  })

  it('host-gw: a route still through flannel.1 is wrong and says why', async () => {
    const {cluster, node} = await bundle('flannel-hostgw-healthy')
    const n = edit(node, 'ip-route', (t) => t.replace(/^unicast 10\.244\.2\.0\/24 .*\n/m, 'unicast 10.244.2.0/24 via 10.244.2.0 dev flannel.1 table main proto boot scope global onlink \n'))
    const f = run(cluster, n).findings
    assert.deepEqual(f.map((x) => x.id), ['RT-009'])
    assert.match(f[0]!.message, /still goes through flannel\.1 although the backend is host-gw/)
  })

  it("the backend comes from the node's annotation, else from the layout (k3s flannel: link flannel.1)", async () => {
    const {cluster, node} = await bundle('flannel-vxlan-missing-route')
    const a = cluster.nodes.find((n) => n.metadata.name === 'node-a')!
    delete a.metadata.annotations!['flannel.alpha.coreos.com/backend-type']
    assert.equal(run(cluster, node).status['RT-009'], "skipped: cannot tell flannel's backend on node-a: no flannel.alpha.coreos.com/backend-type annotation and the layout does not say")
    const r = run(cluster, withLayout(node, 'k3s-flannel'))
    assert.equal(r.status['RT-009'], 'failed')
    assert.ok(r.findings[0]!.evidence.includes("backend vxlan from the node's layout (flannel vxlan); node-a has no backend-type annotation"))
  })

  it('Canal: flannel routes the blocks, but cni0 is not its bridge (pods sit on cali* veths)', async () => {
    const {cluster, node} = await bundle('flannel-cni0-old-podcidr')
    assert.equal(run(cluster, node).status['RT-009'], 'failed')
    assert.equal(run(cluster, withLayout(node, 'rke2-canal')).status['RT-009'], 'passed')
  })

  it('CNIs that are not flannel skip with the reason (Cilium: RT-013, RT-014)', async () => {
    const {cluster, node} = await bundle('flannel-vxlan-missing-route')
    const r = run(cluster, withLayout(node, 'cilium-kpr'))
    assert.deepEqual(r.status, {
      'RT-009': 'skipped: not applicable: the CNI here is Cilium (its routes are checked by RT-013, RT-014)',
      'RT-010': 'skipped: not applicable: the CNI here is Cilium (its routes are checked by RT-013, RT-014)',
      'RT-011': 'skipped: not applicable: the CNI here is Cilium (its routes are checked by RT-013, RT-014)',
      'RT-012': 'skipped: not applicable: the CNI here is Cilium (its routes are checked by RT-013, RT-014)',
    })
    assert.match(run(cluster, withLayout(node, 'kubeadm-calico')).status['RT-009']!, /^skipped: not applicable: the CNI here is Calico/)
  })

  it('unreadable or missing neighbour and FDB artifacts skip only the checks that need them', async () => {
    const {cluster, node} = await bundle('flannel-vxlan-healthy')
    const n = edit(node, 'ip-neigh', () => 'unicast default via 192.168.0.1 dev eth0 table main\n')
    const {'bridge-fdb': _, ...rest} = n.artifacts
    const r = run(cluster, {...n, artifacts: rest})
    assert.equal(r.status['RT-009'], 'passed')
    assert.match(r.status['RT-010']!, /^skipped: cannot read the ip-neigh artifact: this looks like `ip route` output/)
    assert.equal(r.status['RT-011'], 'skipped: missing input: bridge-fdb')
  })

  it('without the neighbour and FDB artifacts, a node of another CNI says not applicable, not missing input', async () => {
    const {cluster, node} = await bundle('flannel-vxlan-healthy')
    const {'bridge-fdb': _f, 'ip-neigh': _n, ...rest} = node.artifacts
    const r = run(cluster, withLayout({...node, artifacts: rest}, 'kubeadm-calico'))
    assert.match(r.status['RT-010']!, /^skipped: not applicable: the CNI here is Calico/)
    assert.match(r.status['RT-011']!, /^skipped: not applicable: the CNI here is Calico/)
  })
})

describe('VPC CNI per-pod routes', () => {
  it('a host route with no pod behind it is info, never an error', async () => {
    const {cluster, node} = await bundle('aws-vpc-healthy')
    const n = edit(node, 'ip-route', (t) => t + 'unicast 192.168.0.77 dev eni1a2b3c4d5e6 table main proto boot scope link \n')
    const f = run(cluster, n).findings
    assert.deepEqual(f.map((x) => [x.id, x.severity, x.subject]), [['RT-012', 'info', {kind: 'route', name: '192.168.0.77', in: 'table main'}]])
  })

  it('terminating, settling and hostNetwork pods need no route; a branch-ENI pod may be routed in its VLAN table', async () => {
    const {cluster, node} = await bundle('aws-vpc-pod-route-missing')
    const api = cluster.pods.find((p) => p.metadata.name === 'api-a')!
    api.metadata.annotations = {'vpc.amazonaws.com/pod-eni': '[{"eniId":"eni-0abc","vlanId":5}]'}
    assert.equal(run(cluster, node).status['RT-012'], 'failed')
    const n = edit(node, 'ip-route', (t) => t + 'unicast 192.168.0.56 dev eni6e5d4c3b2a1 table 105 proto boot scope link \n')
    assert.equal(run(cluster, n).status['RT-012'], 'passed')
    api.metadata.annotations = {}
    api.metadata.deletionTimestamp = cluster.collectedAt
    assert.equal(run(cluster, node).status['RT-012'], 'passed')
  })

  it('Azure CNI: transparent mode (azv* routes) is judged, bridge mode is not', async () => {
    const {cluster, node} = await bundle('aws-vpc-pod-route-missing')
    cluster.daemonSets = [{apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'azure-cns', namespace: 'kube-system'}}]
    assert.equal(run(cluster, node).status['RT-012'], 'skipped: not applicable: Azure CNI without azv* host routes (bridge mode) routes no pod on the host')
    const azv = edit(node, 'ip-route', (t) => t.replace(/dev eni1a2b3c4d5e6/g, 'dev azv1a2b3c4d5e'))
    const f = run(cluster, azv).findings
    assert.deepEqual(f.map((x) => [x.id, x.subject.name]), [['RT-012', 'api-a']])
    assert.match(f[0]!.evidence[0]!, /^expected: 192\.168\.0\.56 dev azv<hash> scope link \(Azure CNI \(transparent mode\)\)/)
  })
})

describe('flannel: no false alarms from leftovers and new nodes', () => {
  it('lease annotations left after a move to another CNI: skipped when nothing shows flannel on the node', async () => {
    const {cluster, node} = await bundle('flannel-vxlan-missing-route')
    cluster.pods = cluster.pods.filter((p) => !p.metadata.name.startsWith('kube-flannel'))
    cluster.daemonSets = cluster.daemonSets.filter((d) => !d.metadata.name.startsWith('kube-flannel')) // moved away: its DaemonSet is gone too
    const {'ip-link': _l, 'ip-addr': _a, ...rest} = node.artifacts
    const routes = edit({...node, artifacts: rest}, 'ip-route', (t) => t.split('\n').filter((l) => !l.includes('flannel.1')).join('\n'))
    assert.equal(run(cluster, routes).status['RT-009'], 'skipped: not applicable: Nodes carry flannel lease annotations, but nothing shows flannel on node-a (no flannel.1 link or route, no flannel pod)')
    // The flannel.1 link alone is enough.
    assert.equal(run(cluster, {...routes, artifacts: {...routes.artifacts, 'ip-link': node.artifacts['ip-link']!}}).status['RT-009'], 'failed')
  })

  it('a node that joined seconds before the snapshot is not judged yet', async () => {
    const {cluster, node} = await bundle('flannel-vxlan-missing-route')
    cluster.nodes.find((n) => n.metadata.name === 'node-b')!.metadata.creationTimestamp = '2026-12-02T11:59:50.000Z'
    assert.equal(run(cluster, node).status['RT-009'], 'passed')
    // Nor is its route, already there, taken for a stale one.
    const healthy = await bundle('flannel-vxlan-healthy')
    healthy.cluster.nodes.find((n) => n.metadata.name === 'node-c')!.metadata.creationTimestamp = '2026-12-02T11:59:50.000Z'
    assert.equal(run(healthy.cluster, healthy.node).status['RT-009'], 'passed')
  })
})

describe('flannel: unreadable lease data', () => {
  it("a node whose backend-data has no VtepMAC: its route is judged, its neighbour and FDB entries are not", async () => {
    const {cluster, node} = await bundle('flannel-vxlan-wrong-neighbour-mac')
    cluster.nodes.find((n) => n.metadata.name === 'node-b')!.metadata.annotations!['flannel.alpha.coreos.com/backend-data'] = '{not json'
    assert.deepEqual(run(cluster, node).status, {'RT-009': 'passed', 'RT-010': 'passed', 'RT-011': 'passed', 'RT-012': run(cluster, node).status['RT-012']!})
    const missing = await bundle('flannel-vxlan-missing-route')
    missing.cluster.nodes.find((n) => n.metadata.name === 'node-b')!.metadata.annotations!['flannel.alpha.coreos.com/backend-data'] = 'null'
    assert.equal(run(missing.cluster, missing.node).status['RT-009'], 'failed')
  })
})
