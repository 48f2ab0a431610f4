// The probe's command builder: only Node addresses of the cluster, strictly validated, ever reach a command; sizes from
// the device MTU; and the readers of what `ip -d -j route get` and iputils ping print (real outputs, captured in the
// namespaces of test/integration/probe/topology.ts and kept in the NODE-019 fixture bundles).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {
  formatMtuProbe,
  MTU_PROBE_FORMAT,
  type MtuProbeRecord,
  parseMtuProbe,
  parseRouteGet,
  pingArgv,
  probeAddressProblem,
  probeSizes,
  probeTargets,
  readPing,
  routeGetArgv,
} from '../../../../src/core/collection/mtu-probe.js'
import type {Node} from '../../../../src/core/model/k8s.js'
import {parseLinks} from '../../../../src/core/parse/links.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../support/golden.js'

const node = (name: string, ...addresses: Array<[string, string]>): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name},
  status: {addresses: addresses.map(([type, address]) => ({type, address}))},
})

const cluster = {
  nodes: [
    node('node-a', ['InternalIP', '10.77.1.2'], ['Hostname', 'node-a']),
    node('node-b', ['InternalIP', '10.77.2.2'], ['InternalIP', 'fd00::2'], ['ExternalIP', '203.0.113.7']),
    node('node-c', ['InternalIP', '10.77.3.2; reboot'], ['Hostname', 'node-c']),
    node('node-d', ['InternalIP', '010.077.004.002']),
    node('node-e', ['Hostname', 'node-e']),
  ],
}

