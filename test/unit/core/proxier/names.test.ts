// Chain-name hashing and probability text, checked against values taken from kube-proxy's own tests and from
// the reference (shared/reference/kube-proxy-iptables.md §2.2).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {endpointChainName, isServiceChainName, portProtoHash, servicePortChainName} from '../../../../src/core/proxier/iptables/names.js'
import {computeProbability} from '../../../../src/core/proxier/iptables/probability.js'

describe('chain names', () => {
  it('reproduces the reference examples', () => {
    assert.equal(portProtoHash('ns1/svc1:p80', 'tcp'), 'XPGD46QRK7WJZT7O')
    assert.equal(portProtoHash('ns1/svc1', 'tcp'), 'AQI2S6QIMU7PVVRP')
    assert.equal(endpointChainName('ns1/svc1:p80', 'tcp', '10.180.0.1:80'), 'KUBE-SEP-SXIVWICOYRO3J4NJ')
    assert.equal(endpointChainName('ns1/svc1:p80', 'tcp', '[ff06::c1]:80'), 'KUBE-SEP-LIGRYQQLSZN4UWQ5')
  })

  it('reproduces names from proxier_test.go', () => {
    // TestOverallIPTablesRules, TestSyncProxyRulesRepeated, TestSyncProxyRulesLargeClusterMode.
    assert.equal(servicePortChainName('SVC', 'ns2/svc2:p80', 'tcp'), 'KUBE-SVC-GNZBNJ2PO5MGZ6GT')
    assert.equal(servicePortChainName('EXT', 'ns4/svc4:p80', 'tcp'), 'KUBE-EXT-4SW47YFZTEDKD3PK')
    assert.equal(servicePortChainName('FW', 'ns5/svc5:p80', 'tcp'), 'KUBE-FW-NUKIZ6OKUXPJNT4C')
    assert.equal(servicePortChainName('SVL', 'ns2/svc2:p80', 'tcp'), 'KUBE-SVL-GNZBNJ2PO5MGZ6GT')
    assert.equal(servicePortChainName('SVC', 'ns2/svc2:p8080', 'tcp'), 'KUBE-SVC-2VJB64SDSIJUP5T6')
    assert.equal(servicePortChainName('SVC', 'ns4/svc4:p8082', 'tcp'), 'KUBE-SVC-EBDQOQU5SJFXRIL3')
    assert.equal(endpointChainName('ns5/svc5:p80', 'tcp', '10.180.0.3:80'), 'KUBE-SEP-I77PXRDZVX7PMWMN')
    assert.equal(endpointChainName('ns1/svc1:p80', 'tcp', '10.0.0.0:80'), 'KUBE-SEP-DKGQUZGBKLTPAR56')
    assert.equal(endpointChainName('ns3/svc3:p8081', 'tcp', '203.0.113.4:8081'), 'KUBE-SEP-RUVVH7YV3PHQBDOS')
    assert.equal(endpointChainName('ns4/svc4:p8082', 'tcp', '10.4.0.1:8082'), 'KUBE-SEP-SU5STNODRYEWJAUF')
    assert.equal(endpointChainName('ns3/svc3:p80', 'tcp', '10.0.3.1:80'), 'KUBE-SEP-BSWRHOQ77KEXZLNL')
  })

  it('lower-cases the protocol and keeps every name within 28 characters', () => {
    fc.assert(
      fc.property(fc.string({minLength: 1, maxLength: 60}), fc.constantFrom('TCP', 'UDP', 'SCTP'), (spn, proto) => {
        const svc = servicePortChainName('SVC', spn, proto)
        assert.equal(svc, servicePortChainName('SVC', spn, proto.toLowerCase()))
        assert.match(svc, /^KUBE-SVC-[A-Z2-7]{16}$/)
        assert.ok(endpointChainName(spn, proto, '10.0.0.1:80').length <= 28)
        assert.ok(isServiceChainName(svc) && !isServiceChainName('KUBE-SERVICES'))
      }),
    )
  })
})

describe('probabilities', () => {
  it('matches TestComputeProbability', () => {
    const expected: Record<number, string> = {
      1: '1.0000000000',
      2: '0.5000000000',
      10: '0.1000000000',
      100: '0.0100000000',
      1000: '0.0010000000',
      10000: '0.0001000000',
      100000: '0.0000100000',
      100001: '0.0000099999',
    }
    for (const [n, s] of Object.entries(expected)) assert.equal(computeProbability(Number(n)), s)
  })

  it('rounds exact ties to even as Go does (1/2048 = 0.00048828125)', () => {
    assert.equal(computeProbability(2048), '0.0004882812')
  })

  it('is strictly decreasing as n grows, and never differs from toFixed except on ties', () => {
    let prev = Infinity
    for (let n = 1; n <= 5000; n++) {
      const p = Number(computeProbability(n))
      assert.ok(p < prev, `1/${n}`)
      prev = p
      if (Math.log2(n) % 1 !== 0) assert.equal(computeProbability(n), (1 / n).toFixed(10))
    }
  })
})
