// The fake API server is shared test infrastructure, so its wire format is pinned here against what
// kube-apiserver sends: List and Status bodies, 401/403/404 shapes, selectors, and streaming watches
// (consumed with client-node's own Watch, as an informer would).
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import https from 'node:https'
import {after, before, describe, it} from 'node:test'
import {Watch} from '@kubernetes/client-node'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {pod, sampleCluster} from '../../support/kube-objects.js'

interface Raw {
  status: number
  contentType: string
  body: string
  // Test-only access to arbitrary JSON.
  json: () => any
}

function raw(api: FakeApiServer, path: string, options: {token?: string; method?: string} = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, api.url),
      {method: options.method ?? 'GET', ca: readFileSync(api.caFile!), headers: {Authorization: `Bearer ${options.token ?? api.token}`}},
      (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (d: string) => (body += d))
        res.on('end', () => resolve({status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), body, json: () => JSON.parse(body)}))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('fake API server wire format', () => {
  let api: FakeApiServer
  before(async () => {
    api = await startFakeApiServer({
      objects: [...sampleCluster({calico: true}), pod('shop', 'two-containers', 'node-a', '10.0.1.20', {}, ['app', 'sidecar'])],
      deny: [{resource: 'configmaps', verb: 'get', name: 'kubeadm-config'}, {path: '/version'}],
    })
  })
  after(() => api.close())

  it('answers Lists like kube-apiserver: typed List kind, resourceVersion, items without type meta', async () => {
    const r = await raw(api, '/api/v1/namespaces/kube-system/pods')
    assert.equal(r.status, 200)
    assert.equal(r.contentType, 'application/json')
    const list = r.json()
    assert.equal(list.kind, 'PodList')
    assert.equal(list.apiVersion, 'v1')
    assert.match(list.metadata.resourceVersion, /^\d+$/)
    assert.deepEqual(list.items.map((p: {metadata: {name: string}}) => p.metadata.name), ['coredns-1', 'kube-proxy-aaaaa', 'kube-proxy-bbbbb'])
    assert.equal(list.items[0].kind, undefined)
    assert.match(list.items[0].metadata.uid, /^[0-9a-f-]{36}$/)
    const crd = (await raw(api, '/apis/crd.projectcalico.org/v1/ippools')).json()
    assert.equal(crd.kind, 'IPPoolList')
    assert.equal(crd.items[0].kind, 'IPPool') // unstructured lists keep it
  })

  it('returns kube-apiserver\'s 401, 403 and 404 Status bodies', async () => {
    const unauthorized = await raw(api, '/api/v1/nodes', {token: 'wrong'})
    assert.equal(unauthorized.status, 401)
    assert.deepEqual(unauthorized.json(), {kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401})

    const forbidden = await raw(api, '/api/v1/namespaces/kube-system/configmaps/kubeadm-config')
    assert.equal(forbidden.status, 403)
    assert.deepEqual(forbidden.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "kubeadm-config" is forbidden: User "fake-user" cannot get resource "configmaps" in API group "" in the namespace "kube-system"',
      reason: 'Forbidden',
      details: {name: 'kubeadm-config', kind: 'configmaps'},
      code: 403,
    })
    assert.equal((await raw(api, '/version')).json().message, 'forbidden: User "fake-user" cannot get path "/version"')

    const missing = await raw(api, '/apis/apps/v1/namespaces/kube-system/daemonsets/calico-node')
    assert.equal(missing.status, 404)
    assert.deepEqual(missing.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'daemonsets.apps "calico-node" not found',
      reason: 'NotFound',
      details: {name: 'calico-node', group: 'apps', kind: 'daemonsets'},
      code: 404,
    })
    const noGroup = await raw(api, '/apis/cilium.io/v2/ciliumnodes')
    assert.equal(noGroup.status, 404)
    assert.equal(noGroup.body, '404 page not found\n')
  })

  it('filters with label selectors (equality, set, existence) and pod field selectors', async () => {
    const names = async (q: string) => (await raw(api, `/api/v1/pods?${q}`)).json().items.map((p: {metadata: {name: string}}) => p.metadata.name)
    assert.deepEqual(await names(`labelSelector=${encodeURIComponent('k8s-app in (kube-dns, kube-proxy),k8s-app!=kube-proxy')}`), ['coredns-1'])
    assert.deepEqual(await names(`labelSelector=${encodeURIComponent('app')}`), ['web-1', 'web-2'])
    assert.deepEqual(await names(`fieldSelector=${encodeURIComponent('spec.nodeName=node-b')}`), ['kube-proxy-bbbbb', 'web-2'])
    assert.deepEqual(await names(`fieldSelector=${encodeURIComponent('metadata.namespace!=kube-system,spec.nodeName=node-a')}`), ['two-containers', 'web-1'])
    const bad = await raw(api, `/api/v1/services?fieldSelector=${encodeURIComponent('spec.clusterIP=1.2.3.4')}`)
    assert.equal(bad.status, 400)
    assert.equal(bad.json().message, 'field label not supported: spec.clusterIP')
  })

  it('serves pod logs like the kubelet through the API server', async () => {
    const r = await raw(api, '/api/v1/namespaces/shop/pods/two-containers/log?tailLines=5')
    assert.equal(r.status, 400)
    assert.equal(r.json().message, 'a container name must be specified for pod two-containers, choose one of: [app sidecar]')
    assert.equal((await raw(api, '/api/v1/namespaces/shop/pods/two-containers/log?container=app')).status, 200)
  })
})

