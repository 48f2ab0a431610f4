// KubeClusterClient + readClusterSnapshot against the loopback fake API server (HTTPS, test CA):
// what is read, how often, with which identity, and how every way of failing is reported.
// Cluster fixture: test/support/kube-objects.ts (node-a, node-b; pods 10.0.0.0/8, services 172.30.0.0/16).
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import net from 'node:net'
import {after, before, describe, it} from 'node:test'
import {readClusterSnapshot} from '../../../src/app/read-cluster.js'
import {AccessError} from '../../../src/errors.js'
import {ClusterAccessError} from '../../../src/ports/cluster.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {type KubeOptions, loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {KUBE_PROXY_CONFIG, sampleCluster} from '../../support/kube-objects.js'
import {type KubeconfigSpec, tempDir, writeKubeconfig} from '../../support/kubeconfig.js'
import {testPki} from '../../support/tls.js'

const NOW = new Date('2025-06-01T12:00:00Z')
const tmp = tempDir()
after(() => tmp.cleanup())
let n = 0

function clientFor(kubeconfig: string | KubeconfigSpec, opts: KubeOptions = {}, pageSize?: number): KubeClusterClient {
  const path = typeof kubeconfig === 'string' ? kubeconfig : writeKubeconfig(tmp.path(`kubeconfig-${++n}`), kubeconfig)
  const access = loadKubeConfig({...opts, kubeconfig: path}, {}, tmp.path('no-home'))
  return new KubeClusterClient(access, pageSize === undefined ? {} : {pageSize})
}

async function rejection(p: Promise<unknown>): Promise<ClusterAccessError> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof ClusterAccessError, `expected ClusterAccessError, got ${String(err)}`)
    return err
  }
  assert.fail('expected a rejection')
}

