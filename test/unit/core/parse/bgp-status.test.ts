// BGP status parsers. birdc*.txt and bird-socket.txt are real BIRD 1.6.8 captures (scripts/make-bgp-parse-fixtures.ts:
// Calico-named sessions between namespaces); calicoctl-*.txt are written in the shape calicoctl's status.go prints
// (tablewriter tables, its INFO/error lines), with the old release's mixed-case headers in calicoctl-old.txt.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {
  bgpPeersFromBird,
  BirdUnreachableError,
  calicoPeerFromName,
  isEstablished,
  parseBirdProtocols,
  parseCalicoNodeStatus,
} from '../../../../src/core/parse/bgp-status.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {parseError} from './fuzz-support.js'

const BIRD = ['birdc-established.txt', 'birdc-peer-shutdown.txt', 'bird-socket.txt', 'birdc6.txt']
const CALICOCTL = ['calicoctl-node-status.txt', 'calicoctl-dual-stack.txt', 'calicoctl-bird-not-running.txt', 'calicoctl-old.txt', 'calicoctl-bird-unreachable.txt']

const golden = (file: string, value: unknown) => expectGolden(`parse/bgp/${file.replace(/\.txt$/, '')}.golden.json`, JSON.stringify(value, null, 2) + '\n')

describe('BGP status goldens', () => {
  for (const f of BIRD) {
    it(f, () => {
      const table = parseBirdProtocols(readFixture(`parse/bgp/${f}`))
      golden(f, {table, peers: bgpPeersFromBird(table, f.includes('6') ? 'inet6' : 'inet')})
    })
  }
  for (const f of CALICOCTL) it(f, () => golden(f, parseCalicoNodeStatus(readFixture(`parse/bgp/${f}`))))
})

