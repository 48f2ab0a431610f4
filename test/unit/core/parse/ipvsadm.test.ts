// ipvsadm parser. Fixtures under test/fixtures/parse/ipvs are written with ipvsadm 1.31's own printf formats
// (see node-state.md A.10): kube-proxy VIPs 10.96.0.0/12, pods 10.244.0.0/16, node 10.0.0.5, IPv6 fd00::/8.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {detectIpvsFormat, type IpvsFormat, ipvsServiceId, parseIpvsadm} from '../../../../src/core/parse/ipvsadm.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {parseError} from './fuzz-support.js'

const FIXTURES: Array<[string, IpvsFormat]> = [
  ['list', 'list'],
  ['list-single-service', 'list'],
  ['list-pasted', 'list'],
  ['list-empty', 'list'],
  ['stats', 'list-stats'],
  ['rate', 'list-rate'],
  ['persistent-conn', 'list-persistent-conn'],
  ['thresholds', 'list-thresholds'],
  ['tun-info', 'list-tun-info'],
  ['save', 'save'],
]


describe('parseIpvsadm goldens', () => {
  for (const [name, format] of FIXTURES) {
    it(`${name}.txt → ${format}`, () => {
      const text = readFixture(`parse/ipvs/${name}.txt`)
      assert.equal(detectIpvsFormat(text), format)
      const table = parseIpvsadm(text)
      assert.equal(table.format, format)
      expectGolden(`parse/ipvs/${name}.golden.json`, JSON.stringify(table, null, 2) + '\n')
    })
  }
})

describe('parseIpvsadm listing', () => {
  const t = parseIpvsadm(readFixture('parse/ipvs/list.txt'))
  const vs = (id: string) => {
    const v = t.virtualServers.find((x) => x.id === id)
    assert.ok(v, `virtual server ${id}`)
    return v
  }

  it('reads the version line, every protocol and fwmark services', () => {
    assert.equal(t.version, '1.2.1')
    assert.equal(t.connectionTableSize, 4096)
    assert.deepEqual(
      t.virtualServers.map((v) => v.id),
      [
        'TCP 10.0.0.5:30080',
        'TCP 127.0.0.1:30080',
        'TCP 10.96.0.1:443',
        'TCP 10.96.0.10:53',
        'TCP 10.96.0.10:9153',
        'TCP 10.96.50.1:80',
        'TCP 192.168.9.101:80',
        'UDP 10.96.0.10:53',
        'SCTP 10.96.44.1:3868',
        'TCP [fd00:96::1]:443',
        'UDP [fd00:96::a]:53',
        'FWM 10',
        'FWM 20 IPv6',
      ],
    )
    assert.deepEqual([vs('FWM 20 IPv6').family, vs('FWM 20 IPv6').fwmark, vs('FWM 20 IPv6').scheduler], ['ipv6', 20, 'lc'])
  })

  it('reads persistence, netmask, engine, one-packet and scheduler flags', () => {
    assert.deepEqual(vs('TCP 10.96.0.1:443').persistence, {timeoutSeconds: 10800})
    const w = vs('TCP 192.168.9.101:80')
    assert.deepEqual([w.scheduler, w.persistence, w.onePacket], ['wrr', {timeoutSeconds: 300, netmask: '255.255.255.0', engine: 'sip'}, true])
    assert.deepEqual(vs('TCP 10.96.50.1:80').schedulerFlags, ['mh-fallback', 'mh-port'])
    assert.deepEqual(vs('UDP [fd00:96::a]:53').persistence, {timeoutSeconds: 600, netmask: '64'})
  })

  it('reads forward methods, weights and connection counts, including weight 0 and overflowing IPv6', () => {
    assert.deepEqual(
      vs('TCP 10.96.0.1:443').realServers.map((r) => [r.address, r.port, r.forward, r.weight, r.activeConnections, r.inactiveConnections]),
      [
        ['10.0.0.5', 6443, 'local', 1, 4, 0],
        ['10.0.0.6', 6443, 'masq', 1, 2, 0],
      ],
    )
    assert.equal(vs('TCP 10.96.0.10:53').realServers[1]?.weight, 0)
    assert.deepEqual(vs('TCP 192.168.9.101:80').realServers.map((r) => r.forward), ['route', 'tunnel'])
    assert.deepEqual(vs('TCP 10.96.0.10:9153').realServers, [])
    const long = vs('TCP [fd00:96::1]:443').realServers[1]!
    assert.deepEqual([long.address, long.port, long.family, long.forward, long.weight], ['fd00:1111:2222:3333:4444:5555:6666:7777', 6443, 'ipv6', 'masq', 1])
  })

  it('gives the same model for CRLF line endings, a BOM, colour codes and collapsed spacing', () => {
    const text = readFixture('parse/ipvs/list.txt')
    const base = parseIpvsadm(text)
    assert.deepEqual(parseIpvsadm(text.replaceAll('\n', '\r\n')), base)
    assert.deepEqual(parseIpvsadm('\ufeff' + text), base)
    assert.deepEqual(parseIpvsadm(text.replace('TCP  10.96.0.1:443', '\x1b[1mTCP\x1b[0m  10.96.0.1:443')), base)
    assert.deepEqual(parseIpvsadm(text.split('\n').map((l) => l.replace(/ +/g, ' ').trimEnd()).join('\n')), base)
  })

  it('ids identify a service whatever the variant', () => {
    const ids = (name: string) => parseIpvsadm(readFixture(`parse/ipvs/${name}.txt`)).virtualServers.map((v) => v.id)
    assert.deepEqual(ids('persistent-conn'), ['TCP 10.96.0.1:443'])
    assert.ok(ids('save').includes('TCP 10.96.0.1:443'))
    assert.equal(ipvsServiceId({protocol: 'udp', family: 'ipv6', address: 'fd00::a', port: 53}), 'UDP [fd00::a]:53')
  })
})

