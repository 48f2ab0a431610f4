// End to end: `fix kube-proxy-mode` with the built CLI against the test API server and two live "nodes". Each node
// serves kube-proxy's /healthz and /proxyMode (fake-kube-proxy.ts). When the DaemonSet's new pod starts, the fake
// kubelet's onRunning hook plays kube-proxy: it reads the mode from the ConfigMap as kube-proxy does, and
// - iptables: programs the expected rules (iptables-restore of what was there at start) and reports iptables;
// - nftables: falls back to iptables on these "nodes" (as kube-proxy does when it cannot use nftables), so the
//   verification fails and the run must roll back.
// The cluster starts in IPVS mode with a kube-ipvs0 link on node-a: the old mode's leftover to report.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {after, before, beforeEach, describe, it} from 'node:test'
import type {AuditRecord} from '../../src/core/model/audit.js'
import type {ConfigMap, KubeObject, Pod} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import type {RequestRecord} from '../support/fake-apiserver.js'
import {type FakeKubeProxy, startFakeKubeProxy, withKubeProxyDaemonSet} from '../support/fake-kube-proxy.js'
import {type LiveCluster, liveClusterSkipReason, startLiveCluster} from '../support/live-cluster.js'
import {join} from 'node:path'

const IPVS_CONFIG =
  'apiVersion: kubeproxy.config.k8s.io/v1alpha1\n' +
  'kind: KubeProxyConfiguration\n' +
  '# set by the installer; keep in sync with the DaemonSet\n' +
  'mode: ipvs   # was iptables before 2024\n' +
  'clusterCIDR: "10.0.0.0/8"\n' +
  'ipvs:\n' +
  '  scheduler: rr\n'

const writes = (requests: readonly RequestRecord[]) =>
  requests.filter((r) => r.method !== 'GET' && !(r.method === 'POST' && r.resource === 'selfsubjectaccessreviews')).map((r) => `${r.method} ${r.path}`)