describe('parseBirdProtocols', () => {
  it('reads every protocol row, BGP sessions with their peer, state, BGP state and last error', () => {
    const table = parseBirdProtocols(readFixture('parse/bgp/birdc-established.txt'))
    assert.equal(table.format, 'birdcl')
    assert.equal(table.version, 'BIRD 1.6.8')
    assert.deepEqual(table.protocols.map((p) => p.proto), ['Kernel', 'Device', 'Direct', 'BGP', 'BGP', 'BGP'])
    const peers = bgpPeersFromBird(table, 'inet')
    assert.deepEqual(peers.map((p) => [p.address, p.port, p.type, p.state, p.bgpState, p.info, isEstablished(p)]), [
      ['192.168.0.12', undefined, 'node-to-node mesh', 'up', 'Established', '', true],
      ['192.168.1.13', undefined, 'node-to-node mesh', 'start', 'Active', 'Socket: Network is unreachable', false],
      ['192.168.0.1', 1790, 'global', 'start', 'Connect', '', false],
    ])
  })

  it('a disabled session is down with no BGP state; the peer shutting down shows as Passive with its notification', () => {
    const peers = bgpPeersFromBird(parseBirdProtocols(readFixture('parse/bgp/birdc-peer-shutdown.txt')), 'inet')
    assert.deepEqual(peers.map((p) => [p.protocol, p.state, p.bgpState, p.info]), [
      ['Mesh_192_168_0_12', 'start', 'Passive', 'Received: Administrative shutdown'],
      ['Mesh_192_168_1_13', 'down', undefined, ''],
      ['Global_192_168_0_1_port_1790', 'start', 'Connect', ''],
    ])
  })

  it('the control socket dialogue (reply codes) gives the same rows as birdc', () => {
    const socket = parseBirdProtocols(readFixture('parse/bgp/bird-socket.txt'))
    const birdc = parseBirdProtocols(readFixture('parse/bgp/birdc-peer-shutdown.txt'))
    assert.equal(socket.format, 'bird-socket')
    assert.deepEqual(
      socket.protocols.map(({line: _l, ...p}) => p),
      birdc.protocols.map(({line: _l, ...p}) => p),
    )
  })

  it('bird6 sessions: IPv6 peers from Calico names, the _port_ suffix split off', () => {
    const peers = bgpPeersFromBird(parseBirdProtocols(readFixture('parse/bgp/birdc6.txt')), 'inet6')
    assert.deepEqual(peers.map((p) => [p.family, p.address, p.port, p.type]), [
      ['inet6', 'fd00::12', undefined, 'node-to-node mesh'],
      ['inet6', 'fd00:1::1', 1790, 'node specific'],
    ])
  })

  it('`show protocols all` details under a row are not rows, in either form', () => {
    const all = 'BIRD 1.6.8 ready.\nname     proto    table    state  since       info\nMesh_192_168_0_12 BGP      master   start  15:32:13    Passive       Received: Administrative shutdown\n  Description:    Connection to BGP peer\n  Preference:     100\n    Neighbor address: 192.168.0.12\n\nkernel1  Kernel   master   up     15:31:48    \n'
    assert.deepEqual(parseBirdProtocols(all).protocols.map((p) => p.name), ['Mesh_192_168_0_12', 'kernel1'])
    const raw = '0001 BIRD 1.6.8 ready.\n2002-name     proto    table    state  since       info\n1002-Mesh_192_168_0_12 BGP      master   up     15:31:51    Established   \n1006-  Description:    Connection to BGP peer\n   Preference:     100\n1002-kernel1  Kernel   master   up     15:31:48    \n0000 \n'
    assert.deepEqual(parseBirdProtocols(raw).protocols.map((p) => p.name), ['Mesh_192_168_0_12', 'kernel1'])
  })

  it('an ISO date and time in `since` (timeformat protocol iso long) stay one value', () => {
    const t = parseBirdProtocols('BIRD 1.6.8 ready.\nname     proto    table    state  since       info\nMesh_10_0_0_2 BGP master up 2026-12-01 10:11:12 Established\n')
    assert.deepEqual([t.protocols[0]?.since, t.protocols[0]?.info], ['2026-12-01 10:11:12', 'Established'])
  })

  it('names BIRD being unreachable, a wrong artifact and a broken table, with the line', () => {
    const e = parseError(() => parseBirdProtocols(readFixture('parse/bgp/birdc-no-socket.txt')))
    assert.ok(e instanceof BirdUnreachableError)
    assert.match(e.message, /Unable to connect to server control socket \(\/var\/run\/calico\/bird\.ctl\)/)
    assert.match(parseError(() => parseBirdProtocols(readFixture('parse/bgp/calicoctl-node-status.txt'))).message, /looks like calicoctl node status output; expected BIRD's `show protocols`/)
    const short = parseError(() => parseBirdProtocols('BIRD 1.6.8 ready.\nname proto table state since info\nkernel1 Kernel master\n'))
    assert.deepEqual([short.line, /name, proto, table, state and since/.test(short.message)], [3, true])
    assert.match(parseError(() => parseBirdProtocols('BIRD 1.6.8 ready.\n')).message, /no protocol table/)
    assert.match(parseError(() => parseBirdProtocols('0001 BIRD 1.6.8 ready.\n9001 Syntax error\n')).message, /BIRD answered with error 9001: Syntax error/)
  })

  it('reads only Calico names as peers', () => {
    assert.deepEqual(calicoPeerFromName('Mesh_10_0_0_2'), {type: 'node-to-node mesh', address: '10.0.0.2', family: 'inet'})
    assert.deepEqual(calicoPeerFromName('Node_fd00_1__1_port_1790'), {type: 'node specific', address: 'fd00:1::1', family: 'inet6', port: 1790})
    for (const n of ['Meshd_10_0_0_2', 'Mesh_10_0_0', 'Mesh_', 'bgp1', 'Global_10_0_0_256']) assert.equal(calicoPeerFromName(n), undefined, n)
    const t = parseBirdProtocols('BIRD 2.0.12 ready.\nName Proto Table State Since Info\ntor1 BGP --- up 2026-12-01 Established\n')
    assert.deepEqual(bgpPeersFromBird(t, 'inet').map((p) => [p.protocol, p.address, p.bgpState]), [['tor1', undefined, 'Established']])
  })
})

describe('parseCalicoNodeStatus', () => {
  it('reads the peer table, joining wrapped cells, and "No IPv6 peers found."', () => {
    const s = parseCalicoNodeStatus(readFixture('parse/bgp/calicoctl-node-status.txt'))
    assert.equal(s.running, true)
    assert.equal(s.families.inet6?.status, 'no-peers')
    const v4 = s.families.inet
    assert.ok(v4?.status === 'peers')
    assert.deepEqual(v4.peers.map((p) => [p.address, p.type, p.state, p.since, p.bgpState, p.info]), [
      ['192.168.0.12', 'node-to-node mesh', 'up', '15:39:31', 'Established', ''],
      ['192.168.1.13', 'node-to-node mesh', 'start', '15:39:30', 'Active', 'Socket: Network is unreachable'],
      ['192.168.0.1', 'global', 'start', '15:39:30', 'Connect', ''],
    ])
  })

  it('BIRD not running, unreachable, and the old mixed-case format', () => {
    assert.deepEqual(parseCalicoNodeStatus(readFixture('parse/bgp/calicoctl-bird-not-running.txt')).families.inet, {status: 'not-running', message: "INFO: BIRDv4 process: 'bird' is not running."})
    const u = parseCalicoNodeStatus(readFixture('parse/bgp/calicoctl-bird-unreachable.txt'))
    assert.equal(u.families.inet?.status, 'unreachable')
    assert.equal(u.families.inet6?.status, 'no-peers')
    const old = parseCalicoNodeStatus(readFixture('parse/bgp/calicoctl-old.txt')).families.inet
    assert.ok(old?.status === 'peers')
    assert.deepEqual(old.peers.map((p) => [p.address, p.bgpState, p.info]), [['172.17.8.102', 'Established', ''], ['172.17.8.104', 'Active', 'Socket: Connection refused']])
    assert.deepEqual(parseCalicoNodeStatus('Calico process is not running.\n'), {running: false, families: {}})
  })

  it('names a wrong artifact and malformed tables, with the line', () => {
    assert.match(parseError(() => parseCalicoNodeStatus(readFixture('parse/bgp/birdc-established.txt'))).message, /expected `calicoctl node status` output/)
    const row = parseError(() => parseCalicoNodeStatus('Calico process is running.\n\nIPv4 BGP status\n| PEER ADDRESS | PEER TYPE | STATE | SINCE | INFO |\n| 10.0.0.2 | global | up |\n'))
    assert.deepEqual([row.line, /5 cells/.test(row.message)], [5, true])
    const stray = parseError(() => parseCalicoNodeStatus('Calico process is running.\nsomething else\n'))
    assert.deepEqual([stray.line, /outside an "IPvN BGP status" section/.test(stray.message)], [2, true])
  })
})
