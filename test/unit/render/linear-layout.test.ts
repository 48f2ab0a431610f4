// Renderers linear in output size (issue #14, item 10): the wrap and column layout give the same text as before
// (the quadratic reference implementations below), and big inputs render in well under a second.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import colors from '@colors/colors/safe.js'
import Table from 'cli-table3'
import fc from 'fast-check'
import {borderlessTable, layoutColumns} from '../../../src/render/layout.js'
import {wrapLines} from '../../../src/render/table.js'
import {BORDERLESS} from '../../../src/render/table-style.js'

function referenceWrap(text: string, width: number | undefined): string[] {
  if (width === undefined || width <= 0) return text.split('\n')
  const out: string[] = []
  for (const para of text.split('\n')) {
    let line = ''
    for (let word of para.split(/ +/).filter((w) => w !== '')) {
      while ([...word].length > width) {
        const room = line === '' ? width : width - [...line].length - 1
        if (room <= 0) {
          out.push(line)
          line = ''
          continue
        }
        const chars = [...word]
        const head = chars.slice(0, room).join('')
        out.push(line === '' ? head : `${line} ${head}`)
        line = ''
        word = chars.slice(room).join('')
      }
      if (line === '') line = word
      else if ([...line].length + 1 + [...word].length <= width) line += ` ${word}`
      else {
        out.push(line)
        line = word
      }
    }
    out.push(line)
  }
  return out
}

describe('linear renderers', () => {
  it('wrapLines gives the same lines as the reference (property)', () => {
    const text = fc.array(fc.oneof(fc.constantFrom(' ', '  ', '\n', 'a', 'ab', 'abcdefghijkl', '✓', '😀', '中文字'), fc.string()), {maxLength: 40}).map((a) => a.join(''))
    fc.assert(fc.property(text, fc.option(fc.integer({min: 1, max: 30}), {nil: undefined}), (t, w) => assert.deepEqual(wrapLines(t, w), referenceWrap(t, w))))
  })

  it('layoutColumns gives cli-table3 borderless output (property)', () => {
    const cell = fc.oneof(fc.constantFrom('', 'a', 'node-a', 'x\ny', '✓ ok', '10.0.0.0/24'), fc.stringMatching(/^[a-z0-9 ./-]{0,12}$/))
    fc.assert(
      fc.property(fc.array(fc.array(cell, {minLength: 3, maxLength: 3}), {minLength: 1, maxLength: 8}), (rows) => {
        const t = new Table({head: ['A', 'BB', 'CCC'], chars: BORDERLESS, style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0}})
        t.push(...rows)
        assert.deepEqual(
          layoutColumns(['A', 'BB', 'CCC'], rows).map((l) => l.trimEnd()),
          t.toString().split('\n').map((l) => l.trimEnd()),
        )
      }),
    )
  })

  // Their time is measured by the benchmark (BENCH=render-layout npm run bench), not here.
  it('a 55 KB rule wraps within the width, 20k rows lay out one line each, the wrapped rule stays one cell', () => {
    const rule = Array.from({length: 10_000}, (_, i) => `--opt${i}`).join(' ')
    const lines = wrapLines(rule, 80)
    assert.ok(lines.every((l) => l.length <= 80))
    assert.equal(lines.join(' '), rule, 'wrapping loses and adds no word')
    const rows = Array.from({length: 20_000}, (_, i) => [`eth${i % 4}`, `10.${i >> 8}.${i & 255}.0/24`, 'unicast', '10.0.0.1'])
    assert.equal(layoutColumns(['DEV', 'DST', 'TYPE', 'GW'], rows).length, 20_001)
    assert.equal(layoutColumns(['RULE'], [[lines.join('\n')]], {widths: [80]}).length, lines.length + 1)
  })
})

describe('borderlessTable (ipvs, nft and kubelet show)', () => {
  const cell = fc.array(fc.stringMatching(/^[a-z0-9 .:/-]{0,12}$/), {minLength: 1, maxLength: 3}).map((lines) => lines.join('\n'))
  it('prints what a borderless cli-table3 table with a bold header printed, trimmed (property)', () => {
    // cli-table3 styles through @colors/colors, which turns itself off when TERM is unset or stdout is no TTY
    // (as in CI): the reference output must be the coloured one whatever the environment.
    colors.enable()
    fc.assert(
      fc.property(fc.integer({min: 1, max: 5}), fc.array(fc.array(cell, {minLength: 5, maxLength: 5}), {maxLength: 8}), fc.boolean(), (columns, rows, color) => {
        const head = Array.from({length: columns}, (_, k) => `COL${k}`)
        const body = rows.map((r) => r.slice(0, columns))
        const t = new Table({head, chars: BORDERLESS, style: {head: color ? ['bold'] : [], border: [], 'padding-left': 0, 'padding-right': 0}})
        for (const r of body) t.push(r)
        const expected = t.toString().split('\n').map((l) => l.trimEnd())
        assert.deepEqual(borderlessTable(head, body, color), expected)
      }),
    )
  })
})
