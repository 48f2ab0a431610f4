// Fleet grouping: the same finding across nodes (node name masked in the message) is one group; different
// severities, subjects or ids stay apart. Tallies per area and check, slowest nodes, grouped collection failures.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {groupFindings, summarizeFleet} from '../../../src/core/fleet.js'
import {buildReport, type Finding} from '../../../src/core/model/report.js'
import {SAMPLE_METADATA} from '../../support/sample-reports.js'

function f(node: string, id: string, name: string, extra: Partial<Finding> = {}): Finding {
  return {id, node, area: 'iptables', severity: 'error', message: `KUBE-SVC for ${name} missing on ${node}`, subject: {kind: 'chain', name, in: 'nat'}, evidence: [`on ${node}`], remedy: 'restart kube-proxy', ...extra}
}

describe('groupFindings', () => {
  it('groups by id, severity, subject and message modulo the node name', () => {
    const groups = groupFindings([
      f('n3', 'IPT-001', 'KUBE-SVC-A'),
      f('n1', 'IPT-001', 'KUBE-SVC-A'),
      f('n2', 'IPT-001', 'KUBE-SVC-A'),
      f('n2', 'IPT-001', 'KUBE-SVC-B'),
      f('n1', 'IPT-001', 'KUBE-SVC-A', {severity: 'warning'}),
      f('n1', 'KUBELET-001', 'cgroupDriver', {area: 'kubelet', subject: {kind: 'field', name: 'cgroupDriver', in: '/etc/n1/config'}}),
      f('n2', 'KUBELET-001', 'cgroupDriver', {area: 'kubelet', subject: {kind: 'field', name: 'cgroupDriver', in: '/etc/n2/config'}}),
    ])
    assert.deepEqual(
      groups.map((g) => [g.severity, g.id, g.subject.name, g.subject.in, g.nodes, g.message]),
      [
        ['error', 'IPT-001', 'KUBE-SVC-A', 'nat', ['n1', 'n2', 'n3'], 'KUBE-SVC for KUBE-SVC-A missing on <node>'],
        ['error', 'KUBELET-001', 'cgroupDriver', '/etc/<node>/config', ['n1', 'n2'], 'KUBE-SVC for cgroupDriver missing on <node>'],
        ['error', 'IPT-001', 'KUBE-SVC-B', 'nat', ['n2'], 'KUBE-SVC for KUBE-SVC-B missing on n2'],
        ['warning', 'IPT-001', 'KUBE-SVC-A', 'nat', ['n1'], 'KUBE-SVC for KUBE-SVC-A missing on n1'],
      ],
    )
    assert.equal(groups[0]!.example.node, 'n3', 'the example is the first finding seen')
  })
})

describe('summarizeFleet', () => {
  it('tallies areas and checks, ranks slow nodes and groups collection failures', () => {
    const report = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1', durationMs: 900}, {name: 'n2', durationMs: 3000}, {name: 'n3', durationMs: 100}, {name: 'n4'}, {name: 'n5'}],
      results: [
        {id: 'IPT-001', node: 'n1', area: 'iptables', status: 'failed'},
        {id: 'IPT-001', node: 'n2', area: 'iptables', status: 'failed'},
        {id: 'IPT-001', node: 'n3', area: 'iptables', status: 'passed'},
        {id: 'KUBELET-001', node: 'n3', area: 'kubelet', status: 'skipped', reason: 'missing input'},
      ],
      findings: [f('n1', 'IPT-001', 'A'), f('n2', 'IPT-001', 'A'), f('n2', 'IPT-001', 'B', {severity: 'warning'})],
      collectionErrors: [
        {node: 'n4', source: 'ssh', message: 'n4: connection refused', fatal: true},
        {node: 'n5', source: 'ssh', message: 'n5: connection refused', fatal: true},
        {source: 'list pods', message: 'forbidden'},
      ],
    })
    const s = summarizeFleet(report, {slowest: 2})
    assert.deepEqual(s.areas, [
      {area: 'kubelet', checks: {passed: 0, failed: 0, skipped: 1}, findings: {error: 0, warning: 0, info: 0}, nodesAffected: 0},
      {area: 'iptables', checks: {passed: 1, failed: 2, skipped: 0}, findings: {error: 2, warning: 1, info: 0}, nodesAffected: 2},
    ])
    assert.deepEqual(s.failingChecks, [{id: 'IPT-001', area: 'iptables', checks: {passed: 1, failed: 2, skipped: 0}, findings: 3, nodesAffected: 2}])
    assert.deepEqual(s.slowestNodes, [{name: 'n2', durationMs: 3000}, {name: 'n1', durationMs: 900}])
    assert.deepEqual(s.collectionFailures, [
      {source: 'ssh', message: '<node>: connection refused', fatal: true, nodes: ['n4', 'n5']},
      {source: 'list pods', message: 'forbidden', fatal: false, nodes: ['(cluster)']},
    ])
    assert.equal(s.healthyNodes, 1)
  })
})
