// `proxy diff`'s rule diff: the differences of the example bundle's node-a (real iptables-save, two planted faults)
// against kube-proxy's expected rules, as -/+ lines per Service port, rendered above the findings.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {ruleDiffByService} from '../../../../src/app/proxy/iptables.js'
import type {IptablesDifference} from '../../../../src/core/diff/iptables.js'
import {renderRuleDiff} from '../../../../src/render/rule-diff.js'
import {expectGolden} from '../../../support/golden.js'

const differences: IptablesDifference[] = [
  {kind: 'missing-chain', table: 'nat', chain: 'KUBE-SEP-XPQRUCKJ3GKN6YPV', expectedRules: ['-p tcp -m comment --comment default/web:http -m tcp -j DNAT --to-destination 10.244.1.23:8080'], group: 'default/web:http'},
  {kind: 'extra-rule', table: 'nat', chain: 'KUBE-SVC-OVEKJ3D4ZQ6NMR7X', rule: '-m comment --comment payments/api:grpc -j KUBE-SEP-OVEKJ3D4ZQ6NMR7X', group: 'payments/api:grpc'},
  {kind: 'missing-builtin-jump', table: 'nat', chain: 'PREROUTING', rule: '-m comment --comment "kubernetes service portals" -j KUBE-SERVICES'},
  {kind: 'wrong-probability', table: 'nat', chain: 'KUBE-SVC-4N57TFCL4MD7ZTDA', expected: '-m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-A', actual: '-m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-A', group: 'default/web:http'},
]

describe('proxy diff: the rule diff', () => {
  it('groups the differences per Service port, the unowned ones (built-in jumps) first', () => {
    const diff = ruleDiffByService(differences)
    assert.deepEqual(diff.map((g) => g.service), [undefined, 'default/web:http', 'payments/api:grpc'])
    assert.deepEqual(diff[1]!.lines.map((l) => l.sign), ['-', '-', '-', '+'])
    assert.deepEqual(diff[2]!.lines, [{sign: '+', text: 'nat -A KUBE-SVC-OVEKJ3D4ZQ6NMR7X -m comment --comment payments/api:grpc -j KUBE-SEP-OVEKJ3D4ZQ6NMR7X'}])
  })

  it('renders -/+ lines under each Service port; nothing at all when the rules match', () => {
    expectGolden('proxier/iptables/rule-diff.txt', renderRuleDiff(ruleDiffByService(differences), {color: false, node: 'node-a'}))
    assert.equal(renderRuleDiff(ruleDiffByService([]), {color: false}), '')
    assert.match(renderRuleDiff(ruleDiffByService(differences), {color: true}), /\u001b\[31m- nat/)
  })
})