describe('parseIpvsadm variants', () => {
  it('--stats: scaled counters are expanded and flagged approximate', () => {
    const t = parseIpvsadm(readFixture('parse/ipvs/stats.txt'))
    const web = t.virtualServers[1]!
    assert.equal(web.scheduler, undefined)
    assert.deepEqual(web.stats, {connections: 14209, inPackets: 111769, outPackets: 74613, inBytes: 7207174, outBytes: 1234e9, approximate: true})
    assert.deepEqual(t.virtualServers[0]!.stats, {connections: 0, inPackets: 0, outPackets: 0, inBytes: 0, outBytes: 0})
    assert.deepEqual(t.virtualServers[2]!.realServers[0]!.stats, {connections: 250000000, inPackets: 987654e3, outPackets: 123e9, inBytes: 98765e9, outBytes: 100e12, approximate: true})
  })

  it('--rate, --persistent-conn, --thresholds and --tun-info columns', () => {
    const rate = parseIpvsadm(readFixture('parse/ipvs/rate.txt')).virtualServers[0]!
    assert.deepEqual(rate.realServers[0]!.rates, {connectionsPerSecond: 6, inPacketsPerSecond: 170, outPacketsPerSecond: 110, inBytesPerSecond: 25500, outBytesPerSecond: 440000})
    const pc = parseIpvsadm(readFixture('parse/ipvs/persistent-conn.txt')).virtualServers[0]!
    assert.deepEqual([pc.scheduler, pc.persistence?.timeoutSeconds], ['rr', 10800])
    assert.deepEqual(pc.realServers.map((r) => [r.weight, r.persistentConnections, r.activeConnections, r.inactiveConnections]), [[1, 3, 4, 0], [0, 1, 2, 0]])
    const th = parseIpvsadm(readFixture('parse/ipvs/thresholds.txt')).virtualServers[0]!
    assert.deepEqual(th.realServers.map((r) => [r.upperThreshold, r.lowerThreshold, r.activeConnections]), [[100, 50, 7], [0, 0, 0]])
    const tun = parseIpvsadm(readFixture('parse/ipvs/tun-info.txt')).virtualServers[0]!
    assert.deepEqual(tun.realServers.map((r) => [r.forward, r.tunnel, r.weight, r.activeConnections]), [['tunnel', 'gue:6080', 1, 0], ['masq', undefined, 1, 2]])
  })

  it('save form: services, real servers, options and the gatewaying ambiguity', () => {
    const t = parseIpvsadm(readFixture('parse/ipvs/save.txt'))
    const by = (id: string) => t.virtualServers.find((v) => v.id === id)!
    assert.deepEqual(by('TCP 10.96.0.1:443').realServers.map((r) => [r.address, r.forward, r.weight]), [
      ['10.0.0.5', 'gatewaying', 1],
      ['10.0.0.6', 'masq', 1],
    ])
    assert.equal(by('SCTP 10.96.44.1:3868').protocol, 'sctp')
    assert.deepEqual(by('TCP [fd00:96::1]:443').persistence, {timeoutSeconds: 300, netmask: '64'})
    const w = by('TCP 192.168.9.101:80')
    assert.deepEqual([w.persistence, w.onePacket], [{timeoutSeconds: 300, netmask: '255.255.255.0', engine: 'sip'}, true])
    assert.deepEqual(
      [w.realServers[0]!.forward, w.realServers[0]!.upperThreshold, w.realServers[0]!.lowerThreshold, w.realServers[0]!.tunnel],
      ['tunnel', 100, 50, '--tun-type gue --tun-port 6080'],
    )
    assert.deepEqual([by('FWM 20 IPv6').schedulerFlags, by('FWM 20 IPv6').realServers[0]!.address], [['sh-fallback', 'sh-port'], 'fd00:10:244::5'])
    assert.equal(by('UDP 10.96.0.10:53').realServers[1]!.weight, 0)
  })
})

