// ProxierOptions from a KubeProxyConfiguration: kube-proxy's defaults, node IP detection, local detectors,
// 'primary' nodePortAddresses, the mark format and version parsing.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {
  detectNodeIPs,
  featureGatesFor,
  formatMasqueradeMark,
  layoutClampNote,
  layoutVersionFor,
  NEWEST_SUPPORTED_VERSION,
  parseKubeProxyVersion,
  formatFullKubeProxyVersion,
  proxierOptionsFromKubeProxyConfig,
  versionFromImage,
} from '../../../../src/core/proxier/config.js'
import type {Node} from '../../../../src/core/model/k8s.js'
import {ParseError} from '../../../../src/errors.js'

const node: Node = {
  metadata: {name: 'node-a', labels: {'topology.kubernetes.io/zone': 'z1'}},
  spec: {podCIDRs: ['10.0.1.0/24', 'fd00:10:0:1::/64']},
  status: {
    addresses: [
      {type: 'Hostname', address: 'node-a'},
      {type: 'ExternalIP', address: '203.0.113.7'},
      {type: 'InternalIP', address: '192.168.0.2'},
      {type: 'InternalIP', address: '2001:db8::2'},
    ],
  },
}

describe('versions', () => {
  it('parses image tags', () => {
    assert.deepEqual(versionFromImage('registry.k8s.io/kube-proxy:v1.31.2'), {major: 1, minor: 31, patch: 2})
    assert.deepEqual(versionFromImage('localhost:5000/kube-proxy:v1.30.0@sha256:abcd'), {major: 1, minor: 30, patch: 0})
    assert.deepEqual(versionFromImage('602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.29.0-minimal-eksbuild.1'), {major: 1, minor: 29, patch: 0, suffix: '-minimal-eksbuild.1'})
    assert.deepEqual(parseKubeProxyVersion('v1.33.4+k3s1'), {major: 1, minor: 33, patch: 4, suffix: '+k3s1'})
    assert.deepEqual(parseKubeProxyVersion('v1.38.0-alpha.2'), {major: 1, minor: 38, patch: 0, suffix: '-alpha.2'})
    assert.equal(formatFullKubeProxyVersion(parseKubeProxyVersion('v1.31.6-gke.1000')!), 'v1.31.6-gke.1000')
    assert.equal(versionFromImage('localhost:5000/kube-proxy'), undefined)
    assert.equal(versionFromImage('kube-proxy:latest'), undefined)
    assert.deepEqual(parseKubeProxyVersion('1.28'), {major: 1, minor: 28})
    assert.equal(parseKubeProxyVersion('one'), undefined)
  })

  it('turns gates on at their beta release unless the config overrides them', () => {
    assert.deepEqual(featureGatesFor({major: 1, minor: 29}), {LoadBalancerIPMode: false, ServiceTrafficDistribution: false, PreferSameTrafficDistribution: false, TopologyAwareHints: true})
    assert.equal(featureGatesFor({major: 1, minor: 30}).LoadBalancerIPMode, true)
    assert.equal(featureGatesFor({major: 1, minor: 33}, {PreferSameTrafficDistribution: true}).PreferSameTrafficDistribution, true)
    assert.equal(featureGatesFor({major: 1, minor: 35}, {Unrelated: true}).Unrelated, undefined)
  })
})

describe('mark', () => {
  it('pads the digits to 8 like Go %#08x', () => {
    assert.equal(formatMasqueradeMark(14), '0x00004000')
    assert.equal(formatMasqueradeMark(0), '0x00000001')
    assert.equal(formatMasqueradeMark(31), '0x80000000')
  })
})

describe('node IPs', () => {
  it('prefers InternalIP, one per family, and bindAddress overrides the primary', () => {
    assert.deepEqual(detectNodeIPs(node), {primaryFamily: 'ipv4', ips: {ipv4: '192.168.0.2', ipv6: '2001:db8::2'}})
    assert.deepEqual(detectNodeIPs(node, '0.0.0.0'), {primaryFamily: 'ipv4', ips: {ipv4: '192.168.0.2', ipv6: '2001:db8::2'}})
    assert.deepEqual(detectNodeIPs(node, '2001:db8::9'), {primaryFamily: 'ipv6', ips: {ipv4: '192.168.0.2', ipv6: '2001:db8::9'}})
    assert.deepEqual(detectNodeIPs(undefined), {primaryFamily: 'ipv4', ips: {ipv4: '127.0.0.1', ipv6: '::1'}})
  })
})

