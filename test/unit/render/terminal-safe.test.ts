// The terminal sanitiser (issue #14, item 5): no hostile control sequence survives, our own output does.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {escapeJsonControls, terminalSafe} from '../../../src/render/terminal-safe.js'

const ESC = '\x1b'
const HOSTILE = [
  `${ESC}]52;c;ZWNobyBwd25lZA==${ESC}\\`, // OSC 52: write the clipboard
  `${ESC}]0;fake title\x07`, // window title
  `${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`, // hyperlink
  `${ESC}[6n`, // device status report: the terminal types into stdin
  `${ESC}[21t`, // report the window title
  `${ESC}[2J${ESC}[H`, // clear and home
  `${ESC}[1A${ESC}[2K`, // move up and erase: rewrite the line above
  `${ESC}P+q544e${ESC}\\`, // DCS
  `${ESC}c`, // full reset
  `${ESC}7${ESC}8`, // save/restore cursor
  '\u009b31m\u009d0;t\u0007', // 8-bit CSI and OSC
  '\u202eevil\u202c', // bidi override
  'a\bb\rc\x07\x00\x7f',
]

describe('terminalSafe', () => {
  it('removes every hostile sequence (no ESC, C1, BEL, bidi override left), TTY or not, and keeps the text', () => {
    for (const h of HOSTILE) {
      for (const tty of [false, true]) {
        const out = terminalSafe(`node-a ${h} ok\n`, {tty})
        assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/.test(out), `${JSON.stringify(h)} -> ${JSON.stringify(out)} (tty ${tty})`)
        assert.ok(out.startsWith('node-a ') && out.endsWith(' ok\n'), JSON.stringify(out))
      }
    }
    assert.equal(terminalSafe(`svc ${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\ here`), 'svc click here')
  })

  it('keeps our own output: colour everywhere; cursor, erase and screen modes only in the leading run on a TTY', () => {
    const colour = `${ESC}[31mFAIL${ESC}[0m node-a\n`
    assert.equal(terminalSafe(colour), colour)
    assert.equal(terminalSafe(colour, {tty: true}), colour)
    const progress = `\r${ESC}[2Kcollecting: 1/3 done`
    assert.equal(terminalSafe(progress, {tty: true}), progress)
    assert.equal(terminalSafe(progress), 'collecting: 1/3 done')
    const ink = `${ESC}[2K${ESC}[1A${ESC}[2K${ESC}[G${ESC}[1mDashboard${ESC}[22m\n`
    assert.equal(terminalSafe(ink, {tty: true}), ink)
    assert.equal(terminalSafe(`${ESC}[?1049h${ESC}[H`, {tty: true}), `${ESC}[?1049h${ESC}[H`)
    // The same sequences after data are removed, TTY or not.
    assert.equal(terminalSafe(`svc-${ESC}[2J${ESC}[1A${ESC}[?1049l\rname`, {tty: true}), 'svc-name')
    assert.equal(terminalSafe('tabs\tand\nlines\r\n'), 'tabs\tand\nlines\r\n')
    assert.equal(terminalSafe('ünïcødé ✓ 中文'), 'ünïcødé ✓ 中文')
  })

  it('is idempotent and never leaves an ESC on non-TTY output (property)', () => {
    const piece = fc.oneof(fc.string(), fc.constantFrom(...HOSTILE, ESC, '[', ']', '\\', '\x07', '\u009b', '\r', '\n', 'm', '2J'))
    fc.assert(
      fc.property(fc.array(piece, {maxLength: 30}), fc.boolean(), (parts, tty) => {
        const once = terminalSafe(parts.join(''), {tty})
        assert.equal(terminalSafe(once, {tty}), once)
        if (!tty) assert.ok(!/\x1b(?!\[[0-9;:]*m)/.test(once), JSON.stringify(once))
      }),
    )
  })

  it('is linear: 1 MB of hostile text in well under a second (quadratic would take hours)', () => {
    const big = `${ESC}]0;x\x07 ${ESC}[2J abc `.repeat(50_000)
    const t0 = Date.now()
    const out = terminalSafe(big)
    assert.ok(Date.now() - t0 < 2000, `${Date.now() - t0} ms`)
    assert.equal(out, '  abc '.repeat(50_000))
  })

  it('escapeJsonControls writes C1 and bidi characters as \\u escapes: the same JSON value, nothing raw', () => {
    const value = {name: 'a\u009b31m\u202eb\u2028c'}
    const json = escapeJsonControls(JSON.stringify(value))
    assert.equal(json, '{"name":"a\\u009b31m\\u202eb\\u2028c"}')
    assert.deepEqual(JSON.parse(json), value)
  })
})
