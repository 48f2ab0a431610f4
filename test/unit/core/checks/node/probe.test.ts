// NODE-019 beyond the catalog's fire/quiet pair. Inputs are the real captures under test/fixtures/checks/node-probe
// (scripts/make-mtu-probe-fixtures.ts: two namespace nodes behind a router, real pings); single peers' attempts are
// replaced where a case needs another outcome (a peer that answers nothing, a ping without -M, a second peer).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {checkPathMtu} from '../../../../../src/core/checks/node/probe.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import {formatMtuProbe, MTU_PROBE_ARTIFACT, type MtuProbeRecord, parseMtuProbe} from '../../../../../src/core/collection/mtu-probe.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'node-probe')

async function load(name: string): Promise<{cluster: ClusterSnapshot; a: NodeSnapshot; b: NodeSnapshot}> {
  const bundle = await readBundle(join(DIR, name))
  return {cluster: bundle.cluster, a: bundle.nodes.find((n) => n.node === 'node-a')!, b: bundle.nodes.find((n) => n.node === 'node-b')!}
}

function recordOf(s: NodeSnapshot): MtuProbeRecord {
  const p = parseMtuProbe(s.artifacts[MTU_PROBE_ARTIFACT]!.content)
  assert.ok(p.ok)
  return p.value
}

function withRecord(s: NodeSnapshot, edit: (r: MtuProbeRecord) => MtuProbeRecord): NodeSnapshot {
  const n = structuredClone(s)
  n.artifacts[MTU_PROBE_ARTIFACT]!.content = formatMtuProbe(edit(recordOf(s)))
  return n
}

const run = (cluster: ClusterSnapshot, node: NodeSnapshot): CheckOutcome => checkPathMtu({cluster, node})

describe('NODE-019 path MTU (check --probe)', async () => {
  const hole = await load('path-mtu-blackhole')
  const clean = await load('path-mtu-clean')

  it('fires on the real black hole with the sizes, the commands and what each said', () => {
    const out = run(hole.cluster, hole.a)
    assert.equal(out.status, 'failed')
    const [f] = (out as {findings: Array<{message: string; evidence?: string[]; subject: unknown; severity?: string}>}).findings
    assert.equal(
      f!.message,
      "path MTU to node-b (10.77.2.2) is below eth0's MTU (1500): large packets hang (1500-byte packets get no reply, 84-byte packets do, and nothing on the way reports the path MTU)",
    )
    assert.equal(f!.severity, undefined, "the spec's severity: error")
    assert.deepEqual(f!.subject, {kind: 'path', name: '10.77.2.2 (node-b)', in: 'eth0'})
    assert.deepEqual(f!.evidence, [
      'route to 10.77.2.2: dev eth0, MTU 1500 (`ip -d -j route get 10.77.2.2`)',
      '1500-byte packets (`ping -4 -n -M do -c 2 -W 1 -s 1472 10.77.2.2`): no reply',
      '84-byte packets (`ping -4 -n -M do -c 2 -W 1 -s 56 10.77.2.2`): 2/2 replies',
    ])
  })

  it('a path that reports its MTU ("Frag needed") is a warning naming it: path MTU discovery can adapt there', () => {
    const out = run(hole.cluster, hole.b) as {status: string; findings: Array<{message: string; severity?: string}>}
    assert.equal(out.status, 'failed')
    assert.equal(
      out.findings[0]!.message,
      "path MTU to node-a (10.77.1.2) is 1400, below eth0's MTU (1500): large packets depend on path MTU discovery and hang wherever its ICMP or fragments " +
        'are dropped (1500-byte packets get no reply, 84-byte packets do; the path reports an MTU of 1400)',
    )
    assert.equal(out.findings[0]!.severity, 'warning')
  })

  it('passes where the device-MTU ping got replies', () => {
    assert.deepEqual(run(clean.cluster, clean.a), {status: 'passed'})
    assert.deepEqual(run(clean.cluster, clean.b), {status: 'passed'})
  })

  it('skips without --probe, when the probe did not run from the node, and on an unreadable record', () => {
    const bare = structuredClone(clean.a)
    delete bare.artifacts[MTU_PROBE_ARTIFACT]
    assert.deepEqual(run(clean.cluster, bare), {status: 'skipped', reason: 'not run: --probe not given'})
    const one = withRecord(clean.a, (r) => ({...r, notRun: 'only one node is selected: --probe needs at least two (it pings between the selected nodes)', peers: []}))
    assert.deepEqual(run(clean.cluster, one), {status: 'skipped', reason: 'not run: only one node is selected: --probe needs at least two (it pings between the selected nodes)'})
    const junk = structuredClone(clean.a)
    junk.artifacts[MTU_PROBE_ARTIFACT]!.content = '{"format":"node-doctor-mtu-probe/1","peers":{}}'
    assert.deepEqual(run(clean.cluster, junk), {status: 'skipped', reason: 'cannot tell: the mtu-probe artifact is unreadable (peers or skipped is not a list)'})
  })

  it('no reply at any size is not a finding: unreachable by ICMP, cannot tell', () => {
    // node-a's own failing attempt at 1500 bytes, and the same silence at 84 bytes.
    const silent = withRecord(hole.a, (r) => ({...r, peers: r.peers.map((p) => ({...p, attempts: [p.attempts[0]!, {...p.attempts[0]!, size: 56, command: p.attempts[1]!.command}]}))}))
    const out = run(hole.cluster, silent)
    assert.deepEqual(out, {status: 'skipped', reason: 'cannot tell for node-b (10.77.2.2): no reply at any size tried (1500, 84 bytes): unreachable by ICMP (may be filtered), cannot tell'})
  })

  it('a ping that cannot run as asked (no -M, not installed) is a reason, not a finding', () => {
    const usage = withRecord(hole.a, (r) => ({
      ...r,
      peers: r.peers.map((p) => ({...p, attempts: [{...p.attempts[0]!, exitCode: 2, output: "ping: option requires an argument -- 'M'\n\nUsage\n  ping [options] <destination>\n"}]})),
    }))
    assert.deepEqual(run(hole.cluster, usage), {status: 'skipped', reason: "cannot tell for node-b (10.77.2.2): this ping does not take the options used (ping: option requires an argument -- 'M')"})
  })

  it('with several peers: a good path and an unknown one skip naming both; a finding carries the unknown peers as not judged', () => {
    const addPeer = (s: NodeSnapshot, extra: (r: MtuProbeRecord) => MtuProbeRecord['peers'][number]) => withRecord(s, (r) => ({...r, peers: [...r.peers, extra(r)]}))
    const unknownPeer = (r: MtuProbeRecord) => ({...r.peers[0]!, node: 'node-c', address: '10.77.3.2', attempts: [], skipped: 'the route lookup gave no device (exit code 2: RTNETLINK answers: Network is unreachable)'})
    const mixed = run(clean.cluster, addPeer(clean.a, unknownPeer))
    assert.deepEqual(mixed, {
      status: 'skipped',
      reason:
        'cannot tell for node-c (10.77.3.2): not probed, the route lookup gave no device (exit code 2: RTNETLINK answers: Network is unreachable) (the path to node-b (10.77.2.2) carries the device MTU)',
    })
    const both = run(hole.cluster, addPeer(hole.a, unknownPeer)) as {status: string; findings: Array<{evidence: string[]}>}
    assert.equal(both.status, 'failed')
    assert.equal(both.findings.length, 1)
    assert.equal(both.findings[0]!.evidence.at(-1), 'not judged: node-c (10.77.3.2): not probed, the route lookup gave no device (exit code 2: RTNETLINK answers: Network is unreachable)')
  })
})
