// The IPVS checks over bundles (analyze): they run only where kube-proxy runs IPVS mode and every artifact they
// compare is there, otherwise they skip with the reason; findings carry the service-port group and a safe remedy.
// Bundles: test/fixtures/checks/ipvs (scripts/make-ipvs-check-fixtures.ts), node-a 192.168.0.2.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {IPVS_CHECKS} from '../../../../../src/core/checks/ipvs/index.js'
import {ipvsLiveInput} from '../../../../../src/core/checks/ipvs/live.js'
import {findCheck} from '../../../../../src/core/checks/registry.js'
import type {NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}
const bundle = (dir: string) => readBundle(join(FIXTURES, 'checks', dir))

describe('IPVS checks', () => {
  it('pass on a healthy IPVS node', async () => {
    const b = await bundle('ipvs/clean')
    const r = analyzeSnapshots(b.cluster, b.nodes, {metadata: meta, checks: IPVS_CHECKS})
    assert.deepEqual(r.findings, [])
    assert.deepEqual([...new Set(r.results.map((x) => x.status))], ['passed'])
  })

  it('skip, saying why, on an iptables-mode node and when an artifact is missing', async () => {
    const ipt = await bundle('iptables/clean')
    const r = analyzeSnapshots(ipt.cluster, ipt.nodes, {metadata: meta, checks: IPVS_CHECKS})
    assert.deepEqual([...new Set(r.results.map((x) => `${x.status}: ${x.reason}`))], ['skipped: not applicable: kube-proxy runs in iptables mode, not ipvs'])
    const b = await bundle('ipvs/clean')
    const node: NodeSnapshot = structuredClone(b.nodes[0]!)
    delete node.artifacts.ipset
    delete node.artifacts['ip-addr']
    const m = analyzeSnapshots(b.cluster, [node], {metadata: meta, checks: IPVS_CHECKS})
    assert.deepEqual([...new Set(m.results.map((x) => `${x.status}: ${x.reason}`))], ['skipped: missing input: ip-addr, ipset'])
    const bad = structuredClone(b.nodes[0]!)
    bad.artifacts.ipset = {...bad.artifacts.ipset!, content: 'create KUBE-CLUSTER-IP hash:ip,port\nadd OTHER 10.0.0.1\n'}
    const p = analyzeSnapshots(b.cluster, [bad], {metadata: meta, checks: IPVS_CHECKS})
    assert.match(p.results[0]!.reason ?? '', /^the node's ipset could not be parsed \(line 2\): member added to set OTHER/)
  })

  it('report findings with the service-port group, evidence and a remedy that never flushes IPVS', async () => {
    const cases: Array<[string, string, string]> = [
      ['missing-virtual-server', 'IPVS-001', 'virtual server TCP 172.30.3.2:80 (cluster IP of default/lb-open:http) is missing'],
      ['stale-virtual-server', 'IPVS-002', 'stale virtual server TCP 172.30.99.1:80: no current Service port needs it'],
      ['wrong-weight', 'IPVS-005', 'real server 10.0.2.30:8080 of TCP 172.30.6.1:80 (default/sticky:http) has weight 0 although the endpoint is ready: it gets no new connections'],
      ['stale-ipset-entry', 'IPVS-011', 'ipset KUBE-LOAD-BALANCER-SOURCE-CIDR holds 1.2.3.4,tcp:80,0.0.0.0/1, which no current Service port needs'],
    ]
    for (const [dir, id, message] of cases) {
      const b = await bundle(`ipvs/${dir}`)
      const r = analyzeSnapshots(b.cluster, b.nodes, {metadata: meta, checks: IPVS_CHECKS})
      assert.deepEqual(r.findings.map((f) => [f.id, f.message]), [[id, message]], dir)
      const f = r.findings[0]!
      assert.ok(f.evidence.length > 0)
      assert.match(f.remedy, /Never run `kube-proxy --cleanup`/)
    }
    const stale = await bundle('ipvs/stale-ipset-entry')
    const f = analyzeSnapshots(stale.cluster, stale.nodes, {metadata: meta, checks: IPVS_CHECKS}).findings[0]!
    assert.match(f.remedy, /`ipset del KUBE-LOAD-BALANCER-SOURCE-CIDR 1\.2\.3\.4,tcp:80,0\.0\.0\.0\/1`/)
    const w = await bundle('ipvs/wrong-weight')
    assert.equal(analyzeSnapshots(w.cluster, w.nodes, {metadata: meta, checks: IPVS_CHECKS}).findings[0]!.group, 'default/sticky:http')
  })

  it('leave IPVS state on a node switched back to iptables to PROXY-005, whose remedy never flushes all of IPVS', async () => {
    const ipvsNode = (await bundle('ipvs/clean')).nodes[0]!
    const b = await bundle('iptables/clean')
    const node: NodeSnapshot = structuredClone(b.nodes[0]!)
    node.artifacts.ipvsadm = ipvsNode.artifacts.ipvsadm!
    node.artifacts['ip-link'] = {...ipvsNode.artifacts['ip-addr']!, id: 'ip-link'}
    const r = analyzeSnapshots(b.cluster, [node], {metadata: meta, checks: [...IPVS_CHECKS, findCheck('PROXY-005')!]})
    assert.deepEqual(r.findings.map((f) => f.id), ['PROXY-005'])
    assert.match(r.findings[0]!.message, /IPVS-mode leftovers remain while kube-proxy runs iptables mode: \d+ IPVS virtual server\(s\) and the kube-ipvs0 link/)
    assert.match(r.findings[0]!.remedy, /ipvsadm -D -t/)
    assert.match(r.findings[0]!.remedy, /never `kube-proxy --cleanup` blindly/)
    assert.ok(r.results.filter((x) => x.id.startsWith('IPVS-')).every((x) => x.status === 'skipped'))
  })

  it('`proxy render --mode ipvs NODE` input: any mode, facts from what the node has', async () => {
    const b = await bundle('iptables/clean')
    assert.deepEqual(ipvsLiveInput(b.cluster, b.nodes[0]!), {ok: false, reason: 'not applicable: kube-proxy runs in iptables mode, not ipvs'})
    const r = ipvsLiveInput(b.cluster, b.nodes[0]!, {forRender: true})
    assert.ok(r.ok)
    assert.deepEqual(Object.keys(r.actual), ['iptables'])
    assert.equal(r.render.version.minor, 31)
  })
})
