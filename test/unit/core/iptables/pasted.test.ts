// The lenient iptables reader of `iptables show --from-file`: each pasted fixture (test/fixtures/pasted, written
// from the iptables-save and iptables -S formats) gives a non-empty view and the warnings that say what was assumed,
// at the user's lines; whole dumps read exactly as the strict parser reads them; other tools' output keeps its error.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {analyzeServices} from '../../../../src/core/iptables/services.js'
import {parseIptablesSave} from '../../../../src/core/iptables/save.js'
import {readPastedIptables, tableOfChain} from '../../../../src/core/iptables/pasted.js'
import {ParseError} from '../../../../src/errors.js'
import {renderIptablesShow} from '../../../../src/render/iptables-show.js'
import fc from 'fast-check'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from '../parse/fuzz-support.js'

const EXCERPT = 'read as an excerpt of a dump: chains and jumps outside it may have been cut off, so their absence is not reported'

const FIXTURES = {
  'grep-kube-nat.txt': {excerpt: true, tables: ['nat'], ports: ['kube-system/kube-dns:dns'], warnings: [
    [1, 'shell prompt `$ sudo iptables-save | grep KUBE` skipped'],
    [2, 'no table header: assumed *nat from the KUBE-SVC-AAAAAAAAAAAAAAAA, KUBE-SEP-BBBBBBBBBBBBBBBB, KUBE-MARK-MASQ, … chains'],
    [2, EXCERPT],
    [6, 'table nat: no declaration line for chain PREROUTING (built-in, policy ACCEPT assumed): declared from their rules'],
  ]},
  'iptables-S-nat.txt': {excerpt: false, tables: ['nat'], ports: ['shop/web:http'], warnings: [
    [1, 'shell prompt `root@worker-1:~# iptables -t nat -S` skipped'],
    [2, '`iptables -S` output: -P/-N lines read as chain declarations'],
    [2, 'no table header: assumed *nat from the PREROUTING, POSTROUTING, KUBE-SVC-EEEEEEEEEEEEEEEE, … chains'],
    [15, 'shell prompt `root@worker-1:~#` skipped'],
  ]},
  'markdown-indented-crlf-no-commit.txt': {excerpt: true, tables: ['nat'], ports: ['default/kubernetes:https'], warnings: [
    [1, 'CRLF line ends read as LF'],
    [1, 'Markdown fence ``` skipped'],
    [2, 'common indentation of 4 spaces removed'],
    [2, EXCERPT],
    [10, 'table nat (line 2) has no COMMIT: assumed one at the end of the input'],
    [11, 'Markdown fence ``` skipped'],
  ]},
  'email-quoted-filter.txt': {excerpt: true, tables: ['filter'], ports: ['shop/cart:http'], warnings: [
    [1, 'e-mail quoting "> " removed from 3 lines'],
    [1, 'no table header: assumed *filter from the KUBE-FORWARD chain'],
    [1, 'table filter: no declaration line for chains KUBE-SERVICES, KUBE-FORWARD: declared from their rules'],
    [1, EXCERPT],
  ]},
  'grep-kube-nat-and-filter.txt': {excerpt: true, tables: ['nat', 'filter'], ports: ['shop/web:http', 'shop/cart:http'], warnings: [
    [1, 'no table header: assumed *nat from the KUBE-SVC-GGGGGGGGGGGGGGGG, KUBE-SEP-HHHHHHHHHHHHHHHH chains'],
    [1, 'table nat: no declaration line for chains KUBE-SERVICES, KUBE-SVC-GGGGGGGGGGGGGGGG, KUBE-SEP-HHHHHHHHHHHHHHHH: declared from their rules'],
    [1, EXCERPT],
    [4, 'no table header: assumed *filter from the KUBE-FORWARD chain'],
    [4, 'table filter: no declaration line for chains KUBE-SERVICES, KUBE-FORWARD: declared from their rules'],
  ]},
} as const

