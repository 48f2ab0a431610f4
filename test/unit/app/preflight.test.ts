// `preflight --probe` (src/app/preflight.ts): the same probe as `check --probe`, through collectLiveProbed, over a fake
// Environment whose node transports replay the NODE-019 fire bundle's real outputs (test/support/probe-env.ts).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {preflight} from '../../../src/app/preflight.js'
import type {Environment} from '../../../src/ports/environment.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../support/golden.js'
import {fakeProbeRun} from '../../support/probe-env.js'

const bundle = await readBundle(join(FIXTURES, 'checks', 'node-probe', 'path-mtu-blackhole'))
const flags = {via: 'pod', concurrency: 2, timeout: '30s', 'node-timeout': '5m'}
const o = {areas: ['routes' as const], tool: {name: 'node-doctor', version: 'test'}, command: 'preflight node-a node-b --probe'}
const probeResults = (r: Awaited<ReturnType<typeof preflight>>) => r.report.results.filter((x) => x.id === 'NODE-019').map((x) => [x.node, x.status])

describe('preflight --probe', () => {
  it('probes between the nodes over the transports that collected them (one connector, one connect per node); NODE-019 fires', async () => {
    const {env, log, counts} = fakeProbeRun(bundle)
    const r = await preflight(['node-a', 'node-b'], {...flags, probe: true}, env, o)
    assert.deepEqual(probeResults(r), [['node-a', 'failed'], ['node-b', 'failed']])
    assert.ok(r.report.findings.some((f) => f.id === 'NODE-019' && f.node === 'node-a' && f.severity === 'error'))
    assert.deepEqual(counts, {connectors: 1, closedConnectors: 1})
    for (const sent of Object.values(log)) assert.deepEqual([sent.filter((c) => c === 'connect').length, sent.at(-1)], [1, 'close'])
  })

  it('without --probe: no ping is sent and NODE-019 is skipped', async () => {
    const {env, log} = fakeProbeRun(bundle)
    const r = await preflight(['node-a', 'node-b'], flags, env, o)
    assert.ok(!Object.values(log).flat().some((c) => c.startsWith('ping ')))
    assert.deepEqual(probeResults(r), [['node-a', 'skipped'], ['node-b', 'skipped']])
  })

  it('--probe with --from-bundle or --in-cluster is a usage error before anything is read', async () => {
    const nothing = {} as Environment
    await assert.rejects(preflight([], {...flags, probe: true, 'from-bundle': 'bundle.tgz'}, nothing, o), {name: 'UsageError', message: /^--probe measures the live path between nodes; it does not apply to --from-bundle$/})
    await assert.rejects(preflight([], {...flags, probe: true, 'in-cluster': true}, nothing, o), {name: 'UsageError', message: /not with --in-cluster$/})
  })
})
