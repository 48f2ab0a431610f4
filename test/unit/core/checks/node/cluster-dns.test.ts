// NODE-025 beyond the catalog's fire/quiet pair. Inputs are the three-node bundles under test/fixtures/checks/node-dns
// (scripts/make-node-dns-fixtures.ts: real namespace captures per node, node-local-dns pods and each kubelet's /configz
// on the API side), with API objects edited per case.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {checkNodeLocalDnsClusterDns} from '../../../../../src/core/checks/node/cluster-dns.js'
import {checkNodeLocalDns, nodeLocalDnsDaemonSet, nodeLocalDnsOnNode} from '../../../../../src/core/checks/node/node-local-dns.js'
import {findCheck} from '../../../../../src/core/checks/registry.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'node-dns')
const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}

async function load(name: string): Promise<{cluster: ClusterSnapshot; nodes: NodeSnapshot[]}> {
  const b = await readBundle(join(DIR, name))
  return {cluster: b.cluster, nodes: b.nodes}
}

const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)
const findings = (o: CheckOutcome) => (o.status === 'failed' ? o.findings.map((f) => [f.severity ?? 'error', f.message]) : [])

function run(cluster: ClusterSnapshot, nodes: NodeSnapshot[]) {
  return analyzeSnapshots(cluster, nodes, {metadata: meta, checks: [findCheck('NODE-025')!]})
}

describe('NODE-025 clusterDNS against node-local-dns', () => {
  it('consistent nodes with node-local-dns on each: passed everywhere', async () => {
    const {cluster, nodes} = await load('cluster-dns-ok')
    const r = run(cluster, nodes)
    assert.deepEqual(r.results.map((x) => [x.node, x.status]), [['node-a', 'passed'], ['node-b', 'passed'], ['node-c', 'passed']])
  })

  it('the link-local address on a node without a node-local-dns pod is an error naming that node only; NODE-021 does not apply there', async () => {
    const {cluster, nodes} = await load('cluster-dns-no-cache')
    const r = run(cluster, nodes)
    assert.deepEqual(r.findings.map((f) => [f.node, f.severity, f.message]), [
      ['node-a', 'error', "clusterDNS points at node-local-dns's 169.254.20.10 but no node-local-dns pod runs on this node: pods here get no DNS answer"],
    ])
    assert.ok(r.findings[0]!.evidence.includes('no node-local-dns pod on node-a (its pods are on other nodes)'))
    assert.equal(reason(checkNodeLocalDns({cluster, node: nodes[0]!})), 'not applicable: no node-local-dns pod runs on this node (NODE-025 judges its clusterDNS)')
    // The same node pointing at the kube-dns ClusterIP is what a node outside the DaemonSet should do.
    const fixed = structuredClone(cluster)
    fixed.configz['node-a'] = fixed.configz['node-a']!.replace('"169.254.20.10"', '"172.30.0.10"')
    assert.equal(run(fixed, nodes).findings.length, 0)
  })

  it('a node unlike the majority of the others is named (info: node-local-dns answers on both addresses there)', async () => {
    const {cluster, nodes} = await load('cluster-dns-mixed')
    const r = run(cluster, nodes)
    assert.deepEqual(r.findings.map((f) => [f.node, f.severity]), [['node-a', 'info']])
    assert.match(r.findings[0]!.message, /^clusterDNS \(172\.30\.0\.10\) differs from 2 of the 2 other nodes with node-local-dns \(169\.254\.20\.10\)/)
    assert.ok(r.findings[0]!.evidence.includes('node-b: clusterDNS [169.254.20.10] (running (/configz))'))
    // Two against one is a majority; one against one is not: with node-c gone, neither node is named.
    const two = structuredClone(cluster)
    delete two.configz['node-c']
    assert.deepEqual(run(two, nodes.slice(0, 2)).findings, [])
  })

  it('judged per node: a node analysed alone (the dashboard) gets the result it gets in the whole run', async () => {
    const {cluster, nodes} = await load('cluster-dns-mixed')
    const whole = run(cluster, nodes).findings.filter((f) => f.node === 'node-a')
    assert.deepEqual(run(cluster, [nodes[0]!]).findings, whole)
  })

  it('one node examined: cannot tell, said so', async () => {
    const {cluster, nodes} = await load('cluster-dns-mixed')
    const one = structuredClone(cluster)
    one.configz = {'node-a': one.configz['node-a']!}
    assert.equal(reason(checkNodeLocalDnsClusterDns({cluster: one, node: nodes[0]!})), "cannot tell: one node (no other node's kubelet /configz in this run to compare clusterDNS with)")
  })

  it('the kube-dns ClusterIP where node-local-dns listens only on the link-local address bypasses the cache (warning); IPVS mode is left to NODE-021', async () => {
    const {cluster, nodes} = await load('cluster-dns-mixed')
    const linkOnly = structuredClone(cluster)
    nodeLocalDnsDaemonSet(linkOnly.daemonSets)!.spec!.template!.spec!.containers![0]!.args = ['-localip', '169.254.20.10', '-conf', '/etc/Corefile']
    const out = checkNodeLocalDnsClusterDns({cluster: linkOnly, node: nodes[0]!})
    assert.deepEqual(findings(out), [['warning', 'pods on this node bypass node-local-dns: clusterDNS (172.30.0.10) is the kube-dns ClusterIP, which node-local-dns does not listen on (-localip 169.254.20.10)']])
    const ipvs = structuredClone(nodes[0]!)
    ipvs.artifacts['proxy-mode'] = {id: 'proxy-mode', source: 'proxy-mode', exitCode: 0, content: 'ipvs'}
    assert.ok(findings(checkNodeLocalDnsClusterDns({cluster: linkOnly, node: ipvs})).every(([sev]) => sev === 'info'), 'no bypass warning from NODE-025 in IPVS mode')
  })

  it('whether node-local-dns runs on a node: its pods by owner or selector; none listed at all is unknown', async () => {
    const {cluster} = await load('cluster-dns-no-cache')
    const ds = nodeLocalDnsDaemonSet(cluster.daemonSets)!
    assert.deepEqual(['node-a', 'node-b'].map((n) => nodeLocalDnsOnNode(cluster, ds, n)), ['no', 'yes'])
    const bySelector = structuredClone(cluster)
    for (const p of bySelector.pods) delete p.metadata.ownerReferences
    assert.equal(nodeLocalDnsOnNode(bySelector, ds, 'node-b'), 'yes')
    const none = structuredClone(cluster)
    none.pods = none.pods.filter((p) => p.metadata.labels?.['k8s-app'] !== 'node-local-dns')
    assert.equal(nodeLocalDnsOnNode(none, ds, 'node-a'), 'unknown')
  })

  it('without the DaemonSet it does not apply; an empty clusterDNS is KUBELET-016\'s', async () => {
    const {cluster, nodes} = await load('cluster-dns-ok')
    const none = structuredClone(cluster)
    none.daemonSets = none.daemonSets.filter((d) => d.metadata.name !== 'node-local-dns')
    assert.equal(reason(checkNodeLocalDnsClusterDns({cluster: none, node: nodes[0]!})), 'not applicable: no node-local-dns DaemonSet in kube-system')
    const empty = structuredClone(cluster)
    empty.configz['node-a'] = empty.configz['node-a']!.replace(/"clusterDNS": \[[^\]]*\]/, '"clusterDNS": []')
    assert.equal(reason(checkNodeLocalDnsClusterDns({cluster: empty, node: nodes[0]!})), 'not judged: clusterDNS is empty (KUBELET-016 reports it)')
  })
})
