// The pure half of `fix kube-proxy` / `fix calico-node`: which pod on which node, why, with which permissions; when
// a node counts as repaired; and the before/after Report as the table renderer shows it (golden).
// Fixture conventions: nodes node-a, node-b; kube-proxy pods kube-proxy-a/-b, calico-node pods in calico-system.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {
  beforeAfterReport,
  CALICO_NODE_TARGET,
  converged,
  formatRestartPlan,
  KUBE_PROXY_TARGET,
  kubeProxyRestartRefusal,
  planPodRestarts,
  type RestartLayout,
  readyReplacement,
  restartBatches,
} from '../../../../src/app/repair/pod-restart-plan.js'
import {CATALOG} from '../../../../src/core/checks/registry.js'
import type {Pod} from '../../../../src/core/model/k8s.js'
import {buildReport, type Finding, type Report} from '../../../../src/core/model/report.js'
import {emptyClusterSnapshot} from '../../../../src/core/model/snapshot.js'
import {renderTable} from '../../../../src/render/table.js'
import {expectGolden} from '../../../support/golden.js'

const META = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: '0.1.0'}, command: 'fix kube-proxy node-a node-b'}

function pod(namespace: string, name: string, node: string, labels: Record<string, string>, o: {uid?: string; ready?: boolean; deleting?: boolean} = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {namespace, name, labels, ...(o.uid === undefined ? {} : {uid: o.uid}), ...(o.deleting ? {deletionTimestamp: '2026-01-01T00:00:00Z'} : {})},
    spec: {nodeName: node, containers: [{name: labels['k8s-app'] ?? 'x'}]},
    status: {phase: 'Running', conditions: [{type: 'Ready', status: o.ready === false ? 'False' : 'True'}]},
  }
}

function finding(node: string, id: string, severity: Finding['severity'] = 'error', message = `${id} on ${node}`): Finding {
  return {id, node, area: id.startsWith('RT') ? 'routes' : id.startsWith('IPT') ? 'iptables' : 'proxy-mode', severity, message, subject: {kind: 'rule', name: `${id}-subject`}, evidence: [], remedy: 'restart'}
}

function report(nodes: string[], findings: Finding[]): Report {
  return buildReport({metadata: META, nodes: nodes.map((name) => ({name})), findings})
}

const cluster = () => {
  const c = emptyClusterSnapshot('2026-01-01T00:00:00Z')
  c.pods = [
    pod('kube-system', 'kube-proxy-a', 'node-a', {'k8s-app': 'kube-proxy'}, {uid: 'uid-a'}),
    pod('kube-system', 'kube-proxy-b', 'node-b', {'k8s-app': 'kube-proxy'}, {uid: 'uid-b'}),
    pod('calico-system', 'calico-node-a', 'node-a', {'k8s-app': 'calico-node'}, {uid: 'cal-a'}),
  ]
  return c
}

describe('planPodRestarts', () => {
  it('restarts only where a finding a restart repairs exists, and says why', () => {
    const before = report(['node-a', 'node-b'], [finding('node-a', 'IPT-003'), finding('node-a', 'PROXY-005', 'warning'), finding('node-b', 'PROXY-001'), finding('node-b', 'IPT-002', 'info')])
    const plan = planPodRestarts(KUBE_PROXY_TARGET, cluster(), before, ['node-a', 'node-b'])
    assert.deepEqual(
      plan.nodes.map((n) => [n.node, n.pod?.name, n.findings.map((f) => f.id), n.skip]),
      [
        ['node-a', 'kube-proxy-a', ['IPT-003'], undefined],
        // PROXY-001 (mode unusable) is not fixed by a restart; an info finding never justifies one.
        ['node-b', undefined, [], 'nothing to fix'],
      ],
    )
    assert.equal(
      formatRestartPlan(plan),
      'Plan: restart kube-proxy (delete its pod; its DaemonSet recreates it on the same node)\n' +
        '  node-a: delete pod kube-system/kube-proxy-a (uid uid-a)\n' +
        '    because IPT-003 error: IPT-003 on node-a\n' +
        '  node-b: skip (nothing to fix)\n',
    )
  })

  it('asks for delete/get/list pods in the pod namespace and the verification reads, only when something is deleted', () => {
    const before = report(['node-a'], [finding('node-a', 'IPT-001')])
    const plan = planPodRestarts(KUBE_PROXY_TARGET, cluster(), before, ['node-a'])
    assert.deepEqual(plan.permissions.slice(0, 3), [
      {verb: 'delete', resource: 'pods', namespace: 'kube-system'},
      {verb: 'get', resource: 'pods', namespace: 'kube-system'},
      {verb: 'list', resource: 'pods', namespace: 'kube-system'},
    ])
    assert.ok(plan.permissions.some((q) => q.resource === 'endpointslices' && q.verb === 'list'))
    assert.deepEqual(planPodRestarts(KUBE_PROXY_TARGET, cluster(), report(['node-a'], []), ['node-a']).permissions, [])
  })

  it('--force restarts without findings; a node without the pod is skipped with the reason', () => {
    const plan = planPodRestarts(CALICO_NODE_TARGET, cluster(), report(['node-a', 'node-b'], []), ['node-a', 'node-b'], {force: true})
    assert.deepEqual(
      plan.nodes.map((n) => [n.node, n.pod ? `${n.pod.namespace}/${n.pod.name}` : n.skip]),
      [
        ['node-a', 'calico-system/calico-node-a'],
        ['node-b', 'no calico-node pod on the node (in kube-system or calico-system)'],
      ],
    )
    assert.match(formatRestartPlan(plan), /no finding justifies it \(--force\)/)
  })

  it('a node that could not be collected is never "nothing to fix": it is skipped with the reason', () => {
    const before = buildReport({metadata: META, nodes: [{name: 'node-a'}], collectionErrors: [{node: 'node-a', source: 'ssh', message: 'connection refused', fatal: true}]})
    const plan = planPodRestarts(KUBE_PROXY_TARGET, cluster(), before, ['node-a'], {force: true})
    assert.deepEqual(plan.nodes.map((n) => [n.node, n.pod, n.skip]), [['node-a', undefined, 'the node could not be collected (connection refused)']])
    assert.deepEqual(plan.permissions, [])
  })
})