describe('reading a healthy cluster', () => {
  let api: FakeApiServer
  before(async () => {
    api = await startFakeApiServer({
      objects: sampleCluster({calico: true}),
      configz: {'node-a': {kubeletconfig: {clusterDNS: ['172.30.0.10']}}, 'node-b': {kubeletconfig: {clusterDNS: ['172.30.0.10']}}},
      logs: {'kube-system/kube-proxy-aaaaa/kube-proxy': 'I0601 one\nI0601 two\nE0601 three\n'},
      latencyMs: 20,
    })
  })
  after(() => api.close())

  it('returns every resource as `kubectl get -o json` prints it', async () => {
    const snap = await readClusterSnapshot(clientFor(api.kubeconfigPath), {now: NOW, context: 'fake', server: api.url, logTailLines: 2})
    assert.deepEqual(snap.errors, [])
    assert.equal(snap.collectedAt, '2025-06-01T12:00:00.000Z')
    assert.equal(snap.serverVersion, 'v1.33.1')
    assert.deepEqual(snap.nodes.map((x) => x.metadata.name), ['node-a', 'node-b'])
    assert.deepEqual(snap.services.map((s) => `${s.metadata.namespace}/${s.metadata.name}`), ['default/kubernetes', 'kube-system/kube-dns', 'shop/web'])
    assert.equal(snap.endpointSlices.length, 2)
    assert.equal(snap.pods.length, 5)
    assert.deepEqual(snap.daemonSets.map((d) => d.metadata.name), ['kube-proxy'])
    assert.deepEqual(snap.configMaps.map((c) => c.metadata.name), ['kube-proxy', 'kubelet-config']) // kubeadm-config absent: not an error
    assert.equal(snap.configMaps[0]!.data?.['config.conf'], KUBE_PROXY_CONFIG)
    assert.deepEqual(snap.serviceCIDRs[0]!.spec?.cidrs, ['172.30.0.0/16'])
    assert.deepEqual(snap.calico.ipPools.map((p) => p.metadata.name), ['default-ipv4-ippool'])
    assert.deepEqual(snap.calico.blockAffinities, [])
    assert.deepEqual(JSON.parse(snap.configz['node-a']!), {kubeletconfig: {clusterDNS: ['172.30.0.10']}})
    assert.deepEqual(Object.keys(snap.configz), ['node-a', 'node-b'])
    assert.deepEqual(snap.kubeProxyLogs, {'kube-proxy-aaaaa': 'I0601 two\nE0601 three\n', 'kube-proxy-bbbbb': ''})
    // List items get kind/apiVersion (the wire omits them) and keep the server's strings untouched.
    const nodeA = snap.nodes[0]!
    assert.equal(nodeA.kind, 'Node')
    assert.equal(nodeA.apiVersion, 'v1')
    assert.equal(nodeA.metadata.creationTimestamp, '2025-01-01T00:00:00Z')
    assert.equal(snap.endpointSlices[0]!.apiVersion, 'discovery.k8s.io/v1')
    assert.equal(snap.calico.ipPools[0]!.kind, 'IPPool')
  })

  it('reads each resource once and never runs more requests at once than allowed', async () => {
    api.resetRequests()
    await readClusterSnapshot(clientFor(api.kubeconfigPath), {now: NOW, concurrency: 3})
    const counts = new Map<string, number>()
    for (const r of api.requests) counts.set(`${r.path}?${r.query.fieldSelector ?? ''}`, (counts.get(`${r.path}?${r.query.fieldSelector ?? ''}`) ?? 0) + 1)
    assert.ok([...counts.values()].every((c) => c === 1), JSON.stringify([...counts]))
    assert.equal(api.requests.length, 22) // version, 17 lists/gets (7 ConfigMaps, 4 Calico resources), 2 configz, 2 logs
    assert.ok(api.maxInFlight <= 3 && api.maxInFlight >= 2, `max in flight ${api.maxInFlight}`)
  })

  it('with node names, reads their pods by field selector and only their configz and logs', async () => {
    api.resetRequests()
    const snap = await readClusterSnapshot(clientFor(api.kubeconfigPath), {now: NOW, nodeNames: ['node-b', 'node-x']})
    assert.deepEqual(
      api.requests.filter((r) => r.path === '/api/v1/pods').map((r) => r.query.fieldSelector).sort(),
      ['spec.nodeName=node-b', 'spec.nodeName=node-x'],
    )
    assert.deepEqual(snap.pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`), [
      'kube-system/coredns-1',
      'kube-system/kube-proxy-aaaaa',
      'kube-system/kube-proxy-bbbbb',
      'shop/web-2',
    ])
    assert.deepEqual(Object.keys(snap.configz), ['node-b'])
    assert.deepEqual(Object.keys(snap.kubeProxyLogs), ['kube-proxy-bbbbb'])
    assert.deepEqual(snap.errors, [{node: 'node-x', source: 'get nodes node-x', message: 'nodes "node-x" not found', resource: 'nodes', verb: 'get'}])
  })

  it('follows list pages with limit/continue', async () => {
    api.resetRequests()
    const pods = await clientFor(api.kubeconfigPath, {}, 2).listPods()
    assert.deepEqual(pods.map((p) => p.metadata.name), ['coredns-1', 'kube-proxy-aaaaa', 'kube-proxy-bbbbb', 'web-1', 'web-2'])
    assert.equal(api.requests.length, 3)
    assert.deepEqual(api.requests.map((r) => r.query.limit), ['2', '2', '2'])
    assert.equal(api.requests[0]!.query.continue, undefined)
    assert.ok(api.requests[1]!.query.continue)
  })

  it('passes label selectors and returns undefined for a missing object', async () => {
    const c = clientFor(api.kubeconfigPath)
    assert.deepEqual((await c.listPods({namespace: 'kube-system', labelSelector: 'k8s-app=kube-proxy'})).map((p) => p.metadata.name), ['kube-proxy-aaaaa', 'kube-proxy-bbbbb'])
    assert.equal(await c.getConfigMap('kube-system', 'kubeadm-config'), undefined)
    assert.equal(await c.getNode('node-z'), undefined)
    assert.equal((await c.getNode('node-a'))?.kind, 'Node')
  })

  it('reports a kubelet that the API server cannot reach as a per-node collection error', async () => {
    const quiet = await startFakeApiServer({objects: sampleCluster(), configz: {}})
    try {
      const snap = await readClusterSnapshot(clientFor(quiet.kubeconfigPath), {now: NOW, nodeNames: ['node-a']})
      assert.deepEqual(snap.errors, [
        {node: 'node-a', source: 'get nodes/proxy node-a', message: 'error trying to reach service: dial tcp 192.168.0.11:10250: connect: connection refused', resource: 'nodes/proxy', verb: 'get'},
      ])
    } finally {
      await quiet.close()
    }
  })
})

describe('RBAC denials', () => {
  let api: FakeApiServer
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster()})
  })
  after(() => api.close())

  it('a 403 on one resource becomes a CollectionError naming verb and resource; the rest is read', async () => {
    api.setDenyRules([{resource: 'services', verb: 'list'}])
    const snap = await readClusterSnapshot(clientFor(api.kubeconfigPath), {now: NOW})
    assert.deepEqual(snap.errors, [
      {source: 'list services', message: 'services is forbidden: User "fake-user" cannot list resource "services" in API group "" at the cluster scope', resource: 'services', verb: 'list'},
    ])
    assert.deepEqual(snap.services, [])
    assert.equal(snap.nodes.length, 2)
    assert.equal(snap.endpointSlices.length, 2)
  })

  it('the thrown error carries the request and the server Status', async () => {
    api.setDenyRules([{resource: 'daemonsets', group: 'apps', namespace: 'kube-system'}])
    const err = await rejection(clientFor(api.kubeconfigPath).listDaemonSets('kube-system'))
    assert.equal(err.kind, 'status')
    assert.ok(err.forbidden)
    assert.ok(err instanceof AccessError && err.exitCode === 4)
    assert.deepEqual(err.request, {verb: 'list', resource: 'daemonsets', group: 'apps', namespace: 'kube-system'})
    assert.deepEqual(err.status, {
      code: 403,
      reason: 'Forbidden',
      message: 'daemonsets.apps is forbidden: User "fake-user" cannot list resource "daemonsets" in API group "apps" in the namespace "kube-system"',
    })
    assert.match(err.hint ?? '', /kubectl auth can-i list daemonsets\.apps -n kube-system/)
  })

  it('DaemonSets: one cluster-wide list; where the cluster scope is denied, the CNI namespaces one by one', async () => {
    const flannel = {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'kube-flannel-ds', namespace: 'kube-flannel', labels: {app: 'flannel'}}, spec: {}}
    const cni = await startFakeApiServer({objects: [...sampleCluster(), flannel]})
    try {
      cni.resetRequests()
      const all = await readClusterSnapshot(clientFor(cni.kubeconfigPath), {now: NOW})
      assert.deepEqual(all.daemonSets.map((d) => `${d.metadata.namespace}/${d.metadata.name}`), ['kube-flannel/kube-flannel-ds', 'kube-system/kube-proxy'])
      assert.deepEqual(cni.requests.filter((r) => r.path.endsWith('/daemonsets')).map((r) => r.path), ['/apis/apps/v1/daemonsets'])
      cni.setDenyRules([{resource: 'daemonsets', group: 'apps', scope: 'cluster'}])
      cni.resetRequests()
      const scoped = await readClusterSnapshot(clientFor(cni.kubeconfigPath), {now: NOW})
      assert.deepEqual(scoped.errors, [])
      assert.deepEqual(scoped.daemonSets.map((d) => `${d.metadata.namespace}/${d.metadata.name}`), ['kube-flannel/kube-flannel-ds', 'kube-system/kube-proxy'])
      assert.match(scoped.unavailable?.[0]?.note ?? '', /cannot list resource "daemonsets" in API group "apps" at the cluster scope/)
      assert.deepEqual(
        cni.requests.filter((r) => r.path.endsWith('/daemonsets')).map((r) => `${r.path} ${r.status}`).sort(),
        ['/apis/apps/v1/daemonsets 403', ...['calico-system', 'cilium', 'kube-flannel', 'kube-system', 'ovn-kubernetes'].map((ns) => `/apis/apps/v1/namespaces/${ns}/daemonsets 200`)],
      )
    } finally {
      await cni.close()
    }
  })

  it('a 403 on nodes/proxy is a per-node error; list nodes denied falls back to get', async () => {
    api.setDenyRules([{resource: 'nodes', subresource: 'proxy'}, {resource: 'nodes', verb: 'list'}])
    const snap = await readClusterSnapshot(clientFor(api.kubeconfigPath), {now: NOW, nodeNames: ['node-a']})
    assert.deepEqual(snap.nodes.map((x) => x.metadata.name), ['node-a'])
    assert.deepEqual(snap.errors, [
      {source: 'list nodes', message: 'nodes is forbidden: User "fake-user" cannot list resource "nodes" in API group "" at the cluster scope', resource: 'nodes', verb: 'list'},
      {
        node: 'node-a',
        source: 'get nodes/proxy node-a',
        message: 'nodes "node-a" is forbidden: User "fake-user" cannot get resource "nodes/proxy" in API group "" at the cluster scope',
        resource: 'nodes/proxy',
        verb: 'get',
      },
    ])
  })

  it('SelfSubjectAccessReview answers from the same rules', async () => {
    api.setDenyRules([{resource: 'pods', verb: 'delete', namespace: 'kube-system'}])
    const c = clientFor(api.kubeconfigPath)
    assert.deepEqual(await c.canI({verb: 'delete', resource: 'pods', namespace: 'kube-system'}), {allowed: false})
    const ok = await c.canI({verb: 'get', resource: 'nodes', subresource: 'proxy'})
    assert.equal(ok.allowed, true)
  })
})

describe('APIs that are not installed', () => {
  it('absent Calico CRDs and ServiceCIDR API read as empty, not as errors', async () => {
    const api = await startFakeApiServer({objects: sampleCluster().filter((o) => o.kind !== 'ServiceCIDR'), unserved: ['servicecidrs.networking.k8s.io']})
    try {
      const c = clientFor(api.kubeconfigPath)
      assert.deepEqual(await c.listCalico('ippools'), [])
      assert.deepEqual(await c.listCiliumNodes(), [])
      assert.equal(api.requests.find((r) => r.path === '/apis/cilium.io/v2/ciliumnodes')?.status, 404)
      // ServiceCIDRs: the 404 reaches readClusterSnapshot, which notes it (test/integration/kube/servicecidrs.test.ts).
      assert.equal((await rejection(c.listServiceCIDRs())).status?.code, 404)
      const snap = await readClusterSnapshot(c, {now: NOW})
      assert.deepEqual(snap.errors, [])
      assert.deepEqual(snap.serviceCIDRs, [])
      assert.deepEqual(snap.calico, {ipPools: [], blockAffinities: [], ipamBlocks: []})
      assert.equal(api.requests.find((r) => r.path === '/apis/crd.projectcalico.org/v1/ippools')?.status, 404)
    } finally {
      await api.close()
    }
  })
})

describe('when the API server cannot be used', () => {
  let api: FakeApiServer
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster()})
  })
  after(() => api.close())

  it('a closed port on 127.0.0.1 is an AccessError "cannot reach the API server"', async () => {
    const port = await closedPort()
    const c = clientFor({...api.kubeconfigSpec(), clusters: [{name: 'fake-cluster', server: `https://127.0.0.1:${port}`, caFile: api.caFile!}]})
    const err = await rejection(readClusterSnapshot(c, {now: NOW}))
    assert.equal(err.kind, 'unreachable')
    assert.equal(err.exitCode, 4)
    assert.equal(err.message, `cannot reach the API server at https://127.0.0.1:${port}: connection refused`)
    assert.match(err.hint ?? '', /context "fake"/)
  })

  it('a wrong token is a 401 AccessError naming the user and context', async () => {
    const c = clientFor(api.kubeconfigSpec({name: 'alice', token: 'stale-token'}))
    const err = await rejection(readClusterSnapshot(c, {now: NOW}))
    assert.equal(err.kind, 'unauthorized')
    assert.equal(err.message, `the API server at ${api.url} rejected the credentials of user "alice" (context "fake"): Unauthorized`)
    assert.match(err.hint ?? '', /Refresh the credentials/)
  })

  it('an untrusted server certificate is a TLS AccessError; --insecure-skip-tls-verify gets through', async () => {
    const spec = api.kubeconfigSpec()
    spec.clusters = [{name: 'fake-cluster', server: api.url}]
    const err = await rejection(clientFor(spec).serverVersion())
    assert.equal(err.kind, 'tls')
    assert.match(err.message, new RegExp(`^cannot reach the API server at ${api.url}: TLS: `))
    assert.match(err.hint ?? '', /insecure-skip-tls-verify/)
    assert.equal((await clientFor(spec, {'insecure-skip-tls-verify': true}).serverVersion()).gitVersion, 'v1.33.1')
  })

  it('--request-timeout bounds each request', async () => {
    api.setLatency(400)
    try {
      const err = await rejection(readClusterSnapshot(clientFor(api.kubeconfigPath, {'request-timeout': '100ms'}), {now: NOW}))
      assert.equal(err.kind, 'timeout')
      assert.equal(err.message, `cannot reach the API server at ${api.url}: no response within 100ms (--request-timeout)`)
    } finally {
      api.setLatency(0)
    }
  })
})

describe('credentials handled by client-node', () => {
  const pki = testPki()
  const plugin = tmp.path('credential-plugin.cjs')
  writeFileSync(
    plugin,
    `const fs = require('node:fs')
const [mode, log, certFile, keyFile] = process.argv.slice(2)
fs.appendFileSync(log, mode + '\\n')
if (mode === 'fail') { process.stderr.write('token expired: run sso login\\n'); process.exit(1) }
const status = mode === 'cert'
  ? {clientCertificateData: fs.readFileSync(certFile, 'utf8'), clientKeyData: fs.readFileSync(keyFile, 'utf8')}
  : {token: 'exec-token-1234', expirationTimestamp: '2999-01-01T00:00:00Z'}
process.stdout.write(JSON.stringify({apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status}))
`,
  )
  // client-node caches exec credentials by user name for the whole process, so each test uses its own name.
  const execUser = (mode: string, log: string) => {
    const cert = pki.clientCert('exec-cert-user')
    return {name: `exec-${mode}`, exec: {command: process.execPath, args: [plugin, mode, log, cert.certFile, cert.keyFile]}}
  }
  let api: FakeApiServer
  before(async () => {
    api = await startFakeApiServer({objects: sampleCluster(), tokens: {'static-token': 'fake-user', 'exec-token-1234': 'exec-user'}})
  })
  after(() => api.close())

  it('an exec plugin token is sent (and the plugin runs once per run, not per request)', async () => {
    const log = tmp.path('exec-token.log')
    api.resetRequests()
    const snap = await readClusterSnapshot(clientFor(api.kubeconfigSpec(execUser('token', log))), {now: NOW})
    assert.deepEqual(snap.errors, [])
    assert.ok(api.requests.length > 10)
    assert.ok(api.requests.every((r) => r.user === 'exec-user' && r.authenticatedBy === 'token'))
    assert.equal(readLines(log).length, 1)
  })

  it('an exec plugin may return a client certificate instead', async () => {
    const log = tmp.path('exec-cert.log')
    api.resetRequests()
    await clientFor(api.kubeconfigSpec(execUser('cert', log))).listNodes()
    assert.deepEqual(api.requests.map((r) => [r.user, r.authenticatedBy]), [['exec-cert-user', 'cert']])
  })

  it('a failing exec plugin is an AccessError quoting its stderr', async () => {
    const err = await rejection(clientFor(api.kubeconfigSpec(execUser('fail', tmp.path('exec-fail.log')))).listNodes())
    assert.equal(err.kind, 'credentials')
    assert.equal(err.message, `cannot get credentials for user "exec-fail" (context "fake"): exec plugin "${process.execPath}" failed: token expired: run sso login`)
  })

  it('a missing exec plugin says so', async () => {
    const err = await rejection(clientFor(api.kubeconfigSpec({name: 'sso', exec: {command: 'node-doctor-no-such-plugin'}})).listNodes())
    assert.equal(err.kind, 'credentials')
    assert.match(err.message, /exec plugin "node-doctor-no-such-plugin" was not found/)
  })

  it('client certificate files from the kubeconfig authenticate as their CN', async () => {
    const cert = pki.clientCert('cert-user', ['system:masters'])
    api.setDenyRules([{user: 'cert-user', resource: 'services'}])
    try {
      const snap = await readClusterSnapshot(clientFor(api.kubeconfigSpec({name: 'cert', clientCertificate: cert.certFile, clientKey: cert.keyFile})), {now: NOW})
      assert.deepEqual(snap.errors.map((e) => e.message), [
        'services is forbidden: User "cert-user" cannot list resource "services" in API group "" at the cluster scope',
      ])
    } finally {
      api.setDenyRules([])
    }
  })

  it('--token replaces the kubeconfig credentials', async () => {
    api.resetRequests()
    await clientFor(api.kubeconfigSpec({name: 'bad', token: 'wrong'}), {token: 'static-token'}).listNodes()
    assert.equal(api.requests[0]!.user, 'fake-user')
  })
})

describe('a plain-HTTP server (kubectl proxy)', () => {
  it('is used without sending credentials, as client-go does', async () => {
    const api = await startFakeApiServer({objects: sampleCluster(), tls: false})
    try {
      const c = clientFor(api.kubeconfigSpec({name: 'u', token: 'secret-token'}))
      assert.equal((await c.listNodes()).length, 2)
      assert.deepEqual(api.requests.map((r) => r.authenticatedBy), ['none'])
    } finally {
      await api.close()
    }
  })
})

describe('writes', () => {
  it('deletePod honours the uid precondition', async () => {
    const api = await startFakeApiServer({objects: sampleCluster()})
    try {
      const c = clientFor(api.kubeconfigPath)
      const [pod] = await c.listPods({namespace: 'kube-system', labelSelector: 'k8s-app=kube-proxy'})
      const err = await rejection(c.deletePod('kube-system', pod!.metadata.name, {uid: 'not-the-uid'}))
      assert.equal(err.status?.code, 409)
      assert.match(err.message, /Precondition failed: UID in precondition: not-the-uid/)
      await c.deletePod('kube-system', pod!.metadata.name, {uid: pod!.metadata.uid!, gracePeriodSeconds: 0})
      assert.deepEqual((await c.listPods({namespace: 'kube-system', labelSelector: 'k8s-app=kube-proxy'})).map((p) => p.metadata.name), ['kube-proxy-bbbbb'])
      const gone = await rejection(c.deletePod('kube-system', pod!.metadata.name))
      assert.equal(gone.status?.reason, 'NotFound')
      assert.equal(gone.message, `pods "${pod!.metadata.name}" not found`)
    } finally {
      await api.close()
    }
  })
})

function readLines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '')
}

async function closedPort(): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as net.AddressInfo).port
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

describe('the CNI MTU inputs', () => {
  it('reads kube-system/calico-config and the FelixConfigurations (only kept when there are some)', async () => {
    const felix = {apiVersion: 'crd.projectcalico.org/v1', kind: 'FelixConfiguration', metadata: {name: 'default'}, spec: {ipipMTU: 1440, mtuIfacePattern: '^eth.*'}}
    const calicoConfig = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'calico-config'}, data: {veth_mtu: '0'}}
    const api = await startFakeApiServer({objects: [...sampleCluster({calico: true}), felix, calicoConfig] as never})
    try {
      const snap = await readClusterSnapshot(clientFor(api.kubeconfigPath), {now: NOW})
      assert.deepEqual(snap.errors, [])
      assert.deepEqual(snap.calico.felixConfigurations?.map((f) => [f.kind, f.metadata.name, (f as unknown as {spec: unknown}).spec]), [['FelixConfiguration', 'default', {ipipMTU: 1440, mtuIfacePattern: '^eth.*'}]])
      assert.equal(snap.configMaps.find((c) => c.metadata.name === 'calico-config')?.data?.veth_mtu, '0')
    } finally {
      await api.close()
    }
  })
})
