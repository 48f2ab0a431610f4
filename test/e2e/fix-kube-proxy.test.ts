// End to end: `fix kube-proxy` with the built CLI against the test API server (DaemonSet controller, fake kubelet)
// and two live "nodes" (network namespaces with their own sshd and real iptables rules). The fake kubelet's
// onRunning hook plays the new kube-proxy: on a node marked "repairs", it iptables-restores the rules kube-proxy
// wrote at start-up (the expected ones); elsewhere it does nothing, like a kube-proxy that keeps failing. Each node
// also serves kube-proxy's /healthz and /proxyMode (fake-kube-proxy.ts), as a running kube-proxy does.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, beforeEach, describe, it} from 'node:test'
import type {AuditRecord} from '../../src/core/model/audit.js'
import type {Pod} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import type {RequestRecord} from '../support/fake-apiserver.js'
import {type FakeKubeProxy, startFakeKubeProxy, withKubeProxyDaemonSet} from '../support/fake-kube-proxy.js'
import {type LiveCluster, liveClusterSkipReason, startLiveCluster} from '../support/live-cluster.js'

const NODES = ['node-a', 'node-b']

const writes = (requests: readonly RequestRecord[]) =>
  requests.filter((r) => r.method !== 'GET' && !(r.method === 'POST' && r.resource === 'selfsubjectaccessreviews')).map((r) => `${r.method} ${r.path}`)