describe('kube-proxy by layout (#17)', () => {
  const layout = (distribution: RestartLayout['distribution'], where: RestartLayout['kubeProxy']['where'], detail: string, k3sRole?: string): RestartLayout => ({
    distribution,
    kubeProxy: {where, detail},
    ...(k3sRole === undefined ? {} : {k3sRole}),
  })
  const k3s = (role?: string) => layout('k3s', 'embedded', 'embedded in k3s (no kube-proxy-arg: k3s defaults)', role)

  it('a DaemonSet pod (or an unknown placement) is restarted as before', () => {
    assert.equal(kubeProxyRestartRefusal(layout('kubeadm', 'daemonset', 'DaemonSet kube-system/kube-proxy, ConfigMap kube-system/kube-proxy key config.conf'), undefined), undefined)
    assert.equal(kubeProxyRestartRefusal(layout('unknown', 'unknown', 'not seen'), undefined), undefined)
  })

  it('k3s: the unit of the role the discovery saw (k3s / k3s-agent), both when the role is unknown; never done for the user', () => {
    assert.match(kubeProxyRestartRefusal(k3s('server'), undefined)!.remedy, /^restart k3s on the node: `systemctl restart k3s`\. This restarts the whole k3s process \(its kubelet, kube-proxy and flannel, and on a server the control plane\)/)
    const agent = kubeProxyRestartRefusal(k3s('agent'), undefined)!
    assert.match(agent.reason, /^kube-proxy is embedded in the k3s agent process on this node/)
    assert.match(agent.remedy, /^restart k3s on the node: `systemctl restart k3s-agent`\. This restarts the whole k3s process \(its kubelet, kube-proxy and flannel\); running pods keep running/)
    assert.match(kubeProxyRestartRefusal(k3s(), undefined)!.remedy, /`systemctl restart k3s` on a server, `systemctl restart k3s-agent` on an agent/)
    assert.match(kubeProxyRestartRefusal(k3s(), undefined)!.remedy, /node-doctor never restarts k3s itself$/)
  })

  it("a static pod outside RKE2 (GKE's kube-proxy.manifest): plain crictl, and the mirror pod is named", () => {
    const mirror = pod('kube-system', 'kube-proxy-gke-c1-pool-1-abcd', 'node-a', {component: 'kube-proxy'})
    assert.deepEqual(kubeProxyRestartRefusal(layout('gke-cos', 'static-pod', 'static pod /etc/kubernetes/manifests/kube-proxy.manifest'), mirror), {
      reason: 'kube-proxy runs as a static pod on this node (static pod /etc/kubernetes/manifests/kube-proxy.manifest): deleting its mirror pod kube-system/kube-proxy-gke-c1-pool-1-abcd does not restart the container',
      remedy: 'stop the kube-proxy container on the node and the kubelet starts it again from its manifest: `crictl stop $(crictl ps --name kube-proxy -q)`',
    })
  })

  it('the plan refuses only nodes that need the restart; the others restart or skip as before, and the plan text says what to run', () => {
    const c = cluster()
    const layouts = new Map<string, RestartLayout>([
      ['node-a', layout('kubeadm', 'daemonset', 'DaemonSet kube-system/kube-proxy')],
      ['node-b', k3s('agent')],
      ['node-c', k3s('server')],
    ])
    const before = report(['node-a', 'node-b', 'node-c'], [finding('node-a', 'IPT-003'), finding('node-b', 'PROXY-003')])
    const plan = planPodRestarts(KUBE_PROXY_TARGET, c, before, ['node-a', 'node-b', 'node-c'], {layouts})
    assert.deepEqual(
      plan.nodes.map((n) => [n.node, n.pod?.name, n.refused !== undefined, n.skip?.replace(/:.*/, '')]),
      [
        ['node-a', 'kube-proxy-a', false, undefined],
        ['node-b', undefined, true, 'refused'],
        ['node-c', undefined, false, 'nothing to fix'],
      ],
    )
    assert.equal(
      formatRestartPlan(plan).split('\n').slice(3, 6).join('\n'),
      '  node-b: not restarted: kube-proxy is embedded in the k3s agent process on this node (embedded in k3s (no kube-proxy-arg: k3s defaults)): there is no kube-proxy pod to delete\n' +
        "    instead, restart k3s on the node: `systemctl restart k3s-agent`. This restarts the whole k3s process (its kubelet, kube-proxy and flannel); running pods keep running (the k3s unit's KillMode=process leaves their containers alone). node-doctor never restarts k3s itself\n" +
        '    because PROXY-003 error: PROXY-003 on node-b',
    )
    // Only the restartable node's pod namespace is asked for.
    assert.deepEqual(plan.permissions.filter((q) => q.verb === 'delete'), [{verb: 'delete', resource: 'pods', namespace: 'kube-system'}])
  })

  it('calico-node has no layout refusal', () => {
    const plan = planPodRestarts(CALICO_NODE_TARGET, cluster(), report(['node-a'], [finding('node-a', 'RT-001')]), ['node-a'], {layouts: new Map([['node-a', k3s('server')]])})
    assert.equal(plan.nodes[0]!.pod?.name, 'calico-node-a')
  })
})

