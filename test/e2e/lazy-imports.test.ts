// Start-up (issue #15 item 7): importing a built command file loads only what its help and flags need. Each
// dist/commands/**.js is imported in a fresh node process that records every module it resolves
// (test/support/record-resolves.mjs); none may pull in the SSH, Kubernetes, terminal-UI or tar packages, nor the
// transports or the dashboard UI — commands import their services inside run(). Requires `npm run build`.
import assert from 'node:assert/strict'
import {execFile} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'
import {pathToFileURL} from 'node:url'
import {after, describe, it} from 'node:test'
import {promisify} from 'node:util'
import {REPO_ROOT} from '../support/golden.js'

const DIST = join(REPO_ROOT, 'dist')
const HOOK = join(REPO_ROOT, 'test', 'support', 'record-resolves.mjs')

/** Packages no command may load before run(): each is what one kind of run needs, and costs start-up for all. */
const HEAVY_PACKAGES = ['ssh2', '@kubernetes/client-node', 'ink', 'react', 'tar', 'tar-stream']
/** Our own folders that mean "a service was wired at load": the transports and the dashboard UI. */
const HEAVY_FOLDERS = ['transports', 'ui']

/**
 * Commands allowed to load something heavy at module load, because their job needs it there. None do.
 */
const NEEDS_AT_LOAD: Record<string, string> = {}

function commandFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e)
    if (statSync(p).isDirectory()) return commandFiles(p)
    return p.endsWith('.js') ? [p] : []
  })
}

function packageOf(path: string): string | undefined {
  const at = path.replaceAll('\\', '/').lastIndexOf('/node_modules/')
  if (at < 0) return undefined
  const [scope, name] = path.slice(at + '/node_modules/'.length).replaceAll('\\', '/').split('/')
  return scope?.startsWith('@') ? `${scope}/${name}` : scope
}

/** What importing `file` loads: the packages (by name) and our dist files (relative to dist/). */
async function loadedBy(file: string, scratch: string): Promise<{packages: Set<string>; ours: Set<string>}> {
  const record = join(scratch, `${relative(DIST, file).replaceAll(/[\\/]/g, '_')}.txt`)
  await promisify(execFile)(process.execPath, ['--import', pathToFileURL(HOOK).href, '--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(file).href)})`], {
    cwd: REPO_ROOT,
    env: {...process.env, RECORD_RESOLVES: record},
  })
  const packages = new Set<string>()
  const ours = new Set<string>()
  for (const line of readFileSync(record, 'utf8').split('\n')) {
    const [specifier, where] = line.split('\t')
    if (!specifier || !where) continue
    const path = where.startsWith('file:') ? new URL(where).pathname : where
    const pkg = packageOf(path)
    if (pkg) packages.add(pkg)
    else if (path.startsWith(DIST)) ours.add(relative(DIST, path).replaceAll('\\', '/'))
  }
  return {packages, ours}
}

describe('command files load lazily', {concurrency: 2}, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'nd-lazy-'))
  after(() => rmSync(scratch, {recursive: true, force: true}))
  const files = commandFiles(join(DIST, 'commands')).sort()

  it('finds the built commands', () => assert.ok(files.length >= 20, `only ${files.length} files under dist/commands: run npm run build`))

  const loads = new Map<string, ReturnType<typeof loadedBy>>()
  const loaded = (file: string) => loads.get(file) ?? loads.set(file, loadedBy(file, scratch)).get(file)!

  for (const file of files) {
    const name = relative(DIST, file).replaceAll('\\', '/')
    it(`${name} loads no SSH, Kubernetes client, ink/react, tar, transports or UI`, async () => {
      const {packages, ours} = await loaded(file)
      assert.ok(packages.has('@oclif/core'), 'the recorder saw the imports')
      const heavy = [
        ...HEAVY_PACKAGES.filter((p) => packages.has(p)),
        ...[...ours].filter((f) => HEAVY_FOLDERS.some((d) => f.startsWith(`${d}/`))),
      ]
      if (name in NEEDS_AT_LOAD) return
      assert.deepEqual(heavy, [], `${name} loads at module load: ${heavy.join(', ')}`)
    })
  }

  // The registry imports every check, and the iptables checks the proxier: cli/base-command.ts loads it only when a
  // Report is printed.
  it('no command but checks and explain loads the check implementations or the proxier at module load', async () => {
    const offenders: string[] = []
    for (const file of files) {
      const name = relative(DIST, file).replaceAll('\\', '/')
      if (name === 'commands/checks.js' || name === 'commands/explain.js') continue
      const {ours} = await loaded(file)
      if ([...ours].some((f) => f.startsWith('core/proxier/'))) offenders.push(name)
    }
    assert.deepEqual(offenders, [])
  })

  it('cleanup states the debug pods\' selector and namespace as the pod transport defines them', async () => {
    const pod = (await import(pathToFileURL(join(DIST, 'transports', 'pod', 'debug-pod.js')).href)) as {DEBUG_POD_SELECTOR: string; DEFAULT_POD_NAMESPACE: string}
    const cleanup = ((await import(pathToFileURL(join(DIST, 'commands', 'cleanup.js')).href)) as {
      default: {description: string; flags: Record<string, {default?: unknown}>}
    }).default
    assert.ok(cleanup.description.includes(`labelled ${pod.DEBUG_POD_SELECTOR} `), cleanup.description)
    assert.equal(cleanup.flags['pod-namespace']?.default, pod.DEFAULT_POD_NAMESPACE)
  })
})
