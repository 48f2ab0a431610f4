// The batch script's framing, read back from crafted output (the real shell runs it in
// test/integration/transports/batch.test.ts).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {batchScript, parseBatchOutput} from '../../../../src/core/collection/batch.js'

const NONCE = '0123456789abcdef0123'
const T = `@@nd${NONCE}`

describe('batch script framing', () => {
  it('reads each item between its header and the next, dropping what comes before the first header', () => {
    const stdout = `motd noise\n\n${T} o 0\nline 1\nline 2\n\n${T} r 0 0 0\n\n${T} o 1\nno newline\n${T} r 1 3 0\n\n${T} end\n`
    const stderr = `banner\n\n${T} e 0\n\n${T} e 1\noops\n\n${T} end\n`
    const out = parseBatchOutput(stdout, stderr, {nonce: NONCE, count: 2})
    assert.equal(out.complete, true)
    assert.equal(out.cutOff, undefined)
    assert.deepEqual(out.results.get(0), {stdout: 'line 1\nline 2\n', stderr: '', exitCode: 0, timedOut: false})
    assert.deepEqual(out.results.get(1), {stdout: 'no newline', stderr: 'oops\n', exitCode: 3, timedOut: false})
  })

  it('takes only the watchdog mark for a timeout, not the exit code', () => {
    const stdout = `\n${T} o 0\n\n${T} r 0 143 1\n\n${T} o 1\n\n${T} r 1 124 0\n\n${T} end\n`
    const out = parseBatchOutput(stdout, `\n${T} e 0\n\n${T} e 1\n\n${T} end\n`, {nonce: NONCE, count: 2})
    assert.equal(out.results.get(0)?.timedOut, true)
    assert.equal(out.results.get(1)?.timedOut, false)
    assert.equal(out.results.get(1)?.exitCode, 124)
  })

  it('reports an item that started but never ended as cut off, and items never started not at all', () => {
    const stdout = `\n${T} o 0\nfine\n\n${T} r 0 0 0\n\n${T} o 1\npartial out`
    const out = parseBatchOutput(stdout, `\n${T} e 0\n\n${T} e 1\n`, {nonce: NONCE, count: 3})
    assert.equal(out.complete, false)
    assert.equal(out.cutOff, 1)
    assert.deepEqual([...out.results.keys()], [0])
  })

  it('ignores headers of another nonce, unknown items and malformed headers', () => {
    const other = '@@ndffffffffffffffffffff'
    const stdout = `\n${T} o 0\n\n${other} r 0 0 0\nstill item 0\n\n${T} o 9\n\n${T} r 9 0 0\n\n${T} r x 1 0\n\n${T} r 0 0 0\n\n${T} end\n`
    const out = parseBatchOutput(stdout, `\n${T} end\n`, {nonce: NONCE, count: 1})
    assert.deepEqual(out.results.get(0), {stdout: `\n${other} r 0 0 0\nstill item 0\n`, stderr: '', exitCode: 0, timedOut: false})
    assert.equal(out.results.size, 1)
  })

  it('gives nothing for output with no frames at all (a shell that could not run the script)', () => {
    const out = parseBatchOutput('', 'fish: Unsupported use of "||"\n', {nonce: NONCE, count: 4})
    assert.equal(out.results.size, 0)
    assert.equal(out.complete, false)
  })

  it('refuses a nonce that could clash with output or break the script', () => {
    assert.throws(() => batchScript([{command: 'true'}], {nonce: "abc'; rm -rf /", timeoutMs: 1000}), /batch nonce must be 16-64 lowercase hex digits/)
    assert.throws(() => parseBatchOutput('', '', {nonce: 'short', count: 1}), /batch nonce/)
  })

  it('puts each command in the script as given, in order, with the timeout in whole seconds', () => {
    const script = batchScript([{command: 'uname -r'}, {command: "cat '/etc/my file'"}], {nonce: NONCE, timeoutMs: 2500, killAfterS: 3})
    const first = script.indexOf('uname -r </dev/null &')
    const second = script.indexOf("cat '/etc/my file' </dev/null &")
    assert.ok(first > 0 && second > first, script)
    assert.match(script, /-ge 3 \]; then : >"\$d\/t\$i"/, 'TERM after ceil(2.5 s) = 3 s')
    assert.match(script, /-ge 6 \]; then kill -s KILL/, 'KILL 3 s after the TERM')
  })
})
