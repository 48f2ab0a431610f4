// CanonicalRuleCache must give exactly formatRuleTokens(canonicalizeRule(args, family)), or throw the same error,
// for every rule: here over every rule line of the proxier and iptables fixtures (both families), the 10k-service
// benchmark rule set, and values chosen to hit each slot transform's edges.
import assert from 'node:assert/strict'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, test} from 'node:test'
import {benchObjectsJson, benchProxierOptions} from '../../../../bench/proxier-objects.js'
import {CanonicalRuleCache} from '../../../../src/core/iptables/canonical-cache.js'
import {canonicalizeRule} from '../../../../src/core/iptables/canonical.js'
import {formatRuleTokens, tokenizeRule} from '../../../../src/core/iptables/tokenize.js'
import {generateIptablesRestore} from '../../../../src/core/proxier/iptables/generate.js'
import {loadObjects} from '../../../../src/core/proxier/objects.js'
import {FIXTURES} from '../../../support/golden.js'

type Family = 'ipv4' | 'ipv6'

function direct(args: readonly string[], family: Family): string {
  try {
    return formatRuleTokens(canonicalizeRule(args, family))
  } catch (err) {
    return `throws ${(err as Error).constructor.name}: ${(err as Error).message}`
  }
}

function cached(cache: CanonicalRuleCache, args: readonly string[]): string {
  try {
    return cache.format(args)
  } catch (err) {
    return `throws ${(err as Error).constructor.name}: ${(err as Error).message}`
  }
}

/** Compares every rule (twice, so the second pass runs on derived plans); returns the mismatches. */
function mismatches(rules: readonly (readonly string[])[], family: Family, cache = new CanonicalRuleCache(family)): string[] {
  const bad: string[] = []
  for (let pass = 0; pass < 2; pass++) {
    for (const args of rules) {
      const want = direct(args, family)
      const got = cached(cache, args)
      if (got !== want) bad.push(`${family} ${JSON.stringify(args)}\n  want ${want}\n  got  ${got}`)
    }
  }
  return bad
}

function files(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir)) {
    const p = join(dir, e)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (/\.(restore|save|txt)$/.test(e)) out.push(p)
  }
  return out
}

/** The arguments of every `-A CHAIN ...` line of the fixture files under `dir` (lines that do not tokenise skipped). */
function fixtureRules(dir: string, only = /./): string[][] {
  const out: string[][] = []
  for (const f of files(join(FIXTURES, dir))) {
    if (!only.test(f)) continue
    for (const line of readFileSync(f, 'utf8').split(/\r?\n/)) {
      const at = line.indexOf('-A ')
      if (at < 0 || !/^(\[\d+:\d+\] )?-A /.test(line)) continue
      try {
        out.push(tokenizeRule(line.slice(at)).slice(2))
      } catch {
        // not a rule line this test can use
      }
    }
  }
  return out
}

