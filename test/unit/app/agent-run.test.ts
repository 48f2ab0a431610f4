// collectWithAgents resolves the target nodes' layouts from the cluster it is given before it creates the DaemonSet:
// the created DaemonSet mounts only those layouts' directories, and a node the API does not place brings every
// layout's back with a warning. The API is a recording fake that never shows a pod (the run ends at its deadline);
// the pod side is covered by test/integration/agent/agent-run.test.ts.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {before, describe, it} from 'node:test'
import {type AgentRunOptions, collectWithAgents} from '../../../src/app/agent-run.js'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import type {ClusterSnapshot} from '../../../src/core/model/snapshot.js'
import type {AgentApi} from '../../../src/ports/agent.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../support/golden.js'

type DaemonSet = KubeObject & {spec: {template: {spec: {volumes: Array<{hostPath?: {path: string}}>}}}}

function recordingApi(): AgentApi & {created: KubeObject[]} {
  const created: KubeObject[] = []
  return {
    created,
    create: async (objects) => void created.push(...objects),
    listPods: async () => [],
    podLog: async () => '',
    listEvents: async () => [],
    listNamespaces: async () => [],
    deleteNamespace: async () => true,
  }
}

async function runOver(cluster: ClusterSnapshot | undefined, nodes = cluster?.nodes ?? []) {
  const api = recordingApi()
  const warnings: string[] = []
  /** How many objects existed when each warning was given. */
  const createdAtWarning: number[] = []
  const options: AgentRunOptions = {
    runId: 'abcd1234',
    image: 'ghcr.io/node-doctor/kubectl-node-doctor:test',
    nodes,
    allNodes: true,
    ...(cluster ? {cluster} : {}),
    commandTimeoutMs: 30_000,
    waitTimeoutMs: 0,
    concurrency: 1,
    now: () => new Date('2026-12-03T12:00:00Z'),
    sleep: async () => undefined,
    warn: (m) => (warnings.push(m), createdAtWarning.push(api.created.length)),
  }
  const result = await collectWithAgents(api, options)
  const ds = api.created.find((o) => o.kind === 'DaemonSet') as DaemonSet
  const mounts = ds.spec.template.spec.volumes.flatMap((v) => (v.hostPath ? [v.hostPath.path] : [])).sort()
  return {mounts, warnings, createdAtWarning, result}
}

describe('collectWithAgents: the DaemonSet mounts the target nodes layouts directories', () => {
  const clusters: Record<string, ClusterSnapshot> = {}
  before(async () => {
    for (const name of ['kubeadm-calico', 'k3s-flannel', 'cilium-kpr-two-owners']) clusters[name] = (await readBundle(join(FIXTURES, 'layouts', 'nodes', name))).cluster
  })

  it('kubeadm cluster: no k3s/RKE2/GKE directory, no warning', async () => {
    const r = await runOver(clusters['kubeadm-calico'])
    assert.deepEqual(r.warnings.filter((w) => w.includes('layout')), [])
    assert.deepEqual(r.mounts.filter((p) => p.includes('rancher') || p.startsWith('/home/')), [])
    assert.ok(r.mounts.includes('/var/lib/kubelet') && r.mounts.includes('/etc/kubernetes'))
    // The node was not read (no pod): its collection error, as before.
    assert.match(r.result.nodes[0]!.errors[0]!.message, /no agent pod started on node node-1/)
  })

  it("k3s cluster: k3s's directories, not RKE2's or GKE's", async () => {
    const r = await runOver(clusters['k3s-flannel'])
    assert.deepEqual(r.mounts.filter((p) => p.includes('rancher') || p.startsWith('/home/')), ['/etc/rancher', '/var/lib/rancher/k3s/agent/etc'])
    assert.deepEqual(r.warnings, [])
  })

  it('a node of unknown layout: every layout directory, and one warning before the objects are created', async () => {
    const r = await runOver(clusters['cilium-kpr-two-owners'])
    assert.deepEqual(r.mounts.filter((p) => p.includes('rancher') || p.startsWith('/home/')), ['/etc/rancher', '/home/kubernetes', '/var/lib/rancher/k3s/agent/etc', '/var/lib/rancher/rke2/agent/etc'])
    assert.equal(r.warnings.length, 1)
    assert.deepEqual(r.createdAtWarning, [0])
    assert.match(r.warnings[0]!, /^WARNING: the layout of node\(s\) node-1 cannot be told from the API .* creates them, empty: \/etc\/rancher, \/home\/kubernetes, /)
  })

  it('no cluster given (a caller that did not read it): every layout directory, as `agent manifests` prints them', async () => {
    const r = await runOver(undefined, clusters['kubeadm-calico']!.nodes)
    assert.ok(r.mounts.includes('/home/kubernetes') && r.mounts.includes('/etc/rancher'))
    assert.deepEqual(r.warnings, [])
  })
})
