// "Say what you assumed" in every output: the assumptions field of the Report (JSON, validated by the schema), the
// one line under each node's header in the table, markdown, and the comment block of `proxy render`; and the
// assumptions `check` computes from a node's facts.
// Fixture conventions: node-a (192.168.0.11) runs kube-proxy v1.37.2 in iptables mode; node-b has no assumptions.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {nodeAssumptions} from '../../../src/core/checks/assumptions.js'
import {NodeFacts} from '../../../src/core/facts/node-facts.js'
import {type Assumption, buildReport} from '../../../src/core/model/report.js'
import {assumptionComments} from '../../../src/core/proxier/assumptions.js'
import {fleetVersionLine, formatAssumptionsLine} from '../../../src/render/assumptions.js'
import {renderJson} from '../../../src/render/json.js'
import {renderMarkdown} from '../../../src/render/markdown.js'
import {renderTable} from '../../../src/render/table.js'
import {REPO_ROOT} from '../../support/golden.js'
import {kubeProxyPod, proxyCluster, proxyNode} from '../../support/proxy-mode-builders.js'

const ASSUMED: Assumption[] = [
  {name: 'kube-proxy version', value: 'v1.37.2', source: 'pod kube-system/kube-proxy-x2x9k', notes: ['the DaemonSet kube-system/kube-proxy has image registry.k8s.io/kube-proxy:v1.37.0 but this node runs v1.37.2']},
  {name: 'mode', value: 'iptables', source: 'kube-proxy /proxyMode'},
  {name: 'masquerade bit', value: '14', source: 'default (not set in the configuration)'},
  {name: 'feature gates', value: 'LoadBalancerIPMode=true', source: 'defaults of v1.37'},
]

function report() {
  return buildReport({
    metadata: {generatedAt: '2026-12-03T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'check --all'},
    nodes: [{name: 'node-a', assumptions: ASSUMED}, {name: 'node-b'}],
    results: [{id: 'IPT-001', node: 'node-a', area: 'iptables', status: 'passed'}],
  })
}

describe('assumptions in the Report', () => {
  it('-o json carries them per node in the documented field, and the schema accepts them (and nothing else there)', () => {
    const doc = JSON.parse(renderJson(report())) as {nodes: Array<{name: string; assumptions?: Assumption[]}>}
    assert.deepEqual(doc.nodes[0]!.assumptions, ASSUMED)
    assert.equal(doc.nodes[1]!.assumptions, undefined)
    const validate = new Ajv2020({allErrors: true, strict: true}).compile(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))
    assert.ok(validate(doc), JSON.stringify(validate.errors))
    ;(doc.nodes[0]!.assumptions![0] as unknown as Record<string, unknown>)['from'] = 'x'
    assert.equal(validate(doc), false)
  })

  it('the table prints one line under the node header, even for a healthy node; a node without them keeps the short form', () => {
    const text = renderTable(report(), {color: false})
    const lines = text.split('\n')
    const i = lines.indexOf('node-a  healthy · no findings · checks: 1 passed')
    assert.ok(i > 0, text)
    assert.equal(
      lines[i + 1],
      '  assumed: kube-proxy v1.37.2 (from pod kube-system/kube-proxy-x2x9k) · mode iptables (from kube-proxy /proxyMode) · masquerade bit 14 (default) · feature gates: defaults of v1.37',
    )
    assert.match(text, /✔ healthy, no findings: node-b$/m)
    const narrow = renderTable(report(), {color: false, width: 60}).split('\n')
    const j = narrow.findIndex((l) => l.startsWith('node-a'))
    assert.ok(narrow.slice(j + 1, j + 4).every((l) => l.startsWith('  ') && l.length <= 60), narrow.join('\n'))
  })

  it('markdown lists them per node; proxy render gets them as # comments with the notes', () => {
    assert.match(renderMarkdown(report()), /- \*\*node-a\*\*: kube-proxy v1\.37\.2 \(from pod kube-system\/kube-proxy-x2x9k\) · mode iptables/)
    assert.equal(formatAssumptionsLine(ASSUMED.slice(0, 1)), 'assumed: kube-proxy v1.37.2 (from pod kube-system/kube-proxy-x2x9k)')
    assert.deepEqual(assumptionComments(ASSUMED), [
      '# node-doctor rendered this from:',
      '#   kube-proxy version: v1.37.2 (from pod kube-system/kube-proxy-x2x9k)',
      '#   mode: iptables (from kube-proxy /proxyMode)',
      '#   masquerade bit: 14 (default: not set in the configuration)',
      '#   feature gates: LoadBalancerIPMode=true (defaults of v1.37)',
      '# note: the DaemonSet kube-system/kube-proxy has image registry.k8s.io/kube-proxy:v1.37.0 but this node runs v1.37.2',
    ])
    // An image is free text in the API: a newline or an escape cannot end the comment or act on a terminal.
    assert.deepEqual(assumptionComments([{name: 'kube-proxy version', value: 'v1.37.2', source: 'DaemonSet x', notes: ['image r/kube-proxy:v1.37.2\n*nat\u001b[2J']}]).slice(2), [
      '# note: image r/kube-proxy:v1.37.2 *nat\\x1b[2J',
    ])
  })
})

