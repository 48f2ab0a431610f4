// The lenient ipvsadm reader of `ipvs show --from-file`: pasted listings (test/fixtures/pasted/ipvs, written with
// ipvsadm 1.31's printf formats: `%-28s` real servers, names cut at 28 characters without -n) give a non-empty view
// and the warnings that say what was assumed, at the user's lines; whole listings read as the strict parser reads
// them; other tools' output keeps its "this looks like" error.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {parseIpvsadm} from '../../../../../src/core/parse/ipvsadm.js'
import {readPastedIpvsadm} from '../../../../../src/core/parse/ipvsadm/pasted.js'
import {ParseError} from '../../../../../src/errors.js'
import {renderIpvsShow} from '../../../../../src/render/ipvs-show.js'
import {expectGolden, readFixture} from '../../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from '../fuzz-support.js'

const FIXTURES = {
  'ipvsadm-L-names.txt': {
    format: 'list',
    services: ['TCP ip-10-0-1-23.eu-west-1.compu:0', 'TCP 10.96.0.1:443', 'TCP 10.96.0.10:53', 'UDP 10.96.0.10:53', 'TCP 10.96.0.10:9153'],
    warnings: [
      [1, 'shell prompt `$ sudo ipvsadm -L` skipped'],
      [5, '3 lines use host names: not comparable with ClusterIPs (`ipvsadm -L` without -n; collect `ipvsadm -Ln`)'],
      [5, '3 names are exactly 28 characters, where ipvsadm cuts names: they may be truncated (a port cut off is shown as 0)'],
      [6, 'service names read as their well-known ports: http-alt=8080, https=443, domain=53'],
    ],
  },
  'ipvsadm-header-cut-indented.txt': {
    format: 'list',
    services: ['TCP 10.96.0.1:443', 'TCP 10.96.0.10:53', 'UDP 10.96.0.10:53'],
    warnings: [
      [1, 'common indentation of 4 spaces removed'],
      [1, 'the `Prot LocalAddress:Port` header line was cut off: read as `ipvsadm -Ln` from the real-server header'],
    ],
  },
  'ipvsadm-tail.txt': {
    format: 'list',
    services: ['TCP 10.96.0.10:53', 'TCP 10.96.123.45:80', 'UDP 10.96.0.10:53'],
    warnings: [
      [1, 'CRLF line ends read as LF'],
      [1, 'the listing starts inside a virtual service (its header and service lines were cut off): read as the `ipvsadm -Ln` listing'],
      [1, '1 real server line before the first virtual service skipped (its service line was cut off)'],
      [7, 'shell prompt `root@worker-2:~#` skipped'],
    ],
  },
} as const

describe('readPastedIpvsadm', () => {
  for (const [name, want] of Object.entries(FIXTURES)) {
    it(`${name}: a view and the warnings, at the user's lines; the strict parser refuses it`, () => {
      const text = readFixture(`pasted/ipvs/${name}`)
      const {table, warnings} = readPastedIpvsadm(text)
      assert.equal(table.format, want.format)
      assert.deepEqual(table.virtualServers.map((v) => v.id), want.services)
      assert.deepEqual(warnings.map((w) => [w.line, w.message]), want.warnings)
      assert.throws(() => parseIpvsadm(text), ParseError)
      const base = name.replace(/\.txt$/, '')
      expectGolden(`pasted/ipvs/${base}.show.golden.txt`, renderIpvsShow(table, 'table', {color: false, source: name, warnings}))
      const json = JSON.parse(renderIpvsShow(table, 'json', {color: false, source: name, warnings})) as {warnings: unknown; virtualServers: unknown[]}
      assert.deepEqual(json.warnings, warnings)
      assert.ok(json.virtualServers.length > 0)
    })
  }

  it('keeps the names as printed and marks them: host names, service names with their port, cut names', () => {
    const {table} = readPastedIpvsadm(readFixture('pasted/ipvs/ipvsadm-L-names.txt'))
    const [cut, api] = table.virtualServers
    assert.deepEqual([cut?.address, cut?.port, cut?.hostName, cut?.portName], ['ip-10-0-1-23.eu-west-1.compu', 0, true, undefined])
    assert.deepEqual([api?.address, api?.port, api?.hostName, api?.portName], ['10.96.0.1', 443, undefined, 'https'])
    assert.deepEqual(api?.realServers.map((r) => [r.address, r.port, r.hostName, r.line]), [
      ['ip-10-0-1-23.eu-west-1.compu', 0, true, 9],
      ['ip-10-0-1-24.eu-west-1.compu', 0, true, 10],
    ])
  })

  it('a whole numeric listing reads as the strict parser reads it, without warnings', () => {
    for (const f of ['list', 'stats', 'rate', 'persistent-conn', 'thresholds', 'tun-info', 'save']) {
      const text = readFixture(`parse/ipvs/${f}.txt`)
      const {table, warnings} = readPastedIpvsadm(text)
      assert.deepEqual(warnings, [], f)
      assert.deepEqual(table, parseIpvsadm(text), f)
    }
  })

  it('header lines cut off from the other listings: the variant is read from the columns and said', () => {
    const stats = readPastedIpvsadm('TCP  10.96.0.1:443                    12      345      300    23456    34567\n  -> 10.0.0.5:6443                      12      345      300    23456    34567\n')
    assert.equal(stats.table.format, 'list-stats')
    assert.match(stats.warnings[0]?.message ?? '', /read as `ipvsadm -Ln --stats`/)
    const pc = readPastedIpvsadm('  -> RemoteAddress:Port\nTCP  10.96.0.1:443 rr\n  -> 10.0.0.5:6443                1         0           4          0         \n')
    assert.equal(pc.table.format, 'list-persistent-conn')
    assert.match(pc.warnings[0]?.message ?? '', /--persistent-conn/)
  })

  it('other tools keep their "this looks like" error, at the user line', () => {
    const cases: Array<[string, RegExp, number]> = [
      ['$ iptables-save\n*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n', /this looks like iptables-save output; expected ipvsadm output/, 2],
      ['    default via 10.0.0.1 dev eth0\n', /this looks like `ip route` output/, 1],
      ['IPVS connection entries\npro expire state source\n', /connection table/, 1],
      ['\x00\x01ELF\x02binary', /binary data/, 1],
    ]
    for (const [text, re, line] of cases) {
      assert.throws(() => readPastedIpvsadm(text), (e: unknown) => e instanceof ParseError && re.test(e.message) && e.line === line, text)
    }
  })

  it('fuzz: any input, mutated pastes too, gives a table or a ParseError with a line', () => {
    const seeds = Object.keys(FIXTURES).map((f) => readFixture(`pasted/ipvs/${f}`))
    const tokens = ['->', 'RemoteAddress:Port', 'TCP', 'UDP', 'rr', 'Masq', '1', '0', 'kubernetes.default:https', 'worker-1:6443', 'ip-10-0-1-23.eu-west-1.compu', '10.96.0.1:domain', '$', '```', '>', '    ', 'root@n:~#']
    fc.assert(fc.property(fc.oneof(mutated(seeds, tokens), anyText(tokens)), (text) => parsesOrFailsCleanly((t) => readPastedIpvsadm(t), text)), {numRuns: FUZZ_RUNS})
  })
})
