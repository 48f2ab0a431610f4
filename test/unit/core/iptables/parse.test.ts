// Parser goldens over captured iptables-save variants (test/fixtures/iptables/capture.ts made them with the real
// binaries), the format round trip, and malformed input naming the line and the problem.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'
import {canonicalizeRule} from '../../../../src/core/iptables/canonical.js'
import {formatRuleTokens} from '../../../../src/core/iptables/tokenize.js'
import {findTable, formatIptablesSave, parseIptablesSave} from '../../../../src/core/iptables/save.js'
import {ParseError} from '../../../../src/errors.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const FIXTURES = [
  'kube-proxy-v1.28-nft',
  'kube-proxy-v1.33-legacy-counters',
  'kube-proxy-ipv6',
  'large-cluster-no-comments',
  'crlf',
] as const

/** The model as JSON, without `tokens` (the round-trip tests cover them) to keep goldens reviewable. */
function modelJson(text: string): string {
  return JSON.stringify(parseIptablesSave(text), (k, v: unknown) => (k === 'tokens' ? undefined : v), 1) + '\n'
}

describe('parseIptablesSave on captured dumps', () => {
  for (const name of FIXTURES.filter((f) => f !== 'crlf')) {
    test(`${name}: model matches the golden file`, () => {
      expectGolden(`iptables/${name}.golden.json`, modelJson(readFixture(`iptables/${name}.txt`)))
    })
  }

  test('crlf: the same model as its LF original, apart from the line ending', () => {
    const crlf = JSON.parse(modelJson(readFixture('iptables/crlf.txt'))) as {lineEnding: string}
    const lf = JSON.parse(modelJson(readFixture('iptables/large-cluster-no-comments.txt'))) as {lineEnding: string}
    assert.equal(crlf.lineEnding, '\r\n')
    assert.deepEqual({...crlf, lineEnding: '\n'}, lf)
  })

  for (const name of FIXTURES) {

    test(`${name}: format(parse(x)) reproduces the file byte for byte`, () => {
      const text = readFixture(`iptables/${name}.txt`)
      assert.equal(formatIptablesSave(parseIptablesSave(text)), text)
    })

    test(`${name}: every saved rule is already canonical`, () => {
      const dump = parseIptablesSave(readFixture(`iptables/${name}.txt`))
      let n = 0
      for (const table of dump.tables) {
        for (const rule of table.eachRule()) {
          assert.equal(formatRuleTokens(canonicalizeRule(rule.tokens, dump.family)), rule.text, `line ${rule.line}`)
          n++
        }
      }
      assert.ok(n > 50)
    })
  }

  test('header metadata: backend, version, family, counters, warnings', () => {
    const v128 = parseIptablesSave(readFixture('iptables/kube-proxy-v1.28-nft.txt'))
    assert.deepEqual(
      [v128.backend, v128.version, v128.family, v128.familySource, v128.counters, v128.warnings],
      ['nf_tables', '1.8.9', 'ipv4', 'header', false, ['Warning: iptables-legacy tables present, use iptables-legacy-save to see them']],
    )
    const v133 = parseIptablesSave(readFixture('iptables/kube-proxy-v1.33-legacy-counters.txt'))
    assert.deepEqual([v133.backend, v133.family, v133.counters, v133.warnings], ['legacy', 'ipv4', true, []])
    const v6 = parseIptablesSave(readFixture('iptables/kube-proxy-ipv6.txt'))
    assert.deepEqual([v6.backend, v6.family, v6.familySource, v6.counters], ['nf_tables', 'ipv6', 'header', true])
    assert.deepEqual(
      v6.tables.map((t) => t.name),
      ['mangle', 'filter', 'nat'],
    )
    assert.equal(parseIptablesSave(readFixture('iptables/crlf.txt')).lineEnding, '\r\n')
  })

  test('chains: policy, built-in flag, counters; rules: counters, structure', () => {
    const dump = parseIptablesSave(readFixture('iptables/kube-proxy-v1.33-legacy-counters.txt'))
    const nat = findTable(dump, 'nat')
    assert.ok(nat)
    const out = nat.chain('OUTPUT')
    assert.ok(out)
    assert.deepEqual([out.policy, out.builtin, out.counters], ['ACCEPT', true, {packets: 4, bytes: 240}])
    const svc = nat.chain('KUBE-SVC-XPGD46QRK7WJZT7O')
    assert.ok(svc)
    assert.deepEqual([svc.policy, svc.builtin, svc.ruleCount], [null, false, 4])
    const first = svc.rule(1)
    assert.equal(first.chain, 'KUBE-SVC-XPGD46QRK7WJZT7O')
    assert.ok(first.counters && first.counters.packets > 0, 'traffic was counted when the fixture was captured')
    assert.deepEqual(first.parsed.matches, [
      {name: 'comment', options: ['--comment', 'ns1/svc1:p80 -> 10.180.0.1:80']},
      {name: 'statistic', options: ['--mode', 'random', '--probability', '0.33333333349']},
    ])
    assert.deepEqual(first.parsed.target, {name: 'KUBE-SEP-SXIVWICOYRO3J4NJ', goto: false, options: []})
    const masq = svc.rule(0).parsed
    assert.deepEqual(masq.source, {value: '10.0.0.0/8', negated: true})
    assert.deepEqual(masq.destination, {value: '172.30.0.41/32', negated: false})
    assert.deepEqual(masq.protocol, {value: 'tcp', negated: false})
    const nfacct = findTable(dump, 'filter')?.chain('KUBE-FORWARD')?.rule(0)
    assert.equal(nfacct?.text, '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name  ct_state_invalid_dropped_pkts -j DROP')
    assert.deepEqual(nfacct?.parsed.matches[1], {name: 'nfacct', options: ['--nfacct-name', 'ct_state_invalid_dropped_pkts']})
    const gotoRule = findTable(dump, 'filter')?.chain('cali-INPUT')?.rule(1).parsed
    assert.deepEqual(gotoRule?.inInterface, {value: 'cali+', negated: false})
    assert.deepEqual(gotoRule?.target, {name: 'cali-wl-to-host', goto: true, options: []})
  })

  test('rules interleaved across chains keep per-chain order', () => {
    const dump = parseIptablesSave('*filter\n:A - [0:0]\n:B - [0:0]\n-A A -j ACCEPT\n-A B -j DROP\n-A A -j RETURN\nCOMMIT\n')
    const t = dump.tables[0]
    assert.ok(t)
    assert.deepEqual(t.chain('A')?.rules.map((r) => [r.text, r.line]), [['-A A -j ACCEPT', 4], ['-A A -j RETURN', 6]])
    assert.deepEqual(t.chain('B')?.rules.map((r) => r.text), ['-A B -j DROP'])
    assert.equal(formatIptablesSave(dump), '*filter\n:A - [0:0]\n:B - [0:0]\n-A A -j ACCEPT\n-A B -j DROP\n-A A -j RETURN\nCOMMIT\n')
  })

  test('family: from the option, else inferred from addresses, else IPv4', () => {
    const v6rule = '*filter\n:X - [0:0]\n-A X -d fd00::1/128 -j DROP\nCOMMIT\n'
    assert.deepEqual([parseIptablesSave(v6rule).family, parseIptablesSave(v6rule).familySource], ['ipv6', 'addresses'])
    const none = '*filter\n:X - [0:0]\n-A X -j DROP\nCOMMIT\n'
    assert.deepEqual([parseIptablesSave(none).family, parseIptablesSave(none).familySource], ['ipv4', 'default'])
    assert.equal(parseIptablesSave(none, {family: 'ipv6'}).family, 'ipv6')
  })
})