describe('probe command builder', () => {
  it('builds fixed argv for a Node address: -4/-6, DF, two packets, one second, the size, the address last', () => {
    assert.deepEqual(pingArgv(cluster, '10.77.2.2', 1472), ['ping', '-4', '-n', '-M', 'do', '-c', '2', '-W', '1', '-s', '1472', '10.77.2.2'])
    assert.deepEqual(pingArgv(cluster, 'fd00::2', 1452), ['ping', '-6', '-n', '-M', 'do', '-c', '2', '-W', '1', '-s', '1452', 'fd00::2'])
    assert.deepEqual(routeGetArgv(cluster, '10.77.2.2'), ['ip', '-d', '-j', 'route', 'get', '10.77.2.2'])
  })

  it('refuses every address that is not, exactly, an IP one of the cluster\'s Nodes holds', () => {
    const refused: Array<[string, RegExp]> = [
      ['8.8.8.8', /not an address of any of the cluster's Nodes/],
      ['10.77.3.2; reboot', /is not an IP address/],
      ['010.077.004.002', /not an IP address in canonical form \(10\.77\.4\.2\)/],
      ['127.0.0.1', /loopback/],
      ['::', /unspecified/],
      ['224.0.0.1', /multicast/],
      ['fe80::1%eth0', /is not an IP address/],
      ['-c', /is not an IP address/],
      ['', /is not an IP address/],
    ]
    for (const [address, why] of refused) {
      assert.match(probeAddressProblem(cluster, address) ?? '', why, address)
      assert.throws(() => pingArgv(cluster, address, 56), /^Error: refusing to probe: /, address)
      assert.throws(() => routeGetArgv(cluster, address), /^Error: refusing to probe: /, address)
    }
    // Any Node address counts (an ExternalIP too), but only IP literals of Nodes.
    assert.equal(probeAddressProblem(cluster, '203.0.113.7'), undefined)
    assert.throws(() => pingArgv(cluster, '10.77.2.2', 70_000), /not a ping payload size/)
    assert.throws(() => pingArgv(cluster, '10.77.2.2', 1.5), /not a ping payload size/)
  })

  it('targets the other selected nodes\' InternalIPs (both families), skipping self, unselected nodes and bad addresses with the reason', () => {
    const {targets, skipped} = probeTargets(cluster, 'node-a', ['node-a', 'node-b', 'node-c', 'node-d', 'node-e', 'node-z'])
    assert.deepEqual(targets, [
      {node: 'node-b', address: '10.77.2.2', family: 'ipv4'},
      {node: 'node-b', address: 'fd00::2', family: 'ipv6'},
    ])
    assert.deepEqual(
      skipped.map((s) => [s.node, s.reason]),
      [
        ['node-c', '"10.77.3.2; reboot" is not an IP address'],
        ['node-d', '"010.077.004.002" is not an IP address in canonical form (10.77.4.2)'],
        ['node-e', 'the Node has no InternalIP'],
        ['node-z', 'the Node has no InternalIP'],
      ],
    )
    // node-c's InternalIP is not an IP at all: never a target, never a command.
    assert.ok(!targets.some((t) => t.node === 'node-c'))
    assert.deepEqual(probeTargets(cluster, 'node-a', ['node-a']).targets, [])
  })

  it('sizes: the device MTU minus 28 (IPv4) or 48 (IPv6), then 1472 where the device is larger than 1500, then 56', () => {
    const links = parseLinks(JSON.stringify([
      {ifindex: 2, ifname: 'eth0', mtu: 9001, flags: ['UP']},
      {ifindex: 3, ifname: 'eth1', mtu: 1500, flags: ['UP']},
    ]))
    assert.deepEqual(probeSizes(links, {device: 'eth0', type: 'unicast'}, 'ipv4'), {deviceMtu: 9001, sizes: [8973, 1472, 56]})
    assert.deepEqual(probeSizes(links, {device: 'eth1'}, 'ipv6'), {deviceMtu: 1500, sizes: [1452, 56]})
    assert.deepEqual(probeSizes(links, {device: 'lo', type: 'local'}, 'ipv4'), {reason: 'the route to it is of type local, not unicast'})
    assert.match((probeSizes(links, {device: 'eth9'}, 'ipv4') as {reason: string}).reason, /eth9, which the link listing \(ip-link\) does not have/)
  })
})

describe('probe output readers', () => {
  it('reads `ip -d -j route get` (device, gateway, a learned path MTU) and refuses anything else', () => {
    const learned =
      '[{"type":"unicast","dst":"10.77.1.2","gateway":"10.77.2.1","dev":"eth0","table":"main","prefsrc":"10.77.2.2","flags":[],"uid":0,"cache":[],"expires":599,"metrics":[{"mtu":1400}]}]'
    assert.deepEqual(parseRouteGet(learned), {device: 'eth0', gateway: '10.77.2.1', type: 'unicast', cachedMtu: 1400})
    assert.deepEqual(parseRouteGet('[{"type":"local","dst":"127.0.0.1","dev":"lo","prefsrc":"127.0.0.1","flags":[],"uid":0,"cache":["local"]}]'), {device: 'lo', type: 'local'})
    assert.equal(parseRouteGet('RTNETLINK answers: Network is unreachable'), undefined)
    assert.equal(parseRouteGet('[{}]'), undefined)
  })

  it('reads iputils ping: replies, silent loss, "Frag needed" from a router, the local "message too long", a usage error', async () => {
    const b = await readBundle(join(FIXTURES, 'checks', 'node-probe', 'path-mtu-blackhole'))
    const rec = (n: string) => {
      const p = parseMtuProbe(b.nodes.find((x) => x.node === n)!.artifacts['mtu-probe']!.content)
      assert.ok(p.ok)
      return p.value.peers[0]!
    }
    const [silent, small] = rec('node-a').attempts
    assert.deepEqual(readPing(silent!.output, silent!.exitCode), {transmitted: 2, received: 0})
    assert.deepEqual(readPing(small!.output, small!.exitCode), {transmitted: 2, received: 2})
    const frag = rec('node-b').attempts[0]!
    assert.deepEqual(readPing(frag.output, frag.exitCode), {transmitted: 2, received: 0, fragNeededMtu: 1400, localMtu: 1400})
    // IPv6 (captured the same way, behind a 1400-MTU link): the router's "Packet too big", the local error with a colon.
    const v6 =
      'PING fd77:1::2(fd77:1::2) 1452 data bytes\nFrom fd77:2::1 icmp_seq=1 Packet too big: mtu=1400\n\n--- fd77:1::2 ping statistics ---\n' +
      '2 packets transmitted, 0 received, +2 errors, 100% packet loss, time 1011ms\n\nping: local error: message too long, mtu: 1400\n'
    assert.deepEqual(readPing(v6, 1), {transmitted: 2, received: 0, fragNeededMtu: 1400, localMtu: 1400})
    const usage = "ping: option requires an argument -- 'Q'\n\nUsage\n  ping [options] <destination>\n"
    assert.match(readPing(usage, 2).toolProblem!, /^this ping does not take the options used \(ping: option requires an argument -- 'Q'\)$/)
    assert.equal(readPing('sh: 1: ping: not found\n', 127).toolProblem, 'ping is not installed on the node')
  })

  it('round-trips the artifact and refuses malformed records field by field', () => {
    const record: MtuProbeRecord = {
      format: MTU_PROBE_FORMAT,
      peers: [
        {node: 'node-b', address: '10.77.2.2', family: 'ipv4', route: {command: 'ip -d -j route get 10.77.2.2', exitCode: 0, output: '[]'}, device: 'eth0', deviceMtu: 1500, attempts: [{size: 1472, command: 'ping', exitCode: 0, output: 'x'}]},
      ],
      skipped: [{node: 'node-e', reason: 'the Node has no InternalIP'}],
    }
    assert.deepEqual(parseMtuProbe(formatMtuProbe(record)), {ok: true, value: record})
    assert.match((parseMtuProbe('nope') as {reason: string}).reason, /^not JSON: /)
    assert.match((parseMtuProbe('{"format":"other"}') as {reason: string}).reason, /not a node-doctor-mtu-probe\/1 record/)
    const bad = structuredClone(record) as unknown as {peers: Array<{attempts: Array<{exitCode: unknown}>}>}
    bad.peers[0]!.attempts[0]!.exitCode = 'zero'
    assert.match((parseMtuProbe(JSON.stringify(bad)) as {reason: string}).reason, /an attempt toward node-b is malformed/)
  })
})
