// A command that leaves a daemon holding stdout (issue #14, item 11): the batch's end frames end the read, so the
// node's collection does not wait for the daemon (it used to wait past --timeout for the pipes to close).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {collectNode} from '../../../src/app/collect-node.js'
import type {PlanItem} from '../../../src/core/collection/plan.js'
import {LocalTransport} from '../../../src/transports/local/local.js'

const plan: PlanItem[] = [
  {id: 'uname', description: 'kernel', argv: ['echo', '6.1.0'], areas: ['proxy-mode'], required: false},
  {id: 'daemon', description: 'starts a daemon', argv: ['sh', '-c', 'sleep 120 & echo started'], areas: ['iptables'], required: false},
  {id: 'ip-route', description: 'routes', argv: ['echo', 'default via 10.0.0.1 dev eth0'], areas: ['routes'], required: false},
]

describe('a daemon holding stdout', () => {
  it('does not hold up a batch collection: done in seconds with every artifact, not after the daemon', async () => {
    const t0 = Date.now()
    const s = await collectNode(new LocalTransport('node-d'), {plan, timeoutMs: 3_000, sudo: false, now: () => new Date(), batch: true, parallel: 1})
    const ms = Date.now() - t0
    assert.ok(ms < 8_000, `took ${ms} ms`)
    assert.equal(s.artifacts['daemon']!.content, 'started\n')
    assert.equal(s.artifacts['uname']!.content, '6.1.0\n')
    assert.equal(s.artifacts['ip-route']!.error, undefined)
    assert.deepEqual(s.errors, [])
  })
})
