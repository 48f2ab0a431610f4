// The built executable, spawned as a user or kubectl would run it. Requires `npm run build` (npm test does it).
import assert from 'node:assert/strict'
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {CATALOG} from '../../src/core/checks/registry.js'
import {EXIT_CODE_TABLE} from '../../src/exit-codes.js'
import {REPO_ROOT} from '../support/golden.js'
import {CLI, runCli} from '../support/run-cli.js'

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string}

describe('kubectl node-doctor executable', () => {
  it('--help speaks as `kubectl node-doctor` and lists the exit codes', async () => {
    const r = await runCli(['--help'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /\$ kubectl node-doctor \[COMMAND\]/)
    assert.doesNotMatch(r.stdout, /kubectl-node_doctor /)
    assert.match(r.stdout, /EXIT CODES/)
    for (const e of EXIT_CODE_TABLE) assert.ok(r.stdout.includes(e.meaning), `exit code ${e.code} documented`)
  })

  it('--version prints the package version', async () => {
    const r = await runCli(['--version'])
    assert.equal(r.exitCode, 0)
    assert.match(r.stdout, new RegExp(`/${pkg.version.replaceAll('.', '\\.')} `))
  })

  it('checks lists every catalog entry', async () => {
    const r = await runCli(['checks', '--no-color'])
    assert.equal(r.exitCode, 0, r.stderr)
    for (const c of CATALOG) assert.match(r.stdout, new RegExp(`^${c.id}\\s+${c.area}\\s+${c.severity}\\s+`, 'm'))
    const json = await runCli(['checks', '-o', 'json'])
    const list = JSON.parse(json.stdout) as {kind: string; items: Array<{id: string}>}
    assert.equal(list.kind, 'CheckList')
    assert.deepEqual(list.items.map((i) => i.id), CATALOG.map((c) => c.id))
  })

  it('explain prints a check, and an unknown id is a usage error', async () => {
    for (const c of CATALOG.slice(0, 3)) {
      const r = await runCli(['explain', c.id])
      assert.equal(r.exitCode, 0, r.stderr)
      assert.ok(r.stdout.includes(c.title))
      assert.ok(r.stdout.includes(c.remedy.split('\n')[0]!))
    }
    const bad = await runCli(['explain', 'NOPE-999'])
    assert.equal(bad.exitCode, 2)
    assert.match(bad.stderr, /unknown check id "NOPE-999"/)
  })

  it('an unknown flag is a usage error (exit 2) with a pointer to help', async () => {
    const r = await runCli(['checks', '--definitely-not-a-flag'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /Nonexistent flag: --definitely-not-a-flag/)
    assert.match(r.stderr, /kubectl node-doctor checks --help/)
  })
})

describe('version and mistyped commands', () => {
  it('version --client prints the client version without a cluster', async () => {
    const r = await runCli(['version', '--client'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.equal(r.stdout, `Client Version: v${pkg.version} (node-${process.version} ${process.platform}-${process.arch})\n`)
    const json = JSON.parse((await runCli(['version', '--client', '-o', 'json'])).stdout) as {kind: string; client: {version: string}}
    assert.equal(json.kind, 'Version')
    assert.equal(json.client.version, `v${pkg.version}`)
  })

  it('version with an unreachable cluster prints the client version, then the error (exit 4)', async () => {
    const r = await runCli(['version', '--server', 'https://127.0.0.1:1', '--insecure-skip-tls-verify', '--request-timeout', '5s'], {env: {KUBECONFIG: '/nonexistent'}})
    assert.match(r.stdout, /^Client Version: v/)
    assert.equal(r.exitCode, 4, r.stderr)
  })

  it('a mistyped command says what it may have meant (exit 2)', async () => {
    const r = await runCli(['versoin'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /^error: unknown command "versoin" for "kubectl node-doctor"\n\nDid you mean this\?\n {2}kubectl node-doctor version\n/)
    const fix = await runCli(['fix', 'kubelt', 'worker-1', '--dry-run'])
    assert.equal(fix.exitCode, 2)
    assert.match(fix.stderr, /kubectl node-doctor fix kubelet worker-1/)
  })
})

describe('kubectl plugin discovery (real kubectl)', () => {
  let dir: string
  let kubectl: string | undefined
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nd-path-'))
    symlinkSync(CLI, join(dir, 'kubectl-node_doctor'))
    const found = spawnSync('sh', ['-c', 'command -v kubectl'], {encoding: 'utf8'})
    kubectl = found.status === 0 ? found.stdout.trim() : undefined
    // PATH is this directory alone (kubectl and node linked in): a copy installed with `npm install -g .` would
    // otherwise shadow or be shadowed by this one, which kubectl reports as an error.
    if (kubectl) symlinkSync(kubectl, join(dir, 'kubectl'))
    symlinkSync(process.execPath, join(dir, 'node'))
  })
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('`kubectl plugin list` finds kubectl-node_doctor on PATH', (t) => {
    if (!kubectl) return t.skip('kubectl is not installed (.ci/run installs it)')
    const out = execFileSync(kubectl, ['plugin', 'list'], {env: {...process.env, PATH: dir}, encoding: 'utf8'})
    assert.match(out, /kubectl-node_doctor/)
  })

  it('`kubectl node-doctor --help` runs the plugin', async (t) => {
    if (!kubectl) return t.skip('kubectl is not installed (.ci/run installs it)')
    const r = await runCli(['node-doctor', '--help'], {command: kubectl, env: {PATH: dir}})
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /\$ kubectl node-doctor \[COMMAND\]/)
    const v = await runCli(['node-doctor', '--version'], {command: kubectl, env: {PATH: dir}})
    assert.match(v.stdout, new RegExp(pkg.version.replaceAll('.', '\\.')))
  })

  it('exit codes pass through kubectl unchanged', async (t) => {
    if (!kubectl) return t.skip('kubectl is not installed (.ci/run installs it)')
    const r = await runCli(['node-doctor', 'explain', 'NOPE-1'], {command: kubectl, env: {PATH: dir}})
    assert.equal(r.exitCode, 2)
  })
})

describe('oclif.manifest.json', () => {
  it('is current: the build regenerates it and it matches what is committed', (t) => {
    const inGit = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], {cwd: REPO_ROOT, encoding: 'utf8'})
    if (inGit.status !== 0) return t.skip('not a git checkout')
    const built = JSON.parse(readFileSync(join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
    assert.ok(Object.keys(built.commands).includes('checks'))
    const committed = spawnSync('git', ['show', 'HEAD:oclif.manifest.json'], {cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024})
    assert.equal(committed.status, 0, 'oclif.manifest.json is committed')
    assert.deepStrictEqual(built, JSON.parse(committed.stdout), 'oclif.manifest.json is stale: commit the regenerated file')
    // The build's last step fixes the command order (scripts/manifest-order.mjs): the bytes are the committed ones,
    // so a fresh clone's `npm ci && npm run build` leaves a clean tree.
    assert.equal(readFileSync(join(REPO_ROOT, 'oclif.manifest.json'), 'utf8'), committed.stdout, 'the build rewrote oclif.manifest.json')
  })
})
