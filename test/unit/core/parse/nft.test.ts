// nftables parser. list-ruleset*.txt, list-table-kube-proxy.txt and ruleset.json were captured from nft 1.0.6
// after loading kube-proxy.nft, misc.nft and misc2.nft (a kube-proxy nftables-mode table in the shape of
// pkg/proxy/nftables, plus tables exercising other statements) into a netns; the other files are hand-written.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {ParseError} from '../../../../src/errors.js'
import {
  detectNftFormat,
  findNftChain,
  findNftSet,
  findNftTable,
  formatNftTime,
  kubeProxyTables,
  type NftFormat,
  parseNft,
  parseNftTime,
  summarizeKubeProxyTable,
} from '../../../../src/core/parse/nft.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {parseError} from './fuzz-support.js'

const FIXTURES: Array<[string, NftFormat]> = [
  ['list-ruleset.txt', 'text'],
  ['list-ruleset-a.txt', 'text'],
  ['list-table-kube-proxy.txt', 'text'],
  ['ruleset.json', 'json'],
  ['iptables-nft.txt', 'text'],
  ['unknown-expr.json', 'json'],
  ['list-map-only.json', 'json'],
]


describe('parseNft goldens', () => {
  for (const [file, format] of FIXTURES) {
    it(`${file} → ${format}`, () => {
      const text = readFixture(`parse/nft/${file}`)
      assert.equal(detectNftFormat(text), format)
      expectGolden(`parse/nft/${file.replace(/\.(txt|json)$/, '')}.golden.json`, JSON.stringify(parseNft(text), null, 2) + '\n')
    })
  }
})

