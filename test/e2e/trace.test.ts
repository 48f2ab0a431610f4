// `trace` through the built executable (`npm run build` first): the node's dump is the expected state of the
// clusterip fixture (node-a, IP plan in test/fixtures/proxier/iptables/README.md), as is or with one KUBE-SEP removed.
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {fixturePath} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'
import {renderFixture} from '../unit/core/trace/flow.js'

let dir: string
let clean: string
let altered: string
const OBJECTS = ['--objects', fixturePath('proxier/iptables/clusterip/objects.yaml'), '--objects', fixturePath('proxier/iptables/nodes.yaml'), '--node', 'node-a']

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'nd-trace-'))
  const save = renderFixture('clusterip').save
  clean = join(dir, 'clean.iptables')
  writeFileSync(clean, save)
  // The endpoint chain of 10.0.2.9:8080 and the jump to it are gone, as after a failed sync.
  const sep = /-A KUBE-SVC-\S+ .*"default\/web:http -> 10\.0\.2\.9:8080" -j (KUBE-SEP-\S+)/.exec(save)?.[1]
  assert.ok(sep)
  altered = join(dir, 'altered.iptables')
  writeFileSync(altered, save.split('\n').filter((l) => !l.includes(sep)).join('\n'))
})

after(() => rmSync(dir, {recursive: true, force: true}))

describe('trace (built CLI)', () => {
  it('exit 0 when the dump agrees with the expected rules', async () => {
    const r = await runCli(['trace', ...OBJECTS, '--iptables-save', clean, '--to', '172.30.0.10:53/udp', '--from', '10.0.1.7'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^Trace of a new UDP connection to 172\.30\.0\.10:53\/udp from a pod on the node \(10\.0\.1\.7 in podCIDR 10\.0\.1\.0\/24\), node node-a$/m)
    assert.match(r.stdout, /^same endpoints and probabilities as kube-proxy's rules: 10\.0\.1\.2:53 33\.3%, 10\.0\.2\.10:53 33\.3%, 10\.0\.2\.9:53 33\.3%$/m)
    assert.doesNotMatch(r.stdout, /\x1b\[/)
  })

  it('exit 1 and the missing endpoint when the dump was altered; -o json carries the same result', async () => {
    const r = await runCli(['trace', ...OBJECTS, '--iptables-save', altered, '--to', '172.30.0.10:80'])
    assert.equal(r.exitCode, 1, r.stderr)
    // It held the last, unconditional rule of KUBE-SVC: its share now falls off the chain without DNAT.
    assert.match(r.stdout, /^differs: missing 10\.0\.2\.9:8080 \(expected 25\.0%\); extra no DNAT \(25\.0%\)$/m)
    const j = await runCli(['trace', ...OBJECTS, '--iptables-save', altered, '--to', '172.30.0.10:80', '-o', 'json'])
    assert.equal(j.exitCode, 1, j.stderr)
    const doc = JSON.parse(j.stdout) as {kind: string; comparison: {missing: Array<{outcome: string}>}; actual: {endpoints: Record<string, number>}}
    assert.equal(doc.kind, 'PacketTrace')
    assert.deepEqual(doc.comparison.missing.map((m) => m.outcome), ['10.0.2.9:8080'])
    assert.deepEqual(Object.keys(doc.actual.endpoints).sort(), ['10.0.1.2:8080', '10.0.1.3:8080', '10.0.2.10:8080', 'no-dnat'])
  })

  it('exit 2 on a malformed --to, naming the expected form; and on a family mismatch', async () => {
    const r = await runCli(['trace', ...OBJECTS, '--iptables-save', clean, '--to', '172.30.0.10'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /--to "172\.30\.0\.10" is not IP:PORT\[\/PROTO\]/)
    assert.equal(r.stdout, '')
    const v6 = await runCli(['trace', ...OBJECTS, '--iptables-save', clean, '--to', '[fd00:172:30::1]:80'])
    assert.equal(v6.exitCode, 2)
    assert.match(v6.stderr, /is ipv6 but .* is iptables-save output/)
  })
})
