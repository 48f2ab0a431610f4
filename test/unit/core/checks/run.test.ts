import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {isFailedRead, missingInputs, notApplicable, runChecks} from '../../../../src/core/checks/run.js'
import {NodeFacts} from '../../../../src/core/facts/node-facts.js'
import type {Check} from '../../../../src/core/checks/types.js'
import {emptyClusterSnapshot, type NodeSnapshot} from '../../../../src/core/model/snapshot.js'

const node = (artifacts: NodeSnapshot['artifacts']): NodeSnapshot => ({
  apiVersion: 'node-doctor.io/v1alpha1', kind: 'NodeSnapshot', node: 'n1', collectedAt: '', transport: 'bundle', artifacts, errors: [],
})

const check = (requires: string[], run: Check['run']): Check => ({
  spec: {id: 'T-001', area: 'iptables', severity: 'error', title: 't', looksAt: 'l', why: 'w', remedy: 'r', requires},
  run,
})

describe('runChecks', () => {
  it('skips a check whose inputs are missing, naming them', () => {
    const cluster = emptyClusterSnapshot('now')
    cluster.errors.push({source: 'list endpointslices.discovery.k8s.io', message: 'forbidden'})
    const c = check(['iptables-save', 'cluster:services', 'cluster:endpointSlices'], () => ({status: 'passed'}))
    const n = node({'iptables-save': {id: 'iptables-save', source: 'iptables-save', content: '', error: 'iptables-save is not installed on the node'}})
    assert.deepEqual(missingInputs(c, cluster, n), ['iptables-save', 'cluster:endpointSlices'])
    const out = runChecks([c], cluster, [n])
    assert.deepEqual(out.results, [{id: 'T-001', node: 'n1', area: 'iptables', status: 'skipped', reason: 'missing input: iptables-save, cluster:endpointSlices'}])
  })

  it('turns drafts into findings with the spec defaults, and a throwing check into a recorded error', () => {
    const cluster = emptyClusterSnapshot('now')
    const n = node({})
    const failing = check([], () => ({status: 'failed', findings: [{message: 'm', subject: {kind: 'chain', name: 'X'}}]}))
    const broken: Check = {...check([], () => { throw new Error('boom') }), spec: {...failing.spec, id: 'T-002'}}
    const out = runChecks([failing, broken], cluster, [n])
    assert.deepEqual(out.findings, [{id: 'T-001', node: 'n1', area: 'iptables', severity: 'error', message: 'm', subject: {kind: 'chain', name: 'X'}, evidence: [], remedy: 'r'}])
    assert.deepEqual(out.results.map((r) => r.status), ['failed', 'skipped'])
    assert.deepEqual(out.errors, [{node: 'n1', source: 'check T-002', message: 'internal error: boom'}])
  })

  it('filters by area', () => {
    const out = runChecks([check([], () => ({status: 'passed'}))], emptyClusterSnapshot('now'), [node({})], {areas: ['kubelet']})
    assert.equal(out.results.length, 0)
  })

  it('recognises a failed cluster read by its typed resource, and by the source text in bundles written before it', () => {
    const c = check(['cluster:services', 'cluster:configz', 'cluster:endpointSlices'], () => ({status: 'passed'}))
    const n = node({})
    const typed = emptyClusterSnapshot('now')
    // The typed fields win: this source text names no resource the runner knows.
    typed.errors.push({source: 'services lookup', message: 'forbidden', resource: 'services', verb: 'list'})
    typed.errors.push({source: 'get nodes/proxy n1', message: 'forbidden', resource: 'nodes/proxy', verb: 'get', node: 'n1'})
    assert.deepEqual(missingInputs(c, typed, n), ['cluster:services', 'cluster:configz'])
    const old = emptyClusterSnapshot('now')
    old.errors.push({source: 'list services', message: 'forbidden'}, {source: 'get nodes/proxy n2', message: 'forbidden', node: 'n2'})
    assert.deepEqual(missingInputs(c, old, n), ['cluster:services'], 'another node\'s configz read does not count')
    assert.equal(isFailedRead({source: 'list services', message: 'x', resource: 'pods', verb: 'list'}, 'services'), false, 'the typed field, not the text, decides')
    assert.equal(isFailedRead({source: 'get nodes/proxy n1', message: 'x'}, 'nodes'), false)
    assert.equal(isFailedRead({source: 'get nodes n1', message: 'x'}, 'nodes'), true)
  })

  it('skips a check that does not apply to the node, with the reason; an unknown fact runs it', () => {
    const cluster = emptyClusterSnapshot('now')
    let ran = 0
    const ipvsOnly: Check = {...check([], () => (ran++, {status: 'passed'})), when: {proxyMode: ['ipvs']}}
    const mode = (content: string) => ({'proxy-mode': {id: 'proxy-mode', source: 'curl -s 127.0.0.1:10249/proxyMode', content}})
    const iptablesNode = {...node(mode('iptables')), node: 'n-ipt'}
    const ipvsNode = {...node(mode('ipvs')), node: 'n-ipvs'}
    const unknownNode = {...node({}), node: 'n-unknown'}
    const out = runChecks([ipvsOnly], cluster, [iptablesNode, ipvsNode, unknownNode])
    assert.deepEqual(out.results, [
      {id: 'T-001', node: 'n-ipt', area: 'iptables', status: 'skipped', reason: 'not applicable: kube-proxy runs in iptables mode, not ipvs'},
      {id: 'T-001', node: 'n-ipvs', area: 'iptables', status: 'passed'},
      {id: 'T-001', node: 'n-unknown', area: 'iptables', status: 'passed'},
    ])
    assert.equal(ran, 2)
    const facts = NodeFacts.of(cluster, iptablesNode)
    assert.equal(notApplicable({dataplane: ['nftables'], layout: ['calico']}, facts), undefined, 'dataplane and layout are not detected yet: never a skip')
    assert.equal(notApplicable(undefined, facts), undefined)
  })
})
