// Route-listing parser. Most fixtures were captured from iproute2 6.1 / net-tools 2.10 in a netns set up like a
// Calico node (test/integration/parse/netns.ts); ip-route-old-iproute2.txt, ip-6-route-calico.txt and
// route-n-pasted.txt are hand-written in the shapes seen in public bug reports (double spaces, collapsed columns).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {detectRouteFormat, parseRoutes, type Route, type RouteFormat, routeProtocol} from '../../../../src/core/parse/routes.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {parseError} from './fuzz-support.js'

const FIXTURES: Array<[string, RouteFormat]> = [
  ['ip-route.txt', 'ip'],
  ['ip-d-route.txt', 'ip-detailed'],
  ['ip-6-route.txt', 'ip'],
  ['ip-route-table-all.txt', 'ip'],
  ['ip-j-route.json', 'ip-json'],
  ['ip-j-p-route.json', 'ip-json'],
  ['ip-j-d-route-all.json', 'ip-json-detailed'],
  ['route-n.txt', 'route-n'],
  ['route-n-inet6.txt', 'route-n-ipv6'],
  ['ip-route-old-iproute2.txt', 'ip'],
  ['ip-6-route-calico.txt', 'ip'],
  ['route-n-pasted.txt', 'route-n'],
]


const noLines = (rs: Route[]): Route[] => rs.map(({line: _l, ...r}) => r)

describe('parseRoutes goldens', () => {
  for (const [file, format] of FIXTURES) {
    it(`${file} → ${format}`, () => {
      const text = readFixture(`parse/routes/${file}`)
      assert.equal(detectRouteFormat(text), format)
      const t = parseRoutes(text)
      expectGolden(`parse/routes/${file.replace(/\.(txt|json)$/, '')}.golden.json`, JSON.stringify(t, null, 2) + '\n')
    })
  }
})

