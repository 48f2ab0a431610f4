// The release archive, installed the way krew installs it: made by scripts/krew-release.mjs, extracted into an empty
// directory, the manifest's `files` rule applied, the `bin` linked into a bin directory, and run through real kubectl
// plugin discovery with a PATH of that bin directory plus kubectl and node (no node_modules anywhere near it).
import assert from 'node:assert/strict'
import {execFileSync, spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {parse} from 'yaml'
import type {Report} from '../../src/core/model/report.js'
import {REPO_ROOT} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string}
const found = spawnSync('sh', ['-c', 'command -v kubectl'], {encoding: 'utf8'})
const kubectl = found.status === 0 ? found.stdout.trim() : undefined

describe('krew release archive', {skip: kubectl ? undefined : 'kubectl is not installed (.ci/run installs it)'}, () => {
  let dir: string
  let binDir: string
  const manifest = parse(readFileSync(join(REPO_ROOT, 'plugins', 'node-doctor.yaml'), 'utf8')) as {
    spec: {platforms: Array<{files: Array<{from: string; to: string}>; bin: string}>}
  }
  const platform = manifest.spec.platforms[0]!

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nd-krew-'))
    const out = join(dir, 'out')
    // The script writes the archive's sha256 into the manifest it is given: a copy, so the checkout stays as is.
    const copy = join(dir, 'node-doctor.yaml')
    cpSync(join(REPO_ROOT, 'plugins', 'node-doctor.yaml'), copy)
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'krew-release.mjs'), out, '--manifest', copy], {cwd: REPO_ROOT, stdio: 'pipe'})
    assert.match(readFileSync(copy, 'utf8'), /sha256: "[0-9a-f]{64}"/)
    const archive = join(out, `kubectl-node-doctor-v${pkg.version}.tgz`)
    assert.ok(existsSync(archive), `${archive} was not made`)
    // krew: extract, then copy each `files` entry into the plugin's store directory, then link `bin` into its bin dir.
    const extracted = join(dir, 'extracted')
    mkdirSync(extracted)
    execFileSync('tar', ['-xzf', archive, '-C', extracted])
    const store = join(dir, 'store', 'node-doctor', `v${pkg.version}`)
    mkdirSync(store, {recursive: true})
    for (const f of platform.files) {
      const fromDir = join(extracted, f.from.replace(/\/\*$/, ''))
      for (const e of readdirSync(fromDir)) cpSync(join(fromDir, e), join(store, f.to, e), {recursive: true})
    }
    binDir = join(dir, 'bin')
    mkdirSync(binDir)
    symlinkSync(join(store, platform.bin), join(binDir, 'kubectl-node_doctor'))
    symlinkSync(kubectl!, join(binDir, 'kubectl'))
    symlinkSync(process.execPath, join(binDir, 'node'))
  })
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('holds no node_modules: the bundle is all it needs', () => {
    const all = execFileSync('find', [join(dir, 'store')], {encoding: 'utf8'})
    assert.doesNotMatch(all, /node_modules/)
  })

  it('`kubectl node-doctor --version` runs from the archive', async () => {
    const r = await runCli(['node-doctor', '--version'], {command: kubectl!, env: {PATH: binDir}, cwd: dir})
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, new RegExp(`kubectl-node-doctor/${pkg.version.replaceAll('.', '\\.')} `))
  })

  it('`kubectl node-doctor analyze` of the example bundle gives the same Report as the development build', async () => {
    const bundle = join(REPO_ROOT, 'examples', 'bundle')
    const r = await runCli(['node-doctor', 'analyze', bundle, '-o', 'json'], {command: kubectl!, env: {PATH: binDir}, cwd: dir})
    assert.equal(r.exitCode, 1, r.stderr)
    const dev = await runCli(['analyze', bundle, '-o', 'json'])
    const strip = (rep: Report) => ({...rep, metadata: {...rep.metadata, generatedAt: ''}})
    assert.deepEqual(strip(JSON.parse(r.stdout) as Report), strip(JSON.parse(dev.stdout) as Report))
  })

  it('help lists the commands and the exit codes; a usage error exits 2 through kubectl', async () => {
    const h = await runCli(['node-doctor', '--help'], {command: kubectl!, env: {PATH: binDir}, cwd: dir})
    assert.equal(h.exitCode, 0, h.stderr)
    assert.match(h.stdout, /\$ kubectl node-doctor \[COMMAND\]/)
    assert.match(h.stdout, /EXIT CODES/)
    const bad = await runCli(['node-doctor', 'explain', 'NOPE-1'], {command: kubectl!, env: {PATH: binDir}, cwd: dir})
    assert.equal(bad.exitCode, 2)
    // The command_not_found hook is in the bundle (lib/hooks): a typo gets its suggestion.
    const typo = await runCli(['node-doctor', 'versoin'], {command: kubectl!, env: {PATH: binDir}, cwd: dir})
    assert.equal(typo.exitCode, 2, typo.stderr)
    assert.match(typo.stderr, /Did you mean this\?\n {2}kubectl node-doctor version\n/)
  })

  it('--help, --version and the bare command print what oclif prints (fast path vs oclif, forced by DEBUG)', async () => {
    for (const args of [['--help'], ['--version'], []]) {
      for (const env of [{}, {FORCE_COLOR: '1'}, {OCLIF_COLUMNS: '44'}]) {
        const run = (extra: Record<string, string>) => runCli(['node-doctor', ...args], {command: kubectl!, env: {PATH: binDir, ...env, ...extra}, cwd: dir})
        const [ours, theirs] = await Promise.all([run({}), run({DEBUG: 'node-doctor-release-test-matches-nothing'})])
        assert.equal(theirs.exitCode, 0, theirs.stderr)
        assert.equal(ours.exitCode, 0, ours.stderr)
        assert.equal(ours.stdout, theirs.stdout, `${args.join(' ')} ${JSON.stringify(env)}`)
      }
    }
  })
})
