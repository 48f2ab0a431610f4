// `preflight` through the built CLI, offline on bundles: every file format in one run, baseline suppression and
// errors, and the fleet view of a bundle with many nodes (cloned from the example bundle's node-a/node-b).
import assert from 'node:assert/strict'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import type {Report} from '../../src/core/model/report.js'
import {readBundle, writeBundle} from '../../src/transports/bundle/bundle.js'
import {REPO_ROOT} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const BUNDLE = join(REPO_ROOT, 'examples', 'bundle')
const validate = new Ajv2020({strict: true, allErrors: true}).compile(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))

/** Clones node-a (faulty) `faulty` times and node-b (healthy) `healthy` times, Node objects included. */
export async function writeFleetBundle(path: string, faulty: number, healthy: number): Promise<void> {
  const b = await readBundle(BUNDLE)
  const template = (name: string) => ({snap: b.nodes.find((n) => n.node === name)!, obj: b.cluster.nodes.find((n) => n.metadata.name === name)!})
  const nodes = []
  const objects = []
  for (const [from, count] of [['node-a', faulty], ['node-b', healthy]] as const) {
    const t = template(from)
    for (let i = 1; i <= count; i++) {
      const name = `${from}-${String(i).padStart(3, '0')}`
      nodes.push({...structuredClone(t.snap), node: name, durationMs: 100 + i})
      objects.push({...structuredClone(t.obj), metadata: {...structuredClone(t.obj.metadata), name}})
    }
  }
  await writeBundle(path, {manifest: {...b.manifest, nodes: nodes.map((n) => n.node)}, cluster: {...b.cluster, nodes: objects}, nodes})
}

