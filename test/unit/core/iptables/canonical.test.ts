// Tokenising, quoting and canonicalisation without root. Every expectation here was observed with the real
// iptables 1.8.9 binaries (see test/integration/iptables/canonical.test.ts), except nfacct, which needs nfacct
// objects: its saved form follows shared/reference/kube-proxy-iptables.md §12.9.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'
import {canonicalAddress, formatIPv6, parseIPv4, parseIPv6} from '../../../../src/core/net/inet.js'
import {canonicalizeRule, savedProbability} from '../../../../src/core/iptables/canonical.js'
import {parseRuleArgs} from '../../../../src/core/iptables/rule.js'
import {formatRuleTokens, quoteArg, tokenizeRule} from '../../../../src/core/iptables/tokenize.js'
import {ParseError} from '../../../../src/errors.js'

const saved = (line: string, family: 'ipv4' | 'ipv6' = 'ipv4'): string => formatRuleTokens(canonicalizeRule(tokenizeRule(line), family))

describe('tokenizeRule (iptables-restore splitting)', () => {
  test('blanks separate, quotes group, backslash escapes only inside quotes', () => {
    assert.deepEqual(tokenizeRule('-A X  -m comment\t--comment "a b" -j RETURN'), ['-A', 'X', '-m', 'comment', '--comment', 'a b', '-j', 'RETURN'])
    assert.deepEqual(tokenizeRule('--comment "quote\\" backslash\\\\ apostrophe\\\' done"'), ['--comment', 'quote" backslash\\ apostrophe\' done'])
    assert.deepEqual(tokenizeRule('--comment a\\b'), ['--comment', 'a\\b'])
  })

  test('a closing quote ends the argument; a quote glued to a word continues it', () => {
    // iptables-restore: `ab"cd ef"gh` → `abcd ef`, `gh`; `"ab"cd` → `ab`, `cd`; `""` → an empty argument.
    assert.deepEqual(tokenizeRule('ab"cd ef"gh'), ['abcd ef', 'gh'])
    assert.deepEqual(tokenizeRule('"ab"cd'), ['ab', 'cd'])
    assert.deepEqual(tokenizeRule('--comment "" -j X'), ['--comment', '', '-j', 'X'])
    assert.deepEqual(tokenizeRule(''), [])
    assert.deepEqual(tokenizeRule('   '), [])
  })

  test('an unterminated quote is a ParseError', () => {
    assert.throws(() => tokenizeRule('--comment "abc'), ParseError)
    assert.throws(() => tokenizeRule('--comment "abc\\'), /unterminated double quote/)
  })
})

describe('quoteArg and formatRuleTokens (iptables-save quoting)', () => {
  test('bare only for [A-Za-z0-9_-]+', () => {
    assert.equal(quoteArg('a_b-c9'), 'a_b-c9')
    assert.equal(quoteArg('ns1/svc1:p80'), '"ns1/svc1:p80"')
    assert.equal(quoteArg('a.b'), '"a.b"')
    assert.equal(quoteArg(''), '""')
    assert.equal(quoteArg('a$b'), '"a$b"')
    assert.equal(quoteArg('a"b c\'d\\e'), '"a\\"b c\\\'d\\\\e"')
  })

  test('only string options are quoted; nfacct gets its double space', () => {
    assert.equal(
      formatRuleTokens(['-A', 'X', '-s', '10.0.0.0/8', '-m', 'comment', '--comment', 'ns1/svc1:p80', '-j', 'DNAT', '--to-destination', '[fd00::1]:80']),
      '-A X -s 10.0.0.0/8 -m comment --comment "ns1/svc1:p80" -j DNAT --to-destination [fd00::1]:80',
    )
    assert.equal(formatRuleTokens(['-m', 'nfacct', '--nfacct-name', 'ct_state_invalid_dropped_pkts']), '-m nfacct --nfacct-name  ct_state_invalid_dropped_pkts')
    assert.equal(formatRuleTokens(['-j', 'LOG', '--log-prefix', 'kube drop: ']), '-j LOG --log-prefix "kube drop: "')
    assert.equal(formatRuleTokens(['--comment', '--comment']), '--comment --comment')
  })
})

