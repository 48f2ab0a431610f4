// `check --probe --via pod` with the built CLI against the fake API server, whose kubelet runs each debug pod's execs
// in the network namespace standing for its node (test/support/fake-kubelet.ts): the probe topology's two nodes and
// the router between them, with a path MTU black hole (topology.ts). The probe runs in the debug pod that collected
// the node: one namespace and one pod per node for the whole run, every pod and the namespace gone at the end, and
// NODE-019 fires from the real pings. Run `npm run build` first. Traffic stays in the topology's namespaces.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import type {Report} from '../../../src/core/model/report.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {runCli} from '../../support/run-cli.js'
import {buildProbeTopology, NODE_B_ADDRESS, type ProbeTopology, probeTopologyUnavailable} from './topology.js'

describe('check --probe --via pod', {skip: probeTopologyUnavailable()}, () => {
  let t: ProbeTopology
  let api: FakeApiServer
  before(async () => {
    t = buildProbeTopology({midMtu: 1400})
    api = await startFakeApiServer({
      objects: t.cluster.nodes.map((n) => ({...n, apiVersion: 'v1', kind: 'Node'}) as KubeObject),
      kubelet: {netns: Object.fromEntries(t.nodes.map((n) => [n.name, n.ns]))},
    })
  })
  after(async () => {
    await api?.close()
    t?.destroy()
  })

  it("probes from each node's collection pod: one namespace, one pod per node, all deleted; NODE-019 fires", async () => {
    const r = await runCli(['check', 'node-a', 'node-b', '--probe', '--via', 'pod', '--only', 'routes', '-o', 'json', '--kubeconfig', api.kubeconfigPath], {
      env: {HOME: '/nonexistent', KUBECONFIG: undefined},
      timeoutMs: 180_000,
    })
    assert.equal(r.exitCode, 1, `exit ${r.exitCode}\nstderr: ${r.stderr}\nstdout: ${r.stdout.slice(0, 2000)}`)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.results.filter((x) => x.id === 'NODE-019').map((x) => [x.node, x.status]), [['node-a', 'failed'], ['node-b', 'failed']])
    const created = api.requests.filter((q) => q.method === 'POST' && q.resource === 'pods')
    assert.deepEqual(created.map((q) => (q.body as {spec: {nodeName: string}}).spec.nodeName).sort(), ['node-a', 'node-b'], 'one debug pod per node for collection and probe')
    assert.equal(api.requests.filter((q) => q.method === 'POST' && q.resource === 'namespaces').length, 1, 'one run namespace')
    // The probe's commands ran in the pods that collected the nodes, in the nodes' namespaces.
    const pings = api.execs.filter((e) => e.command.some((c) => c.startsWith('ping ') || c === 'ping'))
    const routeGets = api.execs.filter((e) => e.command.join(' ').includes(`route get ${NODE_B_ADDRESS}`))
    assert.ok(pings.length >= 2 && routeGets.length === 1, api.execs.map((e) => e.command.join(' ').slice(0, 100)).join('\n'))
    const podOf = new Map(created.map((q) => [(q.body as KubeObject).metadata.name, (q.body as {spec: {nodeName: string}}).spec.nodeName]))
    for (const e of [...pings, ...routeGets]) assert.ok(podOf.has(e.pod), `${e.pod} is one of the run's pods`)
    assert.equal(routeGets[0]!.netns, t.nodes[0]!.ns)
    assert.deepEqual(api.objects().filter((o) => o.kind === 'Pod'), [], 'the debug pods were deleted')
    assert.deepEqual(api.objects().filter((o) => o.kind === 'Namespace' && o.metadata.name.startsWith('node-doctor-debug-')), [], 'the run namespace was deleted')
  })
})
