// Interface-listing parser. ip-*.txt/json were captured from iproute2 6.1 in the Calico-like netns of
// test/integration/parse/netns.ts; ip-addr-calico-ipip.txt is hand-written in the shape of a real IPIP node
// (tunl0@NONE with link/ipip, a dummy kube-ipvs0 that is DOWN, docker0, a secondary label, a WireGuard peer).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {calicoInterfaces, detectLinkFormat, findInterface, isCalicoWorkloadInterface, kubeIpvsAddresses, type LinkFormat, parseLinks} from '../../../../src/core/parse/links.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {parseError} from './fuzz-support.js'

const FIXTURES: Array<[string, LinkFormat]> = [
  ['ip-addr.txt', 'ip-text'],
  ['ip-d-addr.txt', 'ip-text'],
  ['ip-link.txt', 'ip-text'],
  ['ip-o-addr.txt', 'ip-oneline'],
  ['ip-o-link.txt', 'ip-oneline'],
  ['ip-j-addr.json', 'ip-json'],
  ['ip-j-d-addr.json', 'ip-json'],
  ['ip-j-d-link.json', 'ip-json'],
  ['ip-addr-calico-ipip.txt', 'ip-text'],
]


describe('parseLinks goldens', () => {
  for (const [file, format] of FIXTURES) {
    it(`${file} → ${format}`, () => {
      const text = readFixture(`parse/links/${file}`)
      assert.equal(detectLinkFormat(text), format)
      expectGolden(`parse/links/${file.replace(/\.(txt|json)$/, '')}.golden.json`, JSON.stringify(parseLinks(text), null, 2) + '\n')
    })
  }
})

describe('parseLinks', () => {
  it('reads kinds, peers in other namespaces, state and VXLAN parameters from `ip -d addr`', () => {
    const t = parseLinks(readFixture('parse/links/ip-d-addr.txt'))
    const vx = findInterface(t, 'vxlan.calico')!
    assert.deepEqual([vx.kind, vx.mtu, vx.vxlan], ['vxlan', 1450, {id: 4096, port: 4789, dev: 'eth0'}])
    const cali = findInterface(t, 'cali1234567890a')!
    assert.deepEqual([cali.kind, cali.linkIndex, cali.state, cali.linkNetns?.startsWith('nd-')], ['veth', 2, 'UP', true])
    assert.equal(findInterface(t, 'eth0')?.link, 'eth0-peer')
    assert.equal(findInterface(t, 'cali0fedcba9876')?.state, 'DOWN')
  })

  it('a real IPIP node: tunl0@NONE, secondary labels, peers and masters', () => {
    const t = parseLinks(readFixture('parse/links/ip-addr-calico-ipip.txt'))
    const tunl = findInterface(t, 'tunl0')!
    assert.deepEqual([tunl.link, tunl.linkType, tunl.mtu, tunl.addresses[0]?.local], [undefined, 'ipip', 1480, '10.244.120.64'])
    assert.deepEqual(findInterface(t, 'ens3')?.addresses.map((a) => [a.local, a.label, a.flags]), [
      ['192.168.122.10', 'ens3', ['dynamic', 'noprefixroute']],
      ['192.168.122.200', 'ens3:vip', ['secondary']],
      ['fe80::5054:ff:fe12:3456', undefined, ['noprefixroute']],
    ])
    assert.deepEqual(findInterface(t, 'ens3')?.altNames, ['enp0s3'])
    assert.equal(findInterface(t, 'vethab12cd3')?.master, 'docker0')
    assert.deepEqual(findInterface(t, 'wg0')?.addresses[0], {family: 'inet', local: '10.8.0.1', prefixlen: 32, scope: 'global', label: 'wg0', peer: '10.8.0.2/32', flags: []})
    assert.deepEqual(kubeIpvsAddresses(t), ['10.96.0.1', '10.96.0.10', '10.96.143.7'])
    const cal = calicoInterfaces(t)
    assert.deepEqual([cal.ipip?.name, cal.vxlan, cal.workloads.map((w) => w.name)], ['tunl0', undefined, ['cali1234567890a']])
  })

  it('text and JSON give identical models (bar namespace names), in the same key order', () => {
    const strip = (s: string) => JSON.stringify(parseLinks(s).interfaces.map(({line: _l, linkNetns: _n, linkNetnsId: _i, ...r}) => r))
    assert.equal(strip(readFixture('parse/links/ip-j-d-addr.json')), strip(readFixture('parse/links/ip-d-addr.txt')))
  })

  it('helpers: kube-ipvs0 leaves out link-local addresses; workload names are cali + 11 hex', () => {
    assert.deepEqual(kubeIpvsAddresses(parseLinks(readFixture('parse/links/ip-j-addr.json'))), ['10.96.0.1', '10.96.0.10'])
    assert.deepEqual(kubeIpvsAddresses(parseLinks('1: lo: <LOOPBACK,UP> mtu 65536 qdisc noqueue state UNKNOWN\n')), [])
    assert.equal(isCalicoWorkloadInterface('cali1234567890a'), true)
    assert.equal(isCalicoWorkloadInterface('calico'), false)
    assert.equal(isCalicoWorkloadInterface('cali1234567890ab'), false)
  })

  it('CRLF and `ip -j addr show dev X` placeholders', () => {
    const text = readFixture('parse/links/ip-addr.txt')
    assert.deepEqual(parseLinks(text.replaceAll('\n', '\r\n')), parseLinks(text))
    const t = parseLinks('[{"ifindex":7,"ifname":"kube-ipvs0","flags":["BROADCAST","NOARP"],"addr_info":[{},{"family":"inet","local":"10.96.0.1","prefixlen":32,"scope":"global"}]}]')
    assert.deepEqual(kubeIpvsAddresses(t), ['10.96.0.1'])
  })
})

