// The Service view's data on the example bundle: node-a lacks the KUBE-SERVICES rule of default/lb:http and keeps a
// stale endpoint chain, so its trace to the cluster IP never reaches the endpoint; node-b matches kube-proxy's rules.
import assert from 'node:assert/strict'
import {before, describe, it} from 'node:test'
import type {NodeSnapshot} from '../../../../src/core/model/snapshot.js'
import type {Bundle} from '../../../../src/transports/bundle/bundle.js'
import {diffLines, nodeServices, serviceDetail, type ServiceRef} from '../../../../src/app/dashboard/service-detail.js'
import {exampleBundle} from '../../ui/fixtures.js'

describe('dashboard Service detail', () => {
  let bundle: Bundle
  let nodeA: NodeSnapshot
  let nodeB: NodeSnapshot
  let lb: ServiceRef
  before(async () => {
    bundle = await exampleBundle()
    nodeA = bundle.nodes.find((n) => n.node === 'node-a')!
    nodeB = bundle.nodes.find((n) => n.node === 'node-b')!
    lb = (nodeServices(bundle.cluster, nodeA) as ServiceRef[]).find((s) => s.name === 'default/lb:http')!
  })

  it("lists the Service ports kube-proxy programs on the node", () => {
    assert.deepEqual(nodeServices(bundle.cluster, nodeA), [
      {name: 'default/lb-empty:http', protocol: 'TCP', clusterIP: '172.30.3.3', port: 80},
      {name: 'default/lb-open:http', protocol: 'TCP', clusterIP: '172.30.3.2', port: 80},
      {name: 'default/lb:http', protocol: 'TCP', clusterIP: '172.30.3.1', port: 80},
      {name: 'default/sticky-local:http', protocol: 'TCP', clusterIP: '172.30.6.2', port: 80},
      {name: 'default/sticky:http', protocol: 'TCP', clusterIP: '172.30.6.1', port: 80},
    ])
  })

  it('gives the rule diff and a trace that misses the endpoint on node-a', () => {
    const d = serviceDetail(bundle.cluster, nodeA, lb)
    assert.deepEqual(d.diff, [
      {sign: '-', text: 'nat -A KUBE-SERVICES -d 172.30.3.1/32 -p tcp -m comment --comment "default/lb:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-JSLCNGWSGB5JPS5Q'},
      {sign: '+', text: 'nat :KUBE-SEP-OLDENDPOINT0000A (stale chain)'},
      {sign: '+', text: 'nat -A KUBE-SEP-OLDENDPOINT0000A -p tcp -m comment --comment "default/lb:http" -m tcp -j DNAT --to-destination 10.0.2.99:80'},
    ])
    assert.ok(!('reason' in d.trace))
    // The bundle has no pod running on node-a: the trace starts from the node itself and says so (no invented pod address).
    assert.deepEqual(d.trace.packet, {protocol: 'tcp', dst: '172.30.3.1', dport: 80, from: 'host', srcIsLocalPod: false})
    assert.match(d.trace.origin, /node/)
    assert.deepEqual(d.trace.actual.result.endpoints, {'no-dnat': 1})
    assert.deepEqual(d.trace.expected.result.endpoints, {'10.0.2.8:80': 1})
    assert.equal(d.trace.comparison.same, false)
  })

  it('gives an empty diff and agreeing traces on node-b', () => {
    const d = serviceDetail(bundle.cluster, nodeB, lb)
    assert.deepEqual(d.diff, [])
    assert.ok(!('reason' in d.trace) && d.trace.comparison.same)
  })

  it('says why when the node has no iptables-save', () => {
    const bare: NodeSnapshot = {...nodeA, artifacts: {}}
    assert.deepEqual(nodeServices(bundle.cluster, bare), {reason: 'missing input: iptables-save'})
    assert.deepEqual(serviceDetail(bundle.cluster, bare, lb), {service: lb, diff: {reason: 'missing input: iptables-save'}, trace: {reason: 'missing input: iptables-save'}})
  })

  it('writes every kind of difference as diff lines', () => {
    assert.deepEqual(
      diffLines([
        {kind: 'missing-chain', table: 'nat', chain: 'KUBE-SVC-A', expectedRules: ['-j KUBE-SEP-B']},
        {kind: 'wrong-probability', table: 'nat', chain: 'KUBE-SVC-A', expected: '-m statistic --probability 0.5 -j X', actual: '-m statistic --probability 0.3 -j X'},
        {kind: 'misordered', table: 'nat', chain: 'KUBE-SERVICES', detail: 'the KUBE-NODEPORTS jump is not the last rule of the chain', rules: []},
        {kind: 'undefined-jump', table: 'nat', chain: 'KUBE-SVC-A', rule: '-j KUBE-SEP-GONE', target: 'KUBE-SEP-GONE'},
        {kind: 'missing-builtin-jump', table: 'nat', chain: 'PREROUTING', rule: '-j KUBE-SERVICES'},
        {kind: 'extra-rule', table: 'filter', chain: 'KUBE-FORWARD', rule: '-j DROP'},
      ]),
      [
        {sign: '-', text: 'nat :KUBE-SVC-A (chain missing)'},
        {sign: '-', text: 'nat -A KUBE-SVC-A -j KUBE-SEP-B'},
        {sign: '-', text: 'nat -A KUBE-SVC-A -m statistic --probability 0.5 -j X'},
        {sign: '+', text: 'nat -A KUBE-SVC-A -m statistic --probability 0.3 -j X'},
        {sign: '~', text: 'nat KUBE-SERVICES: the KUBE-NODEPORTS jump is not the last rule of the chain'},
        {sign: '!', text: 'nat -A KUBE-SVC-A -j KUBE-SEP-GONE  (KUBE-SEP-GONE does not exist)'},
        {sign: '-', text: 'nat -A PREROUTING -j KUBE-SERVICES'},
        {sign: '+', text: 'filter -A KUBE-FORWARD -j DROP'},
      ],
    )
  })
})
