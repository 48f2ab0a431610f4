// The start-up fast path end to end (src/fast-start.ts through bin/kubectl-node_doctor): `--help`, `--version` and the
// bare command print exactly what oclif prints, in every colour setting and at several widths, and they do it
// without loading @oclif/core. oclif's own answer is the same binary with DEBUG set (the fast path leaves any DEBUG
// to oclif; a namespace that matches nothing adds no output). Requires `npm run build`.
import assert from 'node:assert/strict'
import {execFile} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {after, describe, it} from 'node:test'
import {promisify} from 'node:util'
import {REPO_ROOT} from '../support/golden.js'
import {CLI, runCli} from '../support/run-cli.js'

const OCLIF = {DEBUG: 'node-doctor-fast-start-test-matches-nothing'}
const HOOK = join(REPO_ROOT, 'test', 'support', 'record-resolves.mjs')

/** The packages a run of the CLI with `args` and `env` resolves (test/support/record-resolves.mjs). */
async function packagesLoaded(args: string[], env: Record<string, string>, record: string): Promise<Set<string>> {
  await promisify(execFile)(process.execPath, ['--import', pathToFileURL(HOOK).href, CLI, ...args], {
    cwd: REPO_ROOT,
    env: {...process.env, ...env, RECORD_RESOLVES: record},
  })
  const packages = new Set<string>()
  for (const line of readFileSync(record, 'utf8').split('\n')) {
    const where = line.split('\t')[1]
    if (!where) continue
    const path = where.startsWith('file:') ? new URL(where).pathname : where
    const at = path.lastIndexOf('/node_modules/')
    if (at < 0) continue
    const [scope, name] = path.slice(at + '/node_modules/'.length).split('/')
    packages.add(scope?.startsWith('@') ? `${scope}/${name}` : scope!)
  }
  return packages
}

describe('fast start, end to end', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'nd-fast-e2e-'))
  after(() => rmSync(scratch, {recursive: true, force: true}))

  const variants: Array<{name: string; env: Record<string, string>}> = [
    {name: 'no colour, 80 columns', env: {}},
    {name: 'FORCE_COLOR=1 (bold headers)', env: {FORCE_COLOR: '1'}},
    {name: 'FORCE_COLOR=0', env: {FORCE_COLOR: '0'}},
    {name: 'FORCE_COLOR=3 NO_COLOR=1', env: {FORCE_COLOR: '3', NO_COLOR: '1'}},
    {name: 'FORCE_COLOR=1 TERM=dumb', env: {FORCE_COLOR: '1', TERM: 'dumb'}},
    {name: 'OCLIF_COLUMNS=44', env: {OCLIF_COLUMNS: '44'}},
    {name: 'OCLIF_COLUMNS=30 (one-column list)', env: {OCLIF_COLUMNS: '30'}},
    {name: 'OCLIF_COLUMNS=150 FORCE_COLOR=2', env: {OCLIF_COLUMNS: '150', FORCE_COLOR: '2'}},
  ]
  for (const args of [['--help'], [], ['--version']]) {
    for (const v of variants) {
      it(`\`${['kubectl node-doctor', ...args].join(' ')}\`, ${v.name}: the same bytes as oclif`, async () => {
        const [ours, theirs] = await Promise.all([runCli(args, {env: v.env}), runCli(args, {env: {...v.env, ...OCLIF}})])
        assert.equal(theirs.exitCode, 0, theirs.stderr)
        assert.equal(ours.exitCode, 0, ours.stderr)
        assert.equal(ours.stderr, '')
        assert.equal(ours.stdout, theirs.stdout)
      })
    }
  }

  it('colour is real: FORCE_COLOR=1 makes bold section headers', async () => {
    const r = await runCli(['--help'], {env: {FORCE_COLOR: '1'}})
    assert.match(r.stdout, /\x1b\[1mCOMMANDS\x1b\[22m/)
  })

  it('--help and --version load no @oclif/core; with DEBUG set, oclif answers', async () => {
    for (const args of [['--help'], ['--version'], []]) {
      const fast = await packagesLoaded(args, {}, join(scratch, `fast-${args.join('') || 'bare'}.txt`))
      assert.ok(!fast.has('@oclif/core'), `${args.join(' ')} loaded ${[...fast].join(', ')}`)
    }
    const slow = await packagesLoaded(['--help'], OCLIF, join(scratch, 'oclif.txt'))
    assert.ok(slow.has('@oclif/core'), 'the recorder saw oclif when it answered')
  })
})
