// The fire/quiet bundles under test/fixtures/checks/{routes,dns,endpoints} (written by
// scripts/make-route-dns-fixtures.ts): each case fires exactly the ids its scenario says, on its node, and
// cases.json names a fire and a quiet bundle for every check id of the area.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {DNS_CHECKS} from '../../../../../src/core/checks/dns/index.js'
import {ROUTES_CHECKS} from '../../../../../src/core/checks/routes/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {Check} from '../../../../../src/core/checks/types.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {REPO_ROOT} from '../../../../support/golden.js'
import {casesJson, DNS_CASES, ENDPOINT_CASES, type FixtureCase, ROUTE_CASES} from '../../../../support/route-dns-cases.js'

const ROOT = join(REPO_ROOT, 'test/fixtures/checks')
const AREAS: Array<{area: FixtureCase['area']; cases: FixtureCase[]; checks: readonly Check[]; quiet: string; quietFor?: Record<string, string>}> = [
  // The Calico checks; the flannel and VPC-CNI ones (RT-009..012) have their bundles in routes-cni (cni-fixtures.test.ts).
  {area: 'routes', cases: ROUTE_CASES, checks: ROUTES_CHECKS.filter((c) => Number(c.spec.id.slice(3)) <= 8), quiet: 'healthy-ipip', quietFor: {'RT-003': 'healthy-vxlan'}},
  {area: 'dns', cases: DNS_CASES, checks: DNS_CHECKS.filter((c) => c.spec.area === 'dns'), quiet: 'healthy', quietFor: {'DNS-004': 'healthy-routed'}},
  {area: 'endpoints', cases: ENDPOINT_CASES, checks: DNS_CHECKS.filter((c) => c.spec.area === 'endpoints'), quiet: 'healthy'},
]

async function runBundle(area: string, name: string, checks: readonly Check[]) {
  const bundle = await readBundle(join(ROOT, area, name))
  return {bundle, out: runChecks(checks, bundle.cluster, bundle.nodes)}
}

for (const {area, cases, checks, quiet, quietFor} of AREAS) {
  describe(`${area} fixtures`, () => {
    it('cases.json covers every check id of the area and matches the scenarios', () => {
      const stored = JSON.parse(readFileSync(join(ROOT, area, 'cases.json'), 'utf8')) as Record<string, {fire: string; quiet: string; node: string}>
      assert.deepEqual(Object.keys(stored).sort(), checks.map((c) => c.spec.id).sort())
      assert.deepEqual(stored, casesJson(cases, quiet, quietFor))
    })

    for (const c of cases) {
      it(`${c.name}: findings on ${c.node} for exactly ${c.fires.join(', ') || 'nothing'}`, async () => {
        const {bundle, out} = await runBundle(area, c.name, checks)
        // The stored cluster is the scenario's: regenerate the fixtures when a scenario changes.
        assert.deepEqual(JSON.parse(JSON.stringify(bundle.cluster)), JSON.parse(JSON.stringify(c.cluster())))
        assert.deepEqual(out.errors, [])
        const fired = [...new Set(out.findings.filter((f) => f.node === c.node).map((f) => f.id))].sort()
        assert.deepEqual(fired, [...c.fires].sort(), JSON.stringify(out.findings.map((f) => [f.id, f.message]), null, 1))
        for (const r of out.results.filter((x) => !c.fires.includes(x.id))) assert.notEqual(r.status, 'failed')
        if (c.setup) assert.match(bundle.nodes[0]!.artifacts['ip-route']!.content, /^unicast default via 192\.168\.0\.1 dev eth0 table main proto dhcp/m, 'real `ip -d route` output')
      })
    }

    it('every quiet case passes its ids', async () => {
      const stored = JSON.parse(readFileSync(join(ROOT, area, 'cases.json'), 'utf8')) as Record<string, {quiet: string; node: string}>
      for (const [id, {quiet: q, node}] of Object.entries(stored)) {
        const {out} = await runBundle(area, q, checks)
        assert.equal(out.results.find((r) => r.id === id && r.node === node)?.status, 'passed', `${id} in ${q}`)
      }
    })
  })
}
