// readClusterSnapshot's error policy and bookkeeping, with an in-memory ClusterReader holding the sample cluster.
// Which failures become CollectionErrors (403/404/5xx Status, a timeout after the probe) and which end the run
// (unreachable, TLS, 401, credentials, a timeout on the probe, programming errors).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {isKubeProxyPod, readClusterSnapshot} from '../../../src/app/read-cluster.js'
import type {ConfigMap, DaemonSet, EndpointSlice, KubeObject, Node, Pod, Service, ServiceCIDR} from '../../../src/core/model/k8s.js'
import {type ApiRequest, type CalicoResource, ClusterAccessError, type ClusterErrorKind, type ClusterReader, type PodQuery} from '../../../src/ports/cluster.js'
import {pod, sampleCluster} from '../../support/kube-objects.js'

const NOW = new Date('2025-06-01T00:00:00Z')
type Method = keyof ClusterReader

/** Map-backed reader: serves `objects`, fails the methods listed in `failures`, optionally with per-call delays. */
class MemoryReader implements ClusterReader {
  calls: string[] = []
  constructor(
    private readonly objects: KubeObject[],
    private readonly failures: Partial<Record<Method, () => Error>> = {},
    private readonly delayMs: Partial<Record<Method, number>> = {},
  ) {}

  private async run<T>(m: Method, arg: string, fn: () => T): Promise<T> {
    this.calls.push(`${m}(${arg})`)
    await new Promise((r) => setTimeout(r, this.delayMs[m] ?? 0))
    const f = this.failures[m]
    if (f) throw f()
    return fn()
  }

  private of<T extends KubeObject>(kind: string, ns?: string): T[] {
    return this.objects.filter((o) => o.kind === kind && (ns === undefined || o.metadata.namespace === ns)) as T[]
  }

  serverVersion() {
    return this.run('serverVersion', '', () => ({major: '1', minor: '33', gitVersion: 'v1.33.1'}))
  }
  listNodes() {
    return this.run('listNodes', '', () => this.of<Node>('Node'))
  }
  getNode(name: string) {
    return this.run('getNode', name, () => this.of<Node>('Node').find((n) => n.metadata.name === name))
  }
  listServices(ns?: string) {
    return this.run('listServices', ns ?? '', () => this.of<Service>('Service', ns))
  }
  listEndpointSlices(ns?: string) {
    return this.run('listEndpointSlices', ns ?? '', () => this.of<EndpointSlice>('EndpointSlice', ns))
  }
  listPods(q: PodQuery = {}) {
    return this.run('listPods', JSON.stringify(q), () => this.of<Pod>('Pod', q.namespace).filter((p) => q.nodeName === undefined || p.spec?.nodeName === q.nodeName))
  }
  listDaemonSets(ns?: string) {
    return this.run('listDaemonSets', ns ?? '', () => this.of<DaemonSet>('DaemonSet', ns))
  }
  getConfigMap(ns: string, name: string) {
    return this.run('getConfigMap', name, () => this.of<ConfigMap>('ConfigMap', ns).find((c) => c.metadata.name === name))
  }
  listServiceCIDRs() {
    return this.run('listServiceCIDRs', '', () => this.of<ServiceCIDR>('ServiceCIDR'))
  }
  listCalico(r: CalicoResource) {
    return this.run('listCalico', r, () => [] as KubeObject[])
  }
  listCiliumNodes() {
    return this.run('listCiliumNodes', '', () => this.of<KubeObject>('CiliumNode'))
  }
  getNodeConfigz(node: string) {
    return this.run('getNodeConfigz', node, () => `{"kubeletconfig":{"node":"${node}"}}`)
  }
  podLogTail(ns: string, name: string, o: {tailLines: number; container?: string}) {
    return this.run('podLogTail', `${name},${o.container},${o.tailLines}`, () => `log of ${name}\n`)
  }
}

const fail = (kind: ClusterErrorKind, request: ApiRequest, message: string, code?: number) => () =>
  new ClusterAccessError(kind, message, {server: 'https://192.168.0.1:6443', request, ...(code ? {status: {code, message}} : {})})

