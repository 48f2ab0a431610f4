// `kubectl node-doctor iptables show` through the built executable (run `npm run build` first).
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, test} from 'node:test'
import {fixturePath, readFixture} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

describe('iptables show (built CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nd-iptables-show-'))
  after(() => rmSync(dir, {recursive: true, force: true}))

  test('a captured dump: exit 0, the same table as the golden', async () => {
    const file = fixturePath('iptables/kube-proxy-v1.33-legacy-counters.txt')
    const r = await runCli(['iptables', 'show', '--from-file', file])
    assert.equal(r.exitCode, 0, r.stderr)
    const golden = readFixture('iptables/kube-proxy-v1.33-legacy-counters.show.golden.txt')
    // Only the source path in the header line differs.
    assert.equal(r.stdout.split('\n').slice(1).join('\n'), golden.split('\n').slice(1).join('\n'))
    assert.match(r.stdout, /^iptables-save v1\.8\.9 \(legacy\), from .*kube-proxy-v1\.33-legacy-counters\.txt: IPv4, with counters/)
    assert.equal(r.stderr, '')
  })

  test('stdin, a node label, -o json and -o yaml', async () => {
    const input = readFixture('iptables/kube-proxy-ipv6.txt')
    const json = await runCli(['iptables', 'show', 'node-a', '-f', '-', '-o', 'json'], {input})
    assert.equal(json.exitCode, 0, json.stderr)
    const doc = JSON.parse(json.stdout) as {kind: string; node: string; source: string; dump: {family: string}; servicePorts: unknown[]}
    assert.deepEqual([doc.kind, doc.node, doc.source, doc.dump.family, doc.servicePorts.length], ['IptablesShow', 'node-a', '<stdin>', 'ipv6', 5])
    const yaml = await runCli(['iptables', 'show', '-f', fixturePath('iptables/large-cluster-no-comments.txt'), '-o', 'yaml'])
    assert.equal(yaml.exitCode, 0, yaml.stderr)
    assert.match(yaml.stdout, /^apiVersion: node-doctor\.io\/v1alpha1\nkind: IptablesShow\n/)
  })

  test('a bad file: exit 2, the message names the file and the line', async () => {
    const file = join(dir, 'truncated.txt')
    const full = readFixture('iptables/kube-proxy-v1.28-nft.txt')
    writeFileSync(file, full.slice(0, full.indexOf('COMMIT', full.indexOf('*nat'))))
    // --strict: without it a missing COMMIT is read leniently (test/e2e/iptables-show-pasted.test.ts)
    const r = await runCli(['iptables', 'show', '--strict', '--from-file', file])
    assert.equal(r.exitCode, 2)
    const lines = full.slice(0, full.indexOf('COMMIT', full.indexOf('*nat'))).split('\n').length - 1
    assert.match(r.stderr, new RegExp(`^error: ${file.replaceAll('/', '\\/')}:${lines}: table nat \\(opened on line \\d+\\) has no COMMIT`))
    assert.equal(r.stdout, '')

    const ipvs = join(dir, 'ipvs.txt')
    writeFileSync(ipvs, 'IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n')
    const r2 = await runCli(['iptables', 'show', '--from-file', ipvs])
    assert.equal(r2.exitCode, 2)
    assert.match(r2.stderr, /ipvs\.txt:1: this looks like `ipvsadm -ln` output, not iptables-save/)
  })

  test('usage errors: a node without a kubeconfig, nothing at all, a missing file', async () => {
    const live = await runCli(['iptables', 'show', 'node-a', '--kubeconfig', join(dir, 'no-kubeconfig')])
    assert.equal(live.exitCode, 2)
    assert.match(live.stderr, /no-kubeconfig \(from --kubeconfig\) does not exist/)
    const none = await runCli(['iptables', 'show'])
    assert.equal(none.exitCode, 2)
    assert.match(none.stderr, /give a NODE to read live, or --from-file FILE/)
    const missing = await runCli(['iptables', 'show', '--from-file', join(dir, 'nope.txt')])
    assert.equal(missing.exitCode, 2)
    assert.match(missing.stderr, /nope\.txt does not exist/)
  })
})
