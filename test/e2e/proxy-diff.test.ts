// `proxy diff` from files through the built CLI: a clean dump, a damaged one, and KUBE-* chains left in the other
// iptables backend (--other-backend-save). The dumps come from the real iptables (examples/bundle, fixtures).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import type {Report} from '../../src/core/model/report.js'
import {fixturePath, REPO_ROOT} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const objects = ['--objects', fixturePath('proxier/iptables/loadbalancer/objects.yaml'), '--objects', fixturePath('proxier/iptables/session-affinity/objects.yaml'), '--objects', fixturePath('proxier/iptables/nodes.yaml')]
const facts = ['--no-nfacct', '--kube-proxy-version', 'v1.31']
const dump = (node: string) => `${REPO_ROOT}/examples/bundle/nodes/${node}/iptables-save.txt`

describe('kubectl node-doctor proxy diff (files)', () => {
  it('is clean for node-b and names the planted faults on node-a', async () => {
    const clean = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-b', '--iptables-save', dump('node-b'), '-o', 'json'])
    assert.equal(clean.exitCode, 0, clean.stderr)
    assert.deepEqual((JSON.parse(clean.stdout) as Report).findings, [])
    const bad = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-a', '--iptables-save', dump('node-a'), '-o', 'json'])
    assert.equal(bad.exitCode, 1, bad.stderr)
    assert.deepEqual((JSON.parse(bad.stdout) as Report).findings.map((f) => f.id), ['IPT-003', 'IPT-002'])
  })

  it('the table view prints the rule diff (-/+ per Service port) above the findings; a clean node has none', async () => {
    const bad = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-a', '--iptables-save', dump('node-a')])
    assert.equal(bad.exitCode, 1, bad.stderr)
    assert.match(bad.stdout, /^Rule diff on node-a {2}\(- missing on the node · \+ not expected/)
    assert.match(bad.stdout, /^ {4}- (nat|filter) /m, 'a rule kube-proxy would program that the node lacks')
    assert.match(bad.stdout, /^ {4}\+ (nat|filter) /m, 'a rule the node has that kube-proxy would not')
    assert.ok(bad.stdout.indexOf('Rule diff') < bad.stdout.indexOf('✖ UNHEALTHY'), 'the diff comes first')
    const clean = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-b', '--iptables-save', dump('node-b')])
    assert.equal(clean.exitCode, 0, clean.stderr)
    assert.doesNotMatch(clean.stdout, /Rule diff/)
    const json = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-a', '--iptables-save', dump('node-a'), '-o', 'json'])
    assert.doesNotThrow(() => JSON.parse(json.stdout), 'machine output stays one document')
  })

  it('says what each finding breaks, as check does: "breaks:" in the table, impact in -o json', async () => {
    // node-a lacks default/lb:http's KUBE-SERVICES rule (IPT-003); its stale KUBE-SEP chain (IPT-002, a warning) breaks nothing.
    const table = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-a', '--iptables-save', dump('node-a')])
    assert.match(table.stdout, /breaks: svc default\/lb:http \(its only endpoint\)/)
    const json = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-a', '--iptables-save', dump('node-a'), '-o', 'json'])
    const findings = (JSON.parse(json.stdout) as Report).findings
    assert.deepEqual(findings.map((f) => [f.id, f.impact?.services.map((s) => `${s.service}:${s.port} ${s.endpoints.join(',')} of ${s.total}`)]), [
      ['IPT-003', ['default/lb:http 10.0.2.8 of 1']],
      ['IPT-002', undefined],
    ])
    // The same impact `analyze` gives for the example bundle's node-a (the same dump, its objects from the bundle).
    const analyzed = await runCli(['analyze', `${REPO_ROOT}/examples/bundle`, '--only', 'iptables', '-o', 'json'])
    const byCheck = (JSON.parse(analyzed.stdout) as Report).findings.filter((f) => f.node === 'node-a')
    assert.deepEqual(findings.map((f) => [f.id, f.group, f.impact]), byCheck.map((f) => [f.id, f.group, f.impact]))
  })

  it('reports kube-proxy chains in the other backend with --other-backend-save', async () => {
    const other = fixturePath('checks/proxy-mode/dual-backend/nodes/node-a/iptables-legacy-save.txt')
    const r = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-b', '--iptables-save', dump('node-b'), '--other-backend-save', other, '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.findings.map((f) => f.id), ['PROXY-010'])
    assert.match(report.findings[0]!.message, /kube-proxy chains exist in both backends/)
    const none = await runCli(['proxy', 'diff', ...objects, ...facts, '--node', 'node-b', '--iptables-save', dump('node-b'), '--other-backend-save', '/dev/null', '-o', 'json'])
    assert.equal(none.exitCode, 0, none.stderr)
    assert.ok((JSON.parse(none.stdout) as Report).results.some((x) => x.id === 'PROXY-010' && x.status === 'passed'))
  })

  it('needs either a NODE or the files', async () => {
    const r = await runCli(['proxy', 'diff', '--node', 'node-a'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /missing --objects, --iptables-save/)
  })
})
