// Layout discovery end to end on a k3s-like node (test/integration/layout/node.ts): flannel's links (a real vxlan
// flannel.1 and bridge cni0), k3s's files at their real paths (config.yaml, the agent's kubelet.conf.d, containerd
// config, flannel's CNI config), and a process named k3s running as `/usr/local/bin/k3s server`. The collection
// plan's exact `layout` command runs there; its output is parsed and resolved with the Node the API would show.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {resolveLayout} from '../../../src/core/layout/resolve.js'
import {layoutSummary} from '../../../src/core/layout/summary.js'
import {emptyClusterSnapshot} from '../../../src/core/model/snapshot.js'
import {parseLayoutDiscovery} from '../../../src/core/parse/layout-discovery.js'
import {createLayoutNode, type LayoutNode, layoutNodeSkipReason} from './node.js'

// k3s v1.33's flannel CNI config (the file k3s writes to its agent's cni/net.d).
const FLANNEL_CONFLIST = `{
  "name":"cbr0",
  "cniVersion":"1.0.0",
  "plugins":[
    {"type":"flannel","delegate":{"hairpinMode":true,"forceAddress":true,"isDefaultGateway":true}},
    {"type":"portmap","capabilities":{"portMappings":true}},
    {"type":"bandwidth","capabilities":{"bandwidth":true}}
  ]
}
`
const FILES: Record<string, string> = {
  'etc/rancher/k3s/config.yaml': "write-kubeconfig-mode: '0644'\nkubelet-arg:\n  - max-pods=150\n",
  'var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDNS:\n  - 10.43.0.10\nclusterDomain: cluster.local\n',
  'var/lib/rancher/k3s/agent/etc/containerd/config.toml': 'version = 3\n[plugins."io.containerd.cri.v1.runtime"]\n  enable_selinux = false\n',
  'var/lib/rancher/k3s/agent/etc/cni/net.d/10-flannel.conflist': FLANNEL_CONFLIST,
  'var/lib/rancher/k3s/data/current/bin/aux/.keep': '',
}

describe('layout discovery on a k3s-like node (netns + private mounts + PID namespace)', {skip: layoutNodeSkipReason()}, () => {
  let node: LayoutNode
  let output = ''

  before(() => {
    node = createLayoutNode(FILES, [{name: 'k3s', argv0: '/usr/local/bin/k3s', args: ['server']}])
    node.ns.exec(['ip', 'link', 'add', 'cni0', 'type', 'bridge'])
    node.ns.exec(['ip', 'link', 'add', 'flannel.1', 'type', 'vxlan', 'id', '1', 'dstport', '8472'])
    const r = node.collect('layout')
    assert.equal(r.status, 0, r.stderr)
    output = r.stdout
  })

  after(() => node?.destroy())

  it('the script finds k3s, its files, flannel CNI config and links', () => {
    const d = parseLayoutDiscovery(output)
    assert.equal(d.format, 'node-doctor-layout/1')
    assert.ok(d.osRelease?.id, output)
    assert.deepEqual([d.kubelet?.embeddedIn, d.kubelet?.role], ['k3s', 'server'], output)
    assert.deepEqual(d.processes.find((p) => p.name === 'k3s')?.argv, ['/usr/local/bin/k3s', 'server'])
    for (const p of ['/etc/rancher/k3s/config.yaml', '/var/lib/rancher/k3s/agent/etc/kubelet.conf.d', '/var/lib/rancher/k3s/agent/etc/containerd/config.toml', '/var/lib/rancher/k3s/data/current/bin/aux']) {
      assert.ok(d.paths.includes(p), `${p} in ${output}`)
    }
    assert.ok(!d.paths.includes('/var/lib/kubelet/config.yaml'))
    assert.deepEqual(d.files, ['/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf'])
    assert.deepEqual([d.cni.first, d.cni.firstType], ['/var/lib/rancher/k3s/agent/etc/cni/net.d/10-flannel.conflist', 'flannel'])
    assert.deepEqual([...d.links].sort(), ['cni0', 'flannel.1'])
    assert.equal(d.kubeProxy, undefined)
  })

  it('resolves to k3s with kube-proxy embedded and flannel VXLAN', () => {
    const cluster = emptyClusterSnapshot('2026-12-03T00:00:00Z')
    cluster.nodes = [{metadata: {name: 'k3s-1'}, spec: {providerID: 'k3s://k3s-1'}, status: {nodeInfo: {kubeletVersion: 'v1.33.4+k3s1'}}}]
    const l = resolveLayout({node: 'k3s-1', cluster, discovery: parseLayoutDiscovery(output)})
    assert.deepEqual([l.distribution, l.kubeProxy.where, l.cni.name, l.cni.mode, l.servicesOwner.owner, l.clusterDNS], ['k3s', 'embedded', 'flannel', 'vxlan', 'kube-proxy', '10.43.0.10'])
    assert.deepEqual(l.kubelet.configDirs, ['/var/lib/rancher/k3s/agent/etc/kubelet.conf.d'])
    assert.equal(layoutSummary(l), 'k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan')
  })
})
