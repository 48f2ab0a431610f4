// The API half of the pod restarts and the mode change, through the real client against the test API server
// (DaemonSet controller, fake kubelet, RBAC deny rules, resourceVersion preconditions), over HTTPS.
// Cluster: test/support/kube-objects.ts sampleCluster (kube-proxy-aaaaa on node-a, kube-proxy-bbbbb on node-b).
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {changedConfigMap, restoredConfigMap} from '../../../src/app/repair/mode-plan.js'
import {checkRepairPermissions, RepairPermissionError, replacePod, systemClock} from '../../../src/app/repair/pod-restart.js'
import {KUBE_PROXY_TARGET} from '../../../src/app/repair/pod-restart-plan.js'
import type {Pod} from '../../../src/core/model/k8s.js'
import {ClusterAccessError} from '../../../src/ports/cluster.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {sampleCluster} from '../../support/kube-objects.js'
import {tempDir} from '../../support/kubeconfig.js'

const tmp = tempDir()
after(() => tmp.cleanup())

const clientFor = (api: FakeApiServer) => new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, tmp.path('no-home')))
const kubeProxyOn = async (client: KubeClusterClient, node: string): Promise<Pod> =>
  (await client.listPods({namespace: 'kube-system', nodeName: node})).find((p) => KUBE_PROXY_TARGET.isPod(p))!
const ref = (p: Pod) => ({namespace: p.metadata.namespace!, name: p.metadata.name, uid: p.metadata.uid!})

describe('replacePod against the DaemonSet controller', () => {
  let api: FakeApiServer
  let client: KubeClusterClient
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster(), daemonSetController: {delayMs: 5}, kubelet: {startDelayMs: 400}})
    client = clientFor(api)
  })
  after(() => api.close())

  it('deletes exactly the pod it was given (uid precondition) and returns the Ready replacement on the same node', async () => {
    const old = await kubeProxyOn(client, 'node-a')
    const other = await kubeProxyOn(client, 'node-b')
    api.resetRequests()
    const progress: string[] = []
    const r = await replacePod(KUBE_PROXY_TARGET, {api: client, progress: (m) => progress.push(m)}, 'node-a', ref(old), {readyTimeoutMs: 10_000, pollMs: 20}, systemClock)
    assert.equal(r.deleteFailed, undefined)
    assert.equal(r.replacement?.spec?.nodeName, 'node-a')
    assert.notEqual(r.replacement?.metadata.uid, old.metadata.uid)
    const deletes = api.requests.filter((q) => q.method === 'DELETE')
    assert.deepEqual(deletes.map((q) => [q.path, q.body]), [[`/api/v1/namespaces/kube-system/pods/${old.metadata.name}`, {apiVersion: 'v1', kind: 'DeleteOptions', preconditions: {uid: old.metadata.uid}}]])
    assert.equal((await kubeProxyOn(client, 'node-b')).metadata.uid, other.metadata.uid)
    assert.match(progress[0]!, new RegExp(`node-a: deleting pod kube-system/${old.metadata.name} \\(uid ${old.metadata.uid}\\)`))
    assert.ok(progress.some((m) => /waiting for the kube-proxy replacement/.test(m)))
  })

  it('a pod whose uid changed since the plan is not deleted', async () => {
    const now = await kubeProxyOn(client, 'node-b')
    const r = await replacePod(KUBE_PROXY_TARGET, {api: client, progress: () => {}}, 'node-b', {...ref(now), uid: 'stale-uid'}, {readyTimeoutMs: 1000, pollMs: 20}, systemClock)
    assert.match(r.deleteFailed ?? '', /could not delete kube-system\/kube-proxy-bbbbb: the pod changed since it was planned \(.*Precondition failed: UID in precondition: stale-uid/)
    assert.equal((await kubeProxyOn(client, 'node-b')).metadata.uid, now.metadata.uid)
  })
})

describe('replacePod when the replacement never becomes Ready', () => {
  let api: FakeApiServer
  let client: KubeClusterClient
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster(), daemonSetController: {delayMs: 5}, kubelet: {startDelayMs: 20, unpullableImages: ['registry.k8s.io/kube-proxy:v1.33.1']}})
    client = clientFor(api)
  })
  after(() => api.close())

  it('times out with no replacement, after reporting the pending pod', async () => {
    const old = await kubeProxyOn(client, 'node-a')
    const progress: string[] = []
    const started = Date.now()
    const r = await replacePod(KUBE_PROXY_TARGET, {api: client, progress: (m) => progress.push(m)}, 'node-a', ref(old), {readyTimeoutMs: 600, pollMs: 50}, systemClock)
    assert.deepEqual(r, {})
    assert.ok(Date.now() - started >= 600)
    assert.ok(progress.some((m) => /node-a: waiting for the kube-proxy replacement: kube-proxy-\w+ Pending/.test(m)), progress.join('\n'))
  })
})

describe('permission pre-check and the ConfigMap update', () => {
  let api: FakeApiServer
  let client: KubeClusterClient
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster(), deny: [{verb: 'delete', resource: 'pods', namespace: 'kube-system'}, {verb: 'list', resource: 'endpointslices'}]})
    client = clientFor(api)
  })
  after(() => api.close())

  it('names every denied permission, asking only SelfSubjectAccessReviews', async () => {
    api.resetRequests()
    const queries = [
      {verb: 'delete', resource: 'pods', namespace: 'kube-system'},
      {verb: 'list', resource: 'pods', namespace: 'kube-system'},
      {verb: 'list', resource: 'endpointslices', group: 'discovery.k8s.io'},
    ]
    await assert.rejects(checkRepairPermissions(client, queries, 'restart kube-proxy'), (err: unknown) => {
      assert.ok(err instanceof RepairPermissionError)
      assert.equal(err.message, 'not allowed to restart kube-proxy: missing permission to delete pods -n kube-system, list endpointslices.discovery.k8s.io; nothing was changed')
      assert.equal(err.exitCode, 4)
      return true
    })
    assert.deepEqual([...new Set(api.requests.map((q) => `${q.method} ${q.resource}`))], ['POST selfsubjectaccessreviews'])
    await checkRepairPermissions(client, [queries[1]!], 'restart kube-proxy')
  })

  it('updateConfigMap: the mode change, a stale resourceVersion refused with 409, and the byte-identical restore', async () => {
    const original = (await client.getConfigMap('kube-system', 'kube-proxy'))!
    const changed = changedConfigMap(original, 'nftables', 'iptables')
    const stored = await client.updateConfigMap(changed.configMap)
    assert.equal(stored.data!['config.conf'], original.data!['config.conf']!.replace('mode: iptables', 'mode: nftables'))
    assert.notEqual(stored.metadata.resourceVersion, original.metadata.resourceVersion)
    await assert.rejects(client.updateConfigMap(changed.configMap), (err: unknown) => err instanceof ClusterAccessError && err.status?.code === 409)
    const back = await client.updateConfigMap(restoredConfigMap(stored, original))
    assert.deepEqual({data: back.data, annotations: back.metadata.annotations, labels: back.metadata.labels}, {data: original.data, annotations: original.metadata.annotations, labels: original.metadata.labels})
  })
})
