// Keyboard navigation: keys → actions, and the screen stack, cursor and filter they lead to.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {type Action, current, INITIAL_NAV, keyAction, keyActions, type Nav, navigate, type NavContext} from '../../../src/ui/navigation.js'

const svc = {name: 'default/lb:http', protocol: 'TCP', clusterIP: '172.30.3.1', port: 80}

function run(actions: Action[], ctx: NavContext, from: Nav = INITIAL_NAV): Nav {
  return actions.reduce((n, a) => navigate(n, a, ctx).nav, from)
}

describe('dashboard navigation', () => {
  it('maps keys: arrows and j/k move, Enter opens, Esc and Backspace go back, / r q', () => {
    assert.deepEqual(keyAction('', {downArrow: true}, false), {type: 'down'})
    assert.deepEqual(keyAction('k', {}, false), {type: 'up'})
    assert.deepEqual(keyAction('', {return: true}, false), {type: 'open'})
    assert.deepEqual(keyAction('', {escape: true}, false), {type: 'back'})
    assert.deepEqual(keyAction('', {delete: true}, false), {type: 'back'}, 'terminals send DEL for Backspace')
    assert.deepEqual(keyAction('', {delete: true}, true), {type: 'erase'})
    assert.deepEqual(keyAction('/', {}, false), {type: 'filter'})
    assert.deepEqual(keyAction('r', {}, false), {type: 'recheck'})
    assert.deepEqual(keyAction('q', {}, false), {type: 'quit'})
    assert.deepEqual(keyAction('q', {}, true), {type: 'text', text: 'q'}, 'in the prompt q is text')
    assert.equal(keyAction('x', {}, false), undefined)
    assert.equal(keyAction('c', {ctrl: true}, false), undefined)
  })

  it('splits a chunk of typed keys into one action per key, the prompt opening and closing on the way', () => {
    assert.deepEqual(keyActions('jj\r', {}, false), [{type: 'down'}, {type: 'down'}, {type: 'open'}])
    assert.deepEqual(keyActions('/ab\rq', {}, false), [{type: 'filter'}, {type: 'text', text: 'a'}, {type: 'text', text: 'b'}, {type: 'open'}, {type: 'quit'}])
  })

  it('moves within the list and opens and leaves screens', () => {
    const ctx = {count: 3, page: 10, open: {kind: 'node' as const, node: 'n2'}}
    let nav = run([{type: 'down'}, {type: 'down'}, {type: 'down'}, {type: 'up'}], ctx)
    assert.equal(current(nav).cursor, 1)
    nav = run([{type: 'open'}], ctx, nav)
    assert.deepEqual(current(nav), {screen: {kind: 'node', node: 'n2'}, cursor: 0, query: ''})
    nav = run([{type: 'down'}, {type: 'open'}], {count: 5, page: 10, open: {kind: 'service', node: 'n2', service: svc}}, nav)
    assert.equal(nav.levels.length, 3)
    nav = run([{type: 'back'}], ctx, nav)
    assert.deepEqual(current(nav), {screen: {kind: 'node', node: 'n2'}, cursor: 1, query: ''}, 'the node view keeps its cursor')
    nav = run([{type: 'back'}, {type: 'back'}], ctx, nav)
    assert.deepEqual(current(nav), {screen: {kind: 'fleet'}, cursor: 1, query: ''})
    assert.deepEqual(run([{type: 'open'}], {count: 0, page: 10}), INITIAL_NAV, 'Enter with nothing to open does nothing')
  })

  it('scrolls the Service pane a page short of its end', () => {
    const base = run([{type: 'open'}], {count: 1, page: 10, open: {kind: 'service', node: 'n1', service: svc}})
    const ctx = {count: 25, page: 10}
    assert.equal(current(run([{type: 'page-down'}, {type: 'page-down'}, {type: 'page-down'}], ctx, base)).cursor, 15)
    assert.equal(current(run([{type: 'filter'}], ctx, base)).query, '', 'no filter on the pane')
    assert.equal(run([{type: 'filter'}], ctx, base).editing, false)
  })

  it('edits the filter: text, erase, Enter keeps it, Esc clears it', () => {
    const ctx = {count: 3, page: 10}
    let nav = run([{type: 'down'}, {type: 'filter'}, {type: 'text', text: 'n'}, {type: 'text', text: 'x'}, {type: 'erase'}], ctx)
    assert.equal(nav.editing, true)
    assert.deepEqual(current(nav), {screen: {kind: 'fleet'}, cursor: 0, query: 'n'})
    const kept = run([{type: 'open'}], ctx, nav)
    assert.equal(kept.editing, false)
    assert.equal(current(kept).query, 'n')
    const cleared = run([{type: 'back'}], ctx, nav)
    assert.deepEqual([cleared.editing, current(cleared).query], [false, ''])
  })

  it('asks the App to quit or re-check', () => {
    assert.equal(navigate(INITIAL_NAV, {type: 'quit'}, {count: 0, page: 1}).effect, 'quit')
    assert.equal(navigate(INITIAL_NAV, {type: 'recheck'}, {count: 0, page: 1}).effect, 'recheck')
  })
})
