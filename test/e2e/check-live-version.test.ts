// End to end, live: which kube-proxy version the expected rules assume, and that every Report says it. The test API
// server holds a kube-proxy pod on node-a running registry.k8s.io/kube-proxy:v1.37.2 while the DaemonSet still
// names v1.33.2 (a rollout in progress): the node's own pod decides, and the assumptions line says so.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import type {KubeObject} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import {type LiveCluster, liveClusterSkipReason, startLiveCluster} from '../support/live-cluster.js'
import {runCli} from '../support/run-cli.js'

const POD = 'kube-proxy-x2x9k'
const IMAGE = 'registry.k8s.io/kube-proxy:v1.37.2'

function kubeProxyPod(node: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {namespace: 'kube-system', name: POD, labels: {'k8s-app': 'kube-proxy'}, creationTimestamp: '2026-12-01T00:00:00Z'},
    spec: {nodeName: node, hostNetwork: true, containers: [{name: 'kube-proxy', image: IMAGE, command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf']}]},
    status: {phase: 'Running', containerStatuses: [{name: 'kube-proxy', ready: true, restartCount: 0, image: IMAGE}]},
  } as KubeObject
}

describe('check says which kube-proxy version it assumed (live)', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster
  before(async () => (c = await startLiveCluster(['node-a'], {objects: (objects) => [...objects, kubeProxyPod('node-a')]})))
  after(async () => c?.stop())

  it('the table shows the version from the node\'s kube-proxy pod in the assumptions line', async () => {
    const r = await c.cli(['check', 'node-a', '--only', 'iptables'])
    assert.ok(r.exitCode === 0 || r.exitCode === 3, r.stdout + r.stderr)
    const lines = r.stdout.split('\n')
    const header = lines.findIndex((l) => l.startsWith('node-a  '))
    assert.ok(header >= 0, r.stdout)
    // Under the header: the layout line, then the assumptions line.
    assert.match(lines[header + 1]!, /^ {2}layout: /)
    assert.match(lines[header + 2]!, /^ {2}assumed: kube-proxy v1\.37\.2 \(from pod kube-system\/kube-proxy-x2x9k\) · mode iptables \(/)
    assert.match(lines[header + 2]!, / · masquerade bit 14 \(default\)/)
  })

  it('-o json carries the assumptions with their sources, and the DaemonSet that disagrees', async () => {
    const r = await c.cli(['check', 'node-a', '--only', 'iptables', '-o', 'json'])
    const report = JSON.parse(r.stdout) as Report
    const a = report.nodes[0]!.assumptions!
    assert.deepEqual(a[0]!.name, 'kube-proxy version')
    assert.deepEqual([a[0]!.value, a[0]!.source], ['v1.37.2', `pod kube-system/${POD}`])
    assert.ok(
      a[0]!.notes!.some((n) => /DaemonSet kube-system\/kube-proxy has image registry\.k8s\.io\/kube-proxy:v1\.33\.2 but this node's kube-proxy runs v1\.37\.2/.test(n)),
      JSON.stringify(a[0]),
    )
    assert.deepEqual(
      a.map((x) => x.name),
      ['kube-proxy version', 'mode', 'IP family', 'iptables backend', 'nodePortAddresses', 'node addresses', 'localhost NodePorts', 'detectLocalMode', 'masquerade bit', 'feature gates'].filter(
        (n) => n !== 'iptables backend' || a.some((x) => x.name === n),
      ),
    )
    assert.deepEqual(a.find((x) => x.name === 'detectLocalMode'), {name: 'detectLocalMode', value: 'ClusterCIDR 10.0.0.0/8', source: 'default (not set in the configuration); CIDR from ConfigMap kube-system/kube-proxy clusterCIDR'})
  })

  it('version: the server\'s version, and node-a\'s kubelet and kube-proxy (its pod\'s image, not the DaemonSet\'s)', async () => {
    // `version` reads only the API: no SSH flags (c.cli adds them), just the kubeconfig.
    const version = (args: string[]) => runCli(['version', ...args, '--kubeconfig', c.api.kubeconfigPath], {env: {HOME: c.dir}})
    const r = await version(['-o', 'json'])
    assert.equal(r.exitCode, 0, r.stderr)
    const v = JSON.parse(r.stdout) as {kind: string; server: {version: string}; nodes: Array<{name: string; kubelet?: string; kubeProxy?: {version: string; from: string}}>}
    assert.equal(v.kind, 'Version')
    assert.match(v.server.version, /^v1\.\d+/)
    const a = v.nodes.find((n) => n.name === 'node-a')!
    assert.deepEqual(a.kubeProxy, {version: 'v1.37.2', from: `pod kube-system/${POD}`})
    const table = await version(['node-a'])
    assert.match(table.stdout, /^Client Version: v/)
    assert.match(table.stdout, /^node-a +\S+ +v1\.37\.2 +pod kube-system\/kube-proxy-x2x9k$/m)
  })

  it('proxy render NODE says the same in its comment block', async () => {
    const r = await c.cli(['proxy', 'render', 'node-a'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^# node-doctor rendered this from:\n# {3}kube-proxy version: v1\.37\.2 \(from pod kube-system\/kube-proxy-x2x9k\)\n/)
  })
})
