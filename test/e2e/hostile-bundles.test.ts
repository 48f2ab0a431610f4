// Hostile inputs through the built CLI (issue #14, items 4, 8, 9): usage errors (exit 2) in seconds, never an
// internal error, a crash or an out-of-memory.
import assert from 'node:assert/strict'
import {cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {gzipSync} from 'node:zlib'
import * as tar from 'tar'
import {REPO_ROOT} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const MiB = 1024 * 1024

describe('hostile bundles and input files through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nd-hostile-cli-'))
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('analyze of a 5 GiB tar bomb: exit 2 in seconds', async () => {
    const h = new tar.Header({path: 'node-doctor-bundle/bundle.json', size: 5 * 1024 * MiB, type: 'File', mode: 0o644, mtime: new Date(0)})
    h.encode()
    const zeros = gzipSync(Buffer.alloc(64 * MiB), {level: 9})
    const parts = [gzipSync(h.block!), ...Array.from({length: 80}, () => zeros), gzipSync(Buffer.alloc(1024))]
    const file = join(dir, 'bomb.tgz')
    writeFileSync(file, Buffer.concat(parts))
    const t0 = Date.now()
    const cli = await runCli(['analyze', file])
    assert.equal(cli.exitCode, 2, cli.stderr)
    assert.match(cli.stderr, /exceeds the limit of 32 MiB \(NODE_DOCTOR_MAX_ARTIFACT_BYTES\)/)
    assert.ok(Date.now() - t0 < 30_000)
  })

  it('analyze of bundles with a symlink out, a ../ node name or a malformed manifest: exit 2, nothing outside read', async () => {
    const link = join(dir, 'link')
    cpSync(join(REPO_ROOT, 'examples/bundle'), link, {recursive: true})
    rmSync(join(link, 'nodes/node-a/iptables-save.txt'))
    symlinkSync('/etc/shadow', join(link, 'nodes/node-a/iptables-save.txt'))
    const r1 = await runCli(['analyze', link, '-o', 'wide'])
    assert.equal(r1.exitCode, 2)
    assert.match(r1.stderr, /is a symbolic link/)
    assert.doesNotMatch(r1.stdout + r1.stderr, /root:[^\n]*:\d+:/)
    const bad = join(dir, 'bad')
    cpSync(join(REPO_ROOT, 'examples/bundle'), bad, {recursive: true})
    writeFileSync(join(bad, 'bundle.json'), JSON.stringify({apiVersion: 'node-doctor.io/v1alpha1', kind: 'Bundle', nodes: ['../../x']}))
    const r2 = await runCli(['analyze', bad])
    assert.equal(r2.exitCode, 2)
    assert.match(r2.stderr, /is not a DNS subdomain/)
    writeFileSync(join(bad, 'bundle.json'), '{"kind": "Bundle", "apiVersion": "node-doctor.io/v1alpha1"}')
    const r3 = await runCli(['analyze', bad])
    assert.equal(r3.exitCode, 2)
    assert.match(r3.stderr, /"nodes" is not a list/)
  })

  it('kubelet show of 2 KB of JSON nested 1,000 deep: exit 2, not a V8 crash', async () => {
    const file = join(dir, 'deep.json')
    writeFileSync(file, `${'['.repeat(1000)}${']'.repeat(1000)}`)
    const r = await runCli(['kubelet', 'show', '--from-file', file])
    assert.equal(r.exitCode, 2, r.stderr)
    assert.match(r.stderr, /nested more than 64 levels deep \(NODE_DOCTOR_MAX_DOCUMENT_DEPTH\)/)
  })

  it('an input file over NODE_DOCTOR_MAX_INPUT_FILE_BYTES is refused (exit 2)', async () => {
    const file = join(dir, 'big.txt')
    writeFileSync(file, '*filter\nCOMMIT\n'.repeat(100_000))
    const r = await runCli(['iptables', 'show', '-f', file], {env: {NODE_DOCTOR_MAX_INPUT_FILE_BYTES: '1Mi'}})
    assert.equal(r.exitCode, 2, r.stderr)
    assert.match(r.stderr, /exceeds the limit of 1 MiB \(NODE_DOCTOR_MAX_INPUT_FILE_BYTES\)/)
  })
})