describe('the fleet view', () => {
  it('sums the versions up over the nodes instead of a line per node', () => {
    const v = (value: string, source = 'pod kube-system/kube-proxy-a'): Assumption[] => [{name: 'kube-proxy version', value, source}]
    const nodes = ['a', 'b', 'c', 'd', 'e', 'f'].map((n, i) => ({name: `node-${n}`, assumptions: i < 4 ? v('v1.37.2') : i === 4 ? v('v1.36.1') : v('v1.37.0', 'assumed (nothing named it)')}))
    assert.equal(fleetVersionLine(nodes), "assumed: kube-proxy v1.37.2 on 4 nodes, v1.36.1 on 1 node, v1.37.0 (assumed) on 1 node (each node's sources: -o wide, -o json)")
    assert.equal(fleetVersionLine([{name: 'x'}]), undefined)
    const many = buildReport({metadata: {generatedAt: '2026-12-03T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'check --all'}, nodes})
    assert.equal(renderTable(many, {color: false}).split('\n')[1], fleetVersionLine(nodes))
  })
})

describe('check: assumptions from a node\'s facts', () => {
  it('names the version from the node\'s pod, the mode from /proxyMode and the configuration\'s fields with their sources', () => {
    const cluster = proxyCluster({version: 'v1.37.2', config: 'mode: iptables\nclusterCIDR: 10.244.0.0/16\niptables:\n  masqueradeBit: 15\n'})
    const a = nodeAssumptions(NodeFacts.of(cluster, proxyNode({'proxy-mode': 'iptables', 'iptables-version': 'iptables v1.8.10 (legacy)\n'})))
    const by = new Map(a.map((x) => [x.name, x]))
    assert.deepEqual([by.get('kube-proxy version')!.value, by.get('kube-proxy version')!.source], ['v1.37.2', 'pod kube-system/kube-proxy-a'])
    assert.deepEqual(by.get('mode'), {name: 'mode', value: 'iptables', source: 'kube-proxy /proxyMode'})
    assert.deepEqual(by.get('iptables backend'), {name: 'iptables backend', value: 'legacy', source: '`iptables --version` on the node'})
    assert.deepEqual(by.get('masquerade bit'), {name: 'masquerade bit', value: '15', source: 'ConfigMap kube-system/kube-proxy iptables.masqueradeBit'})
    assert.deepEqual(by.get('detectLocalMode')!.value, 'ClusterCIDR 10.244.0.0/16')
    assert.match(by.get('detectLocalMode')!.source, /CIDR from ConfigMap kube-system\/kube-proxy clusterCIDR/)
    assert.equal(by.get('localhost NodePorts')!.source, 'default (not set in the configuration)')
  })

  it('a version older than the oldest layout: no expected state, and the reason says why', () => {
    const cluster = proxyCluster({pod: kubeProxyPod('v1.26.3')})
    cluster.daemonSets = []
    const a = nodeAssumptions(NodeFacts.of(cluster, proxyNode({'proxy-mode': 'iptables'})))
    assert.deepEqual(a.map((x) => x.name), ['kube-proxy version', 'mode', 'expected state'])
    assert.match(a[2]!.source, /kube-proxy v1\.26\.3 \(from pod kube-system\/kube-proxy-a\) is older than the oldest layout known/)
  })
})
