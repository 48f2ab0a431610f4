// The nftables proxier, one golden per Service feature (cases.ts): rendered and compared byte for byte with
// test/fixtures/proxier/nftables/<case>.nft (`nft list` syntax; the round-trip test loads them into the real nft),
// then each case's own assertions. Plus chain names, version layouts and nft's printing of anonymous sets.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {nftAnonymousSet, nftLayoutFor} from '../../../../../src/core/proxier/nftables/generate.js'
import {endpointChainNameBase, servicePortChainNameBase} from '../../../../../src/core/proxier/nftables/names.js'
import {serializeNftTable} from '../../../../../src/core/proxier/nftables/table.js'
import {InputProblem} from '../../../../../src/core/model/errors.js'
import {expectGolden} from '../../../../support/golden.js'
import {NFT_CASES, renderCase} from './cases.js'

describe('nftables proxier: Service features (goldens)', () => {
  for (const c of NFT_CASES) {
    const name = c.golden ?? `${c.dir}.nft`
    it(`${name}${c.version ? ` (${c.version})` : ''}`, () => {
      const t = renderCase(c)
      const text = serializeNftTable(t)
      expectGolden(`proxier/nftables/${name}`, text)
      c.check?.(t, text)
      assert.equal(serializeNftTable(renderCase(c)), text, 'deterministic')
    })
  }
})

describe('nftables proxier: names, versions, nft forms', () => {
  it('chain names match kube-proxy (TestOverallNFTablesRules)', () => {
    assert.equal(servicePortChainNameBase('ns1', 'svc1', 'tcp', 'p80'), 'ULMVA6XW-ns1/svc1/tcp/p80')
    assert.equal(endpointChainNameBase('ns1', 'svc1', 'tcp', 'p80', '10.180.0.1', 80), '5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80')
    assert.equal(endpointChainNameBase('ns5', 'svc5', 'TCP', 'p80', '10.180.0.3', 80), 'GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80')
    const long = endpointChainNameBase('n'.repeat(63), 's'.repeat(63), 'sctp', 'p'.repeat(63), 'fd00:1111:2222:3333:4444:5555:6666:7777', 65535)
    assert.equal(long.length, 240)
    assert.ok(long.endsWith('...'))
  })

  it('layouts by version; versions without nftables mode are refused with a clear error', () => {
    assert.equal(nftLayoutFor({major: 1, minor: 28}), undefined)
    assert.equal(nftLayoutFor({major: 1, minor: 30}), 'v1.29')
    assert.equal(nftLayoutFor({major: 1, minor: 33}), 'v1.31')
    assert.equal(nftLayoutFor({major: 1, minor: 35}), 'v1.34')
    assert.throws(() => renderCase({dir: 'clusterip', version: 'v1.28'}), (err: Error) => err instanceof InputProblem && /v1\.28 has no nftables mode/.test(err.message))
  })

  it('anonymous sets print as nft lists them', () => {
    assert.equal(nftAnonymousSet(['203.0.113.0/25']), '203.0.113.0/25')
    assert.equal(nftAnonymousSet(['5.6.7.8', '192.168.0.0/24', '1.2.3.4/32']), '{ 1.2.3.4, 5.6.7.8, 192.168.0.0/24 }')
    assert.equal(nftAnonymousSet(['10.0.0.0/8', '10.1.0.0/16']), '10.0.0.0/8')
    assert.equal(nftAnonymousSet(['2001:db8::/64', 'fd00::1/128']), '{ 2001:db8::/64, fd00::1 }')
  })
})