describe('readClusterSnapshot', () => {
  it('records a timeout on one resource after a good probe and reads the rest', async () => {
    const reader = new MemoryReader(sampleCluster(), {
      listEndpointSlices: fail('timeout', {verb: 'list', resource: 'endpointslices', group: 'discovery.k8s.io'}, 'cannot reach the API server at https://192.168.0.1:6443: no response within 5s (--request-timeout)'),
    })
    const snap = await readClusterSnapshot(reader, {now: NOW})
    assert.deepEqual(snap.errors, [
      {source: 'list endpointslices.discovery.k8s.io', message: 'cannot reach the API server at https://192.168.0.1:6443: no response within 5s (--request-timeout)', resource: 'endpointslices', verb: 'list'},
    ])
    assert.equal(snap.services.length, 3)
    assert.equal(snap.endpointSlices.length, 0)
  })

  for (const kind of ['unreachable', 'tls', 'unauthorized', 'credentials'] as const) {
    it(`ends the run when a request fails as ${kind}`, async () => {
      const reader = new MemoryReader(sampleCluster(), {listServices: fail(kind, {verb: 'list', resource: 'services', group: ''}, `${kind} failure`)})
      await assert.rejects(readClusterSnapshot(reader, {now: NOW}), (e: unknown) => e instanceof ClusterAccessError && e.kind === kind)
    })
  }

  it('ends the run before fanning out when the probe times out', async () => {
    const reader = new MemoryReader(sampleCluster(), {serverVersion: fail('timeout', {verb: 'get', resource: '', group: '', path: '/version'}, 'no response')})
    await assert.rejects(readClusterSnapshot(reader, {now: NOW}), (e: unknown) => e instanceof ClusterAccessError && e.kind === 'timeout')
    assert.deepEqual(reader.calls, ['serverVersion()'])
  })

  it('continues when /version itself is refused with a Status', async () => {
    const reader = new MemoryReader(sampleCluster(), {serverVersion: fail('status', {verb: 'get', resource: '', group: '', path: '/version'}, 'forbidden: User "x" cannot get path "/version"', 403)})
    const snap = await readClusterSnapshot(reader, {now: NOW})
    assert.equal(snap.serverVersion, undefined)
    assert.deepEqual(snap.errors, [{source: 'get /version', message: 'forbidden: User "x" cannot get path "/version"'}])
    assert.equal(snap.nodes.length, 2)
  })

  it('does not swallow programming errors', async () => {
    const reader = new MemoryReader(sampleCluster(), {listDaemonSets: () => new TypeError('x is not a function')})
    await assert.rejects(readClusterSnapshot(reader, {now: NOW}), TypeError)
  })

  it('lists errors in a fixed order whatever order requests finish in', async () => {
    const failures = {
      listServices: fail('status', {verb: 'list', resource: 'services', group: ''}, 'denied services', 403),
      listDaemonSets: fail('status', {verb: 'list', resource: 'daemonsets', group: 'apps', namespace: 'kube-system'}, 'denied daemonsets', 403),
      getNodeConfigz: fail('status', {verb: 'get', resource: 'nodes', group: '', subresource: 'proxy', name: 'node-a'}, 'denied configz', 403),
    }
    const fast = await readClusterSnapshot(new MemoryReader(sampleCluster(), failures, {listDaemonSets: 0, listServices: 30}), {now: NOW, nodeNames: ['node-a']})
    const slow = await readClusterSnapshot(new MemoryReader(sampleCluster(), failures, {listDaemonSets: 30, listServices: 0}), {now: NOW, nodeNames: ['node-a']})
    assert.deepEqual(fast.errors, slow.errors)
    assert.deepEqual(fast.errors.map((e) => e.source), ['list services', 'list daemonsets.apps -n kube-system', 'get nodes/proxy node-a'])
    assert.deepEqual(fast.errors.map((e) => [e.resource, e.verb]), [['services', 'list'], ['daemonsets', 'list'], ['nodes/proxy', 'get']], 'typed, for the check runner')
    assert.equal(fast.errors[2]!.node, 'node-a')
  })

  it('lists DaemonSets in every namespace at once (flannel in kube-flannel included)', async () => {
    const flannel = {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'kube-flannel-ds', namespace: 'kube-flannel', labels: {app: 'flannel'}}} as DaemonSet
    const reader = new MemoryReader([...sampleCluster(), flannel])
    const snap = await readClusterSnapshot(reader, {now: NOW})
    assert.deepEqual(reader.calls.filter((c) => c.startsWith('listDaemonSets')), ['listDaemonSets()'])
    assert.deepEqual(snap.daemonSets.map((d) => `${d.metadata.namespace}/${d.metadata.name}`), ['kube-flannel/kube-flannel-ds', 'kube-system/kube-proxy'])
    assert.equal(snap.unavailable, undefined)
  })

  it('where the cluster-wide DaemonSet list is forbidden, reads the CNI namespaces one by one and notes it', async () => {
    const flannel = {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'kube-flannel-ds', namespace: 'kube-flannel'}} as DaemonSet
    const forbiddenAt = (scope: string | undefined) => new ClusterAccessError('status', `daemonsets.apps is forbidden (${scope ?? 'cluster scope'})`, {server: 'https://192.168.0.1:6443', request: {verb: 'list', resource: 'daemonsets', group: 'apps', ...(scope ? {namespace: scope} : {})}, status: {code: 403, message: 'forbidden'}})
    class ScopedReader extends MemoryReader {
      constructor(private readonly refuse: readonly string[]) {
        super([...sampleCluster(), flannel])
      }
      override async listDaemonSets(ns?: string) {
        if (ns === undefined || this.refuse.includes(ns)) {
          this.calls.push(`listDaemonSets(${ns ?? ''}) refused`)
          throw forbiddenAt(ns)
        }
        return super.listDaemonSets(ns)
      }
    }
    const reader = new ScopedReader(['calico-system'])
    const snap = await readClusterSnapshot(reader, {now: NOW})
    assert.deepEqual(snap.daemonSets.map((d) => `${d.metadata.namespace}/${d.metadata.name}`), ['kube-flannel/kube-flannel-ds', 'kube-system/kube-proxy'])
    assert.deepEqual(snap.errors, [], 'a namespace other than kube-system refused is no failed read')
    assert.equal(snap.unavailable?.length, 1)
    assert.equal(snap.unavailable![0]!.resource, 'daemonsets')
    assert.equal(snap.unavailable![0]!.why, 'forbidden')
    assert.match(snap.unavailable![0]!.note, /read in kube-system, kube-flannel, calico-system, cilium, ovn-kubernetes one by one \(forbidden in calico-system too\)/)

    const none = await readClusterSnapshot(new ScopedReader(['kube-system']), {now: NOW})
    assert.deepEqual(none.errors.map((e) => [e.source, e.resource, e.verb]), [['list daemonsets.apps -n kube-system', 'daemonsets', 'list']], "kube-system's refusal is the failed read it always was")
    assert.deepEqual(none.daemonSets, [])
  })

  it("reads cilium-config beside a Cilium DaemonSet in a namespace of its own (and only then)", async () => {
    const cilium = {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'cilium', namespace: 'cilium'}} as DaemonSet
    const config = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'cilium-config', namespace: 'cilium'}, data: {'kube-proxy-replacement': 'true'}} as ConfigMap
    const reader = new MemoryReader([...sampleCluster(), cilium, config])
    const snap = await readClusterSnapshot(reader, {now: NOW})
    assert.deepEqual(snap.configMaps.filter((c) => c.metadata.name === 'cilium-config').map((c) => c.metadata.namespace), ['cilium'])
    const plain = new MemoryReader(sampleCluster())
    await readClusterSnapshot(plain, {now: NOW})
    assert.deepEqual(plain.calls.filter((c) => c === 'getConfigMap(cilium-config)'), ['getConfigMap(cilium-config)'], "kube-system's only")
  })

  it('merges kube-system pods with the named nodes\' pods once each and tails kube-proxy logs by container', async () => {
    const objects = [...sampleCluster(), pod('kube-system', 'kube-proxy-sidecar', 'node-a', '192.168.0.11', {'k8s-app': 'kube-proxy'}, ['log-shipper', 'kube-proxy'])]
    const reader = new MemoryReader(objects)
    const snap = await readClusterSnapshot(reader, {now: NOW, nodeNames: ['node-a', 'node-a'], logTailLines: 50})
    assert.deepEqual(snap.pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`), [
      'kube-system/coredns-1',
      'kube-system/kube-proxy-aaaaa',
      'kube-system/kube-proxy-bbbbb',
      'kube-system/kube-proxy-sidecar',
      'shop/web-1',
    ])
    assert.deepEqual(reader.calls.filter((c) => c.startsWith('podLogTail')).sort(), ['podLogTail(kube-proxy-aaaaa,kube-proxy,50)', 'podLogTail(kube-proxy-sidecar,kube-proxy,50)'])
    assert.deepEqual(Object.keys(snap.kubeProxyLogs), ['kube-proxy-aaaaa', 'kube-proxy-sidecar'])
    assert.deepEqual(reader.calls.filter((c) => c.startsWith('getNodeConfigz')), ['getNodeConfigz(node-a)'])
  })
})

describe('isKubeProxyPod', () => {
  it('recognises kube-proxy by label or DaemonSet pod name, not by prefix alone', () => {
    assert.ok(isKubeProxyPod(pod('kube-system', 'anything', 'n', '1.1.1.1', {'k8s-app': 'kube-proxy'})))
    assert.ok(isKubeProxyPod(pod('kube-system', 'proxy', 'n', '1.1.1.1', {component: 'kube-proxy'})))
    assert.ok(isKubeProxyPod(pod('kube-system', 'kube-proxy-x7k2p', 'n', '1.1.1.1')))
    assert.ok(!isKubeProxyPod(pod('kube-system', 'kube-proxy-metrics-exporter-x7k2p', 'n', '1.1.1.1')))
  })
})

describe('readClusterSnapshot: CiliumNodes', () => {
  const ciliumConfig = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'cilium-config', namespace: 'kube-system'}, data: {'routing-mode': 'tunnel'}} as KubeObject
  const ciliumNode = {apiVersion: 'cilium.io/v2', kind: 'CiliumNode', metadata: {name: 'node-a'}, spec: {ipam: {podCIDRs: ['10.0.1.0/24']}}} as KubeObject

  it('are read only where the cluster shows Cilium (cilium-config or DaemonSet cilium)', async () => {
    const none = new MemoryReader(sampleCluster())
    const plain = await readClusterSnapshot(none, {now: NOW})
    assert.equal(plain.ciliumNodes, undefined)
    assert.ok(!none.calls.includes('listCiliumNodes()'))
    const snap = await readClusterSnapshot(new MemoryReader([...sampleCluster(), ciliumConfig, ciliumNode]), {now: NOW})
    assert.deepEqual(snap.ciliumNodes, [ciliumNode])
  })

  it('a 403 is noted as unavailable (not a failed read); other failures are collection errors', async () => {
    const denied = fail('status', {verb: 'list', resource: 'ciliumnodes', group: 'cilium.io'}, 'ciliumnodes.cilium.io is forbidden', 403)
    const snap = await readClusterSnapshot(new MemoryReader([...sampleCluster(), ciliumConfig], {listCiliumNodes: denied}), {now: NOW})
    assert.equal(snap.ciliumNodes, undefined)
    assert.deepEqual(snap.errors, [])
    assert.deepEqual(snap.unavailable?.map((u) => [u.resource, u.why]), [['ciliumnodes', 'forbidden']])
    const broken = fail('status', {verb: 'list', resource: 'ciliumnodes', group: 'cilium.io'}, 'etcdserver: request timed out', 500)
    const bad = await readClusterSnapshot(new MemoryReader([...sampleCluster(), ciliumConfig], {listCiliumNodes: broken}), {now: NOW})
    assert.equal(bad.ciliumNodes, undefined)
    assert.deepEqual(bad.errors.map((e) => [e.source, e.resource, e.verb]), [['list ciliumnodes.cilium.io', 'ciliumnodes', 'list']])
  })
})
