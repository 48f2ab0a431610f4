// Invalid objects are never fatal, through the built CLI (run `npm run build` first): `proxy render` in every mode
// renders the rest with an EP-003 note per problem, and `proxy diff` reports them as EP-003 warning findings. The
// objects: test/fixtures/proxier/ipvs/invalid-objects/objects.yaml (a Service port 0, a broken EndpointSlice).
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {fixturePath} from '../../support/golden.js'
import {runCli} from '../../support/run-cli.js'

const OBJECTS = ['--objects', fixturePath('proxier/iptables/nodes.yaml'), '--objects', fixturePath('proxier/ipvs/invalid-objects/objects.yaml'), '--node', 'node-a']
const FILE = 'invalid-objects/objects.yaml'
const PORT0 = /EP-003 \(warning\): \S+invalid-objects\/objects\.yaml:5: Service zero\/zero-port: spec\.ports\[0\]\.port: port 0: .* \(kept, as kube-proxy programs it\)/
const BROKEN = /EP-003 \(warning\): \S+invalid-objects\/objects\.yaml:21: EndpointSlice zero\/broken-1: endpoints\[0\]\.conditions\.ready: expected true or false, got "yes" \(left out\)/
const tmp = mkdtempSync(join(tmpdir(), 'nd-objects-'))
after(() => rmSync(tmp, {recursive: true, force: true}))

describe('invalid objects in --objects files', () => {
  it('proxy render, every mode: exit 0, the port-0 Service rendered, one EP-003 note per problem', async () => {
    const port0: Record<string, RegExp> = {
      ipvs: /^-A -t 172\.30\.13\.1:0 -s rr\n-a -t 172\.30\.13\.1:0 -r 10\.0\.2\.50:8080 -m -w 1$/m,
      iptables: /-A KUBE-SERVICES -m comment --comment \"zero\/zero-port:http cluster IP\" -m tcp -p tcp -d 172\.30\.13\.1 --dport 0 -j KUBE-SVC-/,
      nftables: /172\.30\.13\.1 \. tcp \. 0 : goto service-/,
    }
    for (const mode of ['ipvs', 'iptables', 'nftables']) {
      const r = await runCli(['proxy', 'render', '--mode', mode, ...OBJECTS, '--kube-proxy-version', 'v1.35'])
      assert.equal(r.exitCode, 0, `${mode}: ${r.stderr}`)
      assert.match(r.stderr, PORT0, mode)
      assert.match(r.stderr, BROKEN, mode)
      assert.match(r.stdout, port0[mode]!, mode)
      // The broken slice's endpoint is nowhere; the good slice's is.
      assert.doesNotMatch(r.stdout, /10\.0\.2\.51/, mode)
      assert.match(r.stdout, /10\.0\.2\.50/, mode)
    }
    // Without --ip-addr, IPVS mode says which node addresses its NodePort virtual servers were put on.
    const ipvs = await runCli(['proxy', 'render', '--mode', 'ipvs', ...OBJECTS])
    assert.match(ipvs.stderr, /note: NodePort virtual servers are rendered on the Node object's addresses \(192\.168\.0\.2\); give --ip-addr/)
  })

  it('proxy diff --mode ipvs: EP-003 warning findings naming file, object and field, next to the IPVS checks', async () => {
    const rendered = await runCli(['proxy', 'render', '--mode', 'ipvs', ...OBJECTS, '-q'])
    assert.equal(rendered.exitCode, 0, rendered.stderr)
    const ipvsadm = join(tmp, 'ipvsadm.txt')
    writeFileSync(ipvsadm, rendered.stdout.split('# kube-ipvs0 addresses\n')[0]!.split('\n').filter((l) => !l.startsWith('#')).join('\n'))
    const r = await runCli(['proxy', 'diff', '--mode', 'ipvs', ...OBJECTS, '--ipvsadm', ipvsadm, '-o', 'json', '--fail-on', 'none'])
    assert.equal(r.exitCode, 0, r.stderr)
    const report = JSON.parse(r.stdout) as {results: Array<{id: string; status: string}>; findings: Array<{id: string; severity: string; message: string; subject: {kind: string; name: string; namespace?: string; in?: string}}>}
    const ep = report.findings.filter((f) => f.id === 'EP-003')
    assert.deepEqual(
      ep.map((f) => [f.severity, f.subject.kind, f.subject.namespace, f.subject.name]),
      [
        ['warning', 'EndpointSlice', 'zero', 'broken-1'],
        ['warning', 'Service', 'zero', 'zero-port'],
      ],
    )
    assert.ok(ep.every((f) => f.subject.in?.endsWith(FILE)))
    assert.match(ep[1]!.message, /spec\.ports\[0\]\.port: port 0/)
    assert.equal(report.results.find((x) => x.id === 'EP-003')?.status, 'failed')
    // The rendered virtual servers match: every IPVS check passes.
    assert.ok(report.results.filter((x) => x.id.startsWith('IPVS-')).every((x) => x.status === 'passed'), JSON.stringify(report.results))
    // The objects name no kube-proxy version: PROXY-012 (info) says which one the rules assumed.
    assert.deepEqual(report.findings.filter((f) => f.id !== 'EP-003').map((f) => [f.id, f.severity]), [['PROXY-012', 'info']])
  })
})
