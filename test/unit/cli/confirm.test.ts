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
