// kube-proxy's /configz answer: the v1.36+ public type, the internal type of earlier releases (Go field names),
// and answers that are not kube-proxy's configuration. Fixtures: test/fixtures/parse/kube-proxy-configz (README there).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {jsonNameOf, parseKubeProxyConfigz} from '../../../../src/core/parse/kube-proxy-configz.js'
import {kubeProxySetting} from '../../../../src/core/parse/kube-proxy-config.js'
import {ParseError} from '../../../../src/errors.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const P = 'parse/kube-proxy-configz/'
const golden = (name: string): void => {
  const z = parseKubeProxyConfigz(readFixture(P + name))
  expectGolden(P + name.replace(/\.json$/, '.golden.json'), JSON.stringify({typed: z.typed, presentPaths: z.presentPaths, values: z.config.values, issues: z.config.issues}, null, 2) + '\n')
}

describe('parseKubeProxyConfigz', () => {
  it('reads the v1.36+ public type under kubeproxy.config.k8s.io', () => {
    const z = parseKubeProxyConfigz(readFixture(P + 'v1.36-nftables.json'))
    assert.equal(z.typed, true)
    assert.deepEqual(kubeProxySetting(z.config, 'mode'), {value: 'nftables', origin: {kind: 'configz', source: 'kube-proxy /configz'}})
    assert.equal(kubeProxySetting(z.config, 'conntrack.maxPerCore').value, 32768)
    assert.ok(z.presentPaths.includes('/iptables/masqueradeBit'))
    assert.ok(z.presentPaths.includes('/nodePortAddresses'))
    // Objects are walked, not leaves; featureGates is empty here.
    assert.ok(!z.presentPaths.includes('/iptables'))
    assert.deepEqual(z.config.issues, [])
    golden('v1.36-nftables.json')
  })

  it('maps the internal type (Go field names, up to v1.35) to v1alpha1 names', () => {
    const z = parseKubeProxyConfigz(readFixture(P + 'v1.31-internal.json'))
    assert.equal(z.typed, false)
    assert.equal(kubeProxySetting(z.config, 'mode').value, 'iptables')
    assert.equal(kubeProxySetting(z.config, 'clientConnection.qps').value, 5)
    assert.equal(kubeProxySetting(z.config, 'iptables.masqueradeBit').value, 14)
    // Linux.Conntrack and Linux.OOMScoreAdj come back to v1alpha1's places; feature gate names are kept as written.
    assert.equal(kubeProxySetting(z.config, 'conntrack.tcpEstablishedTimeout').value, '24h0m0s')
    assert.equal(kubeProxySetting(z.config, 'oomScoreAdj').value, -999)
    assert.deepEqual(kubeProxySetting(z.config, 'featureGates').value, {NFTablesProxyMode: true})
    // The top-level sync periods have no single v1alpha1 place: not reported, so never compared.
    assert.ok(!z.presentPaths.some((p) => /syncPeriod$/i.test(p) && p !== '/configSyncPeriod'))
    golden('v1.31-internal.json')
  })

  it('names Go fields as v1alpha1 does', () => {
    assert.deepEqual(
      ['IPTables', 'NFTables', 'IPVS', 'OOMScoreAdj', 'QPS', 'TCPTimeout', 'ClusterCIDR', 'BindAddress', 'ExcludeCIDRs', 'StrictARP', 'Min'].map(jsonNameOf),
      ['iptables', 'nftables', 'ipvs', 'oomScoreAdj', 'qps', 'tcpTimeout', 'clusterCIDR', 'bindAddress', 'excludeCIDRs', 'strictARP', 'min'],
    )
  })

  it('refuses answers that are not kube-proxy configuration', () => {
    assert.throws(() => parseKubeProxyConfigz(readFixture(P + 'not-found.txt')), (e: unknown) => e instanceof ParseError && /expected JSON\): 404 page not found/.test(e.message))
    assert.throws(() => parseKubeProxyConfigz(readFixture(P + 'other-component.json')), (e: unknown) => e instanceof ParseError && /no "kubeproxy.config.k8s.io" object.*kubeletconfig/.test(e.message))
    assert.throws(() => parseKubeProxyConfigz(''), ParseError)
  })
})
