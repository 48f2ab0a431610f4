// fix kubelet's gate on what else its restart applies: --yes alone refuses pending differences, naming each.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {pendingRefusal} from '../../../../src/app/fix/node-repairs.js'
import {UsageError} from '../../../../src/errors.js'

const plan = {node: 'worker-1', pending: [{field: 'maxPods', from: 110, to: 250}]}

describe('pendingRefusal', () => {
  it('--yes without --apply-pending refuses, naming each pending difference and the way on', () => {
    const e = pendingRefusal(plan, {yes: true})
    assert.ok(e instanceof UsageError)
    assert.match(e.message, /would also apply 1 pending difference between its files and the running kubelet: maxPods: 110 -> 250; nothing was changed/)
    assert.match(e.hint ?? '', /--apply-pending/)
  })

  it('lets --yes --apply-pending, a terminal question, a dry run and a plan without pending differences through', () => {
    assert.equal(pendingRefusal(plan, {yes: true, applyPending: true}), undefined)
    assert.equal(pendingRefusal(plan, {}), undefined)
    assert.equal(pendingRefusal(plan, {yes: true, dryRun: true}), undefined)
    assert.equal(pendingRefusal({node: 'worker-1', pending: []}, {yes: true}), undefined)
  })
})