describe('parseRoutes', () => {
  it('makes hidden defaults explicit and normalises host routes', () => {
    const [r] = parseRoutes('10.244.120.66 dev cali1234567890a scope link\n').routes
    assert.deepEqual(r, {type: 'unicast', family: 'inet', dst: '10.244.120.66/32', dev: 'cali1234567890a', protocol: 'boot', protocolId: 3, scope: 'link', table: 'main', flags: [], line: 1})
    const [v6] = parseRoutes('fd00:0:0::0005 dev cali1 metric 1024 pref medium\n').routes
    assert.deepEqual([v6?.family, v6?.dst], ['inet6', 'fd00::5/128'])
  })

  it('maps protocols like rt_protos: names, numbers, and numbers with a stock name', () => {
    assert.deepEqual(routeProtocol('bird'), {name: 'bird', id: 12})
    assert.deepEqual(routeProtocol('80'), {name: '80', id: 80})
    assert.deepEqual(routeProtocol('12'), {name: 'bird', id: 12})
    assert.deepEqual(routeProtocol(2), {name: 'kernel', id: 2})
    assert.deepEqual(routeProtocol('felix'), {name: 'felix'})
    const r = parseRoutes('10.244.6.0/26 via 10.0.1.7 dev tunl0 proto 12 onlink\n').routes[0]!
    assert.deepEqual([r.protocol, r.protocolId], ['bird', 12])
  })

  it('old iproute2 double spaces and trailing spaces parse like the modern form', () => {
    const old = parseRoutes(readFixture('parse/routes/ip-route-old-iproute2.txt')).routes
    const modern = parseRoutes(readFixture('parse/routes/ip-route-old-iproute2.txt').replace(/ {2,}/g, ' ').replace(/ +$/gm, '')).routes
    assert.deepEqual(old, modern)
    assert.deepEqual(old.find((r) => r.type === 'blackhole')?.dst, '10.10.213.64/26')
    assert.deepEqual(old.find((r) => r.dev === 'tunl0')?.flags, ['onlink'])
  })

  it('IPv6: error codes, expiry, mtu lock, multipath and a default via a link-local gateway', () => {
    const rs = parseRoutes(readFixture('parse/routes/ip-6-route-calico.txt')).routes
    const by = (dst: string) => rs.find((r) => r.dst === dst)!
    assert.deepEqual([by('fd00:10:244:1::/122').type, by('fd00:10:244:1::/122').error, by('fd00:10:244:1::/122').dev], ['blackhole', -22, 'lo'])
    assert.equal(by('fd00:dead::/64').error, -113)
    assert.equal(by('2001:db8:1::/64').metrics?.expires, '2591998sec')
    assert.deepEqual([by('::/0').gateway, by('::/0').mtu, by('::/0').metrics?.mtuLock], ['fe80::1', 1400, 'lock'])
    assert.deepEqual(by('fd00:10:244:3::/122').nexthops?.map((h) => h.gateway), ['fd00::3', 'fd00::4'])
  })

  it('a default route takes its family from its gateway or, failing that, the rest of the listing', () => {
    assert.equal(parseRoutes('default dev wg0 scope link\n').routes[0]?.dst, '0.0.0.0/0')
    assert.equal(parseRoutes('default dev wg0 metric 1024 pref medium\n').routes[0]?.dst, '::/0')
    assert.equal(parseRoutes('default dev wg0 metric 1024\nfd00::/8 dev wg0 metric 256\n').routes[0]?.dst, '::/0')
    assert.equal(parseRoutes('default via 10.0.0.1 dev eth0\n').routes[0]?.family, 'inet')
  })

  it('keeps attributes it does not know instead of failing', () => {
    const r = parseRoutes('10.1.0.0/16 encap mpls 200/300 via 10.0.0.1 dev eth0\n').routes[0]!
    assert.deepEqual([r.dst, r.unparsed], ['10.1.0.0/16', 'encap mpls 200/300 via 10.0.0.1 dev eth0'])
    const m = parseRoutes('10.2.0.0/16 via 10.0.0.1 dev eth0 advmss 1400 hoplimit 64 realm 5\n').routes[0]!
    assert.deepEqual(m.metrics, {advmss: 1400, hoplimit: 64, realm: 5})
  })

  it('text, CRLF, colour and ip -j forms of the captured node agree', () => {
    const text = readFixture('parse/routes/ip-route.txt')
    const base = noLines(parseRoutes(text).routes)
    assert.deepEqual(noLines(parseRoutes(text.replaceAll('\n', '\r\n')).routes), base)
    assert.deepEqual(noLines(parseRoutes(text.replace('blackhole', '\x1b[31mblackhole\x1b[0m')).routes), base)
    assert.deepEqual(noLines(parseRoutes(readFixture('parse/routes/ip-j-route.json')).routes), base)
  })

  it('route -n: blackholes have Iface *, reject routes a ! flag; collapsed columns are fine', () => {
    const rs = parseRoutes(readFixture('parse/routes/route-n-pasted.txt')).routes
    assert.deepEqual(
      rs.map((r) => [r.dst, r.type, r.gateway ?? '-', r.dev ?? '-', r.routeFlags]),
      [
        ['0.0.0.0/0', 'unicast', '10.0.0.1', 'eth0', 'UG'],
        ['10.244.5.0/26', 'unicast', '10.0.1.6', 'tunl0', 'UG'],
        ['10.244.6.130/32', 'unicast', '10.0.1.7', 'tunl0', 'UGH'],
        ['10.244.120.64/26', 'blackhole', '-', '-', 'U'],
        ['10.244.120.66/32', 'unicast', '-', 'cali1234567890a', 'UH'],
      ],
    )
  })
})

