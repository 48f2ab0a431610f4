// Service routing read from captured dumps: frontends, endpoint shares, eTP/iTP=Local, affinity, firewall,
// filter verdicts; also without any comments (large-cluster mode) and with broken chains.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'
import {analyzeServices} from '../../../../src/core/iptables/services.js'
import {parseIptablesSave} from '../../../../src/core/iptables/save.js'
import fc from 'fast-check'
import {parse as parseYaml} from 'yaml'
import {renderIptablesShow, renderIptablesShowChunks} from '../../../../src/render/iptables-show.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const analyze = (text: string) => analyzeServices(parseIptablesSave(text))
const byName = (a: ReturnType<typeof analyze>, name: string) => {
  const sp = a.servicePorts.find((s) => s.name === name)
  assert.ok(sp, `no service port ${name}`)
  return sp
}

describe('analyzeServices', () => {
  for (const name of ['kube-proxy-v1.28-nft', 'kube-proxy-v1.33-legacy-counters', 'kube-proxy-ipv6', 'large-cluster-no-comments']) {
    test(`${name}: analysis and table match the goldens`, () => {
      const dump = parseIptablesSave(readFixture(`iptables/${name}.txt`))
      const analysis = analyzeServices(dump)
      expectGolden(`iptables/${name}.services.golden.json`, JSON.stringify(analysis, null, 1) + '\n')
      expectGolden(`iptables/${name}.show.golden.txt`, renderIptablesShow(dump, analysis, 'table', {color: false, source: `${name}.txt`}))
    })
  }

  test('endpoint shares follow the chained statistic probabilities', () => {
    const a = analyze(readFixture('iptables/kube-proxy-v1.28-nft.txt'))
    const svc1 = byName(a, 'ns1/svc1:p80')
    assert.equal(svc1.hash, 'XPGD46QRK7WJZT7O')
    assert.deepEqual(svc1.cluster?.endpoints.map((e) => e.destination), ['10.180.0.1:80', '10.180.1.1:80', '10.180.2.1:80'])
    for (const e of svc1.cluster?.endpoints ?? []) assert.ok(Math.abs(e.probability - 1 / 3) < 1e-9)
    assert.equal(svc1.cluster?.unrouted, 0)
    assert.equal(svc1.cluster?.masquerade, '! -s 10.0.0.0/8')
    assert.deepEqual(svc1.frontends.map((f) => [f.kind, f.address, f.port, f.protocol]), [['clusterIP', '172.30.0.41', 80, 'tcp']])
  })

  test('eTP=Local load balancer: firewall, local chain, health check, short-circuits', () => {
    const lb = byName(analyze(readFixture('iptables/kube-proxy-v1.28-nft.txt')), 'ns4/lb:https')
    assert.deepEqual(lb.firewall, {name: 'KUBE-FW-ESWJ55KEQSZMND5M', allowedSources: ['203.0.113.0/25']})
    assert.deepEqual(lb.external, {name: 'KUBE-EXT-ESWJ55KEQSZMND5M', finalTarget: 'KUBE-SVL-ESWJ55KEQSZMND5M', shortCircuit: true, masqueradeAll: false})
    assert.deepEqual(lb.local?.endpoints.map((e) => [e.destination, e.probability]), [['10.180.0.5:8443', 1]])
    assert.equal(lb.cluster?.endpoints.length, 2)
    assert.equal(lb.healthCheckNodePort, 30444)
    assert.deepEqual(
      lb.frontends.map((f) => `${f.table}:${f.kind}:${f.target}`),
      ['nat:clusterIP:KUBE-SVC-ESWJ55KEQSZMND5M', 'nat:loadBalancerIP:KUBE-FW-ESWJ55KEQSZMND5M', 'nat:nodePort:KUBE-EXT-ESWJ55KEQSZMND5M', 'filter:loadBalancerIP:DROP'],
    )
  })

  test('no endpoints, no local endpoints, iTP=Local, affinity, localhost node ports', () => {
    const a = analyze(readFixture('iptables/kube-proxy-v1.33-legacy-counters.txt'))
    const empty = byName(a, 'ns6/empty:p80')
    assert.equal(empty.hash, null)
    assert.deepEqual(empty.frontends.map((f) => [f.kind, f.target, f.reason]), [['clusterIP', 'REJECT', 'has no endpoints'], ['nodePort', 'REJECT', 'has no endpoints']])
    const remote = byName(a, 'ns10/remote-only:p80')
    assert.equal(remote.external?.finalTarget, null)
    assert.deepEqual(remote.frontends.filter((f) => f.table === 'filter').map((f) => [f.kind, f.target]), [['loadBalancerIP', 'DROP'], ['nodePort', 'DROP']])
    const itp = byName(a, 'ns7/itp:p80')
    assert.equal(itp.cluster, null)
    assert.equal(itp.local?.name, 'KUBE-SVL-NHKOPJLUTZFGENT2')
    assert.equal(byName(a, 'ns5/sticky:p8080').cluster?.affinitySeconds, 10800)
    assert.deepEqual(byName(a, 'ns2/svc2:p80').frontends.map((f) => f.kind), ['clusterIP', 'nodePortLocalhost', 'nodePort'])
    // Counters of the DNAT rules come through.
    assert.deepEqual(byName(a, 'ns1/svc1:p80').cluster?.endpoints.map((e) => e.packets), [3, 6, 3])
    assert.equal(byName(a, 'ns8/sctp:p9').protocol, 'sctp')
  })

  test('IPv6: bracketed DNAT destinations', () => {
    const v6 = byName(analyze(readFixture('iptables/kube-proxy-ipv6.txt')), 'ns6/v6:p80')
    assert.deepEqual(v6.cluster?.endpoints.map((e) => e.destination), ['[fd00:10:180::1]:80', '[fd00:10:180::2]:80', '[fd00:10:180::3]:80'])
    assert.deepEqual(v6.frontends.find((f) => f.kind === 'clusterIP')?.address, 'fd00:172:30::50')
  })

  test('works without any comments, grouping chains by their hash', () => {
    const text = readFixture('iptables/kube-proxy-v1.28-nft.txt').replace(/ -m comment --comment ("(\\.|[^"\\])*"|\S+)/g, '')
    const a = analyze(text)
    assert.ok(a.servicePorts.every((s) => s.name === null))
    const svc1 = a.servicePorts.find((s) => s.hash === 'XPGD46QRK7WJZT7O')
    assert.deepEqual(svc1?.cluster?.endpoints.map((e) => e.destination), ['10.180.0.1:80', '10.180.1.1:80', '10.180.2.1:80'])
    const lb = a.servicePorts.find((s) => s.hash === 'ESWJ55KEQSZMND5M')
    // The filter DROP has no comment either: it is matched to the port by address, port and protocol.
    assert.deepEqual(lb?.frontends.map((f) => `${f.table}:${f.kind}`), ['nat:clusterIP', 'nat:loadBalancerIP', 'nat:nodePort', 'filter:loadBalancerIP'])
    assert.equal(lb?.local?.endpoints.length, 1)
  })

  test('broken chains are reported, not thrown', () => {
    const text = [
      '*nat',
      ':KUBE-SERVICES - [0:0]',
      ':KUBE-SVC-AAAAAAAAAAAAAAAA - [0:0]',
      ':KUBE-SEP-BBBBBBBBBBBBBBBB - [0:0]',
      ':KUBE-SEP-STALESTALESTALE1 - [0:0]',
      '-A KUBE-SERVICES -d 172.30.0.9/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-AAAAAAAAAAAAAAAA',
      '-A KUBE-SERVICES -d 172.30.0.8/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-CCCCCCCCCCCCCCCC',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-BBBBBBBBBBBBBBBB',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-DDDDDDDDDDDDDDDD',
      '-A KUBE-SEP-BBBBBBBBBBBBBBBB -s 10.0.0.1/32 -j KUBE-MARK-MASQ',
      'COMMIT',
      '',
    ].join('\n')
    const a = analyze(text)
    const svc = a.servicePorts.find((s) => s.hash === 'AAAAAAAAAAAAAAAA')
    assert.deepEqual(svc?.cluster?.endpoints.map((e) => [e.chain, e.exists, e.probability]), [
      ['KUBE-SEP-BBBBBBBBBBBBBBBB', true, 0.5],
      ['KUBE-SEP-DDDDDDDDDDDDDDDD', false, 0.25],
    ])
    assert.equal(svc?.cluster?.unrouted, 0.25)
    assert.deepEqual(svc?.problems, [
      'KUBE-SEP-BBBBBBBBBBBBBBBB has no DNAT rule',
      'KUBE-SVC-AAAAAAAAAAAAAAAA jumps to KUBE-SEP-DDDDDDDDDDDDDDDD, which nat does not declare',
      'KUBE-SVC-AAAAAAAAAAAAAAAA: 25.0% of new connections match no endpoint rule',
    ])
    assert.deepEqual(a.servicePorts.find((s) => s.hash === 'CCCCCCCCCCCCCCCC')?.problems, ['jump to KUBE-SVC-CCCCCCCCCCCCCCCC, which nat does not declare'])
    assert.deepEqual(a.unreferencedChains, ['KUBE-SEP-STALESTALESTALE1'])
    assert.deepEqual(a.nodePortsJumps, [])
    const table = renderIptablesShow(parseIptablesSave(text), a, 'table', {color: false})
    assert.match(table, /KUBE-SEP-DDDDDDDDDDDDDDDD missing/)
    assert.match(table, /no final jump to KUBE-NODEPORTS/)
    assert.match(table, /1 kube-proxy chain\(s\) that nothing jumps to: KUBE-SEP-STALESTALESTALE1/)
  })

  test('json and yaml carry the dump and the analysis; colour only when asked', () => {
    const dump = parseIptablesSave(readFixture('iptables/large-cluster-no-comments.txt'))
    const a = analyzeServices(dump)
    const json = JSON.parse(renderIptablesShow(dump, a, 'json', {color: false, node: 'n1', source: 'f.txt'})) as Record<string, unknown>
    assert.equal(json.kind, 'IptablesShow')
    assert.equal(json.node, 'n1')
    assert.equal((json.dump as {tables: unknown[]}).tables.length, 2)
    assert.equal((json.servicePorts as unknown[]).length, 6)
    const yaml = renderIptablesShow(dump, a, 'yaml', {color: false})
    assert.match(yaml, /^apiVersion: node-doctor.io\/v1alpha1\nkind: IptablesShow\n/)
    assert.match(yaml, /text: "-A KUBE-SERVICES -d 172\.30\.1\.1\/32/)
    assert.doesNotMatch(renderIptablesShow(dump, a, 'table', {color: false}), /\u001b\[/)
    assert.match(renderIptablesShow(dump, a, 'table', {color: true}), /\u001b\[1m/)
  })

  test('streamed JSON is exactly JSON.stringify, streamed YAML parses back to the same data', () => {
    for (const name of ['kube-proxy-v1.28-nft', 'kube-proxy-ipv6']) {
      const dump = parseIptablesSave(readFixture(`iptables/${name}.txt`))
      const a = analyzeServices(dump)
      const json = renderIptablesShow(dump, a, 'json', {color: false, node: 'n'})
      const doc = {apiVersion: 'node-doctor.io/v1alpha1', kind: 'IptablesShow', node: 'n', dump, servicePorts: a.servicePorts, nodePortsJumps: a.nodePortsJumps, unreferencedChains: a.unreferencedChains, problems: a.problems}
      assert.equal(json, JSON.stringify(doc, null, 2) + '\n')
      const chunks = [...renderIptablesShowChunks(dump, a, 'json', {color: false, node: 'n'})]
      assert.ok(chunks.length > 1 && chunks.every((c) => c.length <= 70_000), 'output comes in bounded pieces')
      assert.deepEqual(parseYaml(renderIptablesShow(dump, a, 'yaml', {color: false, node: 'n'})), JSON.parse(json))
    }
  })

  test('YAML scalars survive any string (2000)', () => {
    // A small dump: the property is about scalar escaping, and rendering a large dump 2000 times takes minutes.
    const dump = parseIptablesSave('*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m tcp --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y\nCOMMIT\n')
    const a = analyzeServices(dump)
    fc.assert(
      fc.property(fc.string({unit: 'binary', maxLength: 30}), fc.string({unit: 'grapheme-ascii', maxLength: 10}), (node, source) => {
        const y = renderIptablesShow(dump, {...a, servicePorts: [], problems: [node, source, '', 'true', '1.5', '-x', 'a: b', '# c']}, 'yaml', {color: false, node, source})
        const back = parseYaml(y) as {node?: string; source?: string; problems: string[]}
        assert.equal(back.node ?? '', node)
        assert.equal(back.source ?? '', source)
        assert.deepEqual(back.problems, [node, source, '', 'true', '1.5', '-x', 'a: b', '# c'])
      }),
      {numRuns: 2000},
    )
  })
})
