// Node-reported addresses are data: only an IP address or an RFC 1123 DNS name is usable as a host.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {hostProblem, isIpLiteral, requireHost} from '../../../../src/core/net/host.js'

describe('hostProblem', () => {
  it('accepts IPv4, IPv6 (with a zone) and DNS names', () => {
    for (const ok of ['10.0.0.3', '192.168.1.10', '::1', 'fd00::a:1', '2001:db8::1', 'fe80::1%eth0', 'node-1', 'ip-10-0-0-3.ec2.internal', 'a.b.c.', 'gke-pool-1-abc123-x9z']) {
      assert.equal(hostProblem(ok), undefined, ok)
    }
  })

  it('refuses shell syntax, spaces, control characters, empty labels and over-long names, saying why', () => {
    const cases: Array<[string, RegExp]> = [
      ['10.0.0.3$(touch pwned)', /contains "\$"/],
      ['10.0.0.3;id', /contains ";"/],
      ['`id`', /contains "`"/],
      ['node 1', /contains a space/],
      ['node\n1', /control character U\+000A/],
      ['node\u001b[31m', /control character U\+001B/],
      ['a..b', /empty label/],
      ['-node', /starts or ends with "-"/],
      ['', /empty/],
      [`${'a'.repeat(64)}.example`, /longer than 63/],
      ['a.'.repeat(130), /at most 253/],
      ['fe80::1%eth0;id', /contains/],
      ['10.0.0.1%eth0', /contains "%"/],
    ]
    for (const [value, why] of cases) assert.match(hostProblem(value) ?? '(accepted)', why, JSON.stringify(value))
  })

  it('never accepts a value holding a character a shell interprets (property)', () => {
    const meta = fc.constantFrom(...'$`;&|<>(){}\'"\\ \t\n*?!#~'.split(''))
    fc.assert(
      fc.property(fc.string(), meta, fc.string(), (a, m, b) => {
        assert.notEqual(hostProblem(`${a}${m}${b}`), undefined)
      }),
    )
  })

  it('isIpLiteral is exact: dotted quads only, no inet_aton shorthand', () => {
    assert.equal(isIpLiteral('10.1'), false)
    assert.equal(isIpLiteral('0x0a.0.0.1'), false)
    assert.equal(isIpLiteral('10.0.0.256'), false)
    assert.equal(isIpLiteral('::ffff:10.0.0.1'), true)
  })

  it('requireHost names the origin and the value', () => {
    assert.throws(() => requireHost('x$(y)', "node n1's InternalIP"), /node n1's InternalIP "x\$\(y\)" is not an IP address or a DNS name/)
    assert.equal(requireHost('10.0.0.1', 'x'), '10.0.0.1')
  })
})
