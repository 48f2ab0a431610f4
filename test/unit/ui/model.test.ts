// The dashboard's view model: columns, cells, rows, filter, progress line and the node view's lists.
import assert from 'node:assert/strict'
import {before, describe, it} from 'node:test'
import {AREAS, buildReport, type CheckResult, type Finding, type Report} from '../../../src/core/model/report.js'
import {mergeReport} from '../../../src/ui/fleet-state.js'
import {
  COLUMNS,
  columnCell,
  columnOf,
  filterRows,
  fleetRows,
  nodeDetail,
  nodeItems,
  progressSummary,
  progressText,
  type ServiceRef,
} from '../../../src/ui/model.js'
import {nodeServices} from '../../../src/app/dashboard/service-detail.js'
import {analysesOf, exampleBundle, METADATA} from './fixtures.js'

const rules = COLUMNS.find((c) => c.key === 'rules')!

function finding(p: Partial<Finding> & Pick<Finding, 'id' | 'severity' | 'area'>): Finding {
  return {node: 'n1', message: `${p.id} message`, subject: {kind: 'chain', name: 'KUBE-SVC-X'}, evidence: [], remedy: 'r', ...p}
}

function result(p: Partial<CheckResult> & Pick<CheckResult, 'id' | 'area' | 'status'>): CheckResult {
  return {node: 'n1', ...p}
}

describe('dashboard view model', () => {
  let report: Report
  let services: ServiceRef[]
  before(async () => {
    const bundle = await exampleBundle()
    const analyses = analysesOf(bundle)
    report = mergeReport(METADATA, bundle.cluster, ['node-a', 'node-b'], analyses)
    const a = analyses.get('node-a')!
    services = nodeServices(a.cluster, a.snapshot) as ServiceRef[]
  })

  it('summarises every report area in exactly one column', () => {
    for (const area of AREAS) assert.equal(COLUMNS.filter((c) => c.areas.includes(area)).length, 1, area)
    assert.equal(columnOf('conntrack')?.key, 'rules')
  })

  it('gives a column its most severe finding, else ok when a check ran, else n/a', () => {
    const results = [result({id: 'IPT-001', area: 'iptables', status: 'passed'}), result({id: 'IPVS-1', area: 'ipvs', status: 'skipped'})]
    assert.deepEqual(columnCell(rules, results, [], false), {status: 'ok', text: 'ok'})
    assert.deepEqual(columnCell(rules, [result({id: 'IPVS-1', area: 'ipvs', status: 'skipped'})], [], false), {status: 'skipped', text: 'n/a'})
    const fs = [
      finding({id: 'IPT-002', severity: 'warning', area: 'iptables'}),
      finding({id: 'EP-001', severity: 'error', area: 'endpoints'}),
      finding({id: 'IPT-003', severity: 'error', area: 'iptables'}),
      finding({id: 'KUBELET-1', severity: 'error', area: 'kubelet'}),
    ]
    assert.deepEqual(columnCell(rules, results, fs, false), {status: 'error', text: '2 errors'})
    assert.deepEqual(columnCell(rules, results, fs.slice(0, 1), false), {status: 'warning', text: '1 warning'})
    assert.deepEqual(columnCell(rules, results, [finding({id: 'CT-1', severity: 'info', area: 'conntrack'})], false), {status: 'info', text: '1 info'})
    assert.deepEqual(columnCell(rules, results, fs, true), {status: 'unknown', text: 'unknown'})
  })

  it('builds the fleet rows of the example bundle, the proxy column naming the mode', () => {
    const rows = fleetRows(report, [{name: 'node-a', state: 'done'}, {name: 'node-b', state: 'done'}], new Map([['node-a', 'iptables']]))
    assert.deepEqual(
      rows.map((r) => [r.name, r.status, ...COLUMNS.map((c) => `${r.cells[c.key].status}:${r.cells[c.key].text}`)]),
      [
        ['node-a', 'unhealthy', 'skipped:n/a', 'ok:iptables', 'error:1 error', 'ok:ok', 'skipped:n/a'],
        ['node-b', 'healthy', 'skipped:n/a', 'ok:ok', 'ok:ok', 'ok:ok', 'skipped:n/a'],
      ],
    )
  })

  it('shows waiting and collecting nodes as pending, and an uncollected node with its cause', () => {
    const failed = buildReport({
      metadata: METADATA,
      nodes: [{name: 'n3'}],
      collectionErrors: [{node: 'n3', source: 'connect', message: 'connection refused', fatal: true}],
    })
    const rows = fleetRows(failed, [{name: 'n1', state: 'waiting'}, {name: 'n2', state: 'collecting'}, {name: 'n3', state: 'done'}])
    assert.deepEqual(rows.map((r) => [r.name, r.status, r.cells.kubelet.status, r.problem]), [
      ['n1', undefined, 'pending', undefined],
      ['n2', undefined, 'pending', undefined],
      ['n3', 'uncollected', 'unknown', 'connect: connection refused'],
    ])
    assert.deepEqual(progressSummary(rows), {total: 3, done: 1, collecting: 1, waiting: 1, failed: 1})
    assert.equal(progressText(progressSummary(rows), failed), 'collecting 1/3 · 1 running · 1 failed')
  })

  it('filters rows by part of the name or by status, every word matching', () => {
    const rows = fleetRows(report, [{name: 'node-a', state: 'done'}, {name: 'node-b', state: 'done'}])
    assert.deepEqual(filterRows(rows, 'B').map((r) => r.name), ['node-b'])
    assert.deepEqual(filterRows(rows, 'unhealthy').map((r) => r.name), ['node-a'])
    assert.deepEqual(filterRows(rows, 'node healthy').map((r) => r.name), ['node-b'])
    assert.deepEqual(filterRows(rows, '  ').map((r) => r.name), ['node-a', 'node-b'])
    assert.deepEqual(filterRows(rows, 'zzz'), [])
  })

  it('says the fleet verdict when every node is done', () => {
    const rows = fleetRows(report, [{name: 'node-a', state: 'done'}, {name: 'node-b', state: 'done'}])
    assert.equal(progressText(progressSummary(rows), report), '2 nodes checked · 1 error, 1 warning')
    assert.equal(progressText(progressSummary([]), undefined), 'reading the cluster…')
  })

  it('ranks the node view: findings most severe first, Service ports with findings first', () => {
    const d = nodeDetail(report, 'node-a', services)
    assert.equal(d.status, 'unhealthy')
    assert.deepEqual(d.findings.map((f) => f.id), ['IPT-003', 'IPT-002'])
    assert.deepEqual(d.services.map((s) => [s.name, s.findings, s.worst]), [
      ['default/lb:http', 2, 'error'],
      ['default/lb-empty:http', 0, undefined],
      ['default/lb-open:http', 0, undefined],
      ['default/sticky-local:http', 0, undefined],
      ['default/sticky:http', 0, undefined],
    ])
    const items = nodeItems(d)
    assert.deepEqual(items.map((i) => (i.kind === 'finding' ? i.finding.id : i.service.name)).slice(0, 3), ['IPT-003', 'IPT-002', 'default/lb:http'])
    assert.deepEqual(nodeItems(d, 'STICKY local').map((i) => (i.kind === 'finding' ? i.finding.id : i.service.name)), ['default/sticky-local:http'])
    assert.deepEqual(nodeItems(d, 'stale').map((i) => (i.kind === 'finding' ? i.finding.id : i.service.name)), ['IPT-002'])
  })
})
