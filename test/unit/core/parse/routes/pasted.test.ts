// The lenient route reader of `routes show --from-file`. Fixtures in test/fixtures/pasted/routes are real output
// captured in a network namespace (iproute2 6.1, net-tools 2.10): `ip -t monitor route`, `ip -ts monitor route`,
// `ip monitor all`, `ip monitor route all-nsid` (with the prompt and ^C around it), `route -n -e`, `route -n -ee`,
// `netstat -rn`, and `route -n` without its title, indented. Each gives a non-empty view and its warnings at the
// user's lines; the strict parser refuses each; other tools' output keeps its "this looks like" error.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {parseRoutes} from '../../../../../src/core/parse/routes.js'
import {readPastedRoutes} from '../../../../../src/core/parse/routes/pasted.js'
import {ParseError} from '../../../../../src/errors.js'
import {renderRoutesShow} from '../../../../../src/render/routes-show.js'
import {expectGolden, readFixture} from '../../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from '../fuzz-support.js'

const MONITOR = '`ip monitor route` output: 11 route events (7 added or changed, 4 deleted) read as the routes they leave: only routes that changed while it ran are shown, not the whole table'
const LOCAL_GONE = 'route local fe80::4cc5:1bff:fe88:9eee/128 table local deleted and not re-added: not in the view'
const MONITORED = ['10.244.2.0/26 via 10.0.0.14', '10.244.3.0/26 via 10.0.0.13', '10.244.1.0/26 blackhole', 'ff00::/8 multicast', 'fe80::/64', '10.96.0.0/12']
const ROUTE_N = ['0.0.0.0/0 via 10.0.0.1', '10.0.0.0/24', '10.96.0.0/12 via 10.0.0.11', '10.244.1.0/26 blackhole', '10.244.2.0/26 via 10.0.0.14', '10.244.3.0/26 via 10.0.0.13', '10.244.120.64/26 blackhole']
const EXTRA = 'columns MSS, Window, irtt (`route -n -e`/`-ee` or `netstat -rn`) read but not shown'
const NO_METRIC = 'no Metric column (`route -n -e` or `netstat -rn`): route metrics unknown'

const FIXTURES: Record<string, {format: string; routes: string[]; warnings: Array<[number, string]>}> = {
  'ip-t-monitor-route.txt': {format: 'ip-monitor', routes: MONITORED, warnings: [[1, MONITOR], [1, '11 timestamps removed'], [14, LOCAL_GONE]]},
  'ip-ts-monitor-route.txt': {format: 'ip-monitor', routes: MONITORED, warnings: [[1, MONITOR], [1, '11 timestamps and 11 `[…]` prefixes (nsid, [ROUTE]) removed'], [7, LOCAL_GONE]]},
  'ip-monitor-all.txt': {
    format: 'ip-monitor',
    routes: MONITORED,
    warnings: [[1, MONITOR], [1, '11 `[…]` prefixes (nsid, [ROUTE]) removed'], [6, '5 [LINK] events skipped: not routes'], [9, LOCAL_GONE], [11, '6 [NEIGH] events skipped: not routes'], [14, '1 [ADDR] event skipped: not routes']],
  },
  'ip-monitor-nsid-prompt.txt': {
    format: 'ip-monitor',
    routes: MONITORED,
    warnings: [
      [1, 'shell prompt `root@worker-1:~# ip monitor route all-nsid` skipped'],
      [2, MONITOR],
      [2, '11 `[…]` prefixes (nsid, [ROUTE]) removed'],
      [8, LOCAL_GONE],
      [15, '`^C` (the monitor was stopped) skipped'],
      [16, 'shell prompt `root@worker-1:~#` skipped'],
    ],
  },
  'route-n-e.txt': {format: 'route-n', routes: ROUTE_N, warnings: [[2, EXTRA], [2, NO_METRIC]]},
  'route-n-ee.txt': {format: 'route-n', routes: ROUTE_N, warnings: [[2, EXTRA]]},
  'netstat-rn.txt': {format: 'route-n', routes: ROUTE_N, warnings: [[1, 'shell prompt `$ netstat -rn` skipped'], [3, EXTRA], [3, NO_METRIC]]},
  'route-n-no-title-indented.txt': {
    format: 'route-n',
    routes: ROUTE_N,
    warnings: [[1, 'common indentation of 4 spaces removed'], [1, 'no `Kernel IP routing table` title: read as `route -n` from the column header']],
  },
}

