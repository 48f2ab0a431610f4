// `proxy render --mode ipvs` and `proxy diff --mode ipvs` from files through the built CLI. The node's files are
// what a healthy IPVS node shows for the `services` fixture (test/unit/core/proxier/ipvs/helpers.ts; the ipsets,
// kube-ipvs0 and iptables parts round-trip through the real tools in test/integration/proxier/ipvs-roundtrip).
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {Report} from '../../src/core/model/report.js'
import {fixturePath, readFixture} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'
import {healthyNodeArtifacts, NODE_A_ADDRESSES, renderIpvsCase} from '../unit/core/proxier/ipvs/helpers.js'

const objects = ['--objects', fixturePath('proxier/ipvs/services/objects.yaml'), '--objects', fixturePath('proxier/iptables/nodes.yaml'), '--node', 'node-a', '--kube-proxy-version', 'v1.35']
const addresses = NODE_A_ADDRESSES.flatMap((a) => ['--node-address', a])

describe('kubectl node-doctor proxy render|diff --mode ipvs (files)', () => {
  let dir: string
  const file = (name: string) => join(dir, name)
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nd-ipvs-'))
    const a = healthyNodeArtifacts(renderIpvsCase('services'))
    writeFileSync(file('ipvsadm.txt'), a.ipvsadm)
    writeFileSync(file('ip-addr.json'), a.ipAddr)
    writeFileSync(file('ipset.txt'), a.ipset)
    writeFileSync(file('iptables-save.txt'), a.iptablesSave)
    writeFileSync(file('ipvsadm-bad.txt'), a.ipvsadm.replace('-a -t 172.30.0.10:80 -r 10.0.2.9:8080 -m -w 1\n', ''))
    writeFileSync(file('ipset-bad.txt'), `${a.ipset}add KUBE-CLUSTER-IP 172.30.99.9,tcp:80\n`)
  })
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('render prints ipvsadm -Sn, kube-ipvs0, ipset save and the iptables rules, and notes the deprecation', async () => {
    const r = await runCli(['proxy', 'render', '--mode', 'ipvs', ...objects, ...addresses])
    assert.equal(r.exitCode, 0, r.stderr)
    // A comment block says what the state was rendered from (left out with -q), then the state.
    assert.match(r.stdout, /^# node-doctor rendered this from:\n# {3}kube-proxy version: v1\.35 /)
    assert.equal(r.stdout.slice(r.stdout.indexOf('# ipvsadm -Sn')), readFixture('proxier/ipvs/services/expected.txt'))
    assert.match(r.stderr, /IPVS mode is deprecated since kube-proxy v1\.35.*nftables/)
  })

  it('diff is clean against a healthy node, with the node addresses taken from --ip-addr', async () => {
    const r = await runCli(['proxy', 'diff', '--mode', 'ipvs', ...objects, '--ipvsadm', file('ipvsadm.txt'), '--ip-addr', file('ip-addr.json'), '--ipset', file('ipset.txt'), '--iptables-save', file('iptables-save.txt'), '-o', 'json', '-q'])
    assert.equal(r.exitCode, 0, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.findings, [])
    assert.equal(report.results.filter((x) => x.status === 'passed').length, 13)
    assert.equal(report.metadata.annotations?.compared, 'ipvsadm,ip-addr,ipset,iptables-save')
  })

  it('diff names a missing real server and a stale ipset entry, grouped by service port', async () => {
    const r = await runCli(['proxy', 'diff', '--mode', 'ipvs', ...objects, '--ipvsadm', file('ipvsadm-bad.txt'), '--ip-addr', file('ip-addr.json'), '--ipset', file('ipset-bad.txt'), '-o', 'json', '-q'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.findings.map((f) => [f.id, f.group ?? '', f.message]), [
      ['IPVS-003', 'default/web:http', 'virtual server TCP 172.30.0.10:80 (default/web:http) lacks real server 10.0.2.9:8080'],
      ['IPVS-011', '', 'ipset KUBE-CLUSTER-IP holds 172.30.99.9,tcp:80, which no current Service port needs'],
    ])
  })

  it('the table view prints the rule diff per virtual server above the findings, each finding with what it breaks', async () => {
    const r = await runCli(['proxy', 'diff', '--mode', 'ipvs', ...objects, '--ipvsadm', file('ipvsadm-bad.txt'), '--ip-addr', file('ip-addr.json'), '--ipset', file('ipset-bad.txt'), '-q'])
    assert.equal(r.exitCode, 1, r.stderr)
    const diff = r.stdout.slice(0, r.stdout.indexOf('\n\n'))
    assert.equal(
      diff,
      [
        'Rule diff on node-a  (- missing on the node · + not expected · ~ order)',
        '  every Service (not tied to one Service port)',
        '    + ipset KUBE-CLUSTER-IP 172.30.99.9,tcp:80',
        '  default/web:http',
        '    virtual server TCP 172.30.0.10:80 rr',
        '      - 10.0.2.9:8080 weight 1',
      ].join('\n'),
    )
    assert.ok(r.stdout.indexOf('Rule diff') < r.stdout.indexOf('UNHEALTHY'), 'the diff comes first')
    assert.match(r.stdout, /breaks: svc default\/web:http \(1 of \d endpoints\)/)
    const json = await runCli(['proxy', 'diff', '--mode', 'ipvs', ...objects, '--ipvsadm', file('ipvsadm-bad.txt'), '-o', 'json', '-q'])
    const missing = (JSON.parse(json.stdout) as Report).findings.find((f) => f.id === 'IPVS-003')!
    assert.deepEqual(missing.impact?.services.map((s) => [s.service, s.port, s.endpoints]), [['default/web', 'http', ['10.0.2.9']]])
    const clean = await runCli(['proxy', 'diff', '--mode', 'ipvs', ...objects, '--ipvsadm', file('ipvsadm.txt'), '--ip-addr', file('ip-addr.json'), '--ipset', file('ipset.txt'), '-q'])
    assert.equal(clean.exitCode, 0, clean.stderr)
    assert.doesNotMatch(clean.stdout, /Rule diff/)
  })

  it('says what is missing or wrong in the input', async () => {
    const none = await runCli(['proxy', 'diff', '--mode', 'ipvs', ...objects])
    assert.equal(none.exitCode, 2)
    assert.match(none.stderr, /--mode ipvs needs --ipvsadm FILE/)
    const wrong = await runCli(['proxy', 'diff', '--mode', 'ipvs', ...objects, '--ipvsadm', file('ipvsadm.txt'), '--ipset', file('ipvsadm.txt')])
    assert.equal(wrong.exitCode, 2)
    assert.match(wrong.stderr, /ipvsadm\.txt:1: this looks like ipvsadm -Sn \(save\) output; expected ipset output/)
  })
})