describe('kubectl node-doctor preflight', () => {
  let dir: string
  before(() => (dir = mkdtempSync(join(tmpdir(), 'nd-preflight-'))))
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('writes JUnit, SARIF, JSON and Markdown in one run, prints a summary and exits 1', async () => {
    const [a, b, c, d] = ['a.xml', 'b.sarif', 'c.json', 'd.md'].map((f) => join(dir, f)) as [string, string, string, string]
    const r = await runCli(['preflight', '--from-bundle', BUNDLE, '--junit', a, '--sarif', b, '--json', c, '--markdown', d])
    assert.equal(r.exitCode, 1, r.stderr)
    assert.match(r.stdout, /^node-doctor preflight: UNHEALTHY \(exit 1, --fail-on error\)\n/)
    assert.doesNotMatch(r.stdout, /No report files written/)
    assert.match(r.stdout, /nodes: 2 \(1 healthy, 1 unhealthy\) · findings: 1 error, 1 warning, 0 info/)
    assert.match(r.stdout, /✖ IPT-003 +node-a: /)
    assert.match(r.stdout, new RegExp(`junit +${a}\\n  sarif +${b}\\n  json +${c}\\n  markdown +${d}\\n`))
    assert.doesNotMatch(r.stdout + r.stderr, /\x1b\[|\r/, 'no colour, no progress animation')

    const report = JSON.parse(readFileSync(c, 'utf8')) as Report
    assert.ok(validate(report), JSON.stringify(validate.errors))
    assert.deepEqual(report.findings.map((f) => f.id), ['IPT-003', 'IPT-002'])
    assert.match(readFileSync(a, 'utf8'), /<testsuites[^>]*failures="2"/)
    assert.equal(JSON.parse(readFileSync(b, 'utf8')).runs[0].results.length, 2)
    assert.match(readFileSync(d, 'utf8'), /^## ❌ node-doctor: UNHEALTHY\n/)
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), [], 'no temp files left behind')
  })

  it('a baseline suppressing both findings exits 0; JSON keeps them under suppressed', async () => {
    const baseline = join(dir, 'baseline.yaml')
    writeFileSync(baseline, [
      'ignore:',
      '  - id: IPT-003',
      '    node: "node-*"',
      '    subject: default/lb:http cluster IP',
      '    reason: lb rule rolls out in NET-42',
      '    expires: 2999-12-31',
      '  - id: IPT-002',
      '    subject: KUBE-SEP-OLD*',
      '    reason: stale chain cleanup NET-43',
      '  - id: IPT-001',
      '    reason: old entry',
      '    expires: 2000-01-01',
      '',
    ].join('\n'))
    const json = join(dir, 'suppressed.json')
    const junit = join(dir, 'suppressed.xml')
    const r = await runCli(['preflight', '--from-bundle', BUNDLE, '--baseline', baseline, '--json', json, '--junit', junit])
    assert.equal(r.exitCode, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /HEALTHY \(exit 0/)
    assert.match(r.stdout, /suppressed: 2/)
    assert.match(r.stdout, new RegExp(`warning: baseline ${baseline}:10: entry for IPT-001 expired on 2000-01-01`))
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report
    assert.ok(validate(report), JSON.stringify(validate.errors))
    assert.deepEqual(report.findings, [])
    assert.deepEqual(report.suppressed?.map((f) => [f.id, f.reason]), [['IPT-003', 'lb rule rolls out in NET-42'], ['IPT-002', 'stale chain cleanup NET-43']])
    assert.match(readFileSync(junit, 'utf8'), /<testsuites[^>]*failures="0"/)
  })

  it('a malformed baseline is a usage error naming the file and line, before anything is written', async () => {
    const baseline = join(dir, 'bad.yaml')
    writeFileSync(baseline, '- id: IPT-003\n  reason: ok\n- id: IPT-002\n  node: node-a\n')
    const out = join(dir, 'never.json')
    const r = await runCli(['preflight', '--from-bundle', BUNDLE, '--baseline', baseline, '--json', out])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, new RegExp(`${baseline}:3: entry for IPT-002 has no "reason"`))
    assert.equal(readdirSync(dir).includes('never.json'), false)
  })

  it('groups a fleet: table shows one row per repeated finding, JSON keeps every node', async () => {
    const fleet = join(dir, 'fleet')
    await writeFleetBundle(fleet, 4, 8)
    const table = await runCli(['analyze', fleet, '-o', 'table'])
    assert.equal(table.exitCode, 1, table.stderr)
    // Clones are not in the example's kube-proxy pods or local endpoints, so they get more findings than node-a;
    // what matters here is that each repeated finding is one row with its node count.
    assert.match(table.stdout, /12 nodes: 12 unhealthy/)
    assert.match(table.stdout, /✖ error +IPT-003 +iptables +4 nodes: node-a-001, node-a-002, node-a-003, … +rule\/-A KUBE-SERVICES -d 172/)
    assert.match(table.stdout, /▲ warning +IPT-002 +iptables +4 nodes: node-a-001, node-a-002, node-a-003, … +chain\/KUBE-SEP-OLDENDPOINT0000A/)
    assert.match(table.stdout, /PROXY-006 +proxy-mode +12 nodes: .* has no pod on <node>/)
    assert.equal(table.stdout.match(/KUBE-SEP-OLDENDPOINT0000A in nat/g)?.length, 1, 'one row, not one per node')
    assert.doesNotMatch(table.stdout, /^node-a-001 /m, 'no per-node sections')

    const json = JSON.parse((await runCli(['analyze', fleet, '-o', 'json'])).stdout) as Report
    assert.equal(json.findings.filter((f) => f.subject.name === 'KUBE-SEP-OLDENDPOINT0000A').length, 4)
    assert.equal(new Set(json.findings.map((f) => f.node)).size, 12)

    const pf = await runCli(['preflight', '--from-bundle', fleet, '-l', 'kubernetes.io/hostname'])
    assert.equal(pf.exitCode, 1, pf.stderr)
    assert.match(pf.stdout, /✖ IPT-003 +4 nodes: node-a-001, node-a-002, node-a-003, …: rule\/-A KUBE-SERVICES/)
    assert.match(pf.stdout, /Failing checks: IPT-002 on 12 nodes, IPT-003 on 12 nodes/)
    assert.match(pf.stdout, /Slowest nodes: node-b-008 0\.1s, node-b-007 0\.1s, node-b-006 0\.1s/)
    // No file flag: the summary says nothing was written, and how to keep the report.
    assert.match(pf.stdout, /\nNo report files written \(none of --junit, --sarif, --json, --markdown was given\); pass one with a path to keep the full report\.\n$/)
  })
})
