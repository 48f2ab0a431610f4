// Local transport and plan execution with real processes (no network).
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {describe, it} from 'node:test'
import {collectNode} from '../../../src/app/collect-node.js'
import type {PlanItem} from '../../../src/core/collection/plan.js'
import {COLLECTION_PLAN, commandLine, planFor} from '../../../src/core/collection/plan.js'
import {shellJoin, shellQuote} from '../../../src/core/collection/shell.js'
import {LocalTransport} from '../../../src/transports/local/local.js'

const plan = (items: Array<Partial<PlanItem> & {id: string; argv: string[]}>): PlanItem[] =>
  items.map((i) => ({description: i.id, areas: ['iptables'], required: false, tool: i.argv[0], ...i}))

describe('collectNode over the local transport', () => {
  it('turns missing tools, absent files and timeouts into artifact errors, and keeps good output', async () => {
    const snap = await collectNode(new LocalTransport('here'), {
      plan: plan([
        {id: 'echo', argv: ['printf', '%s\n', 'hello world']},
        {id: 'missing-tool', argv: ['definitely-not-a-tool-nd', '-x'], required: true},
        {id: 'absent-file', argv: ['cat', '/nonexistent/node-doctor/file']},
        {id: 'slow', argv: ['sleep', '5']},
      ]),
      timeoutMs: 300,
      sudo: false,
      now: () => new Date(),
    })
    assert.equal(snap.artifacts.echo?.content, 'hello world\n')
    assert.equal(snap.artifacts.echo?.exitCode, 0)
    assert.equal(snap.artifacts['missing-tool']?.error, 'definitely-not-a-tool-nd is not installed on the node')
    assert.equal(snap.artifacts['absent-file']?.error, '/nonexistent/node-doctor/file does not exist on the node')
    assert.match(snap.artifacts.slow?.error ?? '', /timed out after 0s/)
    assert.deepEqual(snap.errors.map((e) => e.source), ['missing-tool'], 'only required items become collection errors')
    assert.deepEqual(Object.keys(snap.artifacts), ['echo', 'missing-tool', 'absent-file', 'slow'], 'plan order is kept')
  })

  it('never lets API data reach the shell unquoted', async () => {
    const hostile = "x'; touch /tmp/nd-pwned-$$; echo '"
    const r = await new LocalTransport('here').exec(shellJoin(['printf', '%s', hostile]), {timeoutMs: 2000})
    assert.equal(r.stdout, hostile)
    assert.equal(shellQuote("it's"), `'it'\\''s'`)
    assert.equal(shellQuote('/var/lib/kubelet/config.yaml'), '/var/lib/kubelet/config.yaml')
  })
})

describe('LocalTransport', () => {
  const sleeping = (marker: string) => {
    try {
      return execFileSync('pgrep', ['-f', `^${marker.replace('.', '\\.')}$`], {encoding: 'utf8'}).trim()
    } catch {
      return '' // pgrep exits 1 when nothing matches
    }
  }

  it('ends everything a timed-out command started, at once, not only its shell', async () => {
    const marker = `sleep 61.${String(process.pid).padStart(7, '0')}`
    const t0 = Date.now()
    const r = await new LocalTransport('here').exec(`${marker} & ${marker} & wait; echo never`, {timeoutMs: 300})
    assert.equal(r.timedOut, true)
    assert.equal(r.exitCode, null)
    assert.equal(r.stdout, '')
    assert.ok(Date.now() - t0 < 5000, 'returned without waiting for the background sleeps')
    assert.equal(sleeping(marker), '', 'the background sleeps are gone')
  })

  it('cuts output at maxBytes, ending the command, and says so', async () => {
    const r = await new LocalTransport('here').exec('yes node-doctor', {timeoutMs: 10_000, maxBytes: 64 * 1024})
    assert.ok(r.stdout.length <= 64 * 1024 && r.stdout.startsWith('node-doctor\n'))
    assert.match(r.stderr, /output exceeded 65536 bytes and was cut/)
    assert.equal(r.timedOut, undefined)
  })
})

describe('collection plan', () => {
  it('has unique ids and builds sudo command lines', () => {
    const ids = COLLECTION_PLAN.map((p) => p.id)
    assert.equal(new Set(ids).size, ids.length)
    const ipt = COLLECTION_PLAN.find((p) => p.id === 'iptables-save')!
    assert.equal(commandLine(ipt, true), 'sudo -n iptables-save')
    assert.ok(planFor(['routes']).every((p) => p.areas.includes('routes')))
    assert.equal(planFor().length, COLLECTION_PLAN.length)
  })
})
