// Baseline files: parsing (errors name the line), matching (id/node globs, subject glob or substring), expiry,
// and what applyBaseline does to the report (summary recomputed, results flipped, suppressed kept with reasons).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {applyBaseline, entryMatches, globToRegExp, parseBaseline} from '../../../src/core/baseline.js'
import {buildReport, type Finding} from '../../../src/core/model/report.js'
import {ParseError} from '../../../src/errors.js'
import {exitCodeForReport} from '../../../src/exit-codes.js'
import {SAMPLE_METADATA} from '../../support/sample-reports.js'

function finding(node: string, id: string, name: string, extra: Partial<Finding> = {}): Finding {
  return {id, node, area: 'iptables', severity: 'error', message: `${name} missing on ${node}`, subject: {kind: 'chain', name, in: 'nat'}, evidence: [], remedy: 'r', ...extra}
}

function report() {
  return buildReport({
    metadata: SAMPLE_METADATA,
    nodes: [{name: 'worker-1'}, {name: 'worker-2'}, {name: 'cp-1'}],
    results: [
      {id: 'IPT-001', node: 'worker-1', area: 'iptables', status: 'failed'},
      {id: 'IPT-001', node: 'worker-2', area: 'iptables', status: 'failed'},
      {id: 'IPT-002', node: 'cp-1', area: 'iptables', status: 'failed'},
    ],
    findings: [
      finding('worker-1', 'IPT-001', 'KUBE-SVC-AAAA'),
      finding('worker-2', 'IPT-001', 'KUBE-SVC-AAAA'),
      finding('worker-2', 'IPT-001', 'KUBE-SVC-BBBB'),
      finding('cp-1', 'IPT-002', 'KUBE-SEP-OLD', {severity: 'warning'}),
    ],
  })
}

describe('parseBaseline', () => {
  it('reads a list or an ignore: mapping, with lines', () => {
    const entries = parseBaseline('# accepted\nignore:\n  - id: IPT-001\n    node: "worker-*"\n    subject: KUBE-SVC-A\n    reason: JIRA-1\n    expires: 2030-01-31\n')
    assert.deepEqual(entries, [{id: 'IPT-001', node: 'worker-*', subject: 'KUBE-SVC-A', reason: 'JIRA-1', expires: '2030-01-31', line: 3}])
    assert.deepEqual(parseBaseline('- {id: X, reason: y}\n').map((e) => e.id), ['X'])
    assert.deepEqual(parseBaseline(''), [])
    assert.deepEqual(parseBaseline('ignore:\n'), [])
  })

  const bad: Array<[string, string, RegExp, number]> = [
    ['no reason', 'ignore:\n  - id: IPT-001\n    node: a\n', /has no "reason"/, 2],
    ['no id', '- reason: x\n', /no "id"/, 1],
    ['an unknown field', '- id: A\n  reason: r\n  nodes: x\n', /unknown field "nodes"/, 3],
    ['a bad date', '- id: A\n  reason: r\n  expires: 2030-02-30\n', /YYYY-MM-DD/, 1],
    ['a non-list', 'ignore: yes\n', /expected a list/, 1],
    ['an unknown top-level key', 'ignored:\n  - id: A\n', /unknown top-level key "ignored"/, 1],
    ['a nested value', '- id: A\n  reason:\n    - r\n', /"reason" must be a string/, 3],
    ['broken YAML', '- id: A\n  reason: r\n  - id: B\n', /invalid YAML/, 3],
  ]
  for (const [what, text, message, line] of bad) {
    it(`rejects ${what} with its line`, () => {
      assert.throws(() => parseBaseline(text), (err: unknown) => err instanceof ParseError && message.test(err.message) && err.line === line)
    })
  }
})

describe('matching', () => {
  it('globs are whole-string and literal otherwise', () => {
    assert.ok(globToRegExp('worker-*').test('worker-12'))
    assert.ok(!globToRegExp('worker-*').test('cp-worker-1'))
    assert.ok(globToRegExp('node-?').test('node-a'))
    assert.ok(globToRegExp('node-[ab]').test('node-b') && !globToRegExp('node-[ab]').test('node-c'))
    assert.ok(!globToRegExp('a.b').test('axb'))
  })

  it('subject: substring without glob characters, glob over name or kind/name otherwise', () => {
    const f = finding('worker-1', 'IPT-001', 'KUBE-SVC-AAAA')
    assert.ok(entryMatches({id: 'IPT-001', subject: 'SVC-AA', reason: 'r'}, f))
    assert.ok(entryMatches({id: 'IPT-*', subject: 'chain/KUBE-SVC-*', reason: 'r'}, f))
    assert.ok(!entryMatches({id: 'IPT-001', subject: 'KUBE-SEP-*', reason: 'r'}, f))
    assert.ok(!entryMatches({id: 'IPT-002', reason: 'r'}, f))
    assert.ok(!entryMatches({id: 'IPT-001', node: 'cp-*', reason: 'r'}, f))
  })
})

describe('applyBaseline', () => {
  it('suppresses matches, recomputes the summary and flips fully-suppressed failed results', () => {
    const {report: r, expired, unused} = applyBaseline(
      report(),
      [
        {id: 'IPT-001', subject: 'KUBE-SVC-AAAA', reason: 'known: svc A', line: 1},
        {id: 'IPT-009', reason: 'nothing', line: 5},
      ],
      '2026-06-01',
    )
    assert.deepEqual(r.findings.map((f) => [f.node, f.subject.name]), [['cp-1', 'KUBE-SEP-OLD'], ['worker-2', 'KUBE-SVC-BBBB']])
    assert.deepEqual(r.suppressed?.map((f) => [f.node, f.subject.name, f.reason]), [['worker-1', 'KUBE-SVC-AAAA', 'known: svc A'], ['worker-2', 'KUBE-SVC-AAAA', 'known: svc A']])
    assert.equal(r.summary.findings.total, 2)
    assert.deepEqual(r.nodes.map((n) => [n.name, n.status]), [['cp-1', 'unhealthy'], ['worker-1', 'healthy'], ['worker-2', 'unhealthy']])
    // worker-1's check now passes (its only finding was suppressed); worker-2 still has KUBE-SVC-BBBB.
    assert.deepEqual(r.results.map((x) => [x.node, x.status, x.reason]), [
      ['cp-1', 'failed', undefined],
      ['worker-1', 'passed', 'suppressed by baseline: known: svc A'],
      ['worker-2', 'failed', undefined],
    ])
    assert.deepEqual(expired, [])
    assert.deepEqual(unused.map((e) => e.id), ['IPT-009'])
  })

  it('an expired entry stops suppressing; the last day still counts', () => {
    const entries = [{id: 'IPT-*', reason: 'freeze', expires: '2026-05-31'}]
    const onLastDay = applyBaseline(report(), entries, '2026-05-31')
    assert.equal(onLastDay.report.findings.length, 0)
    assert.equal(exitCodeForReport(onLastDay.report, 'warning'), 0)
    const dayAfter = applyBaseline(report(), entries, '2026-06-01')
    assert.equal(dayAfter.report.findings.length, 4)
    assert.deepEqual(dayAfter.report.suppressed, [])
    assert.deepEqual(dayAfter.expired, entries)
    assert.equal(exitCodeForReport(dayAfter.report, 'error'), 1)
  })

  it('without entries the report keeps no suppressed field', () => {
    assert.equal('suppressed' in applyBaseline(report(), [], '2026-01-01').report, false)
  })
})
