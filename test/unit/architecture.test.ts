// The folder layout is the architecture: enforce the import arrows.
import assert from 'node:assert/strict'
import {readdirSync, readFileSync, statSync} from 'node:fs'
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

describe('architecture', () => {
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
})