describe('parseNft text', () => {
  const rs = parseNft(readFixture('parse/nft/list-ruleset-a.txt'))
  const kp = findNftTable(rs, 'ip', 'kube-proxy')!

  it('reads tables, base chains with named priorities, handles and comments', () => {
    assert.deepEqual(rs.tables.map((t) => `${t.family} ${t.name}`), ['ip kube-proxy', 'inet misc', 'ip6 kube-proxy', 'ip t2'])
    assert.equal(kp.comment, 'rules for kube-proxy')
    const pre = findNftChain(kp, 'filter-prerouting-pre-dnat')!
    assert.deepEqual([pre.type, pre.hook, pre.priority, pre.policy, pre.handle], ['filter', 'prerouting', -110, 'accept', 1]) // printed `dstnat - 10`
    assert.equal(findNftChain(kp, 'nat-postrouting')?.priority, 100) // `srcnat`
    assert.equal(findNftChain(kp, 'reject-chain')?.comment, 'helper for @no-endpoint-services / @no-endpoint-nodeports')
    const misc = findNftTable(rs, 'inet', 'misc')!
    assert.deepEqual(misc.flags, ['dormant'])
    assert.deepEqual([findNftChain(misc, 'input')?.comment, findNftChain(misc, 'input')?.policy], ['main input', 'drop'])
    assert.deepEqual([findNftChain(misc, 'ing')?.device, findNftChain(misc, 'ing')?.priority], ['lo', -500])
    assert.equal(findNftChain(misc, 'pre')?.priority, -95) // `dstnat + 5`
  })

  it('keeps rules as text with handle, comment and counter split out', () => {
    const r = findNftChain(kp, 'cluster-ips-check')!.rules[0]!
    assert.deepEqual(r, {text: 'ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"', handle: 43, comment: 'Reject traffic to invalid ports of ClusterIPs', line: r.line})
    const dnat = findNftChain(kp, 'endpoint-X27LE4BH-ns2/svc2/udp/dns__10.180.0.3/53')!.rules[2]!
    assert.deepEqual(dnat.counter, {packets: 0, bytes: 0})
  })

  it('reads sets and maps: types, flags, timeouts, sizes and multi-line elements', () => {
    const svc = findNftSet(kp, 'service-ips')!
    assert.deepEqual([svc.kind, svc.type, svc.valueType], ['map', 'ipv4_addr . inet_proto . inet_service', 'verdict'])
    assert.deepEqual(svc.elements.map((e) => `${e.key} : ${e.value}`), [
      '172.30.0.42 . udp . 53 : goto service-42NFTM6N-ns2/svc2/udp/dns',
      '1.2.3.4 . tcp . 80 : goto external-ULMVA6XW-ns1/svc1/tcp/p80',
      '172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80',
    ])
    assert.deepEqual(findNftSet(kp, 'no-endpoint-services')?.elements, [{key: '172.30.0.43 . tcp . 80', value: 'goto reject-chain', comment: 'ns3/svc3:p80'}])
    const aff = findNftSet(kp, 'affinity-X27LE4BH-ns2/svc2/udp/dns__10.180.0.3/53')!
    assert.deepEqual([aff.flags, aff.timeout, aff.size], [['dynamic', 'timeout'], 10800, 65535])
    const misc = findNftTable(rs, 'inet', 'misc')!
    assert.deepEqual(findNftSet(misc, 'v6')?.elements, [
      {key: '2001:db8::1', expires: findNftSet(misc, 'v6')!.elements[0]!.expires},
      {key: 'fd00::1', timeout: 1800, expires: findNftSet(misc, 'v6')!.elements[1]!.expires},
    ])
    assert.deepEqual(findNftSet(misc, 'v6')?.flags, ['timeout'], 'a default timeout implies the timeout flag')
    assert.deepEqual([findNftSet(misc, 'ports')?.typeof, findNftSet(misc, 'ports')?.type], ['tcp dport', 'inet_service'])
    assert.deepEqual(findNftSet(misc, 'ifs')?.elements.map((e) => e.key), ['"eth0"', '"cali+"'])
    assert.deepEqual(findNftSet(misc, 'm1')?.elements, [{key: '10.0.0.1', value: '0x00000001'}])
    assert.deepEqual(misc.objects.map((o) => [o.kind, o.name, o.handle, o.body]), [['counter', 'cnt1', 6, ['packets 0 bytes 0']]])
    const s2 = findNftSet(findNftTable(rs, 'ip', 't2')!, 's2')!
    assert.deepEqual([s2.counter, s2.elements], [true, [{key: '10.1.1.1', comment: 'hello', counter: {packets: 3, bytes: 120}}]])
  })

  it('skips iptables-nft warnings and keeps its rules verbatim', () => {
    const ipt = parseNft(readFixture('parse/nft/iptables-nft.txt'))
    assert.deepEqual(ipt.tables.map((t) => `${t.family} ${t.name}`), ['ip nat', 'ip filter'])
    assert.deepEqual(findNftChain(ipt.tables[0]!, 'PREROUTING')?.rules.map((r) => [r.text, r.counter]), [['counter packets 1532 bytes 92451 jump KUBE-SERVICES', {packets: 1532, bytes: 92451}]])
  })

  it('CRLF and a BOM do not change the model', () => {
    const text = readFixture('parse/nft/list-ruleset.txt')
    assert.deepEqual(parseNft('\ufeff' + text.replaceAll('\n', '\r\n')), parseNft(text))
  })
})