describe('canonicalizeRule', () => {
  test('the reference §12.2 examples', () => {
    assert.equal(
      saved('-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O'),
      '-A KUBE-SERVICES -d 172.30.0.41/32 -p tcp -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O',
    )
    assert.equal(
      saved('-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP'),
      '-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
    )
    assert.equal(saved('-A KUBE-SEP-X -m comment --comment ns/svc:p -s 10.0.1.1 -j KUBE-MARK-MASQ'), '-A KUBE-SEP-X -s 10.0.1.1/32 -m comment --comment "ns/svc:p" -j KUBE-MARK-MASQ')
  })

  test('MARK target and mark match', () => {
    assert.equal(saved('-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000'), '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000')
    assert.equal(saved('-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000'), '-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0')
    assert.equal(saved('-A X -j MARK --set-mark 5'), '-A X -j MARK --set-xmark 0x5/0xffffffff')
    assert.equal(saved('-A X -j MARK --and-mark 0xff'), '-A X -j MARK --set-xmark 0x0/0xffffff00')
    assert.equal(saved('-A X -m mark ! --mark 0x00004000/0x00004000 -j RETURN'), '-A X -m mark ! --mark 0x4000/0x4000 -j RETURN')
    assert.equal(saved('-A X -m mark --mark 16384/0xffffffff -j RETURN'), '-A X -m mark --mark 0x4000 -j RETURN')
  })

  test('statistic probabilities are quantised to 2^-31 and printed with 11 decimals (glibc rounding)', () => {
    const table: Array<[string, string]> = [
      ['0.5000000000', '0.50000000000'],
      ['0.3333333333', '0.33333333349'],
      ['0.2500000000', '0.25000000000'],
      ['0.2000000000', '0.20000000019'],
      ['0.1666666667', '0.16666666651'],
      ['0.1428571429', '0.14285714272'],
      ['0.1000000000', '0.10000000009'],
      // An exact tie at the 12th decimal: glibc rounds to even, toFixed would give ...063.
      ['0.0002441406', '0.00024414062'],
      ['1', '1.00000000000'],
      ['0', '0.00000000000'],
    ]
    for (const [input, want] of table) assert.equal(savedProbability(input), want, input)
    assert.equal(savedProbability('1.5'), null)
    assert.equal(savedProbability('abc'), null)
  })

  test('recent, REJECT, nfacct and the implicit protocol match', () => {
    assert.equal(
      saved('-A S -m recent --name KUBE-SEP-X --rcheck --seconds 10800 --reap -j KUBE-SEP-X'),
      '-A S -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-X --mask 255.255.255.255 --rsource -j KUBE-SEP-X',
    )
    assert.equal(
      saved('-A S -m recent --name N --set -j RETURN', 'ipv6'),
      '-A S -m recent --set --name N --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff --rsource -j RETURN',
    )
    assert.equal(saved('-A S -j REJECT'), '-A S -j REJECT --reject-with icmp-port-unreachable')
    assert.equal(saved('-A S -j REJECT', 'ipv6'), '-A S -j REJECT --reject-with icmp6-port-unreachable')
    assert.equal(
      saved('-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP'),
      '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name  ct_state_invalid_dropped_pkts -j DROP',
    )
    assert.equal(
      saved('-A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3001 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-X'),
      '-A KUBE-NODEPORTS -d 127.0.0.0/8 -p tcp -m comment --comment "ns1/svc1:p80" -m tcp --dport 3001 -m nfacct --nfacct-name  localhost_nps_accepted_pkts -j KUBE-EXT-X',
    )
    assert.equal(saved('-A X -p udp --dport 53 -m comment --comment c -j RETURN'), '-A X -p udp -m udp --dport 53 -m comment --comment c -j RETURN')
    assert.equal(saved('-A X -m comment --comment c -p udp --dport 53 -j RETURN'), '-A X -p udp -m comment --comment c -m udp --dport 53 -j RETURN')
  })

  test('addresses: prefix lengths, masking, any-address omitted, IPv6 text', () => {
    assert.equal(saved('-A X -p 6 -s 10.1.2.3/8 -d 0.0.0.0/0 -j RETURN'), '-A X -s 10.0.0.0/8 -p tcp -j RETURN')
    assert.equal(saved('-A X -s 10.0.0.0/255.0.255.0 -j RETURN'), '-A X -s 10.0.0.0/255.0.255.0 -j RETURN')
    assert.equal(saved('-A X -d 172.30.0.041 -j RETURN'), '-A X -d 172.30.0.33/32 -j RETURN')
    assert.equal(saved('-A X -s 2001:db8:0:0:1:0:0:1/64 -d ::ffff:1.2.3.4 -j RETURN', 'ipv6'), '-A X -s 2001:db8::/64 -d ::ffff:1.2.3.4/128 -j RETURN')
    assert.equal(saved('-A X -d FD00:0:0::0001 -j RETURN', 'ipv6'), '-A X -d fd00::1/128 -j RETURN')
    assert.equal(
      saved('-A S -m tcp -p tcp -j DNAT --to-destination [FD00:10:180::0002]:80', 'ipv6'),
      '-A S -p tcp -m tcp -j DNAT --to-destination [fd00:10:180::2]:80',
    )
    assert.throws(() => canonicalizeRule(tokenizeRule('-A X -s 10.0.0.1,10.0.0.2 -j RETURN'), 'ipv4'), /one rule per address/)
  })

  test('arguments without -A CHAIN, unknown modules kept verbatim, saved text is a fixed point', () => {
    assert.deepEqual(canonicalizeRule(['-m', 'tcp', '-p', 'tcp', '--dport', '80'], 'ipv4'), ['-p', 'tcp', '-m', 'tcp', '--dport', '80'])
    const setRule = '-A X -m set --match-set cali40masq-ipam-pools src -m set ! --match-set cali40all-ipam-pools dst -j MASQUERADE --random-fully'
    assert.equal(saved(setRule), setRule)
    assert.equal(saved(saved('-A X -m conntrack --ctstate dnat,new -j ACCEPT')), '-A X -m conntrack --ctstate NEW,DNAT -j ACCEPT')
  })
})

