// `analyze` on the example bundle (real iptables-save dumps with two planted faults on node-a), through the built CLI.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import type {Report} from '../../src/core/model/report.js'
import {REPO_ROOT} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const BUNDLE = join(REPO_ROOT, 'examples', 'bundle')

describe('kubectl node-doctor analyze', () => {
  it('finds exactly the planted faults, and exits 1', async () => {
    const r = await runCli(['analyze', BUNDLE, '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(
      report.findings.map((f) => [f.node, f.id, f.subject.name]),
      [
        ['node-a', 'IPT-003', '-A KUBE-SERVICES -d 172.30.3.1/32 -p tcp -m comment --comment "default/lb:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-JSLCNGWSGB5JPS5Q'],
        ['node-a', 'IPT-002', 'KUBE-SEP-OLDENDPOINT0000A'],
      ],
    )
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a', 'unhealthy'], ['node-b', 'healthy']])
    const ajv = new Ajv2020({strict: true, allErrors: true})
    const validate = ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))
    assert.ok(validate(report), JSON.stringify(validate.errors))
  })

  it('renders every output format', async () => {
    for (const [format, probe] of [
      ['table', /✖ UNHEALTHY/],
      ['wide', /expected: -A KUBE-SERVICES/],
      ['yaml', /kind: Report/],
      ['junit', /<testsuites[^>]*failures="2"/],
      ['sarif', /"ruleId": "IPT-003"/],
    ] as const) {
      const r = await runCli(['analyze', BUNDLE, '-o', format])
      assert.equal(r.exitCode, 1, `${format}: ${r.stderr}`)
      assert.match(r.stdout, probe, format)
      assert.doesNotMatch(r.stdout, /\x1b\[/, `${format}: no colour when not a terminal`)
    }
  })

  it('--fail-on and --only change the exit code as the table says', async () => {
    assert.equal((await runCli(['analyze', BUNDLE, '--only', 'kubelet'])).exitCode, 0)
    const bad = await runCli(['analyze', BUNDLE, '--only', 'nope'])
    assert.equal(bad.exitCode, 2)
    assert.match(bad.stderr, /unknown area "nope"/)
    assert.equal((await runCli(['analyze', join(REPO_ROOT, 'no-such-bundle')])).exitCode, 2)
  })
})