describe('parseRoutes bad input', () => {
  const cases: Array<[string, string, number, RegExp]> = [
    ['empty input', '', 1, /empty input: expected a route listing/],
    ['binary garbage', 'default via 10.0.0.1 dev eth0\n\x7fELF\x02\x01\x01', 2, /binary data \(control character 0x7f\)/],
    ['iptables-save given instead', '# Generated by iptables-save v1.8.7 on Mon\n*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j KUBE-FIREWALL\nCOMMIT\n', 1, /this looks like iptables-save output; expected a route listing/],
    ['ipvsadm given instead', 'IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n', 1, /looks like ipvsadm -Ln output/],
    ['ip addr given instead', '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN\n', 1, /looks like `ip addr` \/ `ip link` output/],
    ['ip -j addr JSON given instead', '[{"ifindex":1,"ifname":"lo","flags":["UP"],"addr_info":[]}]', 1, /looks like `ip -j addr` \/ `ip -j link` JSON, not route JSON/],
    ['ip monitor output', 'Deleted 10.10.78.0/26 via 192.168.2.1 dev enp6s0 proto bird\n', 1, /`ip monitor route` output, which is not supported/],
    ['a garbage line', 'default via 10.0.0.1 dev eth0\nhello world\n', 2, /invalid route destination "hello"/],
    ['truncated mid-route', 'default via 10.0.0.1 dev eth0\n10.244.5.0/26 via', 2, /"via" needs a value \(the line is truncated\)/],
    ['a bad gateway', '10.244.5.0/26 via 10.0.1 dev tunl0\n', 1, /invalid gateway address "10.0.1"/],
    ['a bad metric', '10.244.5.0/26 dev eth0 metric high\n', 1, /metric "high" is not a non-negative integer/],
    ['a prefix length out of range', '10.0.0.0/33 dev eth0\n', 1, /invalid route destination "10.0.0.0\/33"/],
    ['a stray nexthop', '\tnexthop via 10.0.0.7 dev eth0 weight 1\n', 1, /"nexthop" line without a multipath route before it/],
    ['truncated JSON', '[{"dst":"default","gateway":"10.0.0.1",\n"dev":"eth0"},\n{"dst":"10.0.0.0/24"', 3, /input ends early \(truncated JSON\)/],
    ['JSON syntax error', '[{"dst":"default"},\n{"dst": 10.0.0.0/24}]', 2, /invalid JSON/],
    ['JSON route without dst', '[{"dst":"default","dev":"eth0"},\n {"dev":"eth1"}]', 2, /route #2 has no "dst"/],
    ['JSON route with a bad type', '[{"dst":"default","type":"teleport"}]', 1, /unknown route type "teleport"/],
    ['JSON that is not an array', '{"dst":"default"}', 1, /is a JSON array; this JSON is not an array/],
    ['route -n header missing', 'Kernel IP routing table\n0.0.0.0 10.0.0.1 0.0.0.0 UG 100 0 0 eth0\n', 2, /missing the "Destination Gateway Genmask \.\.\." header line/],
    ['route -n row cut short', 'Kernel IP routing table\nDestination Gateway Genmask Flags Metric Ref Use Iface\n0.0.0.0 10.0.0.1 0.0.0.0 UG\n', 3, /expected 8 columns .* found 4 \(the line is truncated\)/],
    ['route -n non-contiguous mask', 'Kernel IP routing table\nDestination Gateway Genmask Flags Metric Ref Use Iface\n10.0.0.0 0.0.0.0 255.0.255.0 U 0 0 0 eth0\n', 3, /Genmask 255.0.255.0 is not a contiguous netmask/],
    ['route -n with resolved names', 'Kernel IP routing table\nDestination Gateway Genmask Flags Metric Ref Use Iface\ndefault _gateway 0.0.0.0 UG 100 0 0 eth0\n', 3, /expected a numeric IPv4 address \(use route -n\)/],
    ['route -e extended columns', 'Kernel IP routing table\nDestination Gateway Genmask Flags MSS Window irtt Iface\n', 2, /unexpected route -n header/],
  ]
  for (const [name, text, line, message] of cases) {
    it(`${name}: line ${line}`, () => {
      const err = parseError(() => parseRoutes(text))
      assert.match(err.message, message)
      assert.equal(err.line, line)
    })
  }
})
