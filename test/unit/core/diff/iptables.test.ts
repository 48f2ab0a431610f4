// Fixture conventions: service 172.30.0.41:80 "ns1/svc1:p80" with endpoints 10.180.0.1:80 and 10.180.0.2:80.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {diffIptables, type IptablesView, ruleServicePort} from '../../../../src/core/diff/iptables.js'
import {iptablesFindings} from '../../../../src/core/checks/iptables/specs.js'

const SVC = 'KUBE-SVC-XPGD46QRK7WJZT7O'
const SEP1 = 'KUBE-SEP-SXIVWICOYRO3J4NJ'
const SEP2 = 'KUBE-SEP-BBBBBBBBBBBBBBBB'
const NP = '-m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS'
const CIP = `-d 172.30.0.41/32 -p tcp -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp --dport 80 -j ${SVC}`
const OTHER = '-d 172.30.0.42/32 -p tcp -m comment --comment "ns2/svc2:p80 cluster IP" -m tcp --dport 80 -j KUBE-SVC-OTHER000000000000'

function view(nat: Record<string, string[]>, filter: Record<string, string[]> = {}): IptablesView {
  return new Map([
    ['nat', new Map(Object.entries(nat))],
    ['filter', new Map(Object.entries(filter))],
  ])
}

function expected(): IptablesView {
  return view({
    'KUBE-SERVICES': [CIP, OTHER, NP],
    'KUBE-SVC-OTHER000000000000': [],
    'KUBE-NODEPORTS': [],
    'KUBE-MARK-MASQ': ['-j MARK --set-xmark 0x4000/0x4000'],
    [SVC]: [
      `-m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.50000000000 -j ${SEP1}`,
      `-m comment --comment "ns1/svc1:p80 -> 10.180.0.2:80" -j ${SEP2}`,
    ],
    [SEP1]: ['-s 10.180.0.1/32 -m comment --comment "ns1/svc1:p80" -j KUBE-MARK-MASQ', '-p tcp -m comment --comment "ns1/svc1:p80" -m tcp -j DNAT --to-destination 10.180.0.1:80'],
    [SEP2]: ['-s 10.180.0.2/32 -m comment --comment "ns1/svc1:p80" -j KUBE-MARK-MASQ', '-p tcp -m comment --comment "ns1/svc1:p80" -m tcp -j DNAT --to-destination 10.180.0.2:80'],
  })
}

describe('diffIptables', () => {
  it('finds nothing when the node matches, whatever the service order in KUBE-SERVICES', () => {
    const actual = expected()
    actual.get('nat')!.set('KUBE-SERVICES', [OTHER, CIP, NP])
    actual.get('nat')!.set('DOCKER', ['-j RETURN'])
    assert.deepEqual(diffIptables(expected(), actual), [])
  })

  it('reports a missing endpoint chain, and the jump to it as undefined', () => {
    const actual = expected()
    actual.get('nat')!.delete(SEP2)
    const d = diffIptables(expected(), actual)
    assert.deepEqual(d.map((x) => [x.kind, 'chain' in x ? x.chain : '']), [['missing-chain', SEP2], ['undefined-jump', SVC]])
    assert.equal(d[0]!.kind === 'missing-chain' && d[0]!.group, 'ns1/svc1:p80')
  })

  it('reports a stale chain of a removed endpoint', () => {
    const actual = expected()
    actual.get('nat')!.set('KUBE-SEP-STALESTALESTALE1', ['-p tcp -m comment --comment "ns1/svc1:p80" -m tcp -j DNAT --to-destination 10.180.0.9:80'])
    const d = diffIptables(expected(), actual)
    assert.equal(d.length, 1)
    assert.equal(d[0]!.kind, 'stale-chain')
    assert.equal(d[0]!.kind === 'stale-chain' && d[0]!.group, 'ns1/svc1:p80')
  })

  it('pairs a rule that differs only in probability as wrong-probability', () => {
    const actual = expected()
    const rules = [...actual.get('nat')!.get(SVC)!]
    rules[0] = rules[0]!.replace('0.50000000000', '0.33333333349')
    actual.get('nat')!.set(SVC, rules)
    const d = diffIptables(expected(), actual)
    assert.deepEqual(d.map((x) => x.kind), ['wrong-probability'])
  })

  it('reports a missing rule in an unordered chain and an extra rule in an ordered one', () => {
    const actual = expected()
    actual.get('nat')!.set('KUBE-SERVICES', [OTHER, NP])
    actual.get('nat')!.set(SEP1, [...actual.get('nat')!.get(SEP1)!, '-j DROP'])
    const d = diffIptables(expected(), actual)
    assert.deepEqual(d.map((x) => [x.kind, 'chain' in x ? x.chain : '', 'group' in x ? x.group : undefined]), [
      ['missing-rule', 'KUBE-SERVICES', 'ns1/svc1:p80'],
      ['extra-rule', SEP1, 'ns1/svc1:p80'],
    ])
  })

  it('requires the nodeports jump to be last, and order inside ordered chains', () => {
    const actual = expected()
    actual.get('nat')!.set('KUBE-SERVICES', [CIP, NP, OTHER])
    actual.get('nat')!.set(SEP1, [...actual.get('nat')!.get(SEP1)!].reverse())
    const d = diffIptables(expected(), actual)
    assert.deepEqual(d.map((x) => [x.kind, 'chain' in x ? x.chain : '']), [['misordered', 'KUBE-SERVICES'], ['misordered', SEP1]])
  })

  it('reports missing built-in jumps', () => {
    const actual = expected()
    const d = diffIptables(expected(), actual, {requiredJumps: [{table: 'nat', chain: 'PREROUTING', rule: '-m comment --comment "kubernetes service portals" -j KUBE-SERVICES'}]})
    assert.deepEqual(d.map((x) => x.kind), ['missing-builtin-jump'])
  })
})

describe('iptablesFindings', () => {
  it('maps differences to catalog ids with evidence and groups', () => {
    const actual = expected()
    actual.get('nat')!.delete(SEP2)
    const byId = iptablesFindings(diffIptables(expected(), actual))
    assert.deepEqual([...byId.keys()], ['IPT-001', 'IPT-007'])
    const missing = byId.get('IPT-001')![0]!
    assert.equal(missing.group, 'ns1/svc1:p80')
    assert.match(missing.message, /chain KUBE-SEP-B+ \(ns1\/svc1:p80\) is missing from the nat table/)
    assert.equal(missing.evidence?.[0], `expected: -A ${SEP2} -s 10.180.0.2/32 -m comment --comment "ns1/svc1:p80" -j KUBE-MARK-MASQ`)
  })

  it('reads service-port names from comments, bare or quoted', () => {
    assert.equal(ruleServicePort('-m comment --comment "ns1/svc1:p80 cluster IP" -j X'), 'ns1/svc1:p80')
    assert.equal(ruleServicePort('-m comment --comment ns1/svc1 -j X'), 'ns1/svc1')
    assert.equal(ruleServicePort('-m comment --comment "kubernetes service nodeports; NOTE" -j X'), undefined)
  })
})
