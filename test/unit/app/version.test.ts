// `version` from the API: the server's version, each node's kubelet (Node status) and kube-proxy (its pod's image),
// the k3s and no-pod cases said as such, refused reads listed and the rest still shown.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {readVersions} from '../../../src/app/version.js'
import type {Node, Pod} from '../../../src/core/model/k8s.js'
import {ClusterAccessError, type ClusterReader} from '../../../src/ports/cluster.js'
import {renderVersion} from '../../../src/render/version.js'
import {expectGolden} from '../../support/golden.js'

const client = {version: 'v0.1.0', runtime: 'node-v20.19.0 linux-x64'}

function kubeNode(name: string, kubeletVersion: string, kubeProxyVersion?: string): Node {
  return {apiVersion: 'v1', kind: 'Node', metadata: {name}, status: {nodeInfo: {kubeletVersion, ...(kubeProxyVersion ? {kubeProxyVersion} : {})}}} as Node
}

function kubeProxyPod(node: string, image: string, suffix: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {namespace: 'kube-system', name: `kube-proxy-${suffix}`, labels: {'k8s-app': 'kube-proxy'}, creationTimestamp: '2026-11-01T00:00:00Z'},
    spec: {nodeName: node, containers: [{name: 'kube-proxy', image}]},
    status: {phase: 'Running', containerStatuses: [{name: 'kube-proxy', image, ready: true}]},
  } as unknown as Pod
}

function reader(nodes: Node[], pods: Pod[] | Error): ClusterReader {
  return {
    serverVersion: async () => ({major: '1', minor: '37', gitVersion: 'v1.37.2', platform: 'linux/amd64'}),
    listNodes: async () => nodes,
    getNode: async (name: string) => nodes.find((n) => n.metadata.name === name),
    listPods: async () => {
      if (pods instanceof Error) throw pods
      return pods
    },
  } as unknown as ClusterReader
}

const cluster = () => [
  kubeNode('worker-1', 'v1.37.2'),
  kubeNode('cp-1', 'v1.37.2'),
  kubeNode('edge-1', 'v1.33.4+k3s1'),
  kubeNode('old-1', 'v1.36.5', 'v1.36.5'),
  kubeNode('cilium-1', 'v1.37.1'),
]
const pods = () => [
  kubeProxyPod('worker-1', 'registry.k8s.io/kube-proxy:v1.37.2', 'x2x9k'),
  kubeProxyPod('cp-1', 'registry.k8s.io/kube-proxy:v1.36.9', 'abcde'),
]

describe('version', () => {
  it('reads the server, kubelet and kube-proxy versions, each kube-proxy with where it came from', async () => {
    const view = await readVersions(reader(cluster(), pods()), {client})
    assert.deepEqual(view.server, {version: 'v1.37.2', platform: 'linux/amd64'})
    const by = new Map(view.nodes!.map((n) => [n.name, n]))
    assert.deepEqual(view.nodes!.map((n) => n.name), ['cilium-1', 'cp-1', 'edge-1', 'old-1', 'worker-1'])
    assert.deepEqual(by.get('worker-1'), {name: 'worker-1', kubelet: 'v1.37.2', kubeProxy: {version: 'v1.37.2', from: 'pod kube-system/kube-proxy-x2x9k'}})
    assert.equal(by.get('cp-1')!.kubeProxy!.version, 'v1.36.9', 'the pod image, not the kubelet version')
    assert.match(by.get('edge-1')!.kubeProxy!.from, /embedded in the k3s agent/)
    assert.equal(by.get('old-1')!.kubeProxy, undefined, "nodeInfo.kubeProxyVersion is the kubelet's own version: not used")
    assert.equal(by.get('cilium-1')!.kubeProxy, undefined)
    assert.match(by.get('cilium-1')!.note!, /no kube-proxy pod: .*`kubectl node-doctor check cilium-1`/)
    assert.equal(view.errors, undefined)
    expectGolden('render/version.table.txt', renderVersion(view, 'table', {color: false}))
    const doc = JSON.parse(renderVersion(view, 'json', {color: false})) as {apiVersion: string; kind: string; nodes: unknown[]}
    assert.equal(doc.kind, 'Version')
    assert.equal(doc.nodes.length, 5)
  })

  it('only the named nodes; an unknown one says so', async () => {
    const view = await readVersions(reader(cluster(), pods()), {client, nodeNames: ['worker-1', 'nope']})
    assert.deepEqual(view.nodes!.map((n) => [n.name, n.note]), [['nope', 'no such node (or it could not be read)'], ['worker-1', undefined]])
  })

  it('a refused pod list is listed, and the kubelet versions still shown', async () => {
    const forbidden = new ClusterAccessError('status', 'pods is forbidden: User "x" cannot list resource "pods" in the namespace "kube-system"', {
      server: 'https://k',
      status: {code: 403, reason: 'Forbidden', message: 'forbidden'},
    })
    const view = await readVersions(reader(cluster(), forbidden), {client})
    assert.equal(view.errors?.length, 1)
    assert.match(view.errors![0]!, /forbidden/)
    assert.equal(view.nodes!.find((n) => n.name === 'worker-1')!.kubelet, 'v1.37.2')
    assert.equal(view.nodes!.find((n) => n.name === 'worker-1')!.note, 'kube-system pods could not be listed')
  })

  it('an unreachable cluster rejects (the command prints the client version, then exits 4)', async () => {
    const down = {serverVersion: async () => Promise.reject(new ClusterAccessError('unreachable', 'connect ECONNREFUSED', {server: 'https://k'}))} as unknown as ClusterReader
    await assert.rejects(readVersions(down, {client}), (e: unknown) => e instanceof ClusterAccessError && e.exitCode === 4)
  })

  it('--client: the client alone', () => {
    assert.equal(renderVersion({client}, 'table', {color: false}), 'Client Version: v0.1.0 (node-v20.19.0 linux-x64)\n')
  })
})
