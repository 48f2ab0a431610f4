// Fuzzing the ipvsadm parser: random token soup and damaged real listings must never crash or hang.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {detectIpvsFormat, type IpvsTable, parseIpvsadm} from '../../../../src/core/parse/ipvsadm.js'
import {readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from './fuzz-support.js'

const SEEDS = ['list', 'list-single-service', 'stats', 'rate', 'persistent-conn', 'thresholds', 'tun-info', 'save', 'list-pasted'].map((f) => readFixture(`parse/ipvs/${f}.txt`))
const TOKENS = [
  'IP Virtual Server version 1.2.1 (size=4096)',
  'Prot LocalAddress:Port Scheduler Flags',
  '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
  'Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes',
  '  -> RemoteAddress:Port',
  'TCP', 'UDP', 'SCTP', 'FWM', 'IPv6', '->', 'rr', 'wrr', 'mh', '(mh-fallback,mh-port)', 'persistent', '10800', 'mask', '255.255.255.0', 'pe', 'sip', 'ops',
  '10.96.0.1:443', '[fd00::1]:80', '[fd00::1', '10.0.0.1:', ':80', 'Masq', 'Local', 'Route', 'Tunnel', '1', '0', '12K', '3M',
  '-A', '-a', '-t', '-u', '-f', '-6', '-r', '-m', '-g', '-i', '-w', '-s', '-p', '-M', '-b', '--pe', '-o', '--sctp-service', '-x', '-y', '--tun-type',
]

function invariants(t: IpvsTable): void {
  for (const vs of t.virtualServers) {
    assert.ok(vs.id.length > 0)
    if (vs.protocol !== 'fwmark') assert.ok(vs.port !== undefined && vs.port >= 0 && vs.port <= 65535)
    for (const rs of vs.realServers) assert.ok(rs.port >= 0 && rs.port <= 65535 && rs.address.length > 0)
  }
  assert.doesNotThrow(() => JSON.stringify(t))
}

describe('ipvsadm parser fuzz', () => {
  it('token soup: returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(anyText(TOKENS), (text) => parsesOrFailsCleanly(parseIpvsadm, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('damaged real listings: returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(mutated(SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseIpvsadm, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('format detection behaves the same', () => {
    fc.assert(fc.property(fc.oneof(anyText(TOKENS), mutated(SEEDS, TOKENS)), (text) => parsesOrFailsCleanly(detectIpvsFormat, text)), {numRuns: FUZZ_RUNS / 3})
  })

  it('any unicode string', () => {
    fc.assert(fc.property(fc.string({unit: 'binary', maxLength: 300}), (text) => parsesOrFailsCleanly(parseIpvsadm, text)), {numRuns: FUZZ_RUNS / 3})
  })
})