describe('parseLinks bad input', () => {
  const cases: Array<[string, string, number, RegExp]> = [
    ['empty input', '\n', 1, /empty input: expected an interface listing/],
    ['binary garbage', '1: lo: <LOOPBACK> mtu 1\n\x00\x00', 2, /binary data/],
    ['iptables-save given instead', '*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n', 1, /this looks like iptables-save output; expected an interface listing/],
    ['ip route given instead', 'default via 10.0.0.1 dev eth0 proto dhcp\n', 1, /looks like `ip route` output/],
    ['ip -j route given instead', '[{"dst":"default","gateway":"10.0.0.1"}]', 1, /looks like `ip -j route` JSON, not interface JSON/],
    ['an indented line first', '    inet 10.0.0.5/24 scope global eth0\n', 1, /unrecognised input|looks like/],
    ['a garbage header', '1: lo: <LOOPBACK> mtu 65536\nzzz\n', 2, /expected an interface header "N: name: <FLAGS> mtu \.\.\."/],
    ['an address cut short', '2: eth0: <UP> mtu 1500\n    inet\n', 2, /"inet" without an address \(the line is truncated\)/],
    ['a bad address', '2: eth0: <UP> mtu 1500\n    inet 10.0.0.500/24 scope global eth0\n', 2, /invalid inet address "10.0.0.500\/24"/],
    ['a bad prefix length', '2: eth0: <UP> mtu 1500\n    inet6 fd00::1/129 scope global\n', 2, /invalid prefix length in "fd00::1\/129"/],
    ['truncated JSON', '[{"ifindex":1,"ifname":"lo",\n"flags":["UP"', 2, /input ends early \(truncated JSON\)/],
    ['JSON interface without ifindex', '[{"ifindex":1,"ifname":"lo"},\n{"ifname":"eth0"}]', 2, /interface #2 \(eth0\) has no "ifindex"/],
    ['JSON flags of the wrong type', '[{"ifindex":1,"ifname":"lo","flags":"UP"}]', 1, /"flags" must be an array of strings/],
  ]
  for (const [name, text, line, message] of cases) {
    it(`${name}: line ${line}`, () => {
      const err = parseError(() => parseLinks(text))
      assert.match(err.message, message)
      assert.equal(err.line, line)
    })
  }
})
