import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {missingInputs, runChecks} from '../../../src/core/checks/run.js'
import type {Check} from '../../../src/core/checks/types.js'
import {emptyClusterSnapshot, type NodeSnapshot} from '../../../src/core/model/snapshot.js'

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
})
