// The dashboard's in-cluster source against the test API server with its DaemonSet controller: the fake kubelet
// starts each agent pod and this test plays the agent (writes the node's document of examples/bundle into the pod's
// log). Each node reaches the dashboard as its document is read; quitting stops the run and removes the namespace.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {after, afterEach, before, describe, it} from 'node:test'
import type {InClusterFlags} from '../../../src/app/live/in-cluster.js'
import {inClusterSource, type RunHandlers} from '../../../src/app/dashboard/sources.js'
import {type ConnectFlags, environment} from '../../../src/transports/connect.js'
import {encodeAgentDocument} from '../../../src/core/agent/document.js'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import type {NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {UsageError} from '../../../src/errors.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {REPO_ROOT} from '../../support/golden.js'

describe('dashboard --in-cluster source', () => {
  let api: FakeApiServer
  let bundle: Awaited<ReturnType<typeof readBundle>>
  let play: (pod: KubeObject, node: string) => void = () => undefined
  const flags = (): InClusterFlags & ConnectFlags => ({kubeconfig: api.kubeconfigPath, all: true, via: 'ssh', concurrency: 4, timeout: '30s', 'node-timeout': '20s', 'address-type': 'InternalIP', image: 'ghcr.io/node-doctor/kubectl-node-doctor:test'})
  const agentNamespaces = () => api.objects().filter((o) => o.kind === 'Namespace' && o.metadata.name.startsWith('node-doctor-'))

  /** Handlers that record what the dashboard would receive, in order. */
  const recorder = () => {
    const seen: string[] = []
    const snapshots: NodeSnapshot[] = []
    const h: RunHandlers = {
      targets: (_c, nodes) => seen.push(`targets ${nodes.join(',')}`),
      nodeStart: (n) => seen.push(`start ${n}`),
      nodeDone: (s) => {
        seen.push(`done ${s.node}`)
        snapshots.push(s)
      },
    }
    return {h, seen, snapshots}
  }

  before(async () => {
    bundle = await readBundle(join(REPO_ROOT, 'examples', 'bundle'))
    api = await startFakeApiServer({
      objects: bundle.cluster.nodes.map((n) => ({apiVersion: 'v1', kind: 'Node', ...n})),
      daemonSetController: {delayMs: 5},
      kubelet: {onRunning: (pod) => play(pod, (pod as {spec?: {nodeName?: string}}).spec!.nodeName!)},
    })
  })
  afterEach(() => {
    play = () => undefined
  })
  after(() => api.close())

  it("hands over each node's snapshot as its agent's document is read, then removes the agent's namespace", async () => {
    play = (pod, node) => api.setLog(`${pod.metadata.namespace}/${pod.metadata.name}/agent`, encodeAgentDocument(bundle.nodes.find((n) => n.node === node)!))
    const source = inClusterSource([], flags(), undefined, 'test', environment(flags()), {pollMs: 20})
    assert.equal(source.title, 'in-cluster: all nodes')
    const r = recorder()
    await source.run(r.h)
    assert.equal(r.seen[0], 'targets node-a,node-b')
    assert.deepEqual(r.seen.slice(1).sort(), ['done node-a', 'done node-b'])
    assert.deepEqual(
      r.snapshots.sort((a, b) => a.node.localeCompare(b.node)),
      bundle.nodes,
    )
    assert.deepEqual(agentNamespaces(), [])
    // The fake cluster holds only the two Nodes (plain kubelet version, no providerID, no kubeadm-config): their
    // layout cannot be told from the API, so the agent mounts every layout's directories and the run says so.
    assert.deepEqual([...(source.warnings ?? [])].map((w) => w.split(' cannot be told')[0]), ['WARNING: the layout of node(s) node-a, node-b'])
  })

  it('stops when the dashboard is closed: the nodes not read yet say so, and the namespace goes', async () => {
    // The agents never write their documents: without the abort the run would wait for --node-timeout (20 s).
    const controller = new AbortController()
    const source = inClusterSource(['node-a'], {...flags(), all: false}, undefined, 'test', environment(flags()), {pollMs: 20})
    const r = recorder()
    const t0 = Date.now()
    const run = source.run(r.h, controller.signal)
    const created = await waitFor(() => agentNamespaces().length === 1)
    assert.ok(created, 'the agent namespace was created')
    controller.abort()
    await run
    assert.ok(Date.now() - t0 < 10_000, 'the run ended at once')
    assert.deepEqual(r.seen, ['targets node-a', 'done node-a'])
    assert.equal(r.snapshots[0]!.errors[0]!.message, 'the run was stopped before this node was read')
    assert.deepEqual(agentNamespaces(), [])
  })

  it('refuses --via with --in-cluster, and a bad duration, before reaching the cluster', () => {
    assert.throws(() => inClusterSource([], {...flags(), via: 'pod'}, undefined, 'test', environment({...flags(), via: 'pod'})), (e: unknown) => e instanceof UsageError && /--in-cluster and --via pod do not go together/.test(e.message))
    assert.throws(() => inClusterSource([], {...flags(), timeout: 'soon'}, undefined, 'test', environment(flags())), /timeout/)
  })
})

async function waitFor(cond: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (cond()) return true
    await new Promise((r) => setTimeout(r, 10))
  }
  return cond()
}
