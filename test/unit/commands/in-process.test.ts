// Commands run in-process through oclif (no child process): flag parsing, output and exit codes.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {Config} from '@oclif/core'
import {parse as parseYaml} from 'yaml'
import {CATALOG} from '../../../src/core/checks/registry.js'
import {REPO_ROOT} from '../../support/golden.js'

async function runInProcess(argv: string[]): Promise<{stdout: string; stderr: string; exitCode: number}> {
  const config = await Config.load({root: REPO_ROOT})
  const out: string[] = []
  const err: string[] = []
  const origOut = process.stdout.write.bind(process.stdout)
  const origErr = process.stderr.write.bind(process.stderr)
  const savedExit = process.exitCode
  process.exitCode = undefined
  process.stdout.write = ((chunk: string | Uint8Array) => (out.push(String(chunk)), true)) as typeof process.stdout.write
  process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write
  try {
    await config.runCommand(argv[0]!, argv.slice(1))
  } finally {
    process.stdout.write = origOut
    process.stderr.write = origErr
  }
  const exitCode = Number(process.exitCode ?? 0)
  process.exitCode = savedExit
  return {stdout: out.join(''), stderr: err.join(''), exitCode}
}

describe('commands in-process', () => {
  it('checks -o yaml lists the catalog', async () => {
    const r = await runInProcess(['checks', '-o', 'yaml'])
    assert.equal(r.exitCode, 0)
    const doc = parseYaml(r.stdout) as {items: Array<{id: string}>}
    assert.deepEqual(doc.items.map((i) => i.id), CATALOG.map((c) => c.id))
  })

  it('explain of an unknown id sets exit code 2 and says why on stderr', async () => {
    const r = await runInProcess(['explain', 'NOPE-001'])
    assert.equal(r.exitCode, 2)
    assert.equal(r.stdout, '')
    assert.match(r.stderr, /unknown check id "NOPE-001"/)
  })

  it('analyze with --fail-on warning turns a warning-only report into exit 1', async () => {
    const bundle = join(REPO_ROOT, 'test', 'fixtures', 'checks', 'iptables', 'stale-chain')
    assert.equal((await runInProcess(['analyze', bundle, '--fail-on', 'error', '-o', 'json'])).exitCode, 0)
    const r = await runInProcess(['analyze', bundle, '--fail-on', 'warning', '-o', 'json'])
    assert.equal(r.exitCode, 1)
    assert.equal((JSON.parse(r.stdout) as {findings: Array<{id: string}>}).findings[0]!.id, 'IPT-002')
  })

  it('--json is an alias of -o json', async () => {
    const r = await runInProcess(['analyze', join(REPO_ROOT, 'examples', 'bundle'), '--json'])
    assert.equal((JSON.parse(r.stdout) as {kind: string}).kind, 'Report')
  })
})

describe('krew manifest', () => {
  it('names the plugin after its file and carries the package version', () => {
    const m = parseYaml(readFileSync(join(REPO_ROOT, 'plugins', 'node-doctor.yaml'), 'utf8')) as {
      apiVersion: string
      kind: string
      metadata: {name: string}
      spec: {version: string; shortDescription: string; platforms: Array<{bin: string; uri: string; sha256: string; files: Array<{from: string; to: string}>}>}
    }
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string; bin: Record<string, string>}
    assert.equal(m.apiVersion, 'krew.googlecontainertools.github.com/v1alpha2')
    assert.equal(m.kind, 'Plugin')
    assert.equal(m.metadata.name, 'node-doctor')
    assert.equal(m.spec.version, `v${pkg.version}`)
    assert.ok(m.spec.shortDescription.length <= 50)
    for (const p of m.spec.platforms) {
      // The archive's top folder holds the bundle (scripts/bundle.mjs) with the entry point at its root.
      assert.equal(p.bin, 'kubectl-node_doctor')
      assert.deepEqual(p.files, [{from: 'kubectl-node-doctor/*', to: '.'}])
      assert.ok(Object.keys(pkg.bin).includes(p.bin))
      assert.match(p.sha256, /^[0-9a-f]{64}$/)
      assert.ok(p.uri.includes(`v${pkg.version}`))
    }
  })
})
