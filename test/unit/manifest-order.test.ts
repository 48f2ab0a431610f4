// oclif.manifest.json is tracked, and `npm run build` rewrites it: its last step (scripts/manifest-order.mjs) puts the
// commands in one fixed order, so a fresh clone's build leaves the file as committed whatever order the file system
// lists the command files in.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {REPO_ROOT} from '../support/golden.js'

// A plain .mjs build script (no type declarations): imported by a path the compiler does not resolve.
const script: string = '../../scripts/manifest-order.mjs'
const {canonicalManifest: order} = (await import(script)) as {canonicalManifest: (text: string) => string}
const TRACKED = readFileSync(join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')

function shuffled(text: string, seed: number): string {
  const m = JSON.parse(text) as {commands: Record<string, unknown>}
  const ids = Object.keys(m.commands)
  let s = seed
  for (let i = ids.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31
    const j = s % (i + 1)
    ;[ids[i], ids[j]] = [ids[j]!, ids[i]!]
  }
  m.commands = Object.fromEntries(ids.map((id) => [id, m.commands[id]]))
  return JSON.stringify(m, null, 2)
}

describe('oclif.manifest.json order', () => {
  it('the tracked manifest is in the fixed order (the build step leaves it unchanged)', () => {
    assert.equal(order(TRACKED), TRACKED)
  })

  it('any order oclif writes becomes the tracked text', () => {
    for (const seed of [1, 7, 42, 1234]) {
      const other = shuffled(TRACKED, seed)
      assert.equal(order(other), TRACKED)
    }
  })

  it('a folder\'s files come before its subfolders; kube-proxy-mode before kube-proxy', () => {
    const ids = Object.keys((JSON.parse(TRACKED) as {commands: object}).commands)
    assert.ok(ids.indexOf('trace') < ids.indexOf('agent:collect'))
    assert.ok(ids.indexOf('fix:kube-proxy-mode') < ids.indexOf('fix:kube-proxy'))
  })

  it('npm run build ends with the step', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {scripts: {build: string}}
    assert.match(pkg.scripts.build, /oclif manifest[^&]*&& node scripts\/manifest-order\.mjs$/)
  })
})