describe('restart helpers', () => {
  it('batches nodes by --max-unavailable, in order', () => {
    assert.deepEqual(restartBatches(['a', 'b', 'c', 'd', 'e'], 2), [['a', 'b'], ['c', 'd'], ['e']])
    assert.deepEqual(restartBatches(['a', 'b'], 1), [['a'], ['b']])
  })

  it('a replacement is a new, Ready, not terminating pod of the component on the same node', () => {
    const pods = [
      pod('kube-system', 'kube-proxy-a', 'node-a', {'k8s-app': 'kube-proxy'}, {uid: 'old', deleting: true}),
      pod('kube-system', 'kube-proxy-x', 'node-a', {'k8s-app': 'kube-proxy'}, {uid: 'new', ready: false}),
      pod('kube-system', 'kube-proxy-y', 'node-b', {'k8s-app': 'kube-proxy'}, {uid: 'other'}),
    ]
    assert.equal(readyReplacement(KUBE_PROXY_TARGET, pods, 'node-a', 'old'), undefined)
    pods[1] = pod('kube-system', 'kube-proxy-x', 'node-a', {'k8s-app': 'kube-proxy'}, {uid: 'new'})
    assert.equal(readyReplacement(KUBE_PROXY_TARGET, pods, 'node-a', 'old')?.metadata.name, 'kube-proxy-x')
  })

  it('converged: no justifying finding left on the node (other nodes and other checks do not count)', () => {
    assert.equal(converged(KUBE_PROXY_TARGET, report(['node-a'], [finding('node-b', 'IPT-003'), finding('node-a', 'PROXY-005', 'warning')]), 'node-a'), true)
    assert.equal(converged(KUBE_PROXY_TARGET, report(['node-a'], [finding('node-a', 'IPT-007')]), 'node-a'), false)
    assert.equal(converged(CALICO_NODE_TARGET, report(['node-a'], [finding('node-a', 'RT-001')]), 'node-a'), false)
  })
})

describe('beforeAfterReport', () => {
  it('shows each restarted node before and now, untouched nodes once, through the table renderer', () => {
    const before = report(['node-a', 'node-b', 'node-c'], [finding('node-a', 'IPT-003'), finding('node-b', 'IPT-001'), finding('node-c', 'PROXY-005', 'warning')])
    const after = new Map([
      ['node-a', report(['node-a'], [])],
      ['node-b', report(['node-b'], [finding('node-b', 'IPT-001')])],
    ])
    const combined = beforeAfterReport(before, after, META)
    assert.deepEqual(
      combined.nodes.map((n) => [n.name, n.status]),
      [
        ['node-a (before)', 'unhealthy'],
        ['node-a (now)', 'healthy'],
        ['node-b (before)', 'unhealthy'],
        ['node-b (now)', 'unhealthy'],
        ['node-c', 'unhealthy'],
      ],
    )
    expectGolden('repair/pod-restart-before-after.txt', renderTable(combined, {color: false, catalog: CATALOG}))
    // The summary (JSON, exit code) is the cluster now: three nodes, each once; node-a's old findings are history.
    assert.deepEqual(combined.summary.nodes, {total: 3, healthy: 1, unhealthy: 2, partial: 0, uncollected: 0})
    assert.deepEqual([combined.summary.findings.error, combined.summary.findings.warning], [1, 1])
    assert.equal(combined.findings.filter((f) => f.node === 'node-a (before)').length, 1, 'the before state stays in the findings')
  })
})
