// The configuration the expected rules are rendered with (issue #17, 5c): the ConfigMap with the running
// kube-proxy's /configz laid over it. Inputs: the small ConfigMaps of test/support/proxy-mode-builders.ts and the
// constructed /configz answers of test/fixtures/parse/kube-proxy-configz (v1.36 typed, v1.31 internal type).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {nodeAssumptions} from '../../../../src/core/checks/assumptions.js'
import {liveProxierInput} from '../../../../src/core/checks/iptables/live.js'
import {proxierConfigOf} from '../../../../src/core/checks/proxier-snapshot.js'
import {NodeFacts} from '../../../../src/core/facts/node-facts.js'
import {assumptionComments, assumptionsFor} from '../../../../src/core/proxier/assumptions.js'
import {overlayRunningConfig} from '../../../../src/core/proxier/config.js'
import {generateIptablesRestore} from '../../../../src/core/proxier/iptables/generate.js'
import {readFixture} from '../../../support/golden.js'
import {proxyCluster, proxyNode} from '../../../support/proxy-mode-builders.js'

type Json = Record<string, unknown>
function configz(fixture: 'v1.36-nftables.json' | 'v1.31-internal.json', edit: (c: Json) => void = () => {}): string {
  const body = JSON.parse(readFixture(`parse/kube-proxy-configz/${fixture}`)) as Record<string, Json>
  edit(body['kubeproxy.config.k8s.io']!)
  return JSON.stringify(body)
}

// The ConfigMap says masqueradeBit 15 (edited after kube-proxy started); the running kube-proxy has 14.
const CONFIG = 'mode: iptables\nclusterCIDR: 10.244.0.0/16\niptables:\n  masqueradeBit: 15\n'
const running = (bit = 14) =>
  configz('v1.36-nftables.json', (c) => {
    c['mode'] = 'iptables'
    c['clusterCIDR'] = '10.244.0.0/16'
    ;(c['iptables'] as Json)['masqueradeBit'] = bit
  })

describe('the running kube-proxy configuration in the expected rules', () => {
  it('ConfigMap and /configz disagree on masqueradeBit: the render follows /configz and names it', () => {
    const cluster = proxyCluster({version: 'v1.36.1', config: CONFIG})
    const node = proxyNode({'proxy-mode': 'iptables', 'iptables-save': '*nat\nCOMMIT\n', 'kube-proxy-configz': running()})
    const facts = NodeFacts.of(cluster, node)
    const cfg = proxierConfigOf(facts)
    assert.ok(cfg.ok)
    assert.equal((cfg.config!['iptables'] as Json)['masqueradeBit'], 14)
    assert.equal(cfg.sources!['iptables.masqueradeBit'], 'kube-proxy /configz')
    // The ConfigMap stays what it is (PROXY-013 compares the two).
    assert.equal(facts.kubeProxyConfig.file!.values['iptables'] && (facts.kubeProxyConfig.file!.values['iptables'] as Json)['masqueradeBit'], 15)

    const input = liveProxierInput(cluster, node, facts)
    assert.ok(input.ok, input.ok ? '' : input.reason)
    assert.equal(input.render.input.options.masqueradeBit, 14)
    const rules = generateIptablesRestore(input.render.input).text
    assert.match(rules, /^-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000$/m, 'bit 14 marks 0x4000')
    assert.doesNotMatch(rules, /0x00008000/, 'not the ConfigMap\'s bit 15')

    // `proxy render`'s comment block and the node's assumptions line name the source.
    const comments = assumptionComments(assumptionsFor(input.render, {mode: {value: 'iptables', source: 'kube-proxy /proxyMode'}, factsFrom: 'node'}))
    assert.ok(comments.includes('#   masquerade bit: 14 (from kube-proxy /configz iptables.masqueradeBit)'), comments.join('\n'))
    const a = new Map(nodeAssumptions(facts).map((x) => [x.name, x]))
    assert.deepEqual(a.get('masquerade bit'), {name: 'masquerade bit', value: '14', source: 'kube-proxy /configz iptables.masqueradeBit'})
    assert.match(a.get('detectLocalMode')!.source, /CIDR from kube-proxy \/configz clusterCIDR/)
  })

  it('without /configz the ConfigMap is used as before', () => {
    const cluster = proxyCluster({version: 'v1.36.1', config: CONFIG})
    const facts = NodeFacts.of(cluster, proxyNode({'proxy-mode': 'iptables'}))
    const cfg = proxierConfigOf(facts)
    assert.deepEqual(cfg.ok && cfg.sources, undefined)
    assert.equal(new Map(nodeAssumptions(facts).map((x) => [x.name, x.source])).get('masquerade bit'), 'ConfigMap kube-system/kube-proxy iptables.masqueradeBit')
  })

  it('no ConfigMap (k3s, static pods): the running configuration alone, named as the source', () => {
    const cluster = proxyCluster({version: 'v1.36.1', config: null})
    const facts = NodeFacts.of(cluster, proxyNode({'proxy-mode': 'iptables', 'kube-proxy-configz': running(13)}))
    const a = new Map(nodeAssumptions(facts).map((x) => [x.name, x]))
    assert.deepEqual([a.get('masquerade bit')!.value, a.get('masquerade bit')!.source], ['13', 'kube-proxy /configz iptables.masqueradeBit'])
  })

  it('the internal type of earlier releases (Go field names) overlays the same way', () => {
    const cluster = proxyCluster({version: 'v1.31.4', config: CONFIG})
    const facts = NodeFacts.of(cluster, proxyNode({'proxy-mode': 'iptables', 'kube-proxy-configz': configz('v1.31-internal.json')}))
    const cfg = proxierConfigOf(facts)
    assert.ok(cfg.ok)
    assert.equal((cfg.config!['iptables'] as Json)['masqueradeBit'], 14)
    assert.equal(cfg.sources!['iptables.masqueradeBit'], 'kube-proxy /configz')
  })
})

describe('overlayRunningConfig', () => {
  it('replaces only the presented leaves of the fields the rules depend on, and copies', () => {
    const configured = {mode: 'ipvs', hostnameOverride: 'node-a', iptables: {masqueradeBit: 15, masqueradeAll: true}, nodePortAddresses: ['10.0.0.0/8']}
    const run = {mode: 'iptables', hostnameOverride: 'ip-10-0-0-7.ec2.internal', bindAddress: '10.0.0.7', iptables: {masqueradeBit: 14}, nodePortAddresses: ['primary'], featureGates: {Foo: true}}
    const out = overlayRunningConfig(configured, run, ['/mode', '/hostnameOverride', '/bindAddress', '/iptables/masqueradeBit', '/nodePortAddresses', '/featureGates/Foo'])
    assert.deepEqual(out.config, {mode: 'iptables', hostnameOverride: 'node-a', iptables: {masqueradeBit: 14, masqueradeAll: true}, nodePortAddresses: ['primary'], featureGates: {Foo: true}})
    assert.deepEqual(Object.keys(out.sources).sort(), ['featureGates.Foo', 'iptables.masqueradeBit', 'mode', 'nodePortAddresses'])
    assert.equal(configured.iptables.masqueradeBit, 15, 'the input is not changed')
    run.nodePortAddresses.push('x')
    assert.deepEqual(out.config['nodePortAddresses'], ['primary'])
  })
})
