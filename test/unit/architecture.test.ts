// The folder layout is the architecture: enforce the import arrows.
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, it} from 'node:test'
import {REPO_ROOT} from '../support/golden.js'

function files(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir)) {
    const p = join(dir, e)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (/\.tsx?$/.test(e)) out.push(p)
  }
  return out
}

/** Runtime imports of a file (type-only imports are erased by the compiler and do not count). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const statements = [...text.matchAll(/(?:^|\n)\s*((?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"])/g)]
    .filter((m) => !/^(import|export)\s+type\s/.test(m[1]!))
    .map((m) => m[2]!)
  return [...statements, ...[...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!)]
}

const SRC = join(REPO_ROOT, 'src')

function violations(folder: string, forbidden: RegExp[]): string[] {
  const bad: string[] = []
  for (const f of files(join(SRC, folder))) {
    for (const spec of imports(f)) {
      if (forbidden.some((re) => re.test(spec))) bad.push(`${relative(REPO_ROOT, f)} imports ${spec}`)
    }
  }
  return bad
}

/** Imports of `folder`'s files that resolve into src/ and are not under one of the `allowed` src-relative prefixes. */
function outside(folder: string, allowed: string[], except: (file: string) => boolean = () => false): string[] {
  const bad: string[] = []
  for (const f of files(join(SRC, folder))) {
    if (except(relative(SRC, f))) continue
    for (const spec of imports(f)) {
      if (!spec.startsWith('.')) continue
      const target = relative(SRC, join(f, '..', spec))
      if (!allowed.some((a) => target === a || target.startsWith(a))) bad.push(`${relative(REPO_ROOT, f)} imports ${spec}`)
    }
  }
  return bad
}

const IO_MODULES = /^(node:)?(fs|child_process|net|http|https|dgram|os)(\/|$)/
/** A transport implementation: anything inside a transport's own folder, src/transports/<kind>/. */
const TRANSPORT_IMPLEMENTATION = /(^|\/)transports\/[^/]+\//

const UNIT = join(REPO_ROOT, 'test', 'unit')

describe('architecture', () => {
  it('test/unit mirrors src/: every folder of unit tests is a folder of src', () => {
    const dirs = (root: string): string[] =>
      readdirSync(root).flatMap((d) => (statSync(join(root, d)).isDirectory() ? [relative(UNIT, join(root, d)), ...dirs(join(root, d))] : []))
    const UNIT_DIRS = dirs(UNIT)
    const stray = UNIT_DIRS.filter((d) => !existsSync(join(REPO_ROOT, 'src', d)))
    assert.deepEqual(stray, [], `test/unit folders with no src/ folder of the same path: ${stray.join(', ')}`)
    assert.ok(UNIT_DIRS.includes('core/proxier/nftables'))
  })

  it('src/core is pure: no I/O modules, no transports, renderers or commands', () => {
    assert.deepEqual(
      violations('core', [/^(node:)?(fs|child_process|net|http|https|dgram|os)(\/|$)/, /^ssh2$/, /^@kubernetes\/client-node/, /^chalk$/, /^cli-table3$/, /^ink/, /\/(transports|render|commands|cli|app)\//]),
      [],
    )
  })

  it('renderers never reach transports, app services or commands', () => {
    assert.deepEqual(violations('render', [/^(node:)?(fs|child_process|net|http|https)(\/|$)/, /^ssh2$/, /^@kubernetes\/client-node/, /\/(transports|commands|app)\//]), [])
  })

  it('app services reach the world only through ports', () => {
    assert.deepEqual(violations('app', [/^(node:)?(fs|child_process|net|http|https)(\/|$)/, /^ssh2$/, /^@kubernetes\/client-node/, /\/(transports|render|commands)\//, /^@oclif\//]), [])
  })

  it('app services import no command-line layer, no dashboard and no renderer', () => {
    assert.deepEqual(violations('app', [/\/(cli|ui)\//]), [])
  })

  it('app services write to no process stream: progress and notes go to the Environment they are given', () => {
    assert.deepEqual(files(join(SRC, 'app')).filter((f) => /process\.(stdout|stderr|stdin)/.test(readFileSync(f, 'utf8'))).map((f) => relative(REPO_ROOT, f)), [])
  })

  it('commands reach app services, cli helpers, core, ports, renderers, and the transports only through transports/connect.ts (or environment-for.ts, which picks it or the files-only one)', () => {
    assert.deepEqual(violations('commands', [/^ssh2$/, /^@kubernetes\/client-node/, /\/transports\/(?!connect\.js$|environment-for\.js$)/]), [])
    // The dashboard command loads the ink app (src/ui/run.tsx) and nothing else of src/ui.
    assert.deepEqual(violations('commands', [/\/ui\/(?!run\.js$)/]), [])
    // The work is the services': of src/core, commands use only the model and the check catalog (for renderers).
    assert.deepEqual(violations('commands', [/\/core\/(?!model\/|checks\/registry\.js$)/]), [])
  })

  it('the dashboard (src/ui) imports only app services, core/model and render helpers', () => {
    assert.deepEqual(outside('ui', ['ui/', 'app/', 'core/model/', 'render/', 'errors.js', 'exit-codes.js']), [])
    assert.deepEqual(violations('ui', [IO_MODULES, /^ssh2$/, /^@kubernetes\/client-node/, /^@oclif\//]), [])
  })

  it('src/cli holds only flag definitions, the base command, the command-line recorder and confirmation prompts', () => {
    const held = files(join(SRC, 'cli')).map((f) => relative(join(SRC, 'cli'), f)).sort()
    assert.deepEqual(held, ['base-command.ts', 'command-line.ts', 'confirm.ts', 'flags.ts'])
    assert.deepEqual(outside('cli', ['cli/', 'core/model/', 'core/checks/registry.js', 'core/collection/shell.js', 'core/limits/limits.js', 'core/redact/', 'render/', 'errors.js', 'exit-codes.js', 'duration.js']), [])
  })

  it('ports are interfaces over core/model: they import nothing else of src', () => {
    assert.deepEqual(outside('ports', ['ports/', 'core/model/', 'errors.js']), [])
  })

  it('transports/connect.ts is the only file outside src/transports/<kind>/ that imports a transport implementation', () => {
    const bad: string[] = []
    for (const f of files(SRC)) {
      const rel = relative(SRC, f)
      if (rel === 'transports/connect.ts' || rel === 'transports/offline.ts' || TRANSPORT_IMPLEMENTATION.test(rel)) continue
      for (const spec of imports(f)) if (TRANSPORT_IMPLEMENTATION.test(spec)) bad.push(`${relative(REPO_ROOT, f)} imports ${spec}`)
    }
    assert.deepEqual(bad, [])
    // Only commands build an Environment; services get theirs injected.
    assert.deepEqual(
      files(SRC).filter((f) => !relative(SRC, f).startsWith('commands/') && !relative(SRC, f).startsWith('transports/') && imports(f).some((s) => /transports\/connect\.js$/.test(s))).map((f) => relative(REPO_ROOT, f)),
      [],
    )
  })

  it('transport implementations never reach app services, commands, the CLI layer or the dashboard', () => {
    assert.deepEqual(violations('transports', [/\/(app|commands|cli|ui)\//]), [])
  })
})