const describeRoute = (r: {dst: string; gateway?: string; type: string}): string =>
  [r.dst, r.gateway === undefined ? '' : `via ${r.gateway}`, r.type === 'unicast' ? '' : r.type].filter(Boolean).join(' ')

describe('readPastedRoutes', () => {
  for (const [name, want] of Object.entries(FIXTURES)) {
    it(`${name}: a view and the warnings, at the user's lines; the strict parser refuses it`, () => {
      const text = readFixture(`pasted/routes/${name}`)
      const {table, warnings} = readPastedRoutes(text, parseRoutes)
      assert.equal(table.format, want.format)
      assert.deepEqual(table.routes.map(describeRoute), want.routes)
      assert.deepEqual(warnings.map((w) => [w.line, w.message]), want.warnings)
      assert.throws(() => parseRoutes(text), ParseError)
      const base = name.replace(/\.txt$/, '')
      expectGolden(`pasted/routes/${base}.show.golden.txt`, renderRoutesShow(table, 'table', {color: false, source: name, warnings}))
      const json = JSON.parse(renderRoutesShow(table, 'json', {color: false, source: name, warnings})) as {warnings: unknown; routes: unknown[]}
      assert.deepEqual(json.warnings, warnings)
    })
  }

  it('ip monitor: a route replaced without a Deleted line is replaced; a deleted one is listed under deleted', () => {
    const {table} = readPastedRoutes(readFixture('pasted/routes/ip-t-monitor-route.txt'), parseRoutes)
    assert.deepEqual(table.routes.filter((r) => r.dst === '10.244.2.0/26').map((r) => [r.gateway, r.line]), [['10.0.0.14', 8]])
    assert.deepEqual(table.deleted?.map((r) => [r.type, r.dst, r.table, r.line]), [['local', 'fe80::4cc5:1bff:fe88:9eee/128', 'local', 14]])
    assert.deepEqual(table.routes.find((r) => r.dst === '10.96.0.0/12')?.nexthops?.map((h) => h.gateway), ['10.0.0.11', '10.0.0.12'])
  })

  it('whole listings read as the strict parser reads them, without warnings', () => {
    for (const f of ['ip-route.txt', 'ip-j-route.json', 'route-n.txt']) {
      const text = readFixture(`parse/routes/${f}`)
      const {table, warnings} = readPastedRoutes(text, parseRoutes)
      assert.deepEqual(warnings, [], f)
      assert.deepEqual(table, parseRoutes(text), f)
    }
  })

  it('other tools keep their "this looks like" error, at the user line', () => {
    const cases: Array<[string, RegExp, number]> = [
      ['$ iptables-save\n*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n', /this looks like iptables-save output; expected a route listing/, 2],
      ['IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n', /this looks like `?ipvsadm -Ln`? output/i, 1],
      ['\x00\x01ELF\x02binary', /binary data/, 1],
    ]
    for (const [text, re, line] of cases) {
      assert.throws(() => readPastedRoutes(text, parseRoutes), (e: unknown) => e instanceof ParseError && re.test(e.message) && e.line === line, text)
    }
  })

  it('fuzz: any input, mutated pastes too, gives a table or a ParseError with a line', () => {
    const seeds = Object.keys(FIXTURES).map((f) => readFixture(`pasted/routes/${f}`))
    const tokens = ['Timestamp: Thu Dec  3 17:50:08 2026 512409 usec', '[nsid current]', '[ROUTE]', '[LINK]', 'Deleted ', '^C', '\tnexthop via 10.0.0.1 dev eth0 weight 1', 'Destination', 'Gateway', 'Genmask', 'Flags', 'MSS', 'Iface', '0.0.0.0', 'UG', '$', '    ']
    fc.assert(fc.property(fc.oneof(mutated(seeds, tokens), anyText(tokens)), (text) => parsesOrFailsCleanly((t) => readPastedRoutes(t, parseRoutes), text)), {numRuns: FUZZ_RUNS})
  })
})
