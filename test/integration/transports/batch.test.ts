// The batch script run by the real sh (dash on Debian) through the local transport: the same results as one exec
// per command, per-command timeouts that end the command and its children, and the fallback when the script
// cannot run.
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {collectNode} from '../../../src/app/collect-node.js'
import {batchScript, parseBatchOutput} from '../../../src/core/collection/batch.js'
import type {PlanItem} from '../../../src/core/collection/plan.js'
import {shellJoin} from '../../../src/core/collection/shell.js'
import type {ExecResult, NodeTransport} from '../../../src/ports/node-transport.js'
import {LocalTransport} from '../../../src/transports/local/local.js'

const NONCE = 'a1b2c3d4e5f60718293a'

const plan = (items: Array<Partial<PlanItem> & {id: string; argv: string[]}>): PlanItem[] =>
  items.map((i) => ({description: i.id, areas: ['iptables'], required: false, tool: i.argv[0], ...i}))

/** Counts the execs a transport is asked for, passing them on. */
class Counting implements NodeTransport {
  readonly node: string
  readonly kind = 'local' as const
  commands: string[] = []
  constructor(private readonly inner: NodeTransport) {
    this.node = inner.node
  }
  exec(command: string, options: {timeoutMs: number; maxBytes?: number}): Promise<ExecResult> {
    this.commands.push(command)
    return this.inner.exec(command, options)
  }
  close(): Promise<void> {
    return this.inner.close()
  }
}

const without = (o: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key))

describe('batch collection with the real shell', () => {
  const items = plan([
    {id: 'words', argv: ['printf', '%s\n', 'hello', 'wörld ✓']},
    {id: 'no-newline', argv: ['printf', '%s', 'tail without newline']},
    {id: 'empty', argv: ['true']},
    {id: 'both-streams', argv: ['sh', '-c', 'echo out; echo err >&2; exit 3']},
    {id: 'missing-tool', argv: ['definitely-not-a-tool-nd', '-x'], required: true},
    {id: 'absent-file', argv: ['cat', '/nonexistent/node-doctor/file']},
    {id: 'own-124', argv: ['sh', '-c', 'echo mine; exit 124']},
    {id: 'reads-stdin', argv: ['cat']},
  ])

  it('gives the same snapshot as one exec per command, in one exec', async () => {
    const local = new LocalTransport('here')
    const one = await collectNode(local, {plan: items, timeoutMs: 5000, sudo: false, now: () => new Date()})
    const counting = new Counting(local)
    const batched = await collectNode(counting, {plan: items, timeoutMs: 5000, sudo: false, now: () => new Date(), batch: true, parallel: 1})
    assert.equal(counting.commands.length, 1, 'one exec for the whole plan')
    assert.deepEqual(Object.keys(batched.artifacts), Object.keys(one.artifacts))
    for (const id of Object.keys(one.artifacts)) {
      const a = without(one.artifacts[id] as unknown as Record<string, unknown>, 'durationMs')
      const b = without(batched.artifacts[id] as unknown as Record<string, unknown>, 'durationMs')
      // The shell names itself differently in "not found" messages (sh -c vs the batch script's line).
      if (id === 'missing-tool') {
        assert.equal(b.error, 'definitely-not-a-tool-nd is not installed on the node')
        assert.equal(b.exitCode, 127)
        continue
      }
      assert.deepEqual(b, a, id)
    }
    assert.deepEqual(batched.errors, one.errors)
    assert.equal(batched.artifacts['own-124']?.error, undefined, "a command's own exit 124 is not a timeout")
    assert.equal(batched.artifacts['reads-stdin']?.content, '', 'commands read /dev/null, not the script')
  })

  it('splits the plan into lanes, one exec each, keeping plan order in the snapshot', async () => {
    const counting = new Counting(new LocalTransport('here'))
    const snap = await collectNode(counting, {plan: items, timeoutMs: 5000, sudo: false, now: () => new Date(), batch: true, parallel: 3})
    assert.equal(counting.commands.length, 3)
    assert.deepEqual(Object.keys(snap.artifacts), items.map((p) => p.id))
    assert.equal(snap.artifacts.words?.content, 'hello\nwörld ✓\n')
  })

  it('times out a command after its own timeout, ends it and its children, and goes on with the next', async () => {
    const marker = `sleep 60.${String(process.pid).padStart(7, '0')}`
    const counting = new Counting(new LocalTransport('here'))
    const t0 = Date.now()
    const snap = await collectNode(counting, {
      plan: plan([
        {id: 'hangs', argv: ['sh', '-c', `${marker} & wait; echo never`]},
        {id: 'after', argv: ['printf', 'ran']},
      ]),
      timeoutMs: 1000,
      sudo: false,
      now: () => new Date(),
      batch: true,
      parallel: 1,
    })
    const took = Date.now() - t0
    assert.equal(counting.commands.length, 1, 'no fallback: the script reported both')
    assert.match(snap.artifacts.hangs?.error ?? '', /^timed out after 1s$/)
    assert.equal(snap.artifacts.after?.content, 'ran')
    assert.ok(took < 10_000, `the batch went on after the timeout (took ${took} ms)`)
    let left = ''
    try {
      left = execFileSync('pgrep', ['-f', `^${marker.replace('.', '\\.')}$`], {encoding: 'utf8'})
    } catch {
      // pgrep exits 1 when nothing matches
    }
    assert.equal(left.trim(), '', 'the child of the timed-out command is gone')
  })

  it('falls back to one exec per command when the node cannot run the script', async () => {
    // A transport whose shell rejects the script (as a non-POSIX login shell or a missing mktemp would).
    const local = new LocalTransport('here')
    const counting = new Counting({
      node: 'here',
      kind: 'local',
      exec: (command, options) => (command.startsWith('sh -c ') && command.includes('mktemp') ? Promise.resolve({exitCode: 97, stdout: '', stderr: ''}) : local.exec(command, options)),
      close: () => local.close(),
    })
    const snap = await collectNode(counting, {plan: items.slice(0, 3), timeoutMs: 5000, sudo: false, now: () => new Date(), batch: true, parallel: 1})
    assert.equal(counting.commands.length, 4, 'the script, then one exec per item')
    assert.equal(snap.artifacts.words?.content, 'hello\nwörld ✓\n')
    assert.equal(snap.artifacts['no-newline']?.content, 'tail without newline')
  })

  it('carries any output byte-for-byte (property, real sh)', async () => {
    const local = new LocalTransport('here')
    const text = fc.string({unit: 'grapheme', maxLength: 40}).filter((s) => !s.includes('\0'))
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text, fc.integer({min: 0, max: 120})), {minLength: 1, maxLength: 4}), async (cases) => {
        const script = batchScript(
          cases.map(([out, err, code]) => ({command: shellJoin(['sh', '-c', 'printf %s "$1"; printf %s "$2" >&2; exit "$3"', 'sh', out, err, String(code)])})),
          {nonce: NONCE, timeoutMs: 5000},
        )
        const r = await local.exec(`sh -c ${shellJoin([script])}`, {timeoutMs: 20_000})
        const parsed = parseBatchOutput(r.stdout, r.stderr, {nonce: NONCE, count: cases.length})
        assert.equal(parsed.complete, true)
        cases.forEach(([out, err, code], n) => assert.deepEqual(parsed.results.get(n), {stdout: out, stderr: err, exitCode: code, timedOut: false}))
      }),
      {numRuns: 40},
    )
  })
})
