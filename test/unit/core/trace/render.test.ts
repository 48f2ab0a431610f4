// The trace renderer: the side-by-side table (golden, colour off), the conclusion line, wrapping to a width, and the
// JSON/YAML document. Inputs are real traces over the clusterip fixture (IP plan in flow.ts).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parse as parseYaml} from 'yaml'
import {parseIptablesSave} from '../../../../src/core/iptables/save.js'
import {compareTraces, traceIptables} from '../../../../src/core/trace/iptables-trace.js'
import {renderTrace, traceConclusion, type TraceView} from '../../../../src/render/trace.js'
import {expectGolden} from '../../../support/golden.js'
import {packetFor, renderFixture} from './flow.js'

const ANSI = /\u001b\[[0-9;]*m/

function view(alter: (save: string) => string, to = '172.30.0.11:8443'): TraceView {
  const fx = renderFixture('clusterip')
  const packet = {...packetFor({from: 'pod', src: '10.0.1.254', to}), srcIsLocalPod: true}
  const actual = traceIptables(parseIptablesSave(alter(fx.save)), packet, {localAddresses: fx.localAddresses})
  const expected = traceIptables(fx.dump, packet, {localAddresses: fx.localAddresses})
  return {
    node: 'node-a',
    packet,
    origin: 'a pod on the node (10.0.1.254)',
    actual: {source: 'node-a.iptables', result: actual},
    expected: {source: 'kube-proxy v1.35 rules from the objects', result: expected},
    comparison: compareTraces(actual, expected),
  }
}

/** Drops the endpoint chain of default/single (its only endpoint) and the jump to it. */
const dropSingleSep = (save: string): string => save.split('\n').filter((l) => !l.includes('KUBE-SEP-P44U3WCJKUTY2VJC')).join('\n')

describe('renderTrace', () => {
  it('table: both sides, the differing path and the conclusion (golden)', () => {
    const v = view(dropSingleSep)
    assert.equal(v.comparison.same, false)
    const out = renderTrace(v, 'table', {color: false})
    assert.doesNotMatch(out, ANSI)
    expectGolden('trace/clusterip-missing-sep.table.txt', out)
    assert.match(out, /^differs: missing 10\.0\.2\.20:8443 \(expected 100\.0%\); extra no DNAT \(100\.0%\)$/m)
  })

  it('identical traces print each path once and conclude "same"', () => {
    const v = view((s) => s, '172.30.0.10:53/udp')
    const out = renderTrace(v, 'table', {color: false})
    assert.equal(out.match(/, expected: the same rules$/gm)?.length, 3)
    assert.match(out, /^same endpoints and probabilities as kube-proxy's rules: 10\.0\.1\.2:53 33\.3%, 10\.0\.2\.10:53 33\.3%, 10\.0\.2\.9:53 33\.3%$/m)
  })

  it('colours only when asked; the outcome table is narrow (one row per side, no side-by-side paths)', () => {
    const v = view(dropSingleSep)
    const out = renderTrace(v, 'table', {color: true, width: 120})
    assert.match(out, ANSI)
    const lines = out.split('\n')
    const from = lines.findIndex((l) => l.startsWith('Outcomes'))
    const to = lines.findIndex((l, i) => i > from && l === '')
    for (const line of lines.slice(from + 1, to)) assert.ok(line.replace(new RegExp(ANSI.source, 'g'), '').length <= 100, `too wide: ${line}`)
  })

  it('json and yaml carry both traces, the comparison and the conclusion', () => {
    const v = view(dropSingleSep)
    const doc = JSON.parse(renderTrace(v, 'json', {color: false})) as Record<string, any>
    assert.equal(doc.kind, 'PacketTrace')
    assert.equal(doc.node, 'node-a')
    assert.deepEqual(doc.packet, {protocol: 'tcp', dst: '172.30.0.11', dport: 8443, from: 'pod', src: '10.0.1.254', srcIsLocalPod: true})
    assert.equal(doc.actual.source, 'node-a.iptables')
    assert.deepEqual(doc.actual.endpoints, {'no-dnat': 1})
    assert.deepEqual(doc.expected.endpoints, {'10.0.2.20:8443': 1})
    assert.equal(doc.expected.branches[0].dnat, '10.0.2.20:8443')
    assert.equal(doc.expected.branches[0].path[0].chain, 'PREROUTING')
    assert.equal(doc.comparison.same, false)
    assert.equal(doc.conclusion, traceConclusion(v.comparison, v.expected.result))
    const yaml = renderTrace(v, 'yaml', {color: false})
    assert.doesNotMatch(yaml, /[&*]a\d/, 'no YAML anchors for shared objects')
    assert.deepEqual(parseYaml(yaml), doc)
  })

  it('conclusion names probability and masquerade changes', () => {
    const base = view((s) => s).expected.result
    const line = traceConclusion(
      {
        same: false,
        missing: [],
        extra: [{outcome: 'DROP', actual: 0.5}],
        changed: [{outcome: '10.0.2.20:8443', actual: 0.5, expected: 1}],
        masquerade: [{outcome: '10.0.2.20:8443', actual: 0, expected: 1}],
      },
      base,
    )
    assert.equal(line, 'differs: extra DROP (50.0%); 10.0.2.20:8443 50.0% instead of 100.0%; masquerade to 10.0.2.20:8443: no instead of yes')
  })
})
