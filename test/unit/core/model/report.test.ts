import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {buildReport, type Finding} from '../../../../src/core/model/report.js'
import {ExitCode, exitCodeForReport, EXIT_CODE_TABLE} from '../../../../src/exit-codes.js'

const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: '0.0.0'}, command: 'test'}

function finding(node: string, severity: Finding['severity'], id = 'IPT-001'): Finding {
  return {id, node, area: 'iptables', severity, message: 'm', subject: {kind: 'chain', name: 'KUBE-SVC-X'}, evidence: [], remedy: 'r'}
}

describe('buildReport', () => {
  it('derives node and report status from findings and collection errors', () => {
    const r = buildReport({
      metadata: meta,
      nodes: [{name: 'b'}, {name: 'a'}, {name: 'c'}, {name: 'd'}],
      findings: [finding('a', 'error'), finding('a', 'info'), finding('d', 'info')],
      collectionErrors: [{node: 'b', source: 'ssh', message: 'timeout', fatal: true}, {node: 'c', source: 'ipvsadm', message: 'not found'}],
    })
    assert.deepEqual(
      r.nodes.map((n) => [n.name, n.status]),
      [['a', 'unhealthy'], ['b', 'uncollected'], ['c', 'partial'], ['d', 'healthy']],
    )
    assert.equal(r.summary.status, 'unhealthy')
    assert.deepEqual(r.summary.findings, {error: 1, warning: 0, info: 2, total: 3})
    assert.deepEqual(r.summary.nodes, {total: 4, healthy: 1, unhealthy: 1, partial: 1, uncollected: 1})
    assert.equal(r.findings[0]?.severity, 'error', 'findings are sorted most severe first within a node')
  })

  it('is partial when only collection errors exist', () => {
    const r = buildReport({metadata: meta, nodes: [{name: 'a'}], collectionErrors: [{node: 'a', source: 'nft', message: 'x'}]})
    assert.equal(r.summary.status, 'partial')
  })
})

describe('exit codes', () => {
  it('follows the documented precedence', () => {
    const none = {findings: [], collectionErrors: []}
    assert.equal(exitCodeForReport(none, 'error'), ExitCode.OK)
    assert.equal(exitCodeForReport({findings: [finding('a', 'warning')], collectionErrors: []}, 'error'), ExitCode.OK)
    assert.equal(exitCodeForReport({findings: [finding('a', 'warning')], collectionErrors: []}, 'warning'), ExitCode.FINDINGS)
    assert.equal(exitCodeForReport({findings: [finding('a', 'info')], collectionErrors: []}, 'info'), ExitCode.FINDINGS)
    const partial = {findings: [], collectionErrors: [{source: 's', message: 'm'}]}
    assert.equal(exitCodeForReport(partial, 'error'), ExitCode.PARTIAL)
    assert.equal(exitCodeForReport({...partial, findings: [finding('a', 'error')]}, 'error'), ExitCode.FINDINGS)
    assert.equal(exitCodeForReport({findings: [finding('a', 'error')], collectionErrors: []}, 'none'), ExitCode.OK)
    assert.equal(exitCodeForReport({...partial, findings: [finding('a', 'error')]}, 'none'), ExitCode.PARTIAL)
  })

  it('has one distinct code per meaning', () => {
    const codes = EXIT_CODE_TABLE.map((e) => e.code)
    assert.equal(new Set(codes).size, codes.length)
    assert.deepEqual(codes, Object.values(ExitCode))
  })
})
