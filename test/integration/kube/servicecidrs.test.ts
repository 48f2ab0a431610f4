// ServiceCIDRs in live runs, against the test API server (real path /apis/networking.k8s.io/v1/servicecidrs, List
// JSON and kube-apiserver Status errors): read into the ClusterSnapshot, kept by bundles, and turned into the
// nftables drop rule for unallocated ClusterIPs; an API server without the resource (404) or an RBAC denial (403)
// is "not available", noted in the snapshot, never a collection error.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {readClusterSnapshot} from '../../../src/app/read-cluster.js'
import {liveNftablesInput} from '../../../src/core/checks/nftables/live.js'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {generateNftables} from '../../../src/core/proxier/nftables/generate.js'
import {serializeNftTable} from '../../../src/core/proxier/nftables/table.js'
import {readBundle, writeBundle} from '../../../src/transports/bundle/bundle.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {sampleCluster} from '../../support/kube-objects.js'
import {tempDir} from '../../support/kubeconfig.js'

const NOW = new Date('2026-12-01T12:00:00Z')
const tmp = tempDir()
after(() => tmp.cleanup())
const PATH = '/apis/networking.k8s.io/v1/servicecidrs'
const DUAL = {apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: {name: 'extra-v6', creationTimestamp: '2025-01-01T00:00:00Z'}, spec: {cidrs: ['fd00:172:30::/112']}} as KubeObject

function client(api: FakeApiServer): KubeClusterClient {
  return new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, tmp.path('no-home')))
}

async function withApi<T>(options: Parameters<typeof startFakeApiServer>[0], fn: (api: FakeApiServer) => Promise<T>): Promise<T> {
  const api = await startFakeApiServer(options)
  try {
    return await fn(api)
  } finally {
    await api.close()
  }
}

/** node-a as `check` sees it when kube-proxy runs nftables mode (no ruleset needed to render). */
function nodeA(): NodeSnapshot {
  return {apiVersion: 'node-doctor.io/v1alpha1', kind: 'NodeSnapshot', node: 'node-a', collectedAt: NOW.toISOString(), transport: 'bundle', artifacts: {}, errors: []}
}

function dropRule(cluster: ClusterSnapshot): string[] {
  const input = liveNftablesInput(cluster, nodeA(), {anyMode: true, listingOptional: true})
  assert.ok(input.ok, input.ok ? '' : input.reason)
  return serializeNftTable(generateNftables(input.inputs[0]!.input))
    .split('\n')
    .filter((l) => l.includes('Drop traffic to unallocated ClusterIPs'))
}

describe('ServiceCIDRs in live runs', () => {
  it('are read from the real path into the snapshot, kept by a bundle, and give the nftables drop rule', async () => {
    await withApi({objects: [...sampleCluster(), DUAL]}, async (api) => {
      const snap = await readClusterSnapshot(client(api), {now: NOW})
      assert.deepEqual(snap.errors, [])
      assert.equal(snap.unavailable, undefined)
      assert.deepEqual(
        snap.serviceCIDRs.map((c) => [c.kind, c.apiVersion, c.metadata.name, c.spec?.cidrs]),
        [
          ['ServiceCIDR', 'networking.k8s.io/v1', 'extra-v6', ['fd00:172:30::/112']],
          ['ServiceCIDR', 'networking.k8s.io/v1', 'kubernetes', ['172.30.0.0/16']],
        ],
      )
      const req = api.requests.find((r) => r.path === PATH)
      assert.deepEqual([req?.verb, req?.group, req?.resource, req?.status], ['list', 'networking.k8s.io', 'servicecidrs', 200])
      // kube-proxy v1.33 (the DaemonSet's image) watches ServiceCIDRs: the IPv4 table drops unallocated ClusterIPs.
      assert.deepEqual(dropRule(snap).map((l) => l.trim()), ['ip daddr 172.30.0.0/16 drop comment "Drop traffic to unallocated ClusterIPs"'])

      const dir = join(tmp.path('bundle'))
      await writeBundle(dir, {manifest: {apiVersion: 'node-doctor.io/v1alpha1', kind: 'Bundle', createdAt: NOW.toISOString(), tool: {name: 'node-doctor', version: 'test'}, nodes: []} as never, cluster: snap, nodes: []})
      const back = await readBundle(dir)
      assert.deepEqual(back.cluster.serviceCIDRs, snap.serviceCIDRs)
      assert.deepEqual(dropRule(back.cluster), dropRule(snap))
    })
  })

  it('an API server that does not serve them (404 Status): none, noted as not served, no collection error', async () => {
    await withApi({objects: sampleCluster().filter((o) => o.kind !== 'ServiceCIDR'), unserved: ['servicecidrs.networking.k8s.io']}, async (api) => {
      const snap = await readClusterSnapshot(client(api), {now: NOW})
      assert.deepEqual(snap.errors, [])
      assert.deepEqual(snap.serviceCIDRs, [])
      assert.deepEqual(snap.unavailable?.map((u) => [u.resource, u.why]), [['servicecidrs', 'not-served']])
      assert.match(snap.unavailable![0]!.note, /does not serve networking\.k8s\.io\/v1 ServiceCIDRs \(404/)
      assert.equal(api.requests.find((r) => r.path === PATH)?.status, 404)
      assert.deepEqual(dropRule(snap), [], 'kube-proxy sees no ServiceCIDR either: no drop rule')
    })
  })

  it('an RBAC denial (403 Status): noted as forbidden with the server\'s message, no collection error, the rest read', async () => {
    await withApi({objects: sampleCluster(), deny: [{group: 'networking.k8s.io', resource: 'servicecidrs'}]}, async (api) => {
      const snap = await readClusterSnapshot(client(api), {now: NOW})
      assert.deepEqual(snap.errors, [])
      assert.deepEqual(snap.serviceCIDRs, [])
      assert.deepEqual(snap.unavailable?.map((u) => [u.resource, u.why]), [['servicecidrs', 'forbidden']])
      assert.match(snap.unavailable![0]!.note, /servicecidrs\.networking\.k8s\.io is forbidden: User "fake-user" cannot list resource "servicecidrs" in API group "networking\.k8s\.io" at the cluster scope/)
      assert.match(snap.unavailable![0]!.note, /cannot be predicted/)
      assert.equal(api.requests.find((r) => r.path === PATH)?.status, 403)
      assert.ok(snap.services.length > 0 && snap.nodes.length > 0)
      // A bundle keeps the note.
      const dir = tmp.path('bundle-403')
      await writeBundle(dir, {manifest: {apiVersion: 'node-doctor.io/v1alpha1', kind: 'Bundle', createdAt: NOW.toISOString(), tool: {name: 'node-doctor', version: 'test'}, nodes: []} as never, cluster: snap, nodes: []})
      assert.deepEqual((await readBundle(dir)).cluster.unavailable, snap.unavailable)
    })
  })
})