describe('parseNft JSON', () => {
  it('renders rules back to the text nft prints', () => {
    const text = parseNft(readFixture('parse/nft/list-ruleset-a.txt'))
    const json = parseNft(readFixture('parse/nft/ruleset.json'))
    assert.equal(json.nftVersion, '1.0.6')
    const rules = (rs: typeof text) => rs.tables.flatMap((t) => t.chains.flatMap((c) => c.rules.map((r) => `${t.family} ${t.name} ${c.name} #${r.handle}: ${r.text}`)))
    assert.deepEqual(rules(json), rules(text))
    assert.ok(json.tables.every((t) => t.chains.every((c) => c.rules.every((r) => r.textIncomplete === undefined && Array.isArray(r.expr)))))
  })

  it('renders set elements with their datatypes (marks in hex, interface names quoted)', () => {
    const text = parseNft(readFixture('parse/nft/list-ruleset-a.txt'))
    const json = parseNft(readFixture('parse/nft/ruleset.json'))
    const elements = (rs: typeof text) => rs.tables.flatMap((t) => t.sets.map((s) => [s.name, s.elements.map(({expires: _e, ...e}) => e)]))
    assert.deepEqual(elements(json), elements(text))
  })

  it('flags rules it cannot fully render and keeps the raw expressions', () => {
    const rs = parseNft(readFixture('parse/nft/unknown-expr.json'))
    const [xt, ok] = rs.tables[0]!.chains[0]!.rules
    assert.equal(xt?.textIncomplete, true)
    assert.match(xt!.text, /^\[xt \{"type":"match","name":"comment"\}\] counter packets 7 bytes 420 jump KUBE-FIREWALL$/)
    assert.deepEqual(xt?.counter, {packets: 7, bytes: 420})
    assert.deepEqual([ok?.text, ok?.textIncomplete], ['tcp dport 22 accept', undefined])
  })

  it('a map listed without its table still lands in a table', () => {
    const rs = parseNft(readFixture('parse/nft/list-map-only.json'))
    assert.deepEqual(rs.tables.map((t) => [t.family, t.name, t.sets.map((s) => s.name)]), [['ip', 'kube-proxy', ['service-ips']]])
  })
})

describe('kube-proxy summary', () => {
  it('per service port: cluster IPs, external IPs, node ports and endpoints; no-endpoint services marked', () => {
    const rs = parseNft(readFixture('parse/nft/list-ruleset.txt'))
    assert.deepEqual(kubeProxyTables(rs).map((t) => t.family), ['ip', 'ip6'])
    const v4 = summarizeKubeProxyTable(findNftTable(rs, 'ip', 'kube-proxy')!)
    assert.deepEqual(v4.map((s) => [s.name, s.clusterIPs, s.externalIPs, s.nodePorts, s.endpoints, s.noEndpoints]), [
      ['ns1/svc1/tcp/p80', ['172.30.0.41 . tcp . 80'], ['1.2.3.4 . tcp . 80'], ['tcp . 30080'], ['10.180.0.1:80', '10.180.0.2:80'], undefined],
      ['ns2/svc2/udp/dns', ['172.30.0.42 . udp . 53'], [], [], ['10.180.0.3:53'], undefined],
      ['ns3/svc3:p80', ['172.30.0.43 . tcp . 80'], [], ['tcp . 30081'], [], 'reject'],
    ])
    const v6 = summarizeKubeProxyTable(findNftTable(rs, 'ip6', 'kube-proxy')!)
    assert.deepEqual(v6.map((s) => [s.name, s.clusterIPs, s.endpoints]), [['ns/s/tcp/http', ['fd00:30::10 . tcp . 80'], ['[fd00:10::5]:8080']]])
  })
})

describe('nft times', () => {
  it('parses and formats nft durations', () => {
    assert.equal(parseNftTime('3h'), 10800)
    assert.equal(parseNftTime('2h59m58s920ms'), 10798.92)
    assert.equal(parseNftTime('1d1m'), 86460)
    assert.equal(formatNftTime(10800), '3h')
    assert.equal(formatNftTime(3661), '1h1m1s')
    assert.throws(() => parseNftTime('3 hours'), ParseError)
    assert.throws(() => parseNftTime(''), ParseError)
  })

  it('format then parse is the identity on whole milliseconds', () => {
    fc.assert(fc.property(fc.integer({min: 0, max: 10 * 365 * 86_400_000}), (ms) => parseNftTime(formatNftTime(ms / 1000)) === ms / 1000))
  })
})

