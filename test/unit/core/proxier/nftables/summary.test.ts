// The kube-proxy table summary (core/parse/nft summarizeKubeProxyTable) on v1.36+ tables, where service chains DNAT
// themselves (numgen map; v1.37 one endpoint directly) instead of jumping to endpoint chains: the endpoints are still
// found, from the rendered goldens listed back as text.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {findNftTable, parseNft, summarizeKubeProxyTable} from '../../../../../src/core/parse/nft.js'
import {readFixture} from '../../../../support/golden.js'

const summary = (golden: string, family: 'ip' | 'ip6' = 'ip') => summarizeKubeProxyTable(findNftTable(parseNft(readFixture(`proxier/nftables/${golden}`)), family, 'kube-proxy')!)

describe('kube-proxy nftables summary, v1.36+ layouts', () => {
  it('finds the endpoints of numgen-map and direct DNATs like those of endpoint chains', () => {
    const byVersion = ['versions/loadbalancer-v1.34.nft', 'versions/loadbalancer-v1.36.nft', 'versions/loadbalancer-v1.37.nft'].map((g) =>
      summary(g).map((s) => `${s.name} ${[...s.endpoints].sort().join(',')}`),
    )
    assert.ok(byVersion[0]!.some((l) => /:\d+/.test(l)), 'v1.34 has endpoints to compare with')
    assert.deepEqual(byVersion[1], byVersion[0])
    assert.deepEqual(byVersion[2], byVersion[0])
    assert.deepEqual(summary('versions/localhost-nodeports-v1.37.nft').find((s) => s.name === 'kube-system/dns/udp/dns-udp')?.endpoints, ['10.0.2.7:53'])
    // IPv6: bracketed, from both forms.
    const v6 = summary('versions/ipv6-v1.37.nft', 'ip6')
    assert.ok(v6.some((s) => s.endpoints.length > 0) && v6.every((s) => s.endpoints.every((e) => /^\[[0-9a-f:]+\]:\d+$/.test(e))), JSON.stringify(v6))
  })
})
