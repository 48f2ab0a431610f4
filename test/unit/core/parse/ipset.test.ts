// ipset parser. save.txt and list.txt were captured from the real ipset 7.17 in a network namespace after
// `ipset restore` of the IPVS proxier's rendered sets (test/fixtures/proxier/ipvs/{services,dual-stack}) plus a
// set of another agent with member comments; members come out in ipset's hash order, not sorted.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {entryKey, parseIpset} from '../../../../src/core/parse/ipset.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {parseError} from './fuzz-support.js'

describe('parseIpset goldens', () => {
  for (const [file, format] of [['save.txt', 'save'], ['list.txt', 'list']] as const) {
    it(`${file} → ${format}`, () => {
      const t = parseIpset(readFixture(`parse/ipset/${file}`))
      assert.equal(t.format, format)
      expectGolden(`parse/ipset/${file.replace('.txt', '')}.golden.json`, JSON.stringify(t, null, 2) + '\n')
    })
  }
})

describe('parseIpset', () => {
  it('reads the same sets and members from `ipset save` and `ipset list`', () => {
    const save = parseIpset(readFixture('parse/ipset/save.txt'))
    const list = parseIpset(readFixture('parse/ipset/list.txt'))
    const view = (t: typeof save) => t.sets.map((s) => ({name: s.name, type: s.type, family: s.family, members: s.members.map((m) => m.text).sort()}))
    assert.deepEqual(view(list), view(save))
    const cidr = save.sets.find((s) => s.name === 'KUBE-6-LOAD-BALANCER-SOURCE-CID')!
    assert.deepEqual([cidr.type, cidr.family, cidr.members.map((m) => m.text)], ['hash:ip,port,net', 'inet6', ['2600:1::11,tcp:80,2001:db8::/64']])
    assert.equal(save.sets.find((s) => s.name === 'KUBE-NODE-PORT-TCP')!.header, 'range 0-65535')
    // Member options (comments) are not part of the member.
    assert.deepEqual(list.sets.find((s) => s.name === 'other-agent')!.members.map((m) => m.text), ['10.9.0.0/16'])
  })

  it('entryKey canonicalises what ipset and kube-proxy print differently', () => {
    assert.equal(entryKey('1.2.3.4,TCP:80,192.168.0.2/32'), '1.2.3.4,tcp:80,192.168.0.2')
    assert.equal(entryKey('2600:1:0::11,tcp:80,2001:db8::/64'), '2600:1::11,tcp:80,2001:db8::/64')
    assert.equal(entryKey('fd00::1,sctp:0080'), 'fd00::1,sctp:80')
    assert.equal(entryKey('030080'), '30080')
    assert.equal(entryKey('10.0.1.2,tcp:8080,10.0.1.2'), '10.0.1.2,tcp:8080,10.0.1.2')
  })

  it('names the line and the problem in bad input', () => {
    const e = parseError(() => parseIpset('create A hash:ip family inet\nadd B 10.0.0.1\n'))
    assert.equal(e.line, 2)
    assert.match(e.message, /set B.*not created/)
    assert.match(parseError(() => parseIpset('create A hash:ip\ncreate A hash:ip\n')).message, /created twice/)
    assert.match(parseError(() => parseIpset('create A hash:nope,x\n')).message, /not an ipset type/)
    assert.match(parseError(() => parseIpset('create A hash:ip\nflush A\n')).message, /start with create or add/)
    assert.match(parseError(() => parseIpset('Name: A\nType: hash:ip\nBogus: 1\n')).message, /unknown `ipset list` field "Bogus"/)
    assert.match(parseError(() => parseIpset('Name: A\nMembers:\n10.0.0.1\n')).message, /set A has no Type/)
    assert.match(parseError(() => parseIpset('create THIS-NAME-IS-FAR-TOO-LONG-FOR-IPSET hash:ip\n')).message, /at most 31 characters/)
    assert.match(parseError(() => parseIpset('-A -t 10.96.0.1:443 -s rr\n')).message, /ipvsadm -Sn \(save\) output; expected ipset output/)
    assert.match(parseError(() => parseIpset('')).message, /empty input/)
  })
})
