// The CLI side of the in-cluster agent against the test API server with its DaemonSet controller: the fake kubelet
// starts each agent pod, and this test plays the agent by writing each node's document into the pod's log (the
// snapshots of examples/bundle, real iptables-save dumps). Node names: node-a and node-b as in the bundle.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {after, afterEach, before, describe, it} from 'node:test'
import {cleanupAgentRuns} from '../../../src/app/agent-cleanup.js'
import {collectWithAgents, type AgentRunEvent, type AgentRunOptions} from '../../../src/app/agent-run.js'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import {encodeAgentDocument} from '../../../src/core/agent/document.js'
import type {KubeObject, Node} from '../../../src/core/model/k8s.js'
import {debugNamespaceManifest} from '../../../src/core/model/managed-objects.js'
import type {NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {ClusterAccessError} from '../../../src/ports/cluster.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {KubeAgentApi} from '../../../src/transports/kube/agent-api.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {pullFailureStatus} from '../../support/fake-kubelet.js'
import {REPO_ROOT} from '../../support/golden.js'

type PlayAgent = (pod: KubeObject, node: string) => void

describe('collectWithAgents against the test API server', () => {
  let api: FakeApiServer
  let agentApi: KubeAgentApi
  let bundle: Awaited<ReturnType<typeof readBundle>>
  let nodes: Node[]
  // What the "agent" on each node does once its pod runs; each test sets it.
  let play: PlayAgent = () => undefined
  const snapshotOf = (name: string) => bundle.nodes.find((n) => n.node === name)!
  const writeDocument: PlayAgent = (pod, node) => api.setLog(`${pod.metadata.namespace}/${pod.metadata.name}/agent`, `starting\n${encodeAgentDocument(snapshotOf(node))}`)
  const agentObjects = () => api.objects().filter((o) => o.metadata.namespace?.startsWith('node-doctor-') || o.metadata.name.startsWith('node-doctor-'))
  const options = (extra: Partial<AgentRunOptions> = {}): AgentRunOptions => ({
    runId: 'abcd1234',
    image: 'ghcr.io/node-doctor/kubectl-node-doctor:test',
    nodes,
    allNodes: true,
    commandTimeoutMs: 30_000,
    waitTimeoutMs: 10_000,
    pollMs: 20,
    concurrency: 4,
    now: () => new Date(),
    warn: (m) => assert.fail(m),
    ...extra,
  })

  before(async () => {
    bundle = await readBundle(join(REPO_ROOT, 'examples', 'bundle'))
    nodes = bundle.cluster.nodes
    api = await startFakeApiServer({
      objects: nodes.map((n) => ({apiVersion: 'v1', kind: 'Node', ...n})),
      daemonSetController: {delayMs: 5},
      kubelet: {onRunning: (pod) => play(pod, (pod as {spec?: {nodeName?: string}}).spec!.nodeName!)},
    })
    agentApi = new KubeAgentApi(new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, '/nonexistent')))
  })
  afterEach(() => {
    play = () => undefined
    api.resetRequests()
  })
  after(() => api.close())

  it('creates namespace, service account and DaemonSet, reads every node, merges like analyze, deletes everything', async () => {
    play = writeDocument
    const events: AgentRunEvent[] = []
    const registered: string[] = []
    const result = await collectWithAgents(agentApi, options({onEvent: (e) => events.push(e), registerCleanup: (label) => (registered.push(label), () => registered.push(`unregistered ${label}`))}))
    assert.equal(result.namespace, 'node-doctor-abcd1234')
    assert.deepEqual(result.nodes, bundle.nodes)
    const metadata = {generatedAt: 'x', tool: {name: 'node-doctor', version: 'test'}, command: 'check'}
    assert.deepEqual(analyzeSnapshots(bundle.cluster, result.nodes, {metadata}).findings, analyzeSnapshots(bundle.cluster, bundle.nodes, {metadata}).findings)
    assert.ok(analyzeSnapshots(bundle.cluster, result.nodes, {metadata}).findings.length > 0, 'the example bundle has planted faults')

    const writes = api.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path} ${r.status}`)
    assert.deepEqual(writes, [
      'POST /api/v1/namespaces 201',
      'POST /api/v1/namespaces/node-doctor-abcd1234/serviceaccounts 201',
      'POST /apis/apps/v1/namespaces/node-doctor-abcd1234/daemonsets 201',
      'DELETE /api/v1/namespaces/node-doctor-abcd1234 200',
    ])
    assert.equal(api.requests.filter((r) => r.subresource === 'log').length, 2, 'one log read per node')
    assert.deepEqual(agentObjects(), [], 'nothing of the run is left')
    assert.deepEqual(registered, ['agent namespace node-doctor-abcd1234', 'unregistered agent namespace node-doctor-abcd1234'])
    assert.deepEqual(events.map((e) => e.type).sort(), ['created', 'deleted', 'node-done', 'node-done'])
  })

  it('a node whose agent pod cannot pull its image becomes a collection error with the reason; the other node is read', async () => {
    play = (pod, node) => {
      if (node === 'node-a') return writeDocument(pod, node)
      api.upsert({...pod, status: pullFailureStatus(pod, 'ImagePullBackOff')} as KubeObject)
    }
    const result = await collectWithAgents(agentApi, options())
    assert.deepEqual(result.nodes[0], snapshotOf('node-a'))
    const b = result.nodes[1]!
    assert.deepEqual(b.artifacts, {})
    assert.equal(b.errors.length, 1)
    assert.equal(b.errors[0]!.fatal, true)
    assert.equal(b.errors[0]!.source, 'agent')
    assert.match(b.errors[0]!.message, /^agent pod node-doctor-abcd1234\/node-doctor-agent-\w+: cannot pull the agent image ghcr\.io\/node-doctor\/kubectl-node-doctor:test: ImagePullBackOff: Back-off pulling image/)
    assert.deepEqual(agentObjects(), [])
  })

  it('a corrupted document is an error naming the node; a pod that never comes is one too, with the controller\'s reason', async () => {
    play = (pod, node) => {
      if (node === 'node-a') return writeDocument(pod, node)
      api.setLog(`${pod.metadata.namespace}/${pod.metadata.name}/agent`, encodeAgentDocument(snapshotOf(node)).replace('"node":"node-b"', '"node":"node-X"'))
    }
    const ghost = {...nodes[0]!, metadata: {...nodes[0]!.metadata, name: 'node-ghost'}}
    // What the real DaemonSet controller records when admission refuses its pods.
    api.upsert({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {name: 'node-doctor-agent.1', namespace: 'node-doctor-abcd1234'},
      involvedObject: {kind: 'DaemonSet', name: 'node-doctor-agent'},
      reason: 'FailedCreate',
      type: 'Warning',
      message: 'Error creating: pods "node-doctor-agent-x" is forbidden: exceeded quota',
      lastTimestamp: '2026-01-01T00:00:00Z',
    } as KubeObject)
    const result = await collectWithAgents(agentApi, options({nodes: [...nodes, ghost], allNodes: false, waitTimeoutMs: 1500}))
    assert.deepEqual(result.nodes[0], snapshotOf('node-a'))
    assert.match(result.nodes[1]!.errors[0]!.message, /: agent document from node node-b: the payload does not match its Sha256 header: the log was altered$/)
    assert.match(result.nodes[2]!.errors[0]!.message, /^no agent pod started on node node-ghost within [12]s: the DaemonSet controller reports: Error creating: .* exceeded quota$/)
    assert.deepEqual(agentObjects(), [])
  })

  it('a document that never completes ends at the deadline with what the pod was doing', async () => {
    play = (pod) => api.setLog(`${pod.metadata.namespace}/${pod.metadata.name}/agent`, 'starting\n-----BEGIN NODE-DOCTOR AGENT DOCUMENT-----\nVersion: 1\n')
    const result = await collectWithAgents(agentApi, options({nodes: [nodes[0]!], allNodes: false, waitTimeoutMs: 300}))
    assert.match(result.nodes[0]!.errors[0]!.message, /^agent pod node-doctor-abcd1234\/node-doctor-agent-\w+: Ready, but the agent document in its log is not complete yet; gave up after 0s$/)
    assert.deepEqual(agentObjects(), [])
  })

  it('a busy control plane (503 on the pod list) is retried; a refusal (403) ends the run, and the namespace still goes', async () => {
    play = writeDocument
    const status = (code: number) => new ClusterAccessError('status', `the server said ${code}`, {server: api.url, status: {code, message: `the server said ${code}`}})
    let failures = 1
    const flaky = Object.assign(Object.create(agentApi) as KubeAgentApi, {
      listPods: (ns: string, sel: string) => (failures-- > 0 ? Promise.reject(status(503)) : agentApi.listPods(ns, sel)),
    })
    const ok = await collectWithAgents(flaky, options())
    assert.deepEqual(ok.nodes, bundle.nodes)
    const refusing = Object.assign(Object.create(agentApi) as KubeAgentApi, {listPods: () => Promise.reject(status(403))})
    await assert.rejects(collectWithAgents(refusing, options()), /the server said 403/)
    assert.deepEqual(agentObjects(), [])
  })

  it('cleanup deletes the namespaces agent runs left, and nothing else', async () => {
    const labels = {'app.kubernetes.io/managed-by': 'node-doctor', 'app.kubernetes.io/component': 'agent', 'node-doctor.io/run': 'feedbeef'}
    api.upsert({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'node-doctor-feedbeef', labels}})
    api.upsert({apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'node-doctor-agent', namespace: 'node-doctor-feedbeef', labels}, spec: {selector: {matchLabels: labels}, template: {metadata: {labels}, spec: {containers: [{name: 'agent', image: 'x'}]}}}} as KubeObject)
    api.upsert({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'tools', labels: {'app.kubernetes.io/managed-by': 'someone-else'}}})
    // A --via pod run's namespace left behind (killed process) is found too.
    const debugLabels = {...debugNamespaceManifest('0badcafe').metadata.labels}
    api.upsert({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'node-doctor-debug-0badcafe', labels: debugLabels}})
    assert.deepEqual(await cleanupAgentRuns(agentApi, {dryRun: true}), [
      {namespace: 'node-doctor-debug-0badcafe', kind: 'debug-pods', run: '0badcafe', outcome: 'dry-run'},
      {namespace: 'node-doctor-feedbeef', kind: 'agent', run: 'feedbeef', outcome: 'dry-run'},
    ])
    assert.equal(agentObjects().length > 0, true)
    assert.deepEqual(await cleanupAgentRuns(agentApi, {dryRun: false}), [
      {namespace: 'node-doctor-debug-0badcafe', kind: 'debug-pods', run: '0badcafe', outcome: 'deleted'},
      {namespace: 'node-doctor-feedbeef', kind: 'agent', run: 'feedbeef', outcome: 'deleted'},
    ])
    assert.deepEqual(agentObjects(), [])
    assert.ok(!api.objects().some((o) => o.metadata.name === 'node-doctor-debug-0badcafe'))
    assert.ok(api.objects().some((o) => o.metadata.name === 'tools'))
  })
})