/** Asserts `text` fails with a ParseError on `line` whose message matches `pattern`. */
function rejects(text: string, line: number, pattern: RegExp, options?: {family?: 'ipv4' | 'ipv6'}): void {
  assert.throws(
    () => parseIptablesSave(text, options),
    (err: unknown) => {
      assert.ok(err instanceof ParseError, `not a ParseError: ${String(err)}`)
      assert.equal(err.line, line, `line of: ${err.message}`)
      assert.match(err.message, pattern)
      return true
    },
  )
}

describe('parseIptablesSave on bad input', () => {
  test('empty input', () => {
    rejects('', 1, /^empty input: expected iptables-save output$/)
    rejects('\n\n  \n', 1, /^empty input/)
  })

  test('only comments', () => {
    rejects('# Generated by iptables-save v1.8.9 on Mon\n', 1, /no tables found: expected iptables-save output/)
  })

  test('a rule before any table', () => {
    rejects('# Generated by iptables-save v1.8.9\n-A INPUT -j ACCEPT\n', 2, /rule before any table: expected a table line such as "\*filter"/)
  })

  test('iptables -S output is named as such', () => {
    rejects('-P INPUT ACCEPT\n-A INPUT -j ACCEPT\n', 1, /this looks like `iptables -S` output, not iptables-save/)
    rejects('-A INPUT -j ACCEPT\n', 1, /rule before any table.*`iptables -S`/)
  })

  test('a rule for an undeclared chain', () => {
    rejects('*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SVC-X -j RETURN\nCOMMIT\n', 3, /chain "KUBE-SVC-X" which table nat does not declare: expected a ":KUBE-SVC-X - \[0:0\]" line/)
  })

  test('an unterminated quote', () => {
    rejects('*filter\n:X - [0:0]\n-A X -m comment --comment "oops -j DROP\nCOMMIT\n', 3, /unterminated double quote/)
    rejects('*filter\n:X - [0:0]\n-A X -m comment --comment "a\\" -j DROP\nCOMMIT\n', 3, /unterminated double quote/)
  })

  test('a truncated file (no COMMIT)', () => {
    const full = readFixture('iptables/kube-proxy-v1.28-nft.txt')
    const cut = full.slice(0, full.lastIndexOf('COMMIT'))
    const lines = cut.split('\n').length - 1
    rejects(cut, lines, /table nat \(opened on line \d+\) has no COMMIT: expected COMMIT before the end of input; the file looks truncated/)
  })

  test('a second table before COMMIT', () => {
    rejects('*filter\n:X - [0:0]\n*nat\n', 3, /"\*nat" while table filter \(line 1\) is still open: expected COMMIT first/)
  })

  test('COMMIT without a table, unknown tables, repeated tables and chains', () => {
    rejects('*filter\nCOMMIT\nCOMMIT\n', 3, /COMMIT without an open table/)
    rejects('*bogus\nCOMMIT\n', 1, /unknown table "bogus": expected one of filter, nat, mangle, raw, security/)
    rejects('*nat\nCOMMIT\n*nat\nCOMMIT\n', 3, /table nat appears a second time \(first on line 1\)/)
    rejects('*nat\n:X - [0:0]\n:Y - [0:0]\n:X - [0:0]\nCOMMIT\n', 4, /chain "X" is declared twice in table nat \(first on line 2\)/)
  })

  test('malformed counters and chain lines', () => {
    rejects('*nat\n:X - [0:0]\n[1:x] -A X -j RETURN\nCOMMIT\n', 3, /malformed counters/)
    rejects('*nat\n:X - [0:0]\n[1:2]-A X -j RETURN\nCOMMIT\n', 3, /expected a space and "-A CHAIN \.\.\." after the counters/)
    rejects('*nat\n:X\nCOMMIT\n', 2, /chain line for "X" has no policy/)
    rejects('*nat\n:X - 0:0\nCOMMIT\n', 2, /malformed chain counters "0:0": expected "\[packets:bytes\]"/)
  })

  test('restore-only commands are explained', () => {
    rejects('*nat\n:X - [0:0]\n-X KUBE-SEP-OLD\nCOMMIT\n', 3, /unexpected "-X": iptables-save prints only "-A CHAIN \.\.\." rule lines/)
    rejects('*nat\nhello world\nCOMMIT\n', 2, /unexpected "hello world": expected a rule/)
  })

  test('other tools’ output is recognised on the first line', () => {
    rejects('IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n', 1, /this looks like `ipvsadm -ln` output, not iptables-save/)
    rejects('table ip kube-proxy {\n\tchain services {\n', 1, /this looks like an nftables ruleset \(`nft list ruleset`\), not iptables-save/)
    rejects('Chain INPUT (policy ACCEPT)\ntarget prot opt source destination\n', 1, /this looks like `iptables -L` output/)
    rejects('default via 192.168.0.1 dev eth0\n', 1, /this looks like `ip route` output/)
    rejects('{"kind": "List"}\n', 1, /this looks like JSON/)
    rejects('apiVersion: v1\nkind: Pod\n', 1, /this looks like YAML/)
    rejects('create KUBE-CLUSTER-IP hash:ip,port family inet\n', 1, /this looks like `ipset save` output/)
    rejects('\u0007\u0001garbage\u00ff\n', 1, /unexpected "\?\?garbage.": expected iptables-save output/)
  })

  test('families that contradict each other', () => {
    const v4 = '# Generated by iptables-save v1.8.9 (nf_tables) on X\n*nat\nCOMMIT\n'
    const v6 = '# Generated by ip6tables-save v1.8.9 (nf_tables) on X\n*filter\nCOMMIT\n'
    rejects(v4 + v6, 4, /mixes iptables-save and ip6tables-save output \(line 1 and here\)/)
    rejects(v6, 1, /this is ip6tables-save output but IPv4 was requested/, {family: 'ipv4'})
  })

  test('rule structure errors carry the rule’s line', () => {
    const dump = parseIptablesSave('*filter\n:X - [0:0]\n-A X -j ACCEPT\n-A X -s\nCOMMIT\n')
    const bad = dump.tables[0]?.chain('X')?.rule(1)
    assert.throws(
      () => bad?.parsed,
      (err: unknown) => err instanceof ParseError && err.line === 4 && /option -s needs a value/.test(err.message),
    )
  })
})