describe('fake API server watches', () => {
  let api: FakeApiServer
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster()})
  })
  after(() => api.close())

  it('streams ADDED, MODIFIED and DELETED to client-node\'s Watch, including changes made through the API', async () => {
    const access = loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, '/nonexistent')
    const events: string[] = []
    let ended = false
    const ctrl = await new Watch(access.kc).watch(
      '/api/v1/namespaces/kube-system/pods',
      {labelSelector: 'k8s-app=kube-proxy'},
      (type, obj: {metadata: {name: string}}) => events.push(`${type} ${obj.metadata.name}`),
      () => (ended = true),
    )
    await until(() => events.length === 2, 'initial ADDED events')
    assert.deepEqual(events, ['ADDED kube-proxy-aaaaa', 'ADDED kube-proxy-bbbbb'])

    const changed = pod('kube-system', 'kube-proxy-aaaaa', 'node-a', '192.168.0.11', {'k8s-app': 'kube-proxy', restarted: 'yes'}, ['kube-proxy'])
    api.upsert(changed)
    api.upsert(pod('kube-system', 'coredns-2', 'node-b', '10.0.2.5', {'k8s-app': 'kube-dns'})) // not selected: no event
    await new KubeClusterClient(access).deletePod('kube-system', 'kube-proxy-bbbbb')
    api.upsert(pod('kube-system', 'kube-proxy-ccccc', 'node-b', '192.168.0.12', {'k8s-app': 'kube-proxy'}, ['kube-proxy']))
    await until(() => events.length === 5, 'change events')
    assert.deepEqual(events.slice(2), ['MODIFIED kube-proxy-aaaaa', 'DELETED kube-proxy-bbbbb', 'ADDED kube-proxy-ccccc'])
    ctrl.abort()
    await until(() => ended, 'watch end')
  })

  it('replays changes after a resourceVersion, and answers 410 Expired for one older than its history', async () => {
    const before = (await raw(api, '/api/v1/nodes')).json().metadata.resourceVersion as string
    api.upsert({...sampleCluster()[0]!, metadata: {...sampleCluster()[0]!.metadata, labels: {changed: 'true'}}})
    api.remove('v1', 'Node', 'node-b')
    const replay = await new Promise<string>((resolve, reject) => {
      const req = https.get(new URL(`/api/v1/nodes?watch=true&resourceVersion=${before}&timeoutSeconds=1`, api.url), {ca: readFileSync(api.caFile!), headers: {Authorization: `Bearer ${api.token}`}}, (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (d: string) => (body += d))
        res.on('end', () => resolve(body))
      })
      req.on('error', reject)
    })
    const lines = replay.trim().split('\n').map((l) => JSON.parse(l) as {type: string; object: {kind: string; metadata: {name: string; labels?: Record<string, string>}}})
    assert.deepEqual(lines.map((e) => `${e.type} ${e.object.kind} ${e.object.metadata.name}`), ['MODIFIED Node node-a', 'DELETED Node node-b'])
    assert.deepEqual(lines[0]!.object.metadata.labels, {changed: 'true'})

    const expired = await raw(api, '/api/v1/nodes?watch=true&resourceVersion=5')
    assert.equal(expired.status, 200)
    const ev = JSON.parse(expired.body.trim()) as {type: string; object: {code: number; reason: string}}
    assert.equal(ev.type, 'ERROR')
    assert.equal(ev.object.code, 410)
    assert.equal(ev.object.reason, 'Expired')
  })
})
