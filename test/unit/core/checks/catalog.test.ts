// The catalog is data and every entry must be real: unique id, documented, implemented, and proven by a fixture
// bundle that makes it fire and one that keeps it quiet (test/fixtures/checks/<area>/cases.json).
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../src/app/analyze.js'
import {CATALOG, CHECKS, findCheck} from '../../../../src/core/checks/registry.js'
import {type CheckSpec, profileOf} from '../../../../src/core/checks/types.js'
import {AREAS} from '../../../../src/core/model/report.js'
import {renderCatalog, renderExplain} from '../../../../src/render/catalog.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {FIXTURES, REPO_ROOT} from '../../../support/golden.js'

interface Case {
  fire: string
  quiet: string
  node: string
}

function loadCases(): Map<string, Case & {dir: string}> {
  const root = join(FIXTURES, 'checks')
  const out = new Map<string, Case & {dir: string}>()
  for (const area of existsSync(root) ? readdirSync(root) : []) {
    const file = join(root, area, 'cases.json')
    if (!existsSync(file)) continue
    for (const [id, c] of Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Case>)) {
      assert.ok(!out.has(id), `${id} has fixture cases in two places`)
      out.set(id, {...c, dir: join(root, area)})
    }
  }
  return out
}

const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}

describe('check catalog', () => {
  it('has unique, well-formed ids and complete documentation', () => {
    assert.ok(CATALOG.length > 0)
    const ids = CATALOG.map((c) => c.id)
    assert.equal(new Set(ids).size, ids.length, 'ids are unique')
    for (const c of CATALOG) {
      assert.match(c.id, /^[A-Z]+-\d{3}$/, c.id)
      assert.ok((AREAS as readonly string[]).includes(c.area), `${c.id} area`)
      for (const field of ['title', 'looksAt', 'why', 'remedy'] as const) assert.ok(c[field].trim().length > 10, `${c.id} ${field}`)
      assert.equal(findCheck(c.id.toLowerCase())?.spec, c, 'explain finds it case-insensitively')
      const text = renderExplain(c, {color: false})
      assert.ok(text.includes(c.remedy) && text.includes(c.why))
    }
  })

  it('registers every check an area defines exactly once (a spec written but never wired is caught)', async () => {
    // The catalog is derived from the registered checks, so compare with what the areas' modules define.
    const root = join(REPO_ROOT, 'src', 'core', 'checks')
    const defined = new Map<string, string>()
    const isSpec = (v: unknown): v is CheckSpec =>
      typeof v === 'object' && v !== null && typeof (v as CheckSpec).id === 'string' && /^[A-Z]+-\d{3}$/.test((v as CheckSpec).id) && Array.isArray((v as CheckSpec).requires)
    for (const area of readdirSync(root, {withFileTypes: true}).filter((e) => e.isDirectory()).map((e) => e.name)) {
      for (const file of readdirSync(join(root, area)).filter((f) => f.endsWith('.ts'))) {
        const mod = (await import(pathToFileURL(join(root, area, file)).href)) as Record<string, unknown>
        for (const value of Object.values(mod)) for (const spec of Array.isArray(value) ? value : [value]) if (isSpec(spec)) defined.set(spec.id, `${area}/${file}`)
      }
    }
    assert.ok(defined.size >= 50, `found the areas' specs (${defined.size})`)
    const registered = CHECKS.map((c) => c.spec.id)
    assert.equal(new Set(registered).size, registered.length, 'no check is registered twice')
    assert.deepEqual([...defined.keys()].filter((id) => !registered.includes(id)), [], 'defined but not registered')
    assert.deepEqual(registered.filter((id) => !defined.has(id)), [], 'registered but defined outside an area\'s modules')
  })

  it('profiles: a check without one is incident; hygiene checks are CIS-like settings that break no traffic', () => {
    assert.equal(profileOf({}), 'incident', 'checks other helpers add without the field count as incident')
    const hygiene = CATALOG.filter((c) => profileOf(c) === 'hygiene').map((c) => c.id)
    assert.deepEqual(hygiene, ['KUBELET-005', 'KUBELET-006', 'KUBELET-007', 'KUBELET-009', 'KUBELET-010', 'KUBELET-011', 'KUBELET-012', 'KUBELET-013', 'KUBELET-020', 'KUBELET-021'])
    // Every check the proxier's expected state feeds stays incident: those break traffic.
    assert.ok(CATALOG.filter((c) => ['iptables', 'ipvs', 'nftables', 'routes', 'dns'].includes(c.area)).every((c) => profileOf(c) === 'incident'))
    const table = renderCatalog(CATALOG, 'table', {color: false})
    assert.match(table, /^ID\s+AREA\s+SEVERITY\s+PROFILE\s+TITLE/)
    assert.match(table, /^KUBELET-012\s+kubelet\s+info\s+hygiene\s+protectKernelDefaults/m)
    const json = JSON.parse(renderCatalog(CATALOG, 'json', {color: false})) as {items: Array<{id: string; profile: string}>}
    assert.ok(json.items.every((i) => i.profile === profileOf(CATALOG.find((c) => c.id === i.id)!)))
    assert.match(renderExplain(CATALOG.find((c) => c.id === 'KUBELET-021')!, {color: false}), /Profile: +hygiene/)
  })

  it('--profile runs only the checks in it (the others are not run, not skipped) and the report records it', async () => {
    const c = cases.get('KUBELET-012')!
    const bundle = await readBundle(join(c.dir, c.fire))
    const kubelet = CHECKS.filter((k) => k.spec.area === 'kubelet')
    const run = (profile: 'incident' | 'hygiene' | 'all') => analyzeSnapshots(bundle.cluster, bundle.nodes, {metadata: meta, checks: kubelet, profile})
    const incident = run('incident')
    assert.ok(!incident.results.some((r) => profileOf(findCheck(r.id)!.spec) === 'hygiene'), 'no hygiene result at all, not even skipped')
    assert.ok(incident.results.some((r) => r.id === 'KUBELET-015'))
    assert.equal(incident.metadata.annotations?.['node-doctor/profile'], 'incident')
    const hygiene = run('hygiene')
    assert.ok(hygiene.findings.some((f) => f.id === 'KUBELET-012' && f.node === c.node))
    assert.ok(hygiene.results.every((r) => profileOf(findCheck(r.id)!.spec) === 'hygiene'))
    const all = run('all')
    assert.equal(all.results.length, incident.results.length + hygiene.results.length)
    // No profile given (analyze, tests): every check, and nothing recorded.
    assert.equal(analyzeSnapshots(bundle.cluster, bundle.nodes, {metadata: meta, checks: kubelet}).results.length, all.results.length)
  })

  const cases = loadCases()
  it('every check has a fire and a quiet fixture, and every fixture names a real check', () => {
    const missing = CATALOG.filter((c) => !cases.has(c.id)).map((c) => c.id)
    assert.deepEqual(missing, [], 'checks without fixture cases')
    const unknown = [...cases.keys()].filter((id) => !findCheck(id))
    assert.deepEqual(unknown, [], 'fixture cases for unknown ids')
  })

  for (const spec of CATALOG) {
    const c = cases.get(spec.id)
    if (!c) continue
    it(`${spec.id} fires on ${c.fire} and stays quiet on ${c.quiet}`, async () => {
      const check = findCheck(spec.id)!
      const fire = await readBundle(join(c.dir, c.fire))
      const fired = analyzeSnapshots(fire.cluster, fire.nodes, {metadata: meta, checks: [check]})
      const firedResult = fired.results.find((r) => r.node === c.node)
      assert.equal(firedResult?.status, 'failed', `${spec.id} on ${c.fire}: ${JSON.stringify(firedResult)}`)
      assert.ok(fired.findings.some((f) => f.id === spec.id && f.node === c.node))
      const quiet = await readBundle(join(c.dir, c.quiet))
      const calm = analyzeSnapshots(quiet.cluster, quiet.nodes, {metadata: meta, checks: [check]})
      assert.equal(calm.results.find((r) => r.node === c.node)?.status, 'passed', `${spec.id} on ${c.quiet}`)
    })
  }
})
