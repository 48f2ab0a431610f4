// End to end, live, Calico routes: the built CLI against the test API server holding Calico objects (IPPool,
// BlockAffinities, IPAMBlocks, calico-node pods; the healthy IPIP cluster of test/support/route-dns-cases.ts) and two
// "nodes" that are network namespaces with their own real sshd and real routes. node-a is the `missing-route`
// scenario (no route to node-b's block); node-b is its clean mirror image. IP plan: calico-dns-builders.ts; the
// Node objects keep the plan's addresses and the ssh config gives each node its namespace's veth address.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import type {Report} from '../../src/core/model/report.js'
import {setupCalicoNode} from '../support/calico-netns.js'
import {calicoPlanNode, startLiveCalicoCluster} from '../support/live-calico-cluster.js'
import {type LiveCluster, liveClusterSkipReason} from '../support/live-cluster.js'
import {ROUTE_CASES} from '../support/route-dns-cases.js'

const MISSING = ROUTE_CASES.find((c) => c.name === 'missing-route')!

describe('check --all finds a planted Calico route fault live', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster

  before(async () => {
    c = await startLiveCalicoCluster({
      cluster: MISSING.cluster(),
      nodes: [
        {name: 'node-a', setup: (node, {pods}) => setupCalicoNode(node, pods(), MISSING.setup!)},
        // node-b as Calico programs it: its blackhole, its pod's /32, and IPIP to node-a's block.
        calicoPlanNode('node-b', {cali3333333333c: '10.244.2.10'}, ['node-a']),
      ],
      tempPrefix: 'nd-live-rt-',
    })
  })
  after(async () => c?.stop())

  it('reports RT-001 on node-a (no route to node-b\'s block) and nothing on node-b', async () => {
    const r = await c.cli(['check', '--all', '--only', 'routes', '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a', 'unhealthy'], ['node-b', 'healthy']])
    assert.deepEqual(report.findings.map((f) => [f.node, f.id]), [['node-a', 'RT-001']])
    assert.match(report.findings[0]!.message, /10\.244\.2\.0\/26/)
    // The route checks really ran on node-b (they were not skipped for want of Calico data).
    const ranOnB = report.results.filter((x) => x.node === 'node-b' && x.status === 'passed').map((x) => x.id)
    assert.ok(ranOnB.includes('RT-001') && ranOnB.includes('RT-005'), ranOnB.join(', '))
  })

  it('check on the clean node alone exits 0', async () => {
    const r = await c.cli(['check', 'node-b', '--only', 'routes'])
    assert.equal(r.exitCode, 0, r.stdout + r.stderr)
  })
})