describe('fix kube-proxy against live nodes', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster
  /** node → the rules kube-proxy programmed at start (iptables-save), which the "new kube-proxy" restores. */
  const expected = new Map<string, string>()
  const repairs = new Set<string>()
  const endpoints: FakeKubeProxy[] = []
  let deletedRule = ''

  const kubeProxyPods = () =>
    c.api.objects().filter((o): o is Pod => o.kind === 'Pod' && o.metadata.namespace === 'kube-system' && o.metadata.labels?.['k8s-app'] === 'kube-proxy')
  const podOn = (node: string) => kubeProxyPods().find((p) => p.spec?.nodeName === node)
  const plantFault = (node: string) => {
    deletedRule = c.nodeExec(node, ['iptables', '-t', 'nat', '-S', 'KUBE-SERVICES']).split('\n').find((l) => l.includes('default/lb:http cluster IP'))!
    assert.ok(deletedRule)
    c.nodeExec(node, ['sh', '-c', `iptables -t nat -D ${deletedRule.slice(3)}`])
  }
  const auditLog = () =>
    readFileSync(join(c.dir, '.local', 'state', 'node-doctor', 'audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditRecord)
  const fast = ['--ready-timeout', '20s', '--verify-timeout', '3s', '--poll-interval', '300ms']

  before(async () => {
    c = await startLiveCluster(NODES, {
      objects: withKubeProxyDaemonSet,
      api: {
        daemonSetController: {delayMs: 20},
        kubelet: {
          startDelayMs: 200,
          onRunning: (_pod, node) => {
            const name = node.metadata.name
            if (repairs.has(name)) c.nodeExec(name, ['sh', '-c', `printf '%s' "$0" | iptables-restore`, expected.get(name)!])
          },
        },
      },
    })
    for (const n of c.nodes) {
      expected.set(n.name, c.nodeExec(n.name, ['iptables-save']))
      endpoints.push(await startFakeKubeProxy(n.ns.name, c.dir))
    }
    // Let the controller adopt the seeded pods before anything looks at them.
    for (let i = 0; i < 100 && !kubeProxyPods().every((p) => p.metadata.ownerReferences?.length); i++) await new Promise((r) => setTimeout(r, 20))
  })
  after(async () => {
    await Promise.all(endpoints.map((e) => e.stop()))
    await c?.stop()
  })
  beforeEach(() => c.api.resetRequests())

  it('nothing to fix on a clean node: exit 0, nothing deleted', async () => {
    const r = await c.cli(['fix', 'kube-proxy', 'node-b', '--yes'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stderr, /nothing to fix/)
    assert.deepEqual(writes(c.api.requests), [])
  })

  it('--dry-run prints the plan (pod, uid, findings) and changes nothing', async () => {
    plantFault('node-a')
    const pod = podOn('node-a')!
    const r = await c.cli(['fix', 'kube-proxy', 'node-a', '--dry-run'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, new RegExp(`node-a: delete pod kube-system/${pod.metadata.name} \\(uid ${pod.metadata.uid}\\)`))
    assert.match(r.stdout, /because IPT-003 error: /)
    assert.match(r.stderr, /Dry run: nothing was changed/)
    assert.deepEqual(writes(c.api.requests), [])
    assert.equal(podOn('node-a')!.metadata.uid, pod.metadata.uid)
  })

  it('without a terminal and without --yes it refuses and deletes nothing', async () => {
    const r = await c.cli(['fix', 'kube-proxy', 'node-a'])
    assert.equal(r.exitCode, 2, r.stderr)
    assert.match(r.stderr, /refusing to go on without confirmation/)
    assert.match(r.stderr, /--yes/)
    assert.deepEqual(writes(c.api.requests), [])
  })

  it('an RBAC denial names the missing permission and deletes nothing', async () => {
    c.api.setDenyRules([{verb: 'delete', resource: 'pods', namespace: 'kube-system'}])
    try {
      const r = await c.cli(['fix', 'kube-proxy', 'node-a', '--yes'])
      assert.equal(r.exitCode, 4, r.stderr)
      assert.match(r.stderr, /missing permission to delete pods -n kube-system; nothing was changed/)
      assert.match(r.stderr, /kubectl auth can-i delete pods -n kube-system/)
      assert.ok(c.api.requests.some((q) => q.resource === 'selfsubjectaccessreviews'), 'asked with SelfSubjectAccessReviews')
      assert.deepEqual(writes(c.api.requests), [])
    } finally {
      c.api.setDenyRules([])
    }
  })

  it('deletes exactly the planned pod, waits for the Ready replacement, verifies the repair: exit 0, before/after, audit', async () => {
    repairs.add('node-a')
    const pod = podOn('node-a')!
    const other = podOn('node-b')!
    const r = await c.cli(['fix', 'kube-proxy', 'node-a', '--yes', '-o', 'json', ...fast])
    assert.equal(r.exitCode, 0, r.stderr)
    const deletes = c.api.requests.filter((q) => q.method === 'DELETE')
    assert.deepEqual(
      deletes.map((q) => [q.path, (q.body as {preconditions?: {uid?: string}}).preconditions?.uid]),
      [[`/api/v1/namespaces/kube-system/pods/${pod.metadata.name}`, pod.metadata.uid]],
    )
    assert.match(r.stderr, /node-a: waiting for the kube-proxy replacement/)
    assert.match(r.stderr, /node-a: repaired: kube-system\/kube-proxy-\w+ replaced kube-system\/kube-proxy-seed0/)
    const now = podOn('node-a')!
    assert.notEqual(now.metadata.uid, pod.metadata.uid)
    assert.equal(podOn('node-b')!.metadata.uid, other.metadata.uid, 'the other node was not touched')

    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a (before)', 'unhealthy'], ['node-a (now)', 'healthy']])
    assert.deepEqual(report.findings.map((f) => [f.node, f.id, f.subject.name]), [['node-a (before)', 'IPT-003', deletedRule]])
    assert.match(c.nodeExec('node-a', ['iptables', '-t', 'nat', '-S', 'KUBE-SERVICES']), /default\/lb:http cluster IP/)

    const record = auditLog().at(-1)!
    assert.deepEqual(
      {node: record.node, action: record.action, target: record.target, before: record.before, after: record.after, outcome: record.outcome, podUid: record.details?.['podUid']},
      {node: 'node-a', action: 'fix kube-proxy', target: `Pod kube-system/${pod.metadata.name}`, before: 'IPT-003', after: 'no findings', outcome: 'applied', podUid: pod.metadata.uid},
    )
    const events = c.api.objects().filter((o) => o.kind === 'Event')
    assert.ok(events.some((e) => (e as {reason?: string}).reason === 'NodeDoctorRepair' && (e as {involvedObject?: {name?: string}}).involvedObject?.name === 'node-a'))
  })

  it('a replacement that never repairs the rules: timeout, exit 1, before and after both show the finding', async () => {
    plantFault('node-b')
    const pod = podOn('node-b')!
    const r = await c.cli(['fix', 'kube-proxy', 'node-b', '--yes', ...fast])
    assert.equal(r.exitCode, 1, r.stderr)
    assert.match(r.stderr, /node-b: not-converged: .* after 3s 1 finding remains \(IPT-003\)/)
    assert.match(r.stdout, /node-b \(before\)  unhealthy · 1 error[^]*node-b \(now\)  unhealthy · 1 error/)
    const [plan, report] = r.stdout.split('✖ UNHEALTHY')
    assert.match(plan!, /node-b: delete pod kube-system\/kube-proxy-\w+ \(uid [0-9a-f-]{36}\)\n {4}because IPT-003 error/)
    assert.equal(report!.match(/✖ error {3}IPT-003/g)?.length, 2)
    assert.notEqual(podOn('node-b')!.metadata.uid, pod.metadata.uid, 'the pod was restarted')
    const record = auditLog().at(-1)!
    assert.deepEqual([record.node, record.outcome, record.after], ['node-b', 'failed', 'IPT-003'])
  })

  it('several nodes go one at a time and stop at the first failure, unless --continue-on-failure', async () => {
    // node-b is still broken from the test above; now node-a breaks too, and only node-b's new kube-proxy repairs.
    plantFault('node-a')
    repairs.delete('node-a')
    repairs.add('node-b')
    const b = podOn('node-b')!
    const stop = await c.cli(['fix', 'kube-proxy', 'node-a', 'node-b', '--yes', ...fast])
    assert.equal(stop.exitCode, 1, stop.stderr)
    assert.match(stop.stderr, /node-a: not-converged: /)
    assert.match(stop.stderr, /node-b: not-attempted: /)
    assert.equal(podOn('node-b')!.metadata.uid, b.metadata.uid, 'node-b was not touched')

    c.api.resetRequests()
    const go = await c.cli(['fix', 'kube-proxy', 'node-a', 'node-b', '--yes', '--continue-on-failure', '-o', 'json', ...fast])
    assert.equal(go.exitCode, 1, go.stderr)
    assert.match(go.stderr, /node-a: not-converged: [^]*node-b: repaired: /)
    assert.deepEqual(c.api.requests.filter((q) => q.method === 'DELETE').map((q) => q.path.split('/').at(-1)!.replace(/-\w+$/, '')), ['kube-proxy', 'kube-proxy'])
    const report = JSON.parse(go.stdout) as Report
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [
      ['node-a (before)', 'unhealthy'],
      ['node-a (now)', 'unhealthy'],
      ['node-b (before)', 'unhealthy'],
      ['node-b (now)', 'healthy'],
    ])
  })
})
