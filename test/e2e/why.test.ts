// End to end, live: `why` with the built CLI against the test API server holding a Calico cluster (the DNS
// scenario of test/support/route-dns-cases.ts: IPIP pool, blocks, calico-node pods, kube-dns with CoreDNS on both
// nodes, shop/web with one endpoint per node) and two "nodes" that are network namespaces with their own real sshd,
// real Calico routes and the real iptables rules kube-proxy v1.33 writes there. node-a has two planted faults: no
// route to node-b's block (so 10.244.2.10, shop/web's endpoint there, is cut off) and a deleted KUBE-SVC rule (so
// shop/web's endpoint on node-a, 10.244.1.10, is never picked). node-b is clean. IP plan: calico-dns-builders.ts.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import type {WhyVerdict} from '../../src/core/why/verdict.js'
import {setupCalicoNode} from '../support/calico-netns.js'
import {calicoPlanNode, startLiveCalicoCluster, withDnsPorts} from '../support/live-calico-cluster.js'
import {type LiveCluster, liveClusterSkipReason} from '../support/live-cluster.js'
import {DNS_CASES} from '../support/route-dns-cases.js'

const UNREACHABLE = DNS_CASES.find((c) => c.name === 'coredns-unreachable')!

describe('why against live Calico nodes', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster
  let deleted = ''

  before(async () => {
    // The kubelets point pods at kube-dns (KUBELET-016 reads the running config).
    const kubelet = {kubeletconfig: {kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', clusterDomain: 'cluster.local', clusterDNS: ['10.96.0.10']}}
    c = await startLiveCalicoCluster({
      cluster: withDnsPorts(UNREACHABLE.cluster()),
      nodes: [
        {name: 'node-a', setup: (node, {pods}) => setupCalicoNode(node, pods(), UNREACHABLE.setup!)},
        // node-b as Calico programs it: its blackhole, its pods' /32s (coredns-b, web-b), and IPIP to node-a's block.
        calicoPlanNode('node-b', {cali3333333333c: '10.244.2.2', cali4444444444d: '10.244.2.10'}, ['node-a']),
      ],
      // kube-proxy runs as the kubeadm DaemonSet: `fix kube-proxy` can restart it.
      kubeProxy: 'daemonset',
      api: {configz: {'node-a': kubelet, 'node-b': kubelet}},
      tempPrefix: 'nd-why-',
    })
    // The KUBE-SVC rule that picks shop/web's endpoint on node-a: without it that endpoint never gets traffic.
    deleted = c.nodeExec('node-a', ['iptables', '-t', 'nat', '-S']).split('\n').find((l) => l.startsWith('-A KUBE-SVC-') && l.includes('shop/web:p -> 10.244.1.10:80'))!
    assert.ok(deleted, 'the rule to delete')
    c.nodeExec('node-a', ['sh', '-c', `iptables -t nat -D ${deleted.slice(3)}`])
  })
  after(async () => c?.stop())

  it('why svc/shop/web --from node-a names both causes, the missing route and the missing rule (exit 1)', async () => {
    const r = await c.cli(['why', 'svc/shop/web', '--from', 'node-a', '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const v = JSON.parse(r.stdout) as WhyVerdict & {kind: string}
    assert.equal(v.kind, 'WhyVerdict')
    assert.equal(v.verdict, 'broken')
    assert.equal(v.headline, 'broken: all 2 endpoints are unreachable from node-a')
    assert.deepEqual(v.endpoints?.lost.map((e) => [e.ip, e.by]), [
      ['10.244.1.10', ['IPT-003']],
      ['10.244.2.10', ['RT-001']],
    ])
    const ids = v.causes.map((c) => c.id)
    assert.ok(ids.includes('RT-001') && ids.includes('IPT-003'), ids.join(', '))
    assert.match(v.causes.find((c) => c.id === 'RT-001')!.message, /no route to node-b's block 10\.244\.2\.0\/26/)
    assert.equal(v.causes.find((c) => c.id === 'IPT-003')!.evidence[0], `expected: ${deleted}`)
    assert.match(v.next ?? '', /^kubectl node-doctor fix /)
  })

  it('the table says it in a few lines', async () => {
    const r = await c.cli(['why', 'svc/shop/web', '--from', 'node-a'])
    assert.equal(r.exitCode, 1, r.stderr)
    assert.match(r.stdout, /^svc shop\/web from node-a: broken: all 2 endpoints are unreachable from node-a\n/)
    assert.match(r.stdout, /^ {2}RT-001 error: no route to node-b's block/m)
    assert.match(r.stdout, /^ {2}IPT-003 error: /m)
    assert.match(r.stdout, /^Next: kubectl node-doctor fix /m)
  })

  it('why dns --from node-b (clean) says works (exit 0); from node-a it is partly broken', async () => {
    const b = await c.cli(['why', 'dns', '--from', 'node-b', '-o', 'json'])
    assert.equal(b.exitCode, 0, b.stdout + b.stderr)
    const vb = JSON.parse(b.stdout) as WhyVerdict
    assert.equal(vb.verdict, 'works')
    assert.deepEqual(vb.causes, [])
    assert.deepEqual(vb.checked, [
      'clusterDNS: the kubelet on node-b points pods at 10.96.0.10',
      'kube-system/kube-dns: 2 ready CoreDNS endpoints, all reachable from node-b (rules and routes)',
      'no stale UDP conntrack entries for DNS on node-b',
    ])
    const a = await c.cli(['why', 'dns', '--from', 'node-a', '-o', 'json'])
    assert.equal(a.exitCode, 1)
    const va = JSON.parse(a.stdout) as WhyVerdict
    assert.equal(va.headline, 'partly broken: 1 of 2 endpoints unreachable from node-a')
    assert.deepEqual(va.causes.map((c) => c.id).slice(0, 2), ['RT-001', 'DNS-004'])
  })

  it('check shows what each finding breaks', async () => {
    const r = await c.cli(['check', 'node-a', '--only', 'routes,iptables,dns', '-o', 'json'])
    const report = JSON.parse(r.stdout) as {findings: Array<{id: string; impact?: {summary: string}}>}
    assert.equal(report.findings.find((f) => f.id === 'RT-001')?.impact?.summary, 'svc kube-system/kube-dns (1 of 2 endpoints), shop/web (1 of 2); 2 pods')
    assert.equal(report.findings.find((f) => f.id === 'IPT-003')?.impact?.summary, 'svc shop/web:p (1 of 2 endpoints)')
    const table = await c.cli(['check', 'node-a', '--only', 'routes,iptables,dns'])
    assert.match(table.stdout, /breaks: svc kube-system\/kube-dns \(1 of 2 endpoints\), shop\/web \(1 of 2\); 2 pods/)
  })

  it('an unknown target or Service is a usage error', async () => {
    const bad = await c.cli(['why', 'deploy/shop/web', '--from', 'node-a'])
    assert.equal(bad.exitCode, 2)
    assert.match(bad.stderr, /Use svc\/NAMESPACE\/NAME\[:PORT\], pod\/NAMESPACE\/NAME or dns/)
    const missing = await c.cli(['why', 'svc/shop/nope', '--from', 'node-a'])
    assert.equal(missing.exitCode, 2)
    assert.match(missing.stderr, /service "shop\/nope" not found/)
  })

  // Last: it repairs node-a's rules.
  it('fix kube-proxy verifies the rules but says shop/web is still broken by the missing route; why then says partly broken', async () => {
    const r = await c.cli(['fix', 'kube-proxy', 'node-a', '--yes', '--ready-timeout', '20s', '--verify-timeout', '3s', '--poll-interval', '300ms'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stderr, /node-a: repaired: /)
    assert.match(r.stderr, /^node-a: shop\/web is still broken from node-a after the repair: RT-001 no route to node-b's block 10\.244\.2\.0\/26[^\n]*\(see `kubectl node-doctor why svc\/shop\/web --from node-a`\)$/m)
    const w = await c.cli(['why', 'svc/shop/web', '--from', 'node-a', '-o', 'json'])
    const v = JSON.parse(w.stdout) as WhyVerdict
    assert.equal(v.headline, 'partly broken: 1 of 2 endpoints unreachable from node-a')
    assert.deepEqual(v.causes.map((c) => c.id), ['RT-001'])
  })
})