describe('proxierOptionsFromKubeProxyConfig', () => {
  it("applies kube-proxy's defaults", () => {
    const o = proxierOptionsFromKubeProxyConfig(undefined, node, {version: {major: 1, minor: 31}})
    assert.equal(o.family, 'ipv4')
    assert.equal(o.nodeName, 'node-a')
    assert.equal(o.nodeIP, '192.168.0.2')
    assert.equal(o.zone, 'z1')
    assert.equal(o.masqueradeBit, 14)
    assert.equal(o.masqueradeAll, false)
    assert.equal(o.localhostNodePorts, true)
    assert.deepEqual(o.localDetector, {mode: 'NoOp'})
    assert.deepEqual(o.nodePortAddresses, [])
    assert.equal(o.randomFully, true)
    assert.deepEqual(o.nfacct, {ctStateInvalidDroppedPkts: true, localhostNpsAcceptedPkts: true})
    assert.equal(o.tcpBeLiberal, false)
    assert.deepEqual(o.nodeInterfaceAddresses, ['203.0.113.7', '192.168.0.2', '2001:db8::2', '127.0.0.1', '::1'])
  })

  it('reads the iptables, conntrack and detect-local settings', () => {
    const raw = {
      hostnameOverride: ' Node-A ',
      clusterCIDR: '10.0.0.0/8,fd00:10::/48',
      iptables: {masqueradeBit: 10, masqueradeAll: true, localhostNodePorts: false},
      conntrack: {tcpBeLiberal: true},
      featureGates: {LoadBalancerIPMode: false},
    }
    const v4 = proxierOptionsFromKubeProxyConfig(raw, node)
    assert.equal(v4.nodeName, 'node-a')
    assert.deepEqual([v4.masqueradeBit, v4.masqueradeAll, v4.localhostNodePorts, v4.tcpBeLiberal], [10, true, false, true])
    assert.deepEqual(v4.localDetector, {mode: 'ClusterCIDR', cidr: '10.0.0.0/8'})
    assert.equal(v4.featureGates.LoadBalancerIPMode, false)
    const v6 = proxierOptionsFromKubeProxyConfig(raw, node, {family: 'ipv6', tcpBeLiberal: false})
    assert.deepEqual(v6.localDetector, {mode: 'ClusterCIDR', cidr: 'fd00:10::/48'})
    assert.equal(v6.nodeIP, '2001:db8::2')
    assert.equal(v6.tcpBeLiberal, false)
    assert.deepEqual(proxierOptionsFromKubeProxyConfig({detectLocalMode: 'NodeCIDR'}, node, {family: 'ipv6'}).localDetector, {mode: 'NodeCIDR', cidr: 'fd00:10:0:1::/64'})
    assert.deepEqual(proxierOptionsFromKubeProxyConfig({detectLocalMode: 'BridgeInterface', detectLocal: {bridgeInterface: 'cbr0'}}, node).localDetector, {mode: 'BridgeInterface', interfaceName: 'cbr0'})
    assert.deepEqual(proxierOptionsFromKubeProxyConfig({detectLocalMode: 'InterfaceNamePrefix', detectLocal: {interfaceNamePrefix: 'veth'}}, node).localDetector, {mode: 'InterfaceNamePrefix', prefix: 'veth'})
  })

  it("expands nodePortAddresses 'primary' to the node IPs (v1.29+)", () => {
    assert.deepEqual(proxierOptionsFromKubeProxyConfig({nodePortAddresses: ['primary']}, node, {version: {major: 1, minor: 29}}).nodePortAddresses, ['192.168.0.2/32', '2001:db8::2/128'])
    assert.throws(() => proxierOptionsFromKubeProxyConfig({nodePortAddresses: ['primary']}, node, {version: {major: 1, minor: 28}}), /v1\.29/)
  })

  it('nodePortAddresses keywords: v1.37 combines primary, localhost and all with CIDRs; before, primary must be alone', () => {
    const v = (minor: number) => ({version: {major: 1, minor}})
    assert.deepEqual(proxierOptionsFromKubeProxyConfig({nodePortAddresses: ['primary', 'localhost']}, node, v(37)).nodePortAddresses, ['192.168.0.2/32', '2001:db8::2/128', '127.0.0.0/8', '::1/128'])
    assert.deepEqual(proxierOptionsFromKubeProxyConfig({nodePortAddresses: ['10.0.0.0/8', 'all']}, node, v(37)).nodePortAddresses, ['10.0.0.0/8', '0.0.0.0/0', '::/0'])
    assert.deepEqual(proxierOptionsFromKubeProxyConfig({nodePortAddresses: ['primary']}, node, v(37)).nodePortAddresses, ['192.168.0.2/32', '2001:db8::2/128'])
    // A newer version than the newest layout keeps v1.37's keywords.
    assert.deepEqual(proxierOptionsFromKubeProxyConfig({nodePortAddresses: ['localhost']}, node, v(38)).nodePortAddresses, ['127.0.0.0/8', '::1/128'])
    for (const list of [['10.0.0.0/8', 'primary'], ['localhost'], ['primary', 'all']]) {
      assert.throws(
        () => proxierOptionsFromKubeProxyConfig({nodePortAddresses: list}, node, v(36)),
        (err: unknown) => err instanceof ParseError && /is not a CIDR \(before kube-proxy v1\.37 the only keyword is 'primary', and it must be the only entry\)/.test(err.message),
      )
    }
  })

  it('layoutVersionFor clamps versions newer than the newest layout and says so', () => {
    assert.deepEqual(NEWEST_SUPPORTED_VERSION, {major: 1, minor: 37})
    assert.deepEqual(layoutVersionFor({major: 1, minor: 36, patch: 4}), {layout: {major: 1, minor: 36, patch: 4}, clamped: false})
    assert.deepEqual(layoutVersionFor({major: 1, minor: 37}), {layout: {major: 1, minor: 37}, clamped: false})
    assert.deepEqual(layoutVersionFor(parseKubeProxyVersion('v1.38.0-alpha.2')!), {layout: {major: 1, minor: 37}, clamped: true})
    assert.deepEqual(layoutVersionFor({major: 2, minor: 0}), {layout: {major: 1, minor: 37}, clamped: true})
    assert.deepEqual(layoutVersionFor({major: 1, minor: 20}), {layout: {major: 1, minor: 20}, clamped: false})
    assert.equal(layoutClampNote(parseKubeProxyVersion('v1.38.0-alpha.2')!), "kube-proxy v1.38.0-alpha.2 is newer than the newest layout known (v1.37): rendered with v1.37's rules")
    assert.equal(layoutClampNote({major: 1, minor: 37, patch: 2}), undefined)
  })

  it('KubeProxyNFTablesLocalhostNodePorts exists from v1.37, off unless the configuration turns it on', () => {
    assert.equal(featureGatesFor({major: 1, minor: 37}).KubeProxyNFTablesLocalhostNodePorts, false)
    assert.equal(featureGatesFor({major: 1, minor: 37}, {KubeProxyNFTablesLocalhostNodePorts: true}).KubeProxyNFTablesLocalhostNodePorts, true)
    assert.equal('KubeProxyNFTablesLocalhostNodePorts' in featureGatesFor({major: 1, minor: 36}, {KubeProxyNFTablesLocalhostNodePorts: true}), false)
  })

  it('names the field that is wrong', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{iptables: {masqueradeBit: 32}}, /iptables\.masqueradeBit: must be within \[0, 31\]/],
      [{iptables: {masqueradeAll: 'yes'}}, /iptables\.masqueradeAll: expected true or false/],
      [{detectLocalMode: 'Magic'}, /detectLocalMode: unknown mode "Magic"/],
      [{detectLocalMode: 'BridgeInterface'}, /detectLocal\.bridgeInterface: must be set/],
      [{featureGates: {LoadBalancerIPMode: 'on'}}, /featureGates\.LoadBalancerIPMode/],
    ]
    for (const [raw, re] of cases) {
      assert.throws(() => proxierOptionsFromKubeProxyConfig(raw, node), (err: unknown) => err instanceof ParseError && re.test(err.message))
    }
  })
})
