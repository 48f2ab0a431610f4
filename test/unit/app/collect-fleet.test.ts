// Fleet collection hands each node's snapshot over in its node-done event (the dashboard shows nodes as they
// arrive without a pool of its own), and a stopped run starts no more nodes and closes the open transports.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {collectFleet, type FleetEvent} from '../../../src/app/collect-fleet.js'
import {COLLECTION_PLAN} from '../../../src/core/collection/plan.js'
import type {Node} from '../../../src/core/model/k8s.js'
import type {NodeTransport} from '../../../src/ports/node-transport.js'

const node = (name: string): Node => ({apiVersion: 'v1', kind: 'Node', metadata: {name}}) as Node

function fakeTransport(name: string, closed: string[], gate?: Promise<void>): NodeTransport {
  return {
    node: name,
    kind: 'local',
    exec: async () => {
      await gate
      return {exitCode: 0, stdout: '', stderr: ''}
    },
    close: async () => void closed.push(name),
  }
}

const base = {plan: [], timeoutMs: 1000, nodeTimeoutMs: 0, sudo: false, now: () => new Date('2026-01-01T00:00:00Z'), transportKind: 'local' as const}

describe('collectFleet', () => {
  it("puts each node's snapshot in its node-done event, the same the result holds, in the order given", async () => {
    const closed: string[] = []
    const events: FleetEvent[] = []
    const snaps = await collectFleet([node('a'), node('b'), node('c')], {
      ...base,
      concurrency: 2,
      connect: async (n) => (n.metadata.name === 'b' ? Promise.reject(new Error('unreachable')) : fakeTransport(n.metadata.name, closed)),
      onEvent: (e) => events.push(e),
    })
    assert.deepEqual(snaps.map((s) => s.node), ['a', 'b', 'c'])
    const done = events.filter((e): e is Extract<FleetEvent, {type: 'node-done'}> => e.type === 'node-done')
    assert.equal(done.length, 3)
    for (const e of done) assert.equal(e.snapshot, snaps.find((s) => s.node === e.node))
    assert.equal(done.find((e) => e.node === 'b')!.ok, false)
    assert.match(snaps[1]!.errors[0]!.message, /unreachable/)
    assert.deepEqual(closed.sort(), ['a', 'c'])
  })

  it('once the signal aborts, starts no more nodes and closes the transports still open', async () => {
    const closed: string[] = []
    const started: string[] = []
    const controller = new AbortController()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const run = collectFleet([node('a'), node('b'), node('c')], {
      ...base,
      plan: COLLECTION_PLAN.slice(0, 1),
      concurrency: 1,
      connect: async (n) => fakeTransport(n.metadata.name, closed, gate),
      onEvent: (e) => {
        if (e.type === 'node-start') started.push(e.node)
      },
      signal: controller.signal,
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    controller.abort()
    assert.deepEqual(closed, ['a'])
    release()
    const snaps = await run
    assert.deepEqual(started, ['a'])
    assert.deepEqual(snaps.map((s) => s.node), ['a'])
  })
  it('afterCollect runs on the still-open transport of each collected node, before its close; its snapshot is the result', async () => {
    const closed: string[] = []
    const seen: string[] = []
    const events: FleetEvent[] = []
    const snaps = await collectFleet([node('a'), node('b')], {
      ...base,
      concurrency: 2,
      connect: async (n) => (n.metadata.name === 'b' ? Promise.reject(new Error('unreachable')) : fakeTransport(n.metadata.name, closed)),
      onEvent: (e) => events.push(e),
      afterCollect: async (t, s) => {
        seen.push(`${t.node} open=${!closed.includes(t.node)}`)
        return {...s, artifacts: {...s.artifacts, extra: {id: 'extra', source: 'test', exitCode: 0, content: 'x'}}}
      },
    })
    assert.deepEqual(seen, ['a open=true'], 'not run for a node whose transport never opened')
    assert.deepEqual(closed, ['a'])
    assert.equal(snaps[0]!.artifacts['extra']?.content, 'x')
    assert.equal(snaps[1]!.artifacts['extra'], undefined)
    const doneA = events.find((e): e is Extract<FleetEvent, {type: 'node-done'}> => e.type === 'node-done' && e.node === 'a')!
    assert.equal(doneA.snapshot, snaps[0])
  })
})
