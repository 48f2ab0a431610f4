// The plan/confirm flow of every `fix` command, over in-memory streams that claim (or not) to be terminals.
import assert from 'node:assert/strict'
import {PassThrough} from 'node:stream'
import {describe, it} from 'node:test'
import {confirmPlan, type ConfirmIO} from '../../../src/cli/confirm.js'
import {UsageError} from '../../../src/errors.js'

function io(tty: {stdin: boolean; stderr: boolean}, input?: string): ConfirmIO & {out: () => string; err: () => string} {
  const stdin = Object.assign(new PassThrough(), {isTTY: tty.stdin})
  const stdout = new PassThrough()
  const stderr = Object.assign(new PassThrough(), {isTTY: tty.stderr})
  let out = ''
  let err = ''
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  if (input !== undefined) stdin.end(input)
  return {stdin, stdout, stderr, out: () => out, err: () => err}
}

const PLAN = 'Plan for node-a:\n  set clusterDNS: [10.96.0.10]\n'
const Q = {question: 'Apply this change to node node-a'}

describe('confirmPlan', () => {
  it('--dry-run prints the plan and decides dry-run, even without a terminal and with --yes', async () => {
    const s = io({stdin: false, stderr: false})
    assert.equal(await confirmPlan(PLAN, {'dry-run': true, yes: true}, {...Q, io: s}), 'dry-run')
    assert.equal(s.out(), PLAN)
    assert.match(s.err(), /Dry run: nothing was changed/)
  })

  it('--yes applies without asking and without a terminal', async () => {
    const s = io({stdin: false, stderr: false})
    assert.equal(await confirmPlan(PLAN, {yes: true}, {...Q, io: s}), 'apply')
    assert.equal(s.out(), PLAN)
    assert.equal(s.err(), '')
  })

  for (const tty of [{stdin: false, stderr: false}, {stdin: true, stderr: false}, {stdin: false, stderr: true}]) {
    it(`refuses without --yes when stdin ${tty.stdin ? 'is' : 'is not'} and stderr ${tty.stderr ? 'is' : 'is not'} a terminal`, async () => {
      const s = io(tty, 'y\n')
      await assert.rejects(confirmPlan(PLAN, {}, {...Q, io: s}), (err: unknown) => {
        assert.ok(err instanceof UsageError)
        assert.match(err.message, /no terminal to ask on, nothing was changed/)
        assert.match(err.message, /apply this change to node node-a\?/)
        assert.match(err.hint ?? '', /--yes/)
        return true
      })
      assert.equal(s.out(), PLAN, 'the plan is still shown')
    })
  }

  for (const answer of ['y', 'Y', 'yes', ' YES ']) {
    it(`applies on a terminal when the answer is ${JSON.stringify(answer)}`, async () => {
      const s = io({stdin: true, stderr: true}, `${answer}\n`)
      assert.equal(await confirmPlan(PLAN, {}, {...Q, io: s}), 'apply')
      assert.match(s.err(), /Apply this change to node node-a\? \[y\/N\] $/)
    })
  }

  for (const answer of ['', 'n', 'no', 'yep', 'y es']) {
    it(`declines on a terminal when the answer is ${JSON.stringify(answer)}`, async () => {
      const s = io({stdin: true, stderr: true}, `${answer}\n`)
      assert.equal(await confirmPlan(PLAN, {}, {...Q, io: s}), 'declined')
      assert.match(s.err(), /Not confirmed: nothing was changed/)
    })
  }

  it('declines at end of input (Ctrl-D)', async () => {
    const s = io({stdin: true, stderr: true}, '')
    assert.equal(await confirmPlan(PLAN, {}, {...Q, io: s}), 'declined')
  })
})

describe('askChoice', async () => {
  const {askChoice, canAsk} = await import('../../../src/cli/confirm.js')
  const {scriptedTerminal} = await import('../../support/scripted-terminal.js')
  const CHOICES = ['apply', 'keep', 'abort'] as const

  it('takes a whole answer or an unambiguous start of one, any case; questions in a row each get their own line', async () => {
    const t = scriptedTerminal(['keep', 'AP', 'ab', 'K'])
    assert.ok(canAsk(t))
    const got = []
    for (let i = 0; i < 4; i++) got.push(await askChoice('maxPods:', CHOICES, t))
    assert.deepEqual(got, ['keep', 'apply', 'abort', 'keep'])
    assert.match(t.err(), /^maxPods: \[apply\/keep\/abort\] /)
    assert.equal(t.prompts(), 4)
  })

  it('asks again on an ambiguous or unknown answer, three times at most; end of input is no answer', async () => {
    const t = scriptedTerminal(['a', 'x', 'keep'])
    assert.equal(await askChoice('maxPods:', CHOICES, t), 'keep')
    assert.match(t.err(), /Answer apply, keep or abort \("a" could be apply or abort\)\./)
    assert.equal(await askChoice('maxPods:', CHOICES, scriptedTerminal(['a', 'b', 'c'])), undefined)
    assert.equal(await askChoice('maxPods:', CHOICES, scriptedTerminal([])), undefined)
  })

  it('canAsk needs both stdin and stderr to be terminals', () => {
    assert.equal(canAsk(io({stdin: true, stderr: false})), false)
    assert.equal(canAsk(io({stdin: false, stderr: true})), false)
  })
})
