// The start-up fast path (src/fast-start.ts) against oclif itself: the root help it prints without oclif must be,
// byte for byte, what oclif's Help with src/help.ts prints for the same package.json and manifest at the same width,
// for the real package and for synthetic ones that exercise the layout's corners (implicit topics, hidden commands,
// a multi-line description, the one-column list, oclif's "contains NAME:" topic rule). Where it cannot be sure it
// must answer nothing. Colour and the process boundary are compared end to end in test/e2e/fast-start.test.ts.
import assert from 'node:assert/strict'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {arch, tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {Config} from '@oclif/core'
import {fastRequest, fastStartOutput, oclifWidth, type FastManifest, type FastPackageJson} from '../../src/fast-start.js'
import NodeDoctorHelp from '../../src/help.js'
import {REPO_ROOT} from '../support/golden.js'

const WIDTHS = [20, 24, 28, 30, 32, 36, 40, 41, 44, 48, 52, 56, 60, 64, 72, 79, 80, 81, 90, 100, 120, 160, 200, 400]

/** What oclif prints for `kubectl node-doctor --help` from `root` at `width` (console.log is what its help writes with). */
async function oclifRootHelp(root: string, width: number): Promise<string> {
  const config = await Config.load({root})
  const help = new NodeDoctorHelp(config, {maxWidth: width})
  const lines: string[] = []
  const log = console.log
  console.log = (text?: unknown) => void lines.push(String(text ?? ''))
  try {
    await help.showHelp(['--help'])
  } finally {
    console.log = log
  }
  return lines.map((l) => `${l}\n`).join('')
}

async function oclifUserAgent(root: string): Promise<string> {
  return (await Config.load({root})).userAgent
}

function fast(pjson: FastPackageJson, manifest: FastManifest, width: number, argv: string[] = ['--help']): string | undefined {
  return fastStartOutput({argv, pjson, manifest, platform: 'linux', arch: arch() === 'ia32' ? 'x86' : arch(), nodeVersion: process.version, width, header: (t) => t})
}

const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T
const realPjson = readJson<FastPackageJson>(join(REPO_ROOT, 'package.json'))
const realManifest = readJson<FastManifest>(join(REPO_ROOT, 'oclif.manifest.json'))

describe('fast start: root help as oclif prints it', {skip: process.platform !== 'linux' ? 'the user agent is compared on linux' : undefined}, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'nd-fast-start-'))
  after(() => rmSync(scratch, {recursive: true, force: true}))

  /** A package folder oclif can load root help from: package.json and oclif.manifest.json, no command files. */
  function packageDir(name: string, pjson: FastPackageJson, manifest: FastManifest): string {
    const dir = join(scratch, name)
    mkdirSync(dir)
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pjson))
    writeFileSync(join(dir, 'oclif.manifest.json'), JSON.stringify(manifest))
    return dir
  }

  async function assertSameAtEveryWidth(root: string, pjson: FastPackageJson, manifest: FastManifest): Promise<{answered: number[]}> {
    const answered: number[] = []
    for (const width of WIDTHS) {
      const ours = fast(pjson, manifest, width)
      if (ours === undefined) continue
      answered.push(width)
      assert.equal(ours, await oclifRootHelp(root, width), `root help at width ${width}`)
    }
    return {answered}
  }

  it('the real package: identical at every width it answers, and it answers at every terminal width (>= 40)', async () => {
    const {answered} = await assertSameAtEveryWidth(REPO_ROOT, realPjson, realManifest)
    assert.deepEqual(answered.filter((w) => w >= 40), WIDTHS.filter((w) => w >= 40))
    // Narrower than a terminal gets (only OCLIF_COLUMNS sets it) it lays out the one-column list or leaves it to oclif.
    assert.ok(answered.some((w) => w < 40), 'no narrow width answered: the one-column layout is untested')
  })

  it('--version is oclif user agent; the bare command is --help', async () => {
    assert.equal(fast(realPjson, {}, 80, ['--version']), `${await oclifUserAgent(REPO_ROOT)}\n`)
    assert.equal(fast(realPjson, realManifest, 80, []), fast(realPjson, realManifest, 80, ['--help']))
  })

  it('synthetic packages: implicit and quirky topics, hidden commands, a description paragraph, long summaries', async () => {
    const long = 'Reads everything there is to read about a node and then prints all of it in a form that is long enough to need many lines when the terminal is narrow.'
    const pjson: FastPackageJson = {
      name: 'demo-cli',
      version: '1.2.3',
      description: 'demo: a first line\nA second paragraph that is long enough to be wrapped at the narrower widths of the terminal.',
      oclif: {bin: 'kubectl demo', dirname: 'demo', commands: './dist/commands', topicSeparator: ' ', topics: {named: {description: 'A named topic\nwith a second line'}}},
    }
    const manifest: FastManifest = {
      version: '1.2.3',
      commands: {
        view: {id: 'view', summary: 'A root command whose name another topic contains.', aliases: []},
        'x-view:list': {id: 'x-view:list', description: 'Implicit topic from a description\nsecond line'},
        'named:go': {id: 'named:go', summary: long},
        'zeta:deep:er': {id: 'zeta:deep:er', summary: 'Three levels deep.'},
        secret: {id: 'secret', summary: 'Hidden.', hidden: true},
        'shy:only': {id: 'shy:only', summary: 'Hidden topic child.', hidden: true},
        bare: {id: 'bare'},
        alpha: {id: 'alpha', summary: long},
      },
    }
    const root = packageDir('demo', pjson, manifest)
    const {answered} = await assertSameAtEveryWidth(root, pjson, manifest)
    assert.ok(answered.filter((w) => w >= 40).length === WIDTHS.filter((w) => w >= 40).length, `answered only at ${answered.join(', ')}`)
    // The corners really are in the output.
    const text = fast(pjson, manifest, 80)!
    assert.match(text, /^DESCRIPTION$/m)
    assert.match(text, /^ {2}view {2}/m, 'the "contains view:" topic rule')
    assert.doesNotMatch(text, /secret|shy/)
    assert.match(fast(pjson, manifest, 40)!, /^ {2}alpha\n {6}Reads/m, 'the one-column list')
  })

  it('answers nothing where it cannot be sure', () => {
    const withOclif = (oclif: Record<string, unknown>) => ({...realPjson, oclif: {...realPjson.oclif, ...oclif}})
    assert.equal(fast(realPjson, realManifest, 80, ['checks']), undefined)
    assert.equal(fast(realPjson, realManifest, 80, ['--help', 'check']), undefined)
    assert.equal(fast(withOclif({additionalHelpFlags: ['-h']}), realManifest, 80), undefined)
    assert.equal(fast(withOclif({state: 'beta'}), realManifest, 80), undefined)
    assert.equal(fast(withOclif({hooks: {init: './x.js'}}), realManifest, 80), undefined)
    assert.equal(fast(withOclif({hooks: {command_not_found: './x.js', init: './y.js'}}), realManifest, 80), undefined, 'command_not_found alone is quiet')
    assert.notEqual(fast(withOclif({hooks: {command_not_found: './x.js'}}), realManifest, 80), undefined)
    assert.equal(fast(realPjson, {...realManifest, version: '9.9.9'}, 80), undefined, 'oclif ignores a manifest of another version')
    const commands = realManifest.commands!
    const tweak = (id: string, c: Record<string, unknown>) => ({...realManifest, commands: {...commands, [id]: {...commands[id], ...c}}})
    assert.equal(fast(realPjson, tweak('check', {aliases: ['c']}), 80), undefined)
    assert.equal(fast(realPjson, tweak('check', {summary: 'Templated <%= config.bin %>'}), 80), undefined)
    assert.equal(fast(realPjson, tweak('check', {summary: 'Wide ＣＨＥＣＫ'}), 80), undefined)
    assert.equal(fast(realPjson, tweak('check', {summary: 'two  spaces'}), 80), undefined)
    assert.equal(fast(realPjson, tweak('check', {summary: `a ${'w'.repeat(70)} word`}), 80), undefined, 'oclif would break the word')
  })

  it('the width is OCLIF_COLUMNS, else the terminal (at least 40), else 80', () => {
    assert.equal(oclifWidth({OCLIF_COLUMNS: '132'}, {isTTY: true, getWindowSize: () => [50, 20]}), 132)
    assert.equal(oclifWidth({OCLIF_COLUMNS: 'wide'}, {}), 80)
    assert.equal(oclifWidth({}, {}), 80)
    assert.equal(oclifWidth({}, {isTTY: true, getWindowSize: () => [120, 40]}), 120)
    assert.equal(oclifWidth({}, {isTTY: true, getWindowSize: () => [20, 40]}), 40)
    assert.equal(oclifWidth({}, {isTTY: true, getWindowSize: () => [0, 0]}), 80)
  })

  it('recognises only the bare command, --help and --version', () => {
    assert.equal(fastRequest([]), 'help')
    assert.equal(fastRequest(['--help']), 'help')
    assert.equal(fastRequest(['--version']), 'version')
    for (const argv of [['-h'], ['help'], ['--version', 'x'], ['check', '--help'], ['--', '--help']]) assert.equal(fastRequest(argv), undefined, argv.join(' '))
  })
})
