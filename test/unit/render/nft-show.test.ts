// `nft show` renderer: tables, chains with rule counts, sets with element counts, the kube-proxy service summary.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parse as parseYaml} from 'yaml'
import {parseNft} from '../../../src/core/parse/nft.js'
import {renderNftShow} from '../../../src/render/nft-show.js'
import {expectGolden, readFixture} from '../../support/golden.js'

const ruleset = (file: string) => parseNft(readFixture(`parse/nft/${file}`))

describe('renderNftShow', () => {
  for (const file of ['list-ruleset.txt', 'ruleset.json', 'iptables-nft.txt']) {
    it(`table: ${file}`, () => {
      expectGolden(`render/nft-show/${file.replace(/\.(txt|json)$/, '')}.golden.txt`, renderNftShow(ruleset(file), 'table', {color: false, node: 'node-a', source: file}))
    })
  }

  it('text and JSON listings of the same ruleset render the same tables', () => {
    // Besides the header, JSON lacks the table comment and flags, the dynamic set flag and chain devices (nft 1.0.6).
    const strip = (s: string) =>
      s
        .replace(/^nftables.*\n/, '')
        .replace(/ "rules for kube-proxy"| \[flags dormant\]/g, '')
        .replaceAll('dynamic,timeout', 'timeout')
        .replace('ingress (lo)', 'ingress')
        .replace(/ +/g, ' ')
    const text = renderNftShow(ruleset('list-ruleset-a.txt'), 'table', {color: false})
    const json = renderNftShow(ruleset('ruleset.json'), 'table', {color: false})
    assert.equal(strip(json), strip(text))
  })

  it('collapses kube-proxy per-service chains into the service summary', () => {
    const out = renderNftShow(ruleset('list-ruleset.txt'), 'table', {color: false})
    assert.match(out, /^table ip kube-proxy: 22 chains \(8 base\), 8 sets\/maps, 37 rules "rules for kube-proxy"$/m)
    assert.match(out, /^ {2}\+ 6 per-service chains \(2 service-\*, 1 external-\*, 3 endpoint-\*\), summarised below$/m)
    assert.doesNotMatch(out, /^ {2}endpoint-5OJB2KTY/m)
    assert.match(out, /^ {2}ns1\/svc1\/tcp\/p80 +172\.30\.0\.41:80\/tcp +1\.2\.3\.4:80\/tcp +30080\/tcp +10\.180\.0\.1:80, 10\.180\.0\.2:80$/m)
    assert.match(out, /^ {2}ns3\/svc3:p80 +172\.30\.0\.43:80\/tcp +30081\/tcp +none \(reject\)$/m)
    assert.match(out, /^ {2}input +filter +input +0 +drop +15$/m)
  })

  it('colour only when asked', () => {
    assert.match(renderNftShow(ruleset('list-ruleset.txt'), 'table', {color: true}), /\x1b\[33mdrop\x1b\[39m/)
    assert.doesNotMatch(renderNftShow(ruleset('list-ruleset.txt'), 'table', {color: false}), /\x1b\[/)
  })

  it('json and yaml are the parsed model in a versioned envelope', () => {
    const rs = ruleset('list-table-kube-proxy.txt')
    const json = JSON.parse(renderNftShow(rs, 'json', {color: false})) as Record<string, unknown>
    assert.deepEqual(json, {apiVersion: 'node-doctor.io/v1alpha1', kind: 'NftRuleset', ...JSON.parse(JSON.stringify(rs))})
    assert.deepEqual(parseYaml(renderNftShow(rs, 'yaml', {color: false})), json)
  })
})
