// The probe runner (src/app/live/probe.ts) with a scripted transport replaying real outputs (the `ip -d -j route get`
// and iputils ping outputs kept in the NODE-019 fire bundle, captured in real namespaces): which commands it sends, in
// which order, when it stops, and what it records when it cannot run. The real thing runs in test/integration/probe.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {checkLiveProbed, collectLiveProbed, probeNodes} from '../../../../src/app/live/probe.js'
import {MTU_PROBE_ARTIFACT, type MtuProbeRecord, parseMtuProbe} from '../../../../src/core/collection/mtu-probe.js'
import type {Node} from '../../../../src/core/model/k8s.js'
import type {NodeSnapshot} from '../../../../src/core/model/snapshot.js'
import type {Environment} from '../../../../src/ports/environment.js'
import type {ExecResult, NodeTransport} from '../../../../src/ports/node-transport.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../support/golden.js'
import {fakeProbeRun} from '../../../support/probe-env.js'

const bundle = await readBundle(join(FIXTURES, 'checks', 'node-probe', 'path-mtu-blackhole'))
const recorded = (node: string) => {
  const p = parseMtuProbe(bundle.nodes.find((n) => n.node === node)!.artifacts[MTU_PROBE_ARTIFACT]!.content)
  assert.ok(p.ok)
  return p.value.peers[0]!
}
const fromA = recorded('node-a')
const silent = fromA.attempts[0]!
const replies = fromA.attempts[1]!

/** A transport answering each command from `script` (by the command's start), recording what it was sent. */
function scripted(node: string, script: Array<[RegExp, ExecResult]>, sent: string[]): NodeTransport {
  return {
    node,
    kind: 'ssh',
    async exec(command) {
      sent.push(command)
      const hit = script.find(([re]) => re.test(command))
      return hit ? hit[1] : {exitCode: 127, stdout: '', stderr: 'sh: 1: unexpected command\n'}
    },
    async close() {},
  }
}

const ok = (stdout: string): ExecResult => ({exitCode: 0, stdout, stderr: ''})
const routeGet = ok(fromA.route.output)
const options = {timeoutMs: 5000, sudo: false, concurrency: 2}
const record = (s: NodeSnapshot): MtuProbeRecord => {
  const p = parseMtuProbe(s.artifacts[MTU_PROBE_ARTIFACT]!.content)
  assert.ok(p.ok, JSON.stringify(p))
  return p.value
}
const selected: Node[] = bundle.cluster.nodes
const snapA = bundle.nodes.find((n) => n.node === 'node-a')!
const snapB = bundle.nodes.find((n) => n.node === 'node-b')!

describe('probeNodes', () => {
  it('sends the route lookup, then the device-MTU ping, and stops at the first size that gets replies', async () => {
    const sent: string[] = []
    const script: Array<[RegExp, ExecResult]> = [
      [/^ip -d -j route get /, routeGet],
      [/ -s 1472 /, {exitCode: silent.exitCode, stdout: silent.output, stderr: ''}],
      [/ -s 56 /, {exitCode: 0, stdout: replies.output, stderr: ''}],
    ]
    const given = structuredClone(snapA)
    const [a] = await probeNodes(bundle.cluster, selected, [snapA], {...options, connect: async () => scripted('node-a', script, sent)})
    assert.deepEqual(sent, ['ip -d -j route get 10.77.2.2', 'ping -4 -n -M do -c 2 -W 1 -s 1472 10.77.2.2', 'ping -4 -n -M do -c 2 -W 1 -s 56 10.77.2.2'])
    const peer = record(a!).peers[0]!
    assert.deepEqual([peer.device, peer.deviceMtu, peer.attempts.map((x) => [x.size, x.exitCode])], ['eth0', 1500, [[1472, 1], [56, 0]]])
    // The snapshot given is not changed: the record is on a copy.
    assert.deepEqual(snapA, given)
    assert.notEqual(a, snapA)
  })

  it('one ping when the device MTU answers; a ping that cannot run stops the ladder; --sudo prefixes every command', async () => {
    const sent: string[] = []
    await probeNodes(bundle.cluster, selected, [snapA], {...options, connect: async () => scripted('node-a', [[/route get/, routeGet], [/ping/, ok(replies.output)]], sent)})
    assert.equal(sent.filter((c) => c.startsWith('ping')).length, 1)
    const usage: ExecResult = {exitCode: 2, stdout: '', stderr: "ping: option requires an argument -- 'M'\n\nUsage\n"}
    const sudoSent: string[] = []
    const [a] = await probeNodes(bundle.cluster, selected, [snapA], {...options, sudo: true, connect: async () => scripted('node-a', [[/route get/, routeGet], [/ping/, usage]], sudoSent)})
    assert.deepEqual(sudoSent, ['sudo -n ip -d -j route get 10.77.2.2', 'sudo -n ping -4 -n -M do -c 2 -W 1 -s 1472 10.77.2.2'])
    assert.equal(record(a!).peers[0]!.attempts.length, 1)
  })

  it('a failed route lookup skips the peer with the node\'s words; no ping is sent', async () => {
    const sent: string[] = []
    const [a] = await probeNodes(bundle.cluster, selected, [snapA], {
      ...options,
      connect: async () => scripted('node-a', [[/route get/, {exitCode: 2, stdout: '', stderr: 'RTNETLINK answers: Network is unreachable\n'}]], sent),
    })
    assert.deepEqual(sent, ['ip -d -j route get 10.77.2.2'])
    assert.equal(record(a!).peers[0]!.skipped, 'the route lookup gave no device (exit code 2: RTNETLINK answers: Network is unreachable)')
  })

  it('records why it did not run: one node selected, a node not collected, a node that cannot be reached again', async () => {
    let connects = 0
    const connect = async () => {
      connects++
      throw new Error('ssh: connect to host 10.77.2.2 port 22: Connection refused')
    }
    const [one] = await probeNodes(bundle.cluster, selected.slice(0, 1), [snapA], {...options, connect})
    assert.equal(record(one!).notRun, 'only one node is selected: --probe needs at least two (it pings between the selected nodes)')
    assert.equal(connects, 0)
    const failed: NodeSnapshot = {...snapB, artifacts: {}, errors: [{node: 'node-b', source: 'connect', message: 'unreachable', fatal: true}]}
    const [a, b] = await probeNodes(bundle.cluster, selected, [snapA, failed], {...options, connect})
    assert.equal(record(a!).notRun, 'the node could not be reached again for the probe: ssh: connect to host 10.77.2.2 port 22: Connection refused')
    assert.equal(record(b!).notRun, 'the node was not collected')
    assert.equal(connects, 1)
  })

  it('--probe with --in-cluster is a usage error before anything is read (the agent cannot ping between nodes)', async () => {
    const flags = {'in-cluster': true, via: 'ssh', concurrency: 1, timeout: '30s', 'node-timeout': '5m'}
    const o = {areas: undefined, tool: {name: 'node-doctor', version: 'test'}, command: 'check --all --probe --in-cluster'}
    await assert.rejects(checkLiveProbed([], flags, {} as Environment, o), {name: 'UsageError', message: /^--probe works over the node transports \(--via ssh\|pod\), not with --in-cluster$/})
  })
})

