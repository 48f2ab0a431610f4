// Fuzzing the ipset parser: random token soup and damaged real `ipset save`/`ipset list` output must never crash or
// hang: a model or a ParseError with a line.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {entryKey, type IpsetTable, parseIpset} from '../../../../src/core/parse/ipset.js'
import {readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from './fuzz-support.js'

const SEEDS = ['save', 'list'].map((f) => readFixture(`parse/ipset/${f}.txt`))
const TOKENS = [
  'create', 'add', 'Name:', 'Type:', 'Revision:', 'Header:', 'Members:', 'Size in memory:', 'References:', 'Number of entries:',
  'KUBE-CLUSTER-IP', 'KUBE-6-LOOP-BACK', 'hash:ip,port', 'hash:ip,port,net', 'bitmap:port', 'hash:ip', 'family', 'inet', 'inet6',
  'hashsize', '1024', 'maxelem', '65536', 'range', '0-65535', 'comment', '"x y"', '10.96.0.1,tcp:443', 'fd00::1,sctp:80',
  '1.2.3.4,tcp:80,203.0.113.0/25', '30080', '10.0.1.2,udp:53,10.0.1.2', '::', ',', 'tcp:', ':80',
]

function invariants(t: IpsetTable): void {
  for (const s of t.sets) {
    assert.ok(s.name.length > 0 && s.name.length <= 31)
    for (const m of s.members) {
      assert.ok(m.text.length > 0 && m.line >= 1)
      assert.equal(typeof entryKey(m.text), 'string')
    }
  }
  assert.doesNotThrow(() => JSON.stringify(t))
}

describe('ipset parser fuzz', () => {
  it('token soup: returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(anyText(TOKENS), (text) => parsesOrFailsCleanly(parseIpset, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('damaged real output: returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(mutated(SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseIpset, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('any unicode string', () => {
    fc.assert(fc.property(fc.string({unit: 'binary', maxLength: 300}), (text) => parsesOrFailsCleanly(parseIpset, text)), {numRuns: FUZZ_RUNS / 3})
  })
})
