// The PROXY and CT fire/quiet bundles (scripts/make-proxy-mode-fixtures.ts) run through analyze, as the catalog test
// does once the checks are registered: each fire bundle fails its check on node-a, the quiet bundle passes every check.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {CONNTRACK_CHECKS} from '../../../../../src/core/checks/conntrack/index.js'
import {PROXY_MODE_CHECKS} from '../../../../../src/core/checks/proxy-mode/index.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}

// CT-002..004 have their own fixture folder (scripts/make-conntrack-fixtures.ts): real namespaces filled with flows.
for (const [area, checks, folders] of [
  ['proxy-mode', PROXY_MODE_CHECKS, ['proxy-mode']],
  ['conntrack', CONNTRACK_CHECKS, ['conntrack', 'conntrack-health']],
] as const) {
  describe(`${area} fixture bundles`, () => {
    const cases: Record<string, {fire: string; quiet: string; node: string; dir: string}> = {}
    for (const folder of folders) {
      const dir = join(FIXTURES, 'checks', folder)
      const listed = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Record<string, {fire: string; quiet: string; node: string}>
      for (const [id, c] of Object.entries(listed)) cases[id] = {...c, dir}
    }
    it('names every check of the area', () => {
      assert.deepEqual(Object.keys(cases).sort(), checks.map((c) => c.spec.id).sort())
    })
    for (const check of checks) {
      const c = cases[check.spec.id]
      if (!c) continue
      it(`${check.spec.id} fires on ${c.fire} and stays quiet on ${c.quiet}`, async () => {
        const fire = await readBundle(join(c.dir, c.fire))
        const fired = analyzeSnapshots(fire.cluster, fire.nodes, {metadata: meta, checks: [check]})
        assert.equal(fired.results.find((r) => r.node === c.node)?.status, 'failed', JSON.stringify(fired.results))
        const quiet = await readBundle(join(c.dir, c.quiet))
        const calm = analyzeSnapshots(quiet.cluster, quiet.nodes, {metadata: meta, checks: [check]})
        assert.equal(calm.results.find((r) => r.node === c.node)?.status, 'passed', JSON.stringify(calm.results))
      })
    }
  })
}
