// Fuzzing the neighbour-table and forwarding-database parsers (JSON and text forms): a model or a ParseError with
// a line, whatever the input. Seeds: the netns captures under test/fixtures/parse/{neigh,fdb}.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {type FdbTable, parseFdb} from '../../../../src/core/parse/fdb.js'
import {type NeighTable, parseNeigh} from '../../../../src/core/parse/neigh.js'
import {readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from './fuzz-support.js'

const NEIGH_SEEDS = ['ip-j-neigh.json', 'ip-neigh.txt'].map((f) => readFixture(`parse/neigh/${f}`))
const FDB_SEEDS = ['bridge-j-fdb.json', 'bridge-fdb.txt'].map((f) => readFixture(`parse/fdb/${f}`))
const TOKENS = [
  '10.244.2.0', 'fe80::1', 'dev', 'flannel.1', 'eth0', 'lladdr', '02:fa:00:00:00:12', 'PERMANENT', 'REACHABLE', 'FAILED', 'router', 'proxy', 'probes', '3',
  'dst', '192.168.0.12', 'self', 'master', 'cni0', 'permanent', 'static', 'vlan', 'vni', '42', 'port', 'x', '\n', ' ',
  '[{"dst":"10.0.0.1"', '"dev":"eth0"', '"mac":"02:00:00:00:00:01"', '"ifname":"cni0"', '"state":["STALE"]', '"flags":["self"]', '"vlan":"a"', '}]', '{', '[',
]

function neighOk(t: NeighTable): void {
  for (const e of t.entries) assert.ok(e.dst.length > 0 && e.dev.length > 0 && Array.isArray(e.state))
}
function fdbOk(t: FdbTable): void {
  for (const e of t.entries) assert.ok(e.mac.length > 0 && e.dev.length > 0 && Array.isArray(e.flags))
}

describe('neighbour and FDB parser fuzz', () => {
  it('token soup', () => {
    fc.assert(fc.property(anyText(TOKENS), (text) => {
      parsesOrFailsCleanly(parseNeigh, text, neighOk)
      parsesOrFailsCleanly(parseFdb, text, fdbOk)
    }), {numRuns: FUZZ_RUNS})
  })

  it('damaged real captures', () => {
    fc.assert(fc.property(mutated(NEIGH_SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseNeigh, text, neighOk)), {numRuns: FUZZ_RUNS})
    fc.assert(fc.property(mutated(FDB_SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseFdb, text, fdbOk)), {numRuns: FUZZ_RUNS})
  })

  it('arbitrary JSON values', () => {
    fc.assert(fc.property(fc.json({maxDepth: 4}), (text) => {
      parsesOrFailsCleanly(parseNeigh, text, neighOk)
      parsesOrFailsCleanly(parseFdb, text, fdbOk)
    }), {numRuns: FUZZ_RUNS / 3})
  })
})
