// The `proxy diff` Report says what it assumed: the node's assumptions, and PROXY-011/PROXY-012 when the version is
// newer than the newest layout or was not found. Fixture conventions: node-a (192.168.0.2), no kube-proxy objects.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {proxyDiffReport} from '../../../../src/app/proxy/report.js'
import {parseKubeProxyVersion} from '../../../../src/core/proxier/config.js'
import {loadObjects} from '../../../../src/core/proxier/objects.js'
import {buildRenderInput} from '../../../../src/core/proxier/render-input.js'

const objects = loadObjects([
  {name: 'node', text: JSON.stringify({apiVersion: 'v1', kind: 'Node', metadata: {name: 'node-a'}, status: {addresses: [{type: 'InternalIP', address: '192.168.0.2'}]}})},
])
const meta = {toolVersion: 'test', command: 'proxy diff'}

describe('proxy diff Report', () => {
  it('a version newer than the newest layout: PROXY-011 (info) naming both, the annotations and the assumptions say it', () => {
    const render = buildRenderInput(objects, {nodeName: 'node-a', version: parseKubeProxyVersion('v1.38.0-alpha.2')!})
    const r = proxyDiffReport(render, {results: [], findings: []}, meta, {ipFamily: 'ipv4'})
    assert.deepEqual(r.findings.map((f) => [f.id, f.severity]), [['PROXY-011', 'info']])
    assert.match(r.findings[0]!.message, /kube-proxy v1\.38\.0-alpha\.2 is newer than the newest layout known \(v1\.\d+\): rendered with the v1\.\d+ layout \(version from --kube-proxy-version\)/)
    assert.deepEqual(r.results, [{id: 'PROXY-011', node: 'node-a', area: 'proxy-mode', status: 'failed'}])
    assert.equal(r.summary.status, 'healthy')
    assert.equal(r.metadata.annotations!['kubeProxyVersionDetected'], 'v1.38.0-alpha.2')
    const version = r.nodes[0]!.assumptions![0]!
    assert.deepEqual([version.name, version.value, version.source], ['kube-proxy version', 'v1.38.0-alpha.2', '--kube-proxy-version'])
    assert.match(version.notes!.join('\n'), /rendered with the v1\.\d+ layout, the newest known/)
    assert.deepEqual(r.nodes[0]!.assumptions!.find((a) => a.name === 'mode'), {name: 'mode', value: 'iptables', source: '--mode'})
  })

  it('no version anywhere: PROXY-012 says the newest layout was assumed', () => {
    const r = proxyDiffReport(buildRenderInput(objects, {nodeName: 'node-a'}), {results: [], findings: []}, meta, {proxyMode: 'nftables'})
    assert.deepEqual(r.findings.map((f) => f.id), ['PROXY-012'])
    assert.match(r.nodes[0]!.assumptions![0]!.source, /^assumed/)
    assert.ok(r.nodes[0]!.assumptions!.some((a) => a.name === 'ServiceCIDRs'))
  })
})