// A live run with --probe (collectLiveProbed / checkLiveProbed) over a fake Environment (test/support/probe-env.ts)
// answering with the NODE-019 fire bundle's recordings.
describe('collectLiveProbed: the probe reuses the run\'s transports', () => {
  const flags = {via: 'pod', concurrency: 2, timeout: '30s', 'node-timeout': '5m'}

  it('one connector per run, each node connected once; its probe goes over the transport that collected it, then it is closed', async () => {
    const {env, log, counts} = fakeProbeRun(bundle)
    const run = await collectLiveProbed(['node-a', 'node-b'], flags, env, {areas: ['routes']})
    assert.deepEqual(counts, {connectors: 1, closedConnectors: 1})
    for (const node of ['node-a', 'node-b']) {
      const sent = log[node]!
      assert.equal(sent.filter((c) => c === 'connect').length, 1, `${node} connected once: ${sent.join('\n')}`)
      assert.equal(sent[0], 'connect')
      assert.equal(sent.at(-1), 'close')
      assert.equal(sent.filter((c) => c === 'close').length, 1)
      // The plan's link read comes before the probe's commands, all on the one transport.
      const links = sent.indexOf('ip -j -d link show')
      const route = sent.findIndex((c) => c.startsWith('ip -d -j route get '))
      assert.ok(links > 0 && route > links, sent.join('\n'))
      assert.ok(sent.slice(route).every((c) => c.startsWith('ip -d -j route get ') || c.startsWith('ping ') || c === 'close'), sent.join('\n'))
    }
    const a = record(run.nodes.find((s) => s.node === 'node-a')!)
    assert.deepEqual(a.peers.map((p) => [p.node, p.device, p.attempts.map((x) => x.size)]), [['node-b', 'eth0', [1472, 56]]])
  })

  it('checkLiveProbed judges the records with NODE-019; a node whose transport never opened is not probed and says why', async () => {
    const {env, log, counts} = fakeProbeRun(bundle, ['node-b'])
    const o = {areas: ['routes' as const], tool: {name: 'node-doctor', version: 'test'}, command: 'check node-a node-b --probe'}
    const report = await checkLiveProbed(['node-a', 'node-b'], flags, env, o)
    assert.equal(counts.connectors, 1)
    assert.deepEqual(log['node-b'], ['connect'])
    const probe = report.results.filter((r) => r.id === 'NODE-019').map((r) => [r.node, r.status])
    assert.deepEqual(probe, [['node-a', 'failed'], ['node-b', 'skipped']])
  })

  it('--only without routes: no probe command is sent (NODE-019 is a routes check)', async () => {
    const {env, log} = fakeProbeRun(bundle)
    const run = await collectLiveProbed(['node-a', 'node-b'], flags, env, {areas: ['iptables']})
    assert.ok(!Object.values(log).flat().some((c) => c.startsWith('ping ') || c.startsWith('ip -d -j route get ')))
    assert.ok(run.nodes.every((s) => s.artifacts[MTU_PROBE_ARTIFACT] === undefined))
  })
})
