// The diff lines `proxy diff` and the dashboard's Service view both print (renderDiffLines): `SIGN text` after the
// indentation, coloured by sign after wrapping, so the colour codes never count towards the pane's width.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {renderDiffLines} from '../../../src/render/rule-diff.js'
import {wrapIndented} from '../../../src/ui/service-view.js'

const lines = [
  {sign: '-' as const, text: 'nat -A KUBE-SERVICES -d 172.30.3.1/32 -p tcp -m comment --comment "default/lb:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-JSLCNGWSGB5JPS5Q'},
  {sign: '!' as const, text: 'nat -A KUBE-SVC-X -j KUBE-SEP-GONE  (KUBE-SEP-GONE does not exist)'},
]

describe('rule diff lines', () => {
  it('piped: one line per difference, whatever its length', () => {
    assert.deepEqual(renderDiffLines(lines, {color: false, indent: '    '}), lines.map((l) => `    ${l.sign} ${l.text}`))
  })

  it('in a pane: wrapped by the given function, every piece in its sign colour after the indentation', () => {
    const out = renderDiffLines(lines, {color: true, wrap: (t) => wrapIndented(t, 60)})
    const plain = out.map((l) => l.replace(/\u001b\[\d+m/g, ''))
    assert.deepEqual(plain, [...wrapIndented(`- ${lines[0]!.text}`, 60), ...wrapIndented(`! ${lines[1]!.text}`, 60)])
    assert.ok(plain.every((l) => [...l].length <= 60))
    assert.ok(out.length > 2 && out.every((l) => /^ *\u001b\[31m/.test(l)), 'red from the first visible character, on every piece')
  })
})