describe('parseIpvsadm bad input', () => {
  const LIST_HEAD = 'IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n'
  const cases: Array<[string, string, number, RegExp]> = [
    ['empty input', '', 1, /empty input: expected ipvsadm output/],
    ['blank lines only', '\n  \n\n', 1, /empty input/],
    ['colour codes only', '\x1b[31m\n\x1b[0m\n', 1, /empty input/],
    ['binary garbage', 'TCP  10.0.0.1:80 rr\n\x00\x01\x02garbage', 2, /binary data \(control character 0x00\)/],
    ['invalid UTF-8', 'TCP  10.0.0.1:80 rr\n\ufffd\ufffd', 2, /binary data \(invalid UTF-8\)/],
    ['iptables-save given instead', '# Generated by iptables-save v1.8.7\n*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n', 1, /looks like iptables-save output; expected ipvsadm output/],
    ['an nft ruleset given instead', 'table ip kube-proxy {\n}\n', 1, /looks like an nft ruleset/],
    ['ip route given instead', 'default via 10.0.0.1 dev eth0\n', 1, /looks like `ip route` output/],
    ['the version line alone (truncated)', 'IP Virtual Server version 1.2.1 (size=4096)\n', 2, /input ends after the version line/],
    ['the header without the real-server header (truncated)', 'IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n', 3, /input ends after the header/],
    ['a real server line cut short', LIST_HEAD + 'TCP  10.96.0.1:443 rr\n  -> 10.0.0.5:6443                Masq    1', 5, /missing columns: expected Forward Weight ActiveConn InActConn \(the line is truncated\)/],
    ['a service line cut before the scheduler', LIST_HEAD + 'TCP  10.96.0.1:443\n', 4, /has no scheduler: the line is truncated/],
    ['resolved names (no -n)', LIST_HEAD + 'TCP  ip-10-0-62-121.ec2.internal: rr\n', 4, /is a host name, not an address: collect `ipvsadm -Ln`/],
    ['a service port name', LIST_HEAD + 'TCP  10.0.0.1:http rr\n', 4, /is a service name: collect `ipvsadm -Ln` \(numeric ports\)/],
    ['an unknown forwarding method', LIST_HEAD + 'TCP  10.0.0.1:80 rr\n  -> 10.0.0.2:80 Bridge 1 0 0\n', 5, /unknown forwarding method "Bridge"/],
    ['a real server before any service', LIST_HEAD + '  -> 10.0.0.2:80 Masq 1 0 0\n', 4, /real server line before any virtual service line/],
    ['an unknown protocol', LIST_HEAD + 'ICMP 10.0.0.1:80 rr\n', 4, /unknown protocol "ICMP"/],
    ['a bad IPv4 address', LIST_HEAD + 'TCP  10.0.0.300:80 rr\n', 4, /invalid IPv4 address "10.0.0.300"/],
    ['a port out of range', LIST_HEAD + 'TCP  10.0.0.1:70000 rr\n', 4, /invalid port "70000"/],
    ['an unknown service option', LIST_HEAD + 'TCP  10.0.0.1:80 rr sticky\n', 4, /unexpected "sticky" in service TCP 10.0.0.1:80/],
    ['a bad netmask', LIST_HEAD + 'TCP  10.0.0.1:80 rr persistent 300 mask 255.0.255.0\n', 4, /invalid persistence netmask/],
    ['stats columns cut short', 'IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes\n  -> RemoteAddress:Port\nTCP  10.0.0.1:80   1 2 3\n', 4, /expected 5 columns .* found 3 \(the line is truncated\)/],
    ['the connection table', 'IPVS connection entries\npro expire state       source             virtual            destination\n', 1, /IPVS connection table \(`ipvsadm -Lnc`\), not supported/],
    ['the timeout listing', 'Timeout (tcp tcpfin udp): 900 120 300\n', 1, /--timeout` output, not supported/],
    ['an ipvsadm error message', "Can't initialize ipvs: Protocol not available\nAre you sure that IP Virtual Server is built in the kernel or as module?\n", 1, /ipvsadm error message/],
    ['save: a real server for an undefined service', '-A -t 10.0.0.1:80 -s rr\n-a -t 10.0.0.9:80 -r 10.0.0.2:80 -m -w 1\n', 2, /real server for TCP 10.0.0.9:80, which no earlier -A line defines/],
    ['save: an option cut off', '-A -t 10.0.0.1:80 -s\n', 1, /-s needs a value \(the line is truncated\)/],
    ['save: a foreign line', '-A -t 10.0.0.1:80 -s rr\nCOMMIT\n', 2, /every line of `ipvsadm -Sn` output starts with -A/],
    ['save: a duplicate service', '-A -t 10.0.0.1:80 -s rr\n-A -t 10.0.0.1:80 -s wrr\n', 2, /defined twice \(first on line 1\)/],
    ['save: an unknown real-server option', '-A -t 10.0.0.1:80 -s rr\n-a -t 10.0.0.1:80 -r 10.0.0.2:80 -m -w 1 --bogus\n', 2, /unknown option "--bogus" for a real server/],
  ]
  for (const [name, text, line, message] of cases) {
    it(`${name}: line ${line}`, () => {
      const err = parseError(() => parseIpvsadm(text))
      assert.match(err.message, message)
      assert.equal(err.line, line)
    })
  }
})
