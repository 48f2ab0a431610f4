// `check --probe` end to end below the CLI: real namespaces (test/integration/probe/topology.ts), the routes plan
// collected in each, the probe's real `ip route get` and don't-fragment pings between them (src/app/live/probe.ts),
// then NODE-019 through analyzeSnapshots. A path MTU black hole fires on both nodes; an equal-MTU path is quiet; a
// peer that answers no ICMP at all cannot be judged and raises nothing.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import {MTU_PROBE_ARTIFACT, parseMtuProbe} from '../../../src/core/collection/mtu-probe.js'
import {findCheck} from '../../../src/core/checks/registry.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {buildProbeTopology, collectTopology, NODE_A_ADDRESS6, NODE_B_ADDRESS, NODE_B_ADDRESS6, probeTopology, probeTopologyUnavailable, type ProbeTopology} from './topology.js'

const skip = probeTopologyUnavailable()
const meta = {generatedAt: '2026-12-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}
const analyze = (cluster: ClusterSnapshot, nodes: NodeSnapshot[]) => analyzeSnapshots(cluster, nodes, {metadata: meta, checks: [findCheck('NODE-019')!]})

function record(s: NodeSnapshot) {
  const parsed = parseMtuProbe(s.artifacts[MTU_PROBE_ARTIFACT]!.content)
  assert.ok(parsed.ok, JSON.stringify(parsed))
  return parsed.value
}

describe('check --probe in real namespaces', {skip}, () => {
  describe('a path whose middle link has MTU 1400 (node devices 1500)', () => {
    let t: ProbeTopology
    let probed: NodeSnapshot[]
    before(async () => {
      t = buildProbeTopology({midMtu: 1400})
      probed = await probeTopology(t, await collectTopology(t))
    })
    after(() => t?.destroy())

    it('records the exact commands: the route lookup, the device-MTU ping, then the small one that answers', () => {
      const a = record(probed.find((s) => s.node === 'node-a')!)
      assert.equal(a.peers.length, 1)
      const p = a.peers[0]!
      assert.deepEqual([p.node, p.address, p.device, p.deviceMtu], ['node-b', NODE_B_ADDRESS, 'eth0', 1500])
      assert.equal(p.route.command, `ip -d -j route get ${NODE_B_ADDRESS}`)
      assert.deepEqual(
        p.attempts.map((x) => [x.command, x.exitCode]),
        [
          [`ping -4 -n -M do -c 2 -W 1 -s 1472 ${NODE_B_ADDRESS}`, 1],
          [`ping -4 -n -M do -c 2 -W 1 -s 56 ${NODE_B_ADDRESS}`, 0],
        ],
      )
      assert.match(p.attempts[0]!.output, /2 packets transmitted, 0 received/)
    })

    it('NODE-019 fires on both nodes: silent loss toward node-b, "Frag needed" from the router toward node-a', () => {
      const report = analyze(t.cluster, probed)
      assert.deepEqual(report.results.map((r) => [r.node, r.status]), [['node-a', 'failed'], ['node-b', 'failed']])
      const a = report.findings.find((f) => f.node === 'node-a')!
      assert.match(a.message, new RegExp(`^path MTU to node-b \\(${NODE_B_ADDRESS.replaceAll('.', '\\.')}\\) is below eth0's MTU \\(1500\\): large packets hang`))
      assert.equal(a.severity, 'error')
      assert.ok(a.evidence.some((e) => e.startsWith('1500-byte packets') && e.endsWith(': no reply')), a.evidence.join('\n'))
      const b = report.findings.find((f) => f.node === 'node-b')!
      assert.match(b.message, /path MTU to node-a .* the path reports an MTU of 1400\)$/)
      assert.equal(b.severity, 'warning', 'the path reports its MTU: path MTU discovery can adapt')
      assert.ok(b.evidence.some((e) => e.includes('Frag needed and DF set (mtu = 1400)')), b.evidence.join('\n'))
    })
  })

  describe('an equal-MTU path', () => {
    let t: ProbeTopology
    let probed: NodeSnapshot[]
    before(async () => {
      t = buildProbeTopology()
      probed = await probeTopology(t, await collectTopology(t))
    })
    after(() => t?.destroy())

    it('passes on both nodes after one ping each (no fallback sent)', () => {
      const report = analyze(t.cluster, probed)
      assert.deepEqual(report.results.map((r) => [r.node, r.status]), [['node-a', 'passed'], ['node-b', 'passed']])
      assert.deepEqual(report.findings, [])
      for (const s of probed) assert.deepEqual(record(s).peers[0]!.attempts.map((x) => [x.size, x.exitCode]), [[1472, 0]])
    })

    it('without --probe the check is skipped and says so; with one node selected it says it needs two', async () => {
      const plain = await collectTopology(t)
      assert.deepEqual(analyze(t.cluster, plain).results.map((r) => r.reason), ['not run: --probe not given', 'not run: --probe not given'])
      const one = await probeTopology(t, plain, ['node-a'])
      assert.deepEqual(analyze(t.cluster, one).results.map((r) => [r.node, r.status, r.reason]), [
        ['node-a', 'skipped', 'not run: only one node is selected: --probe needs at least two (it pings between the selected nodes)'],
      ])
    })

    it('a peer that drops all ICMP cannot be judged: skipped with the reason, never a finding', async () => {
      t.exec(t.nodes[1]!.ns, ['iptables', '-A', 'INPUT', '-p', 'icmp', '-j', 'DROP'])
      try {
        const report = analyze(t.cluster, await probeTopology(t, await collectTopology(t)))
        const a = report.results.find((r) => r.node === 'node-a')!
        assert.equal(a.status, 'skipped')
        assert.match(a.reason!, new RegExp(`node-b \\(${NODE_B_ADDRESS.replaceAll('.', '\\.')}\\): no reply at any size tried \\(1500, 84 bytes\\): unreachable by ICMP \\(may be filtered\\), cannot tell`))
        assert.deepEqual(report.findings.filter((f) => f.node === 'node-a'), [])
        // node-b's own pings get no replies either (node-a's replies are dropped on the way in): the same, not a finding.
        assert.equal(report.results.find((r) => r.node === 'node-b')!.status, 'skipped')
      } finally {
        t.exec(t.nodes[1]!.ns, ['iptables', '-F', 'INPUT'])
      }
    })

    it('probes only the Node addresses: node-a pings nothing but node-b\'s InternalIP', () => {
      const a = record(probed.find((s) => s.node === 'node-a')!)
      const addresses = a.peers.flatMap((p) => [p.route.command, ...p.attempts.map((x) => x.command)].map((c) => c.split(' ').at(-1)))
      assert.deepEqual([...new Set(addresses)], [NODE_B_ADDRESS])
    })
  })
  describe('dual-stack nodes behind the same 1400-MTU link', () => {
    let t: ProbeTopology
    let probed: NodeSnapshot[]
    before(async () => {
      t = buildProbeTopology({midMtu: 1400, dualStack: true})
      probed = await probeTopology(t, await collectTopology(t))
    })
    after(() => t?.destroy())

    it('probes both InternalIPs, IPv6 with `ping -6` and 48 bytes of headers, and fires for each family', () => {
      const a = record(probed.find((s) => s.node === 'node-a')!)
      assert.deepEqual(a.peers.map((p) => [p.address, p.attempts.map((x) => x.command)]), [
        [NODE_B_ADDRESS, [`ping -4 -n -M do -c 2 -W 1 -s 1472 ${NODE_B_ADDRESS}`, `ping -4 -n -M do -c 2 -W 1 -s 56 ${NODE_B_ADDRESS}`]],
        [NODE_B_ADDRESS6, [`ping -6 -n -M do -c 2 -W 1 -s 1452 ${NODE_B_ADDRESS6}`, `ping -6 -n -M do -c 2 -W 1 -s 56 ${NODE_B_ADDRESS6}`]],
      ])
      const report = analyze(t.cluster, probed)
      assert.deepEqual(report.findings.map((f) => [f.node, f.subject.name]), [
        ['node-a', `${NODE_B_ADDRESS} (node-b)`],
        ['node-a', `${NODE_B_ADDRESS6} (node-b)`],
        ['node-b', '10.77.1.2 (node-a)'],
        ['node-b', `${NODE_A_ADDRESS6} (node-a)`],
      ])
      const v6 = report.findings.find((f) => f.node === 'node-b' && f.subject.name.startsWith(NODE_A_ADDRESS6))!
      assert.match(v6.message, /1500-byte packets get no reply, 104-byte packets do; the path reports an MTU of 1400\)$/)
      assert.ok(v6.evidence.some((e) => e.includes('"Packet too big: mtu=1400"')), v6.evidence.join('\n'))
    })
  })
})
