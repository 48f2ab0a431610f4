// The fake API server's write side that repairs and the in-cluster agent rely on: the DaemonSet controller
// (adopt, replace a deleted pod, garbage-collect), PUT with resourceVersion preconditions, merge PATCH, and
// namespace deletion taking its objects along. Exercised through the real client, over HTTPS.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import type {KubeObject, Pod} from '../../../src/core/model/k8s.js'
import {ClusterAccessError} from '../../../src/ports/cluster.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {sampleCluster} from '../../support/kube-objects.js'
import {tempDir} from '../../support/kubeconfig.js'

const tmp = tempDir()
after(() => tmp.cleanup())

function clientFor(api: FakeApiServer): KubeClusterClient {
  return new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, tmp.path('no-home')))
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await probe()
    if (v !== undefined) return v
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const isReady = (p: Pod) => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')

describe('fake DaemonSet controller', () => {
  let api: FakeApiServer
  let client: KubeClusterClient
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster(), daemonSetController: {delayMs: 5}, kubelet: {startDelayMs: 30}})
    client = clientFor(api)
  })
  after(() => api.close())

  it('adopts the seeded kube-proxy pods instead of creating more', async () => {
    const pods = await until('adoption', async () => {
      const ps = await client.listPods({namespace: 'kube-system', labelSelector: 'k8s-app=kube-proxy'})
      return ps.every((p) => (p.metadata as {ownerReferences?: unknown[]}).ownerReferences?.length) ? ps : undefined
    })
    assert.deepEqual(pods.map((p) => p.metadata.name).sort(), ['kube-proxy-aaaaa', 'kube-proxy-bbbbb'])
  })

  it('replaces a deleted pod on the same node with a new, Ready one', async () => {
    const before = (await client.listPods({namespace: 'kube-system', nodeName: 'node-a', labelSelector: 'k8s-app=kube-proxy'}))[0]!
    await client.deletePod('kube-system', before.metadata.name, {uid: before.metadata.uid!})
    const replacement = await until('replacement', async () => {
      const ps = await client.listPods({namespace: 'kube-system', nodeName: 'node-a', labelSelector: 'k8s-app=kube-proxy'})
      return ps.length === 1 && ps[0]!.metadata.uid !== before.metadata.uid && isReady(ps[0]!) ? ps[0] : undefined
    })
    assert.match(replacement.metadata.name, /^kube-proxy-[a-z0-9]{5}$/)
    assert.equal(replacement.spec?.nodeName, 'node-a')
    const ds = await until('status', async () => {
      const d = (await client.listDaemonSets('kube-system')).find((x) => x.metadata.name === 'kube-proxy')!
      // The replacement is Ready; the seeded kube-proxy-bbbbb is Running without a Ready condition, so not counted.
      return (d.status as {numberReady?: number} | undefined)?.numberReady === 1 ? d : undefined
    })
    assert.deepEqual(
      {desired: (ds.status as {desiredNumberScheduled: number}).desiredNumberScheduled, current: (ds.status as {currentNumberScheduled: number}).currentNumberScheduled},
      {desired: 2, current: 2},
    )
  })

  it('runs a new DaemonSet on matching nodes only and removes its pods with it', async () => {
    await client.requestJSON({verb: 'create', resource: 'daemonsets', group: 'apps', namespace: 'kube-system'}, {
      method: 'POST',
      path: '/apis/apps/v1/namespaces/kube-system/daemonsets',
      body: {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: {name: 'agent', namespace: 'kube-system'},
        spec: {
          selector: {matchLabels: {app: 'agent'}},
          template: {metadata: {labels: {app: 'agent'}}, spec: {nodeSelector: {'kubernetes.io/hostname': 'node-b'}, containers: [{name: 'a', image: 'x'}]}},
        },
      },
    })
    const pods = await until('agent pod', async () => {
      const ps = await client.listPods({namespace: 'kube-system', labelSelector: 'app=agent'})
      return ps.length > 0 && ps.every(isReady) ? ps : undefined
    })
    assert.deepEqual(pods.map((p) => p.spec?.nodeName), ['node-b'])
    await client.requestJSON({verb: 'delete', resource: 'daemonsets', group: 'apps', namespace: 'kube-system', name: 'agent'}, {
      method: 'DELETE',
      path: '/apis/apps/v1/namespaces/kube-system/daemonsets/agent',
    })
    await until('garbage collection', async () => ((await client.listPods({namespace: 'kube-system', labelSelector: 'app=agent'})).length === 0 ? true : undefined))
  })
})

describe('fake API server updates', () => {
  let api: FakeApiServer
  let client: KubeClusterClient
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster()})
    client = clientFor(api)
  })
  after(() => api.close())

  const cmPath = '/api/v1/namespaces/kube-system/configmaps/kube-proxy'
  const cmReq = {verb: 'update', resource: 'configmaps', group: '', namespace: 'kube-system', name: 'kube-proxy'} as const

  it('PUT replaces with a matching resourceVersion and refuses a stale one with 409 Conflict', async () => {
    const cm = (await client.getConfigMap('kube-system', 'kube-proxy'))!
    const updated = await client.requestJSON<KubeObject & {data: Record<string, string>}>(cmReq, {
      method: 'PUT',
      path: cmPath,
      body: {...cm, data: {'config.conf': 'mode: nftables\n'}},
    })
    assert.equal(updated.data['config.conf'], 'mode: nftables\n')
    assert.equal(updated.metadata.uid, cm.metadata.uid)
    assert.notEqual(updated.metadata.resourceVersion, cm.metadata.resourceVersion)
    await assert.rejects(
      client.requestJSON(cmReq, {method: 'PUT', path: cmPath, body: {...cm, data: {'config.conf': 'mode: ipvs\n'}}}),
      (err: unknown) => err instanceof ClusterAccessError && err.status?.code === 409 && /the object has been modified/.test(err.status.message),
    )
    assert.equal((await client.getConfigMap('kube-system', 'kube-proxy'))!.data!['config.conf'], 'mode: nftables\n')
  })

  it('merge PATCH changes one key and deletes another with null', async () => {
    const patched = await client.requestJSON<KubeObject & {data: Record<string, string>}>(
      {...cmReq, verb: 'patch'},
      {method: 'PATCH', path: cmPath, contentType: 'application/merge-patch+json', body: {data: {extra: 'x', 'config.conf': null}, metadata: {annotations: {a: 'b'}}}},
    )
    assert.deepEqual(patched.data, {extra: 'x'})
    assert.deepEqual(patched.metadata.annotations, {a: 'b'})
  })

  it('deleting a namespace deletes what is in it', async () => {
    await client.requestJSON({verb: 'create', resource: 'namespaces', group: ''}, {method: 'POST', path: '/api/v1/namespaces', body: {apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'tmp-ns'}}})
    await client.requestJSON({verb: 'create', resource: 'configmaps', group: '', namespace: 'tmp-ns'}, {
      method: 'POST',
      path: '/api/v1/namespaces/tmp-ns/configmaps',
      body: {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'c'}, data: {}},
    })
    assert.ok(await client.getConfigMap('tmp-ns', 'c'))
    await client.requestJSON({verb: 'delete', resource: 'namespaces', group: '', name: 'tmp-ns'}, {method: 'DELETE', path: '/api/v1/namespaces/tmp-ns'})
    assert.equal(await client.getConfigMap('tmp-ns', 'c'), undefined)
  })
})
