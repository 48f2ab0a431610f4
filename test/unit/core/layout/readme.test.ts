// The README's "Supported layouts" table is written from src/core/layout/known-layouts.ts: every known layout has a
// row (by its id), no row names a layout the code does not know, and each row names the paths the code reads.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {KNOWN_LAYOUTS, type KnownLayout} from '../../../../src/core/layout/known-layouts.js'
import {REPO_ROOT} from '../../../support/golden.js'

function layoutRows(): Map<string, string> {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('### Supported layouts\n')
  assert.ok(start >= 0, 'README has a "Supported layouts" section')
  const section = readme.slice(start, readme.indexOf('\n#', start + 1))
  const rows = new Map<string, string>()
  for (const line of section.split('\n').filter((l) => l.startsWith('|') && !l.startsWith('|---'))) {
    const id = /^\|[^|]*\(`([a-z0-9-]+)`\)/.exec(line)?.[1]
    if (id !== undefined) rows.set(id, line)
  }
  return rows
}

/** What the row must name: kubelet files and drop-in directories, and where kube-proxy and its configuration are. */
function mustName(l: KnownLayout): string[] {
  const kp = l.kubeProxy
  const proxy =
    kp.kind === 'daemonset' ? [kp.daemonSet, `ConfigMap \`${kp.configMap.name}\` key \`${kp.configMap.key}\``] : kp.kind === 'static-pod' ? [kp.manifest] : kp.kind === 'embedded' ? ['kube-proxy-arg'] : []
  return [...l.kubelet.configPaths, ...l.kubelet.configDirs, ...proxy]
}

describe('README supported layouts', () => {
  const known = KNOWN_LAYOUTS.filter((l) => l.distribution !== 'unknown')
  const rows = layoutRows()

  it('has one row per known layout and none for a layout the code does not know', () => {
    assert.deepEqual([...rows.keys()].sort(), known.map((l) => l.distribution).sort())
  })

  for (const l of known) {
    it(`${l.distribution}: the row names what the code reads`, () => {
      const row = rows.get(l.distribution) ?? ''
      for (const s of mustName(l)) assert.ok(row.includes(s), `README row for ${l.distribution} lacks ${s}: ${row}`)
    })
  }
})
