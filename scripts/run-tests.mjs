#!/usr/bin/env node
// Runs every *.test.ts / *.test.tsx under the given folders (default: test/) with node's test runner and tsx.
// Node 20's --test takes no globs, so the files are listed here. The runner's own summary is the last thing printed.
import {spawnSync} from 'node:child_process'
import {readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('-'))
const files = []
function walk(p) {
  const st = statSync(p)
  if (st.isFile()) {
    if (/\.test\.tsx?$/.test(p)) files.push(p)
    return
  }
  for (const entry of readdirSync(p).sort()) {
    if (entry === 'node_modules' || entry === 'fixtures') continue
    walk(join(p, entry))
  }
}
for (const r of roots.length > 0 ? roots : ['test']) walk(r)
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ') || 'test'}`)
  process.exit(1)
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2'
const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--import', './test/support/fast-check-setup.ts', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...passThrough, ...files],
  {stdio: 'inherit'},
)
process.exit(res.status ?? 1)
