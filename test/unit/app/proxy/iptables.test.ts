// `proxy diff`'s rule diff: the differences of the example bundle's node-a (real iptables-save, two planted faults)
// against kube-proxy's expected rules, as -/+ lines per Service port, rendered above the findings. And what its
// findings break (core/impact, as `check` says it): the example bundle's clean node-b with one KUBE-SVC jump cut.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {describe, it} from 'node:test'
import {diffIptables, ruleDiffByService} from '../../../../src/app/proxy/iptables.js'
import type {IptablesDifference} from '../../../../src/core/diff/iptables.js'
import type {Environment} from '../../../../src/ports/environment.js'
import {renderRuleDiff} from '../../../../src/render/rule-diff.js'
import {expectGolden, fixturePath, REPO_ROOT} from '../../../support/golden.js'

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

describe('proxy diff: what its findings break', () => {
  const flags = {
    objects: [fixturePath('proxier/iptables/loadbalancer/objects.yaml'), fixturePath('proxier/iptables/session-affinity/objects.yaml'), fixturePath('proxier/iptables/nodes.yaml')],
    node: 'node-b',
    nfacct: false,
    'kube-proxy-version': 'v1.31',
    'iptables-save': 'node-b.txt',
  }
  const meta = {toolVersion: 'test', command: 'proxy diff'}
  const clean = readFileSync(`${REPO_ROOT}/examples/bundle/nodes/node-b/iptables-save.txt`, 'utf8')
  const diffOf = async (dump: string) => (await diffIptables(undefined, flags, {readInput: (p: string) => (p === 'node-b.txt' ? dump : readFileSync(p, 'utf8'))} as unknown as Environment, {note: () => {}}, meta)).report

  it('a missing KUBE-SVC jump to one of three endpoints names the Service port and that endpoint', async () => {
    // The last jump of default/sticky:http (3 endpoints) to its endpoint 10.0.2.31:8080, as a lost rule would leave it.
    const cut = '-A KUBE-SVC-T2ECBIYT2WDZZK45 -m comment --comment "default/sticky:http -> 10.0.2.31:8080" -j KUBE-SEP-22FE75RD2DHL4VZM\n'
    assert.ok(clean.includes(cut))
    const report = await diffOf(clean.replace(cut, ''))
    assert.deepEqual(report.findings.map((f) => [f.id, f.group]), [['IPT-003', 'default/sticky:http']])
    assert.deepEqual(report.findings[0]!.impact, {
      summary: 'svc default/sticky:http (1 of 3 endpoints)',
      services: [{service: 'default/sticky', port: 'http', endpoints: ['10.0.2.31'], total: 3}],
    })
  })

  it('a missing KUBE-SERVICES hook of a single-endpoint Service port breaks that port; a clean node has nothing to break', async () => {
    const cut = '-A KUBE-SERVICES -d 172.30.3.1/32 -p tcp -m comment --comment "default/lb:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-JSLCNGWSGB5JPS5Q\n'
    assert.ok(clean.includes(cut))
    const report = await diffOf(clean.replace(cut, ''))
    assert.deepEqual(report.findings.map((f) => [f.id, f.impact?.summary]), [['IPT-003', 'svc default/lb:http (its only endpoint)']])
    assert.deepEqual((await diffOf(clean)).findings, [])
  })
})
