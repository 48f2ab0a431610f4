// The iptables show table is laid out by render/layout.ts like every other table: colour changes no column, and
// widths count code points (an astral character in a rule comment is one column, as in the report and the other
// show views; the table's own layout counted it as two UTF-16 units before). The goldens are in
// test/unit/core/iptables/services.test.ts.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {analyzeServices} from '../../../src/core/iptables/services.js'
import {parseIptablesSave} from '../../../src/core/iptables/save.js'
import {displayWidth} from '../../../src/render/layout.js'
import {renderIptablesShow} from '../../../src/render/iptables-show.js'
import {readFixture} from '../../support/golden.js'

// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g

function table(text: string, color: boolean): string[] {
  return renderIptablesShow(parseIptablesSave(text), analyzeServices(parseIptablesSave(text)), 'table', {color}).split('\n')
}

/** The display column where `needle` starts on `line`. */
const columnOf = (line: string, needle: string) => displayWidth(line.slice(0, line.indexOf(needle)))

describe('iptables show table layout', () => {
  const dump = readFixture('iptables/kube-proxy-v1.28-nft.txt')

  it('colour adds only SGR sequences: the same text and columns without them, a bold head', () => {
    const plain = table(dump, false)
    const coloured = table(dump, true)
    assert.deepEqual(coloured.map((l) => l.replace(SGR, '')), plain)
    const head = coloured.find((l) => l.includes('SERVICE PORT'))!
    assert.match(head, /^\u001b\[1mSERVICE PORT\u001b\[22m +\u001b\[1mPROTO\u001b\[22m/)
  })

  it('an astral character in a Service port name is one column: the next column stays aligned with the head', () => {
    const name = 'kube-system/kube-dns:dns'
    // Every comment naming the port (`"NAME"`, `"NAME cluster IP"`, ...) gets U+1D400 after the name.
    const renamed = dump.replaceAll(/kube-system\/kube-dns:dns(?=[ "])/g, `${name}\u{1d400}`)
    const lines = table(renamed, false)
    const head = lines.find((l) => l.startsWith('SERVICE PORT'))!
    const row = lines.find((l) => l.startsWith(`${name}\u{1d400}`))
    assert.ok(row, `no row for ${name}\u{1d400}:\n${lines.join('\n')}`)
    // dns is the UDP port: PROTO starts at the same display column on the head and the row.
    assert.equal(columnOf(row, ' udp ') + 1, columnOf(head, 'PROTO'))
  })
})
