/** @jsxRuntime automatic */
// The whole dashboard under ink's test renderer, fed by a source whose nodes finish when the test says: progress
// while collecting, a slow node never holding up the others, then the keys (golden frames in test/fixtures/ui).
import assert from 'node:assert/strict'
import {render} from 'ink-testing-library'
import {describe, it} from 'node:test'
import {Dashboard} from '../../../src/ui/app.js'
import {bundleSource} from '../../../src/app/dashboard/sources.js'
import {environment} from '../../../src/transports/connect.js'
import {expectGolden} from '../../support/golden.js'
import {BUNDLE_DIR, exampleBundle, FIXED_NOW, HeldSource, METADATA, plain, until} from './fixtures.js'

const KEY = {enter: '\r', escape: '\x1b', backspace: '\x7f', down: '\x1b[B', up: '\x1b[A'}
const SIZE = {rows: 30, columns: 100}

describe('dashboard app', () => {
  it('shows progress while collecting and each node as soon as it finishes', async () => {
    const source = new HeldSource(await exampleBundle())
    const app = render(<Dashboard source={source} now={FIXED_NOW} tool={METADATA.tool} command={METADATA.command} color={false} size={SIZE} />)
    try {
      await until(app.lastFrame, (f) => f.includes('collecting 0/2'), 'the run to name its nodes')
      source.start('node-a')
      source.start('node-b')
      source.finish('node-b')
      // node-a is still being collected: node-b is shown finished already.
      const partial = await until(app.lastFrame, (f) => f.includes('collecting 1/2'), 'node-b to finish')
      expectGolden('ui/app.collecting.txt', partial)
      source.finish('node-a')
      source.end()
      expectGolden('ui/app.fleet.txt', await until(app.lastFrame, (f) => f.includes('2 nodes checked'), 'the run to end'))

      // r starts a second run: the rows keep their results, marked as being re-checked.
      app.stdin.write('r')
      const again = await until(app.lastFrame, (f) => f.includes('collecting 0/2'), 'the re-check')
      assert.equal(source.runs, 2)
      assert.match(again, /node-a +↻ unhealthy/)
      assert.match(again, /node-b +↻ healthy/)
      app.stdin.write('r')
      await new Promise((r) => setTimeout(r, 50))
      assert.equal(source.runs, 2, 'r during a run does not start another')
    } finally {
      app.unmount()
    }
  })

  it('navigates: node, Service port, back, filter', async () => {
    // The title names the bundle as typed on the command line (goldens must not hold this checkout's path).
    const source = {...bundleSource(BUNDLE_DIR, {names: []}, environment({})), title: 'bundle examples/bundle'}
    const app = render(<Dashboard source={source} now={FIXED_NOW} tool={METADATA.tool} command={METADATA.command} color={false} size={SIZE} />)
    const press = async (key: string, what: string, test: (f: string) => boolean): Promise<string> => {
      app.stdin.write(key)
      return until(app.lastFrame, test, what)
    }
    try {
      await until(app.lastFrame, (f) => f.includes('2 nodes checked'), 'the bundle')
      await press('j', 'node-b selected', (f) => f.includes('› node-b'))
      expectGolden('ui/app.node-b.txt', await press(KEY.enter, 'node-b', (f) => f.includes('node-b  ✔ healthy · no findings')))
      await press(KEY.backspace, 'the fleet', (f) => f.includes('› node-b'))
      await press(KEY.up, 'node-a selected', (f) => f.includes('› node-a'))
      await press(KEY.enter, 'node-a', (f) => f.includes('FINDINGS (2)'))
      await press('j', 'IPT-002 selected', (f) => f.includes('› ▲ IPT-002'))
      await press(KEY.down, 'lb:http selected', (f) => f.includes('› ✖ default/lb:http'))
      expectGolden('ui/app.service.txt', await press(KEY.enter, 'the Service view', (f) => f.includes('RULE DIFF on node-a')))
      await press(KEY.escape, 'node-a again', (f) => f.includes('› ✖ default/lb:http'))
      await press(KEY.escape, 'the fleet again', (f) => f.includes('PROXY MODE'))
      await press('/', 'the filter prompt', (f) => f.includes('Enter keep · Esc clear'))
      await press('b', 'the query', (f) => !f.includes('node-a  '))
      expectGolden('ui/app.filtered.txt', await press(KEY.enter, 'the kept filter', (f) => f.includes('filter "b"')))
      // Esc in the prompt clears the filter.
      await press('/', 'the prompt again', (f) => f.includes('Enter keep · Esc clear'))
      await press(KEY.escape, 'every node again', (f) => f.includes('node-a') && f.includes('node-b') && !f.includes('filter "b"'))
    } finally {
      app.unmount()
    }
  })

  it('shows why a run failed, and a retry fixes nothing that is still broken', async () => {
    const app = render(<Dashboard source={bundleSource('/nonexistent', {names: []}, environment({}))} now={FIXED_NOW} tool={METADATA.tool} command={METADATA.command} color={false} size={SIZE} />)
    try {
      const f = await until(app.lastFrame, (x) => x.includes('✖ bundle /nonexistent does not exist (r to retry)'), 'the error')
      assert.match(plain(f), /no nodes match the filter/)
    } finally {
      app.unmount()
    }
  })
})