describe('parseNft bad input', () => {
  const cases: Array<[string, string, number, RegExp]> = [
    ['empty input', '', 1, /empty input: expected an nftables listing/],
    ['binary garbage', 'table ip t {\n\x01\x02\x03\n}', 2, /binary data/],
    ['iptables-save given instead', '# Generated by iptables-save v1.8.7\n*nat\n:PREROUTING ACCEPT [0:0]\n', 1, /this looks like iptables-save output; expected an nftables listing/],
    ['ipvsadm given instead', 'IP Virtual Server version 1.2.1 (size=4096)\n', 1, /looks like ipvsadm -Ln output/],
    ['an nft script instead of a listing', 'add table ip kube-proxy\nadd chain ip kube-proxy services\n', 1, /nft command script .* not `nft list` output/],
    ['comments only', '# Warning: table ip nat is managed by iptables-nft, do not touch!\n', 1, /only comments/],
    ['a truncated table', 'table ip kube-proxy {\n\tchain services {\n\t\tjump x\n', 3, /input ends inside chain services \(line 2\): missing "}", the output is truncated/],
    ['truncated elements', 'table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = { 10.0.0.1,\n\t\t\t10.0.0.2,\n', 5, /input ends inside the elements of set s \(started on line 4\)/],
    ['an unknown family', 'table ipx t {\n}\n', 1, /unknown table family "ipx"/],
    ['garbage inside a table', 'table ip t {\n\tfoo bar\n}\n', 2, /unexpected "foo bar" in table ip t: expected chain, set, map/],
    ['a malformed base chain', 'table ip t {\n\tchain c {\n\t\ttype filter hook input;\n\t}\n}\n', 3, /malformed base chain declaration/],
    ['an unknown priority name', 'table ip t {\n\tchain c {\n\t\ttype filter hook input priority urgent; policy accept;\n\t}\n}\n', 3, /unknown chain priority "urgent"/],
    ['an unbalanced rule', 'table ip t {\n\tchain c {\n\t\tip daddr { 10.0.0.1, 10.0.0.2 accept\n\t}\n}\n', 3, /unbalanced braces in rule/],
    ['a bad set attribute', 'table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\twobble 3\n\t}\n}\n', 4, /unexpected "wobble 3" in set s/],
    ['a bad timeout', 'table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\ttimeout 3 hours\n\t}\n}\n', 4, /invalid time "3 hours"/],
    ['a duplicate chain', 'table ip t {\n\tchain c {\n\t}\n\tchain c {\n\t}\n}\n', 4, /chain c is listed twice/],
    ['text outside a table', 'table ip t {\n}\nchain c {\n}\n', 3, /unexpected "chain c \{" outside a table/],
    ['truncated JSON', '{"nftables": [{"metainfo": {"version": "1.0.6"}},\n{"table": {"family": "ip", "name": "t"', 2, /input ends early \(truncated JSON\)/],
    ['JSON without nftables', '{"tables": []}', 1, /JSON without an "nftables" key/],
    ['JSON that is an array', '[{"dst":"default"}]', 1, /looks like `ip -j route` JSON/],
    ['a JSON entry with two keys', '{"nftables": [\n{"table": {"family": "ip", "name": "t"}, "chain": {}}]}', 2, /must have exactly one key/],
    ['a JSON rule without expr', '{"nftables": [\n{"table": {"family": "ip", "name": "t"}},\n{"rule": {"family": "ip", "table": "t", "chain": "c"}}]}', 3, /"expr" must be an array/],
    ['a JSON element for a missing set', '{"nftables": [\n{"element": {"family": "ip", "table": "t", "name": "s", "elem": [1]}}]}', 2, /elements for a set that is not listed/],
    ['a JSON map element that is not a pair', '{"nftables": [\n{"map": {"family": "ip", "table": "t", "name": "m", "type": "ipv4_addr", "map": "verdict", "elem": ["10.0.0.1"]}}]}', 2, /each element must be a \[key, value\] pair/],
    ['deeply nested JSON expressions', `{"nftables": [\n{"rule": {"family": "ip", "table": "t", "chain": "c", "expr": [${'{"counter": '.repeat(0)}${'{"match": {"op": "==", "left": '.repeat(60)}1${'}}'.repeat(60)}]}}]}`, 2, /nested too deeply/],
  ]
  for (const [name, text, line, message] of cases) {
    it(`${name}: line ${line}`, () => {
      const err = parseError(() => parseNft(text))
      assert.match(err.message, message)
      assert.equal(err.line, line)
    })
  }
})