describe('CanonicalRuleCache', () => {
  test('proxier fixtures: every rule as canonicalizeRule gives it, and every kube-proxy rule shape has a plan', () => {
    const rules = fixtureRules('proxier/iptables')
    assert.ok(rules.length > 1000, `only ${rules.length} rules found`)
    for (const family of ['ipv4', 'ipv6'] as const) assert.deepEqual(mismatches(rules, family), [])
    // The restore goldens are the generator's output: every shape in them gets a plan (the fast path is used).
    const restore = fixtureRules('proxier/iptables', /\.restore$/)
    for (const family of ['ipv4', 'ipv6'] as const) {
      const cache = new CanonicalRuleCache(family)
      for (const args of restore) cache.format(args)
      assert.equal(cache.stats.unplanned, 0, `${family}: ${JSON.stringify(cache.stats)}`)
    }
  })

  test('iptables fixtures (dumps of real nodes, canonical corpus): same output', () => {
    const rules = fixtureRules('iptables')
    assert.ok(rules.length > 100)
    for (const family of ['ipv4', 'ipv6'] as const) assert.deepEqual(mismatches(rules, family), [])
  })

  test('the 10k services × 10 endpoints benchmark rule set: same output, from a few dozen plans', () => {
    const objects = loadObjects([{name: 'bench.json', text: benchObjectsJson(10_000, 10)}])
    const {ruleset} = generateIptablesRestore({
      services: objects.services,
      endpointSlices: objects.endpointSlices,
      options: benchProxierOptions(),
    })
    const cache = new CanonicalRuleCache('ipv4')
    let n = 0
    const bad: string[] = []
    for (const table of ruleset.tables) {
      for (const r of table.rules) {
        n++
        const want = formatRuleTokens(canonicalizeRule(r.args, 'ipv4'))
        const got = cache.format(r.args)
        if (got !== want && bad.length < 5) bad.push(`${r.chain} ${JSON.stringify(r.args)}\n  want ${want}\n  got  ${got}`)
      }
    }
    assert.deepEqual(bad, [])
    assert.ok(n > 300_000, `${n} rules`)
    assert.ok(cache.stats.shapes < 64 && cache.stats.unplanned === 0, JSON.stringify(cache.stats))
  })

  test('slot values at the edges of each transform, in one cache, both families', () => {
    const rules: string[][] = []
    const addresses = [
      '10.0.0.1',
      '010.0.0.1',
      '10.0.0.01',
      '255.255.255.255',
      '256.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      '0x7f.0.0.1',
      '10.1.2.3/8',
      '10.0.0.0/8',
      '10.0.0.0/255.0.0.0',
      '10.0.0.0/255.0.255.0',
      '0.0.0.0/0',
      '0.0.0.0',
      '1.2.3.4,5.6.7.8',
      'example.com',
      '',
      'fd00::1',
      'FD00:0:0::1',
      'fd00::1/64',
      'fd00::/64',
      '::/0',
      '::',
      '::ffff:1.2.3.4',
      '2001:db8::1/128',
    ]
    for (const a of addresses) {
      rules.push(['-m', 'comment', '--comment', 'ns/svc:p cluster IP', '-m', 'tcp', '-p', 'tcp', '-d', a, '--dport', '80', '-j', 'KUBE-SVC-X'])
      rules.push(['!', '-s', a, '-d', a, '-j', 'KUBE-MARK-MASQ'])
      rules.push(['-s', a, '-j', 'KUBE-MARK-MASQ'])
    }
    for (const p of ['80', '0', '080', '65535', '65536', '1:2', ':', '0:65535', 'http', '', '99999999']) {
      rules.push(['-m', 'tcp', '-p', 'tcp', '--dport', p, '-j', 'ACCEPT'])
      rules.push(['-m', 'sctp', '-p', 'sctp', '--dport', p, '--sport', p, '-j', 'ACCEPT'])
      rules.push(['-m', 'udp', '-p', 'udp', '--sport', p, '-j', 'KUBE-X'])
    }
    for (const c of ['ns1/svc1:p80', 'plain', '', 'a "quoted" \\ \'x\'', '--comment', '-j', 'KUBE-SVC-X', '\u0000addr', 'two  spaces', 'tab\tin']) {
      rules.push(['-m', 'comment', '--comment', c, '-j', 'KUBE-MARK-MASQ'])
      rules.push(['-m', 'comment', '--comment', c])
      rules.push(['-m', 'comment', '--comment', c, '-m', 'comment', '--comment', c, '-j', 'RETURN'])
    }
    for (const p of ['0.1000000000', '0.5', '1', '1.0', '0', '.5', '1e-1', '2', 'abc', '', '0.33333333333333333333', '0.00000000001']) {
      rules.push(['-m', 'statistic', '--mode', 'random', '--probability', p, '-j', 'KUBE-SEP-A'])
      rules.push(['-m', 'statistic', '--mode', 'random', '--probability', p, '--probability', '0.25', '-j', 'KUBE-SEP-A'])
    }
    for (const d of ['10.0.0.1:8080', '10.0.0.1', '010.0.0.1:80', '10.0.0.1:080', '10.0.0.1-10.0.0.2:80', '10.0.0.1:80-81', '[fd00::1]:80', '[FD00:0::1]:8080', '[fd00::1]', 'fd00::1', '[fd00::1-fd00::2]:80', '']) {
      rules.push(['-m', 'comment', '--comment', 'ns/svc:p', '-m', 'tcp', '-p', 'tcp', '-j', 'DNAT', '--to-destination', d])
      rules.push(['-j', 'DNAT', '--to-destination', d, '--random'])
    }
    for (const t of ['KUBE-SEP-ABC', 'KUBE-MARK-MASQ', 'DNAT', 'MARK', 'REJECT', 'ACCEPT', 'KUBE-', 'KUBE-x.y', 'kube-sep', '\u0000name']) {
      rules.push(['-m', 'recent', '--name', t, '--rcheck', '--seconds', '10800', '--reap', '-j', t])
      rules.push(['-m', 'recent', '--name', t, '--set', '-g', t])
      rules.push(['-j', t])
    }
    // Options whose values are slots, in odd places: as values of other options, at the end, negated, repeated.
    rules.push(['-m', 'comment', '--comment', '-d', '-j', 'ACCEPT'])
    rules.push(['-j', 'LOG', '--log-prefix', '-d', '--log-level', '4'])
    rules.push(['-j', 'LOG', '--log-prefix', '-d 1.2.3.4'])
    rules.push(['-d'])
    rules.push(['-s', '1.2.3.4', '-s', '5.6.7.8', '-j', 'ACCEPT'])
    rules.push(['-m', 'tcp', '-p', 'tcp', '--dport', '80', '--dport', '81', '-j', 'ACCEPT'])
    rules.push(['-m', 'tcp', '-p', 'tcp', '!', '--dport', '80', '-j', 'ACCEPT'])
    rules.push(['-p', 'tcp', '--dport', '80', '-j', 'ACCEPT'])
    rules.push(['-m', 'nfacct', '--nfacct-name', 'ct_state_invalid_dropped_pkts', '-j', 'DROP'])
    rules.push(['-m', 'comment', '--comment', 'x', '-m', 'nfacct', '--nfacct-name', 'a b', '-d', '127.0.0.0/8', '-j', 'KUBE-EXT-A'])
    rules.push(['-j', 'MARK', '--or-mark', '0x4000'])
    rules.push(['-m', 'unknownmod', '--opt', '-d', '1.2.3.4', '-j', 'KUBE-X'])
    rules.push(['-m', 'unknownmod', '--opt', '1.2.3.4', '--dport', '80'])
    for (const family of ['ipv4', 'ipv6'] as const) {
      // Forwards, then backwards: a plan derived from one value must hold for the others of its class.
      assert.deepEqual(mismatches(rules, family), [])
      assert.deepEqual(mismatches([...rules].reverse(), family), [])
    }
  })

  test('a literal token that looks like a slot key is never taken for one', () => {
    const cache = new CanonicalRuleCache('ipv4')
    const a = ['-s', '10.0.0.1', '-j', 'KUBE-MARK-MASQ']
    const b = ['-s', '\u0000addr', '-j', 'KUBE-MARK-MASQ']
    assert.equal(cached(cache, a), direct(a, 'ipv4'))
    assert.equal(cached(cache, b), direct(b, 'ipv4'))
    assert.equal(cached(cache, a), '-s 10.0.0.1/32 -j KUBE-MARK-MASQ')
  })

  test('rules that canonicalizeRule refuses throw the same ParseError, planned shape or not', () => {
    const cache = new CanonicalRuleCache('ipv4')
    const ok = ['-s', '10.0.0.1', '-j', 'KUBE-MARK-MASQ']
    cache.format(ok)
    for (const bad of [['-s', '10.0.0.1,10.0.0.2', '-j', 'KUBE-MARK-MASQ'], ['-s'], ['!', '!', '-s', '1.2.3.4'], ['-j', 'A', '-j', 'B']]) {
      assert.equal(cached(cache, bad), direct(bad, 'ipv4'))
      assert.match(cached(cache, bad), /^throws ParseError/)
    }
  })
})