describe('parseRuleArgs', () => {
  test('structure of a kube-proxy rule', () => {
    assert.deepEqual(parseRuleArgs(tokenizeRule('! -s 10.0.0.0/8 -d 172.30.0.41/32 -p tcp -m comment --comment "x y" -m tcp --dport 80 -j KUBE-MARK-MASQ')), {
      source: {value: '10.0.0.0/8', negated: true},
      destination: {value: '172.30.0.41/32', negated: false},
      inInterface: null,
      outInterface: null,
      protocol: {value: 'tcp', negated: false},
      fragment: null,
      matches: [
        {name: 'comment', options: ['--comment', 'x y']},
        {name: 'tcp', options: ['--dport', '80']},
      ],
      target: {name: 'KUBE-MARK-MASQ', goto: false, options: []},
    })
  })

  test('errors iptables would raise', () => {
    assert.throws(() => parseRuleArgs(['-s']), /option -s needs a value/)
    assert.throws(() => parseRuleArgs(['!', '!', '-s', 'x']), /"!" given twice/)
    assert.throws(() => parseRuleArgs(['-j', 'A', '-j', 'B']), /more than one -j/)
    assert.throws(() => parseRuleArgs(['-s', 'x', '!']), /negates nothing/)
    assert.throws(() => parseRuleArgs(['--dport', '80']), /does not belong to any match/)
    assert.throws(() => parseRuleArgs(['-m', 'comment', '--comment', 'a', 'b']), /unexpected argument "b"/)
  })
})

describe('addresses', () => {
  test('inet_aton forms and glibc inet_ntop output', () => {
    assert.equal(parseIPv4('10.0.0.1'), 0x0a000001)
    assert.equal(parseIPv4('010.0.0.1'), 0x08000001)
    assert.equal(parseIPv4('08.0.0.1'), null)
    assert.equal(parseIPv4('1.2.3.256'), null)
    assert.equal(formatIPv6(parseIPv6('0:0:0:0:0:0:0:1') as number[]), '::1')
    assert.equal(formatIPv6(parseIPv6('::1.2.3.4') as number[]), '::1.2.3.4')
    assert.equal(formatIPv6(parseIPv6('1:0:0:2:0:0:0:3') as number[]), '1:0:0:2::3')
    assert.equal(formatIPv6(parseIPv6('1:0:2:0:3:0:4:0') as number[]), '1:0:2:0:3:0:4:0')
    assert.equal(parseIPv6('1::2::3'), null)
    assert.equal(parseIPv6('1:2:3:4:5:6:7:8:9'), null)
    assert.deepEqual(canonicalAddress('::/0', 'ipv6'), {text: '::/0', any: true})
    assert.equal(canonicalAddress('example.com', 'ipv4'), null)
  })
})
