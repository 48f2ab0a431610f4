// Fuzzing the BGP status parsers (BIRD's show protocols in both forms, calicoctl node status).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {type BirdProtocols, bgpPeersFromBird, type CalicoNodeStatus, parseBirdProtocols, parseCalicoNodeStatus} from '../../../../src/core/parse/bgp-status.js'
import {readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from './fuzz-support.js'

const BIRD_SEEDS = ['birdc-established.txt', 'birdc-peer-shutdown.txt', 'bird-socket.txt', 'birdc6.txt'].map((f) => readFixture(`parse/bgp/${f}`))
const CALICOCTL_SEEDS = ['calicoctl-node-status.txt', 'calicoctl-dual-stack.txt', 'calicoctl-old.txt', 'calicoctl-bird-unreachable.txt'].map((f) => readFixture(`parse/bgp/${f}`))
const TOKENS = [
  'BIRD 1.6.8 ready.', 'name', 'proto', 'table', 'state', 'since', 'info', '0001', '2002-name', '1002-kernel1', '0000', '9001', ' Mesh_10_0_0_2', 'Global_10_0_0_1_port_1790',
  'Node_fd00__1', 'BGP', 'Kernel', 'master', 'up', 'start', 'down', '15:39:31', '2026-12-01', 'Established', 'Active', 'Socket:', 'Passive', 'Received:', 'Unable to connect to server control socket',
  'Calico process is running.', 'IPv4 BGP status', 'IPv6 BGP status', 'No IPv6 peers found.', '+----+----+', '|', '| PEER ADDRESS | PEER TYPE | STATE | SINCE | INFO |',
  'node-to-node mesh', '192.168.0.12', 'fd00::12', "INFO: BIRDv4 process: 'bird' is not running.", 'Error querying BIRD:',
]

function birdInvariants(t: BirdProtocols): void {
  for (const p of t.protocols) assert.ok(p.name !== '' && p.state !== '' && p.line >= 1)
  for (const p of bgpPeersFromBird(t, 'inet')) assert.ok(p.bgpState === undefined || /^[A-Za-z]+$/.test(p.bgpState))
}

function statusInvariants(s: CalicoNodeStatus): void {
  for (const f of Object.values(s.families)) if (f?.status === 'peers') for (const p of f.peers) assert.ok(p.address !== undefined && p.address !== '')
}

describe('BGP status parser fuzz', () => {
  it('BIRD: token soup and damaged captures give a table or a ParseError with a line', () => {
    fc.assert(fc.property(anyText(TOKENS), (text) => parsesOrFailsCleanly(parseBirdProtocols, text, birdInvariants)), {numRuns: FUZZ_RUNS})
    fc.assert(fc.property(mutated(BIRD_SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseBirdProtocols, text, birdInvariants)), {numRuns: FUZZ_RUNS})
  })

  it('calicoctl: token soup and damaged outputs give a status or a ParseError with a line', () => {
    fc.assert(fc.property(anyText(TOKENS), (text) => parsesOrFailsCleanly(parseCalicoNodeStatus, text, statusInvariants)), {numRuns: FUZZ_RUNS})
    fc.assert(fc.property(mutated(CALICOCTL_SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseCalicoNodeStatus, text, statusInvariants)), {numRuns: FUZZ_RUNS})
  })
})