describe('fix kube-proxy-mode against live nodes', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster
  const expected = new Map<string, string>()
  const endpoints = new Map<string, FakeKubeProxy>()

  const configMap = () => c.api.objects().find((o): o is ConfigMap => o.kind === 'ConfigMap' && o.metadata.name === 'kube-proxy' && o.metadata.namespace === 'kube-system')!
  const podOn = (node: string) =>
    c.api.objects().find((o): o is Pod => o.kind === 'Pod' && o.metadata.labels?.['k8s-app'] === 'kube-proxy' && (o as Pod).spec?.nodeName === node)!
  const auditLog = () =>
    readFileSync(join(c.dir, '.local', 'state', 'node-doctor', 'audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditRecord)
  const fast = ['--ready-timeout', '20s', '--verify-timeout', '3s', '--poll-interval', '300ms']

  /** The new kube-proxy on `node`: reads its mode from the ConfigMap and programs what it can. */
  const newKubeProxy = (node: string) => {
    const wanted = /^mode:\s*"?(\w*)/m.exec(configMap().data!['config.conf']!)?.[1] || 'iptables'
    const runs = wanted === 'nftables' ? 'iptables' : wanted
    if (runs === 'iptables') c.nodeExec(node, ['sh', '-c', `printf '%s' "$0" | iptables-restore`, expected.get(node)!])
    endpoints.get(node)!.setMode(runs)
  }

  before(async () => {
    c = await startLiveCluster(['node-a', 'node-b'], {
      objects: (objects: KubeObject[]) =>
        withKubeProxyDaemonSet(objects).map((o) => (o.kind === 'ConfigMap' && o.metadata.name === 'kube-proxy' ? ({...o, data: {'config.conf': IPVS_CONFIG}} as KubeObject) : o)),
      api: {daemonSetController: {delayMs: 20}, kubelet: {startDelayMs: 200, onRunning: (_pod, node) => newKubeProxy(node.metadata.name)}},
    })
    for (const n of c.nodes) {
      expected.set(n.name, c.nodeExec(n.name, ['iptables-save']))
      endpoints.set(n.name, await startFakeKubeProxy(n.ns.name, c.dir, 'ipvs'))
    }
    // kube-proxy makes a dummy link; this kernel has no dummy driver, and only the name matters to the check.
    c.nodeExec('node-a', ['ip', 'link', 'add', 'kube-ipvs0', 'type', 'veth', 'peer', 'name', 'kube-ipvs0-peer'])
    for (let i = 0; i < 100 && !c.api.objects().every((o) => o.kind !== 'Pod' || o.metadata.ownerReferences?.length); i++) await new Promise((r) => setTimeout(r, 20))
  })
  after(async () => {
    await Promise.all([...endpoints.values()].map((e) => e.stop()))
    await c?.stop()
  })
  beforeEach(() => c.api.resetRequests())

  it('--dry-run shows the prerequisites table and the one-line change, and changes nothing', async () => {
    const r = await c.cli(['fix', 'kube-proxy-mode', '--to', 'nftables', '--dry-run'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /Plan: switch kube-proxy from ipvs to nftables mode/)
    assert.match(r.stdout, /NODE +REQUIREMENT +OK +FOUND\n/)
    assert.match(r.stdout, /node-a +kernel >= 5\.13 +yes +\d+\.\d+/)
    assert.match(r.stdout, /node-a +nft >= 1\.0\.1 +yes +nftables v\d+\.\d+/)
    assert.match(r.stdout, /node-b +kube-proxy >= v1\.31 +yes +v1\.33\.2/)
    assert.match(r.stdout, /- mode: ipvs {3}# was iptables before 2024\n\s+\+ mode: nftables {3}# was iptables before 2024/)
    assert.match(r.stdout, /1\. node-a: delete pod kube-system\/kube-proxy-seed0/)
    assert.deepEqual(writes(c.api.requests), [])
    assert.equal(configMap().data!['config.conf'], IPVS_CONFIG)
  })

  it('an RBAC denial on the ConfigMap update names it and changes nothing', async () => {
    c.api.setDenyRules([{verb: 'update', resource: 'configmaps'}])
    try {
      const r = await c.cli(['fix', 'kube-proxy-mode', '--to', 'iptables', '--yes'])
      assert.equal(r.exitCode, 4, r.stderr)
      assert.match(r.stderr, /missing permission to update configmaps kube-proxy -n kube-system; nothing was changed/)
      assert.deepEqual(writes(c.api.requests), [])
    } finally {
      c.api.setDenyRules([])
    }
  })

  it('switches ipvs → iptables node by node: only the mode value changes, both nodes verified, leftovers reported, audited', async () => {
    const original = configMap()
    const pods = {a: podOn('node-a').metadata.uid, b: podOn('node-b').metadata.uid}
    const r = await c.cli(['fix', 'kube-proxy-mode', '--to', 'iptables', '--yes', '-o', 'json', ...fast])
    assert.equal(r.exitCode, 0, r.stderr)
    const now = configMap()
    assert.equal(now.data!['config.conf'], IPVS_CONFIG.replace('mode: ipvs ', 'mode: iptables '))
    const backup = JSON.parse(now.metadata.annotations!['node-doctor.io/kube-proxy-mode-backup']!) as {data: Record<string, string>; from: string; to: string}
    assert.deepEqual([backup.data, backup.from, backup.to], [original.data, 'ipvs', 'iptables'])
    // One PUT, then exactly one DELETE per node, with the uid it planned, node-a first.
    assert.deepEqual(writes(c.api.requests).filter((w) => !w.includes('/events')), [
      'PUT /api/v1/namespaces/kube-system/configmaps/kube-proxy',
      'DELETE /api/v1/namespaces/kube-system/pods/kube-proxy-seed0',
      'DELETE /api/v1/namespaces/kube-system/pods/kube-proxy-seed1',
    ])
    assert.deepEqual(
      c.api.requests.filter((q) => q.method === 'DELETE').map((q) => (q.body as {preconditions: {uid: string}}).preconditions.uid),
      [pods.a, pods.b],
    )
    assert.match(r.stderr, /node-a: switched: kube-proxy-\w+ runs iptables mode/)
    assert.match(r.stderr, /leftover of the old mode: IPVS-mode leftovers remain while kube-proxy runs iptables mode: the kube-ipvs0 link/)
    const backupPath = /Backed up ConfigMap kube-system\/kube-proxy to (\S+)/.exec(r.stderr)![1]!
    assert.deepEqual((JSON.parse(readFileSync(backupPath, 'utf8')) as ConfigMap).data, original.data)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.nodes.map((n) => n.name), ['node-a (before)', 'node-a (now)', 'node-b (before)', 'node-b (now)'])
    assert.deepEqual(report.findings.filter((f) => f.node === 'node-a (now)').map((f) => f.id), ['PROXY-005'])
    const records = auditLog().slice(-2)
    assert.deepEqual(records.map((x) => [x.node, x.action, x.outcome, x.before, x.after]), [
      ['node-a', 'fix kube-proxy-mode', 'applied', 'mode ipvs', 'mode iptables (ipvs leftovers remain)'],
      ['node-b', 'fix kube-proxy-mode', 'applied', 'mode ipvs', 'mode iptables'],
    ])
    assert.equal(records[0]!.details?.['backup'], backupPath)
  })

  it('a node that does not come up in the new mode: stop, restore the ConfigMap byte-identical, restart the switched node', async () => {
    const original = configMap()
    const untouched = podOn('node-b').metadata.uid
    const r = await c.cli(['fix', 'kube-proxy-mode', '--to', 'nftables', '--yes', ...fast])
    assert.equal(r.exitCode, 1, r.stderr)
    assert.match(r.stderr, /node-a: rolled-back: kube-proxy-\w+ does not run nftables mode cleanly after 3s: PROXY-003: kube-proxy runs iptables mode but is configured for nftables/)
    assert.match(r.stderr, /node-b: not-attempted/)
    const restored = configMap()
    assert.deepEqual({data: restored.data, annotations: restored.metadata.annotations, labels: restored.metadata.labels}, {
      data: original.data,
      annotations: original.metadata.annotations,
      labels: original.metadata.labels,
    })
    assert.equal(restored.metadata.uid, original.metadata.uid)
    const puts = c.api.requests.filter((q) => q.method === 'PUT')
    assert.equal(puts.length, 2, 'the change and the restore')
    assert.equal(c.api.requests.filter((q) => q.method === 'DELETE').length, 2, 'node-a switched, then restarted again')
    assert.equal(podOn('node-b').metadata.uid, untouched)
    const last = auditLog().at(-1)!
    assert.deepEqual([last.node, last.outcome, last.after], ['node-a', 'rolled-back', 'mode iptables'])
  })
})
