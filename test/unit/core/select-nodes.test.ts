import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import type {Node} from '../../../src/core/model/k8s.js'
import {matchesSelector, parseLabelSelector, selectNodes} from '../../../src/core/select-nodes.js'
import {ParseError} from '../../../src/errors.js'

const node = (name: string, labels: Record<string, string>): Node => ({metadata: {name, labels}})
const nodes = [
  node('w2', {role: 'worker', zone: 'b'}),
  node('cp1', {'node-role.kubernetes.io/control-plane': '', zone: 'a'}),
  node('w1', {role: 'worker', zone: 'a', gpu: 'true'}),
]

describe('label selectors', () => {
  it('supports equality, inequality, set and existence requirements', () => {
    const names = (s: string) => selectNodes(nodes, {selector: s}).selected.map((n) => n.metadata.name)
    assert.deepEqual(names('role=worker'), ['w1', 'w2'])
    assert.deepEqual(names('role==worker,zone!=b'), ['w1'])
    assert.deepEqual(names('zone in (a, b),!gpu'), ['cp1', 'w2'])
    assert.deepEqual(names('zone notin (a)'), ['w2'])
    assert.deepEqual(names('node-role.kubernetes.io/control-plane'), ['cp1'])
  })

  it('rejects malformed selectors with a clear error', () => {
    assert.throws(() => parseLabelSelector('role=worker,=x'), (e: unknown) => e instanceof ParseError && /cannot parse "=x"/.test(e.message))
    assert.throws(() => parseLabelSelector('bad key!=x'), ParseError)
  })

  it('treats missing labels like kubernetes does for != and notin', () => {
    assert.equal(matchesSelector({}, parseLabelSelector('a!=b')), true)
    assert.equal(matchesSelector(undefined, parseLabelSelector('a notin (b)')), true)
  })
})

describe('selectNodes', () => {
  it('keeps named nodes, reports unknown names, sorts and dedupes', () => {
    const r = selectNodes(nodes, {names: ['w2', 'nope', 'w1', 'w2']})
    assert.deepEqual(r.selected.map((n) => n.metadata.name), ['w1', 'w2'])
    assert.deepEqual(r.unknown, ['nope'])
    assert.equal(selectNodes(nodes, {all: true}).selected.length, 3)
  })
})
