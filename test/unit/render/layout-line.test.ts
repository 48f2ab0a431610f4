// The node header's layout line: the report's summary, dimmed (no colour here), wrapped only between its parts.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {Chalk} from 'chalk'
import {buildReport, type NodeLayout} from '../../../src/core/model/report.js'
import {layoutLine} from '../../../src/render/layout-line.js'
import {renderWide} from '../../../src/render/table.js'

const plain = new Chalk({level: 0})
const LAYOUT: NodeLayout = {
  summary: 'k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan',
  distribution: 'k3s',
  version: 'v1.33.4+k3s1',
  kubelet: {configPaths: [], configDirs: ['/var/lib/rancher/k3s/agent/etc/kubelet.conf.d'], source: 'running kubelet'},
  kubeProxy: {where: 'embedded', detail: 'embedded in k3s (kube-proxy-arg)', mode: 'iptables'},
  cni: {name: 'flannel', mode: 'vxlan'},
  servicesOwner: {owner: 'kube-proxy', reason: 'k3s embeds kube-proxy'},
  clusterDNS: '10.43.0.10',
  discovered: true,
  evidence: ['kubeletVersion v1.33.4+k3s1 (k3s build)'],
}

describe('layoutLine', () => {
  it('one line when it fits', () => {
    assert.deepEqual(layoutLine({name: 'n', status: 'healthy', findings: {error: 0, warning: 0, info: 0}, layout: LAYOUT}, plain), [
      '  layout: k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan',
    ])
  })
  it('wraps between parts, aligned under the first', () => {
    assert.deepEqual(layoutLine({name: 'n', status: 'healthy', findings: {error: 0, warning: 0, info: 0}, layout: LAYOUT}, plain, 40), [
      '  layout: k3s v1.33.4+k3s1',
      '          kube-proxy embedded, iptables',
      '          flannel vxlan',
    ])
  })
  it('nothing without a layout', () => {
    assert.deepEqual(layoutLine({name: 'n', status: 'healthy', findings: {error: 0, warning: 0, info: 0}}, plain), [])
  })
  it('the wide table prints it under the node header', () => {
    const report = buildReport({
      metadata: {generatedAt: '2026-12-03T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'check'},
      nodes: [{name: 'node-1', layout: LAYOUT}],
      results: [{id: 'SVC-001', node: 'node-1', area: 'proxy-mode', status: 'skipped', reason: 'Services on this node are implemented by kube-proxy'}],
    })
    const lines = renderWide(report, {color: false}).split('\n')
    const at = lines.findIndex((l) => l.startsWith('node-1'))
    assert.equal(lines[at + 1], '  layout: k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan')
  })
})
