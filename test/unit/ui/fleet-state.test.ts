// The dashboard's data: nodes analysed one by one merge into the Report analyze gives for all at once; run events
// fill the table in; a re-check keeps the old results (stale) until new ones land; an older run's events are ignored.
import assert from 'node:assert/strict'
import {before, describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import type {Bundle} from '../../../src/transports/bundle/bundle.js'
import {type FleetEvent, type FleetState, fleetReducer, fleetReport, INITIAL_FLEET, mergeReport} from '../../../src/ui/fleet-state.js'
import {bundleSource} from '../../../src/app/dashboard/sources.js'
import {environment} from '../../../src/transports/connect.js'
import {startRun} from '../../../src/ui/sources.js'
import {analysesOf, BUNDLE_DIR, exampleBundle, FIXED_NOW, METADATA} from './fixtures.js'

function reduce(events: FleetEvent[], from: FleetState = INITIAL_FLEET): FleetState {
  return events.reduce(fleetReducer, from)
}

describe('dashboard fleet state', () => {
  let bundle: Bundle
  before(async () => {
    bundle = await exampleBundle()
  })

  it('merges per-node analyses into the Report analyzeSnapshots gives for every node at once', () => {
    const cluster = {...bundle.cluster, errors: [{source: 'list servicecidrs', message: 'forbidden'}]}
    const whole = analyzeSnapshots(cluster, bundle.nodes, {metadata: METADATA})
    const merged = mergeReport(METADATA, cluster, ['node-a', 'node-b'], new Map([...analysesOf({...bundle, cluster})]))
    assert.deepEqual(merged, whole)
    assert.equal(merged.collectionErrors.length, 1, 'the cluster-wide error once, not once per node')
  })

  it('fills the table in as nodes finish, a slow node not holding up the others', () => {
    const analyses = analysesOf(bundle)
    const s = reduce([
      {type: 'run-start', run: 1},
      {type: 'targets', run: 1, cluster: bundle.cluster, nodes: ['node-b', 'node-a'], metadata: METADATA},
      {type: 'node-start', run: 1, node: 'node-a'},
      {type: 'node-start', run: 1, node: 'node-b'},
      {type: 'node-done', run: 1, analysis: analyses.get('node-b')!},
    ])
    assert.equal(s.running, true)
    assert.deepEqual(s.progress, [{name: 'node-a', state: 'collecting'}, {name: 'node-b', state: 'done'}])
    assert.deepEqual(fleetReport(s)?.nodes.map((n) => [n.name, n.status]), [['node-b', 'healthy']])
    const done = reduce([{type: 'node-done', run: 1, analysis: analyses.get('node-a')!}, {type: 'run-done', run: 1, at: '2026-12-02T12:00:05.000Z'}], s)
    assert.equal(done.running, false)
    assert.equal(done.checkedAt, '2026-12-02T12:00:05.000Z')
    assert.deepEqual(fleetReport(done)?.nodes.map((n) => [n.name, n.status]), [['node-a', 'unhealthy'], ['node-b', 'healthy']])
  })

  it('keeps the previous results, marked stale, while a re-check runs; ignores events of an older run', () => {
    const analyses = analysesOf(bundle)
    const first = reduce([
      {type: 'run-start', run: 1},
      {type: 'targets', run: 1, cluster: bundle.cluster, nodes: ['node-a', 'node-b'], metadata: METADATA},
      {type: 'node-done', run: 1, analysis: analyses.get('node-a')!},
      {type: 'node-done', run: 1, analysis: analyses.get('node-b')!},
      {type: 'run-done', run: 1, at: 'x'},
    ])
    const again = reduce(
      [
        {type: 'run-start', run: 2},
        {type: 'targets', run: 2, cluster: bundle.cluster, nodes: ['node-a', 'node-b'], metadata: METADATA},
        {type: 'node-start', run: 2, node: 'node-a'},
        {type: 'node-done', run: 1, analysis: analyses.get('node-a')!},
      ],
      first,
    )
    assert.deepEqual(again.progress, [{name: 'node-a', state: 'collecting', stale: true}, {name: 'node-b', state: 'waiting', stale: true}])
    assert.deepEqual(fleetReport(again)?.nodes.map((n) => n.name), ['node-a', 'node-b'], 'the old results still show')
    const failed = reduce([{type: 'run-failed', run: 2, message: 'the cluster is unreachable', exitCode: 4}], again)
    assert.deepEqual(failed.error, {message: 'the cluster is unreachable', exitCode: 4})
    assert.equal(reduce([{type: 'run-start', run: 3}], failed).error, undefined, 'a new run clears the error')
  })

  it('runs a bundle source: every node of the bundle, then done', async () => {
    const events: FleetEvent[] = []
    await startRun(bundleSource(BUNDLE_DIR, {names: []}, environment({})), (e) => events.push(e), {run: 1, now: FIXED_NOW, tool: METADATA.tool, command: METADATA.command})
    assert.deepEqual(
      events.map((e) => (e.type === 'node-done' ? `${e.type} ${e.analysis.snapshot.node}` : e.type === 'targets' ? `targets ${e.nodes.join(',')}` : e.type)),
      ['run-start', 'targets node-a,node-b', 'node-done node-a', 'node-done node-b', 'run-done'],
    )
  })

  it('turns a bad bundle or selection into a failed run naming what was wrong', async () => {
    const events: FleetEvent[] = []
    const o = {run: 1, now: FIXED_NOW, tool: METADATA.tool, command: METADATA.command}
    await startRun(bundleSource('/nonexistent/bundle', {names: []}, environment({})), (e) => events.push(e), o)
    await startRun(bundleSource(BUNDLE_DIR, {names: ['node-z']}, environment({})), (e) => events.push(e), {...o, run: 2})
    assert.deepEqual(
      events.filter((e) => e.type === 'run-failed'),
      [
        {type: 'run-failed', run: 1, message: 'bundle /nonexistent/bundle does not exist', exitCode: 2},
        {type: 'run-failed', run: 2, message: `node "node-z" not in bundle ${BUNDLE_DIR}`, exitCode: 2, hint: 'The bundle holds: node-a, node-b.'},
      ],
    )
    assert.throws(() => bundleSource(BUNDLE_DIR, {names: ['node-a'], all: true}, environment({})), /choose nodes one way/)
  })
})