describe('readPastedIptables', () => {
  for (const [name, want] of Object.entries(FIXTURES)) {
    it(`${name}: a view and the warnings, at the user's lines`, () => {
      const {dump, warnings} = readPastedIptables(readFixture(`pasted/${name}`))
      assert.deepEqual(dump.tables.map((t) => t.name), want.tables)
      const analysis = analyzeServices(dump)
      assert.deepEqual(analysis.servicePorts.map((p) => p.name).sort(), [...want.ports].sort())
      assert.deepEqual(warnings.map((w) => [w.line, w.message]), want.warnings)
      const base = name.replace(/\.txt$/, '')
      const {excerpt} = readPastedIptables(readFixture(`pasted/${name}`))
      assert.equal(excerpt, want.excerpt)
      expectGolden(`pasted/${base}.show.golden.txt`, renderIptablesShow(dump, analysis, 'table', {color: false, source: name, warnings, excerpt}))
      const json = JSON.parse(renderIptablesShow(dump, analysis, 'json', {color: false, source: name, warnings})) as {warnings: unknown}
      assert.deepEqual(json.warnings, warnings)
    })
  }

  it('rules keep the line the user pasted them on', () => {
    const {dump} = readPastedIptables(readFixture('pasted/markdown-indented-crlf-no-commit.txt'))
    const nat = dump.tables[0]!
    assert.deepEqual([nat.line, nat.commitLine, nat.chain('KUBE-SERVICES')?.line, nat.rule(0).line], [2, 10, 4, 7])
  })

  it('a whole dump reads as the strict parser reads it, without warnings', () => {
    for (const f of ['iptables/kube-proxy-v1.28-nft.txt', 'iptables/kube-proxy-ipv6.txt', 'iptables/kube-proxy-v1.33-legacy-counters.txt']) {
      const text = readFixture(f)
      const {dump, warnings} = readPastedIptables(text)
      assert.deepEqual(warnings, [])
      assert.deepEqual(JSON.parse(JSON.stringify(dump)), JSON.parse(JSON.stringify(parseIptablesSave(text))))
    }
  })

  it('other tools keep their "this looks like" error, at the user line', () => {
    const cases: Array<[string, RegExp, number]> = [
      ['IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n', /this looks like `ipvsadm -ln` output/, 1],
      ['$ ip route\n    default via 10.0.0.1 dev eth0\n', /this looks like `ip route` output/, 2],
      ['table ip filter {\n}\n', /nftables ruleset/, 1],
      ['\x00\x01ELF\x02binary', /expected iptables-save output/, 1],
    ]
    for (const [text, re, line] of cases) {
      assert.throws(() => readPastedIptables(text), (e: unknown) => e instanceof ParseError && re.test(e.message) && e.line === line, text)
    }
  })

  it('a real error inside a pasted excerpt still names the user line', () => {
    assert.throws(
      () => readPastedIptables('  -A KUBE-SVC-X -m comment --comment "unterminated -j KUBE-SEP-Y\n'),
      (e: unknown) => e instanceof ParseError && /unterminated double quote/.test(e.message) && e.line === 1,
    )
  })

  it('names the table of kube-proxy chains, and none for chains in several tables', () => {
    assert.deepEqual(
      ['KUBE-SVC-ABC', 'KUBE-SEP-ABC', 'KUBE-EXT-ABC', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ', 'KUBE-FORWARD', 'KUBE-PROXY-FIREWALL', 'KUBE-SERVICES', 'KUBE-NODEPORTS', 'OUTPUT'].map(tableOfChain),
      ['nat', 'nat', 'nat', 'nat', 'nat', 'filter', 'filter', null, null, null],
    )
  })

  it('fuzz: any input, mutated pastes too, gives a dump or a ParseError with a line', () => {
    const seeds = Object.keys(FIXTURES).map((f) => readFixture(`pasted/${f}`))
    const tokens = ['-A', '-P', '-N', '*nat', '*filter', 'COMMIT', ':KUBE-SERVICES - [0:0]', 'KUBE-SVC-X', '-j', 'DNAT', '$', '```', '>', '    ', 'root@n:~#']
    fc.assert(fc.property(fc.oneof(mutated(seeds, tokens), anyText(tokens)), (text) => parsesOrFailsCleanly((t) => readPastedIptables(t), text)), {numRuns: FUZZ_RUNS})
  })
})
