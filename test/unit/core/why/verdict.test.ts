// The `why` verdict over Reports analysed from the DNS fixture bundles (test/fixtures/checks/dns; node-a's routes
// captured in a netns): kube-dns endpoints 10.244.1.2 (node-a) and 10.244.2.2 (node-b), shop/web endpoints
// 10.244.1.10 (node-a) and 10.244.2.10 (node-b); `coredns-unreachable` lacks node-a's route to node-b's block.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../src/app/analyze.js'
import {attachImpact} from '../../../../src/core/impact/index.js'
import {buildReport, type Finding} from '../../../../src/core/model/report.js'
import {nextCommand, parseWhyTarget, questionNeeds, whyVerdict} from '../../../../src/core/why/verdict.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {REPO_ROOT} from '../../../support/golden.js'

const META = {generatedAt: '2026-12-02T12:00:00.000Z', tool: {name: 'node-doctor', version: 'test'}, command: 'why'}

async function analysed(name: string) {
  const b = await readBundle(join(REPO_ROOT, 'test/fixtures/checks/dns', name))
  return {cluster: b.cluster, report: analyzeSnapshots(b.cluster, b.nodes, {metadata: META})}
}

describe('why targets', () => {
  it('reads svc, pod and dns targets and refuses anything else', () => {
    assert.deepEqual(parseWhyTarget('svc/shop/web'), {kind: 'service', service: 'shop/web'})
    assert.deepEqual(parseWhyTarget('svc/kube-system/kube-dns:53'), {kind: 'service', service: 'kube-system/kube-dns', port: '53'})
    assert.deepEqual(parseWhyTarget('service/shop/web:http'), {kind: 'service', service: 'shop/web', port: 'http'})
    assert.deepEqual(parseWhyTarget('pod/shop/web-b'), {kind: 'pod', pod: 'shop/web-b'})
    assert.deepEqual(parseWhyTarget('dns'), {kind: 'dns'})
    for (const bad of ['shop/web', 'svc/web', 'svc/Shop/web', 'deploy/shop/web', 'pod/shop/web:80']) assert.equal(parseWhyTarget(bad), undefined, bad)
  })

  it('picks the fix command of a remedy, with the node filled in', () => {
    assert.equal(nextCommand('Run `calicoctl node status`. Then `kubectl node-doctor fix calico-node NODE` (deletes the pod).', 'node-a'), 'kubectl node-doctor fix calico-node node-a')
    assert.equal(nextCommand('Check `calicoctl node status` first.', 'node-a'), 'calicoctl node status')
    assert.equal(nextCommand('No command here.', 'node-a'), undefined)
  })
})

describe('why svc', () => {
  it('works when nothing on the node breaks the Service', async () => {
    const {cluster, report} = await analysed('healthy-routed')
    const v = whyVerdict(report, cluster, {kind: 'service', service: 'shop/web'}, 'node-a')
    assert.equal(v.verdict, 'works')
    assert.equal(v.headline, 'works: 2 of 2 endpoints reachable from node-a (as far as could be checked)')
    assert.deepEqual(v.causes, [])
    assert.equal(v.next, undefined)
  })

  it('a missing block route makes it partly broken, naming the endpoint, the route finding and the fix', async () => {
    const {cluster, report} = await analysed('coredns-unreachable')
    const v = whyVerdict(report, cluster, {kind: 'service', service: 'shop/web'}, 'node-a')
    assert.equal(v.verdict, 'partly-broken')
    assert.equal(v.headline, 'partly broken: 1 of 2 endpoints unreachable from node-a')
    assert.deepEqual(v.endpoints, {total: 2, lost: [{ip: '10.244.2.10', pod: 'shop/web-b', node: 'node-b', by: ['RT-001']}]})
    assert.deepEqual(v.causes.map((c) => [c.id, c.message]), [['RT-001', "no route to node-b's block 10.244.2.0/26: pods here cannot reach pods on node-b"]])
    assert.equal(v.next, 'kubectl node-doctor fix calico-node node-a')
    // The verdict is about the node asked for: node-b (not collected) has no findings.
    assert.equal(whyVerdict(report, cluster, {kind: 'service', service: 'shop/web'}, 'node-b').verdict, 'works')
  })

  it('a missing route and a missing rule: both causes, and all endpoints lost when together they cut off every one', async () => {
    const {cluster, report} = await analysed('coredns-unreachable')
    const rule: Finding = {
      id: 'IPT-001',
      node: 'node-a',
      area: 'iptables',
      severity: 'error',
      message: 'chain KUBE-SEP-WEBA (shop/web:p) is missing from the nat table',
      subject: {kind: 'chain', name: 'KUBE-SEP-WEBA', in: 'nat'},
      evidence: ['expected: -A KUBE-SEP-WEBA -p tcp -m tcp -j DNAT --to-destination 10.244.1.10:80'],
      remedy: 'Make kube-proxy do a full sync: `kubectl node-doctor fix kube-proxy NODE`.',
      group: 'shop/web:p',
    }
    const both = buildReport({metadata: META, nodes: report.nodes, results: report.results, findings: attachImpact(cluster, [...report.findings, rule])})
    const v = whyVerdict(both, cluster, {kind: 'service', service: 'shop/web'}, 'node-a')
    assert.equal(v.verdict, 'broken')
    assert.equal(v.headline, 'broken: all 2 endpoints are unreachable from node-a')
    assert.deepEqual(v.causes.map((c) => c.id), ['IPT-001', 'RT-001'])
    assert.deepEqual(v.endpoints?.lost.map((e) => [e.ip, e.by]), [['10.244.1.10', ['IPT-001']], ['10.244.2.10', ['RT-001']]])
    // Another Service: the rule finding is not about it; the route and DNS-004 (which names kube-dns) are.
    const other = whyVerdict(both, cluster, {kind: 'service', service: 'kube-system/kube-dns', port: 'dns'}, 'node-a')
    assert.deepEqual(other.causes.map((c) => c.id), ['RT-001', 'DNS-004'])
  })

  it('a port counts the endpoints kube-proxy pairs with it: those of slices carrying that port name', async () => {
    const {cluster, report} = await analysed('healthy-routed')
    assert.equal(whyVerdict(report, cluster, {kind: 'service', service: 'shop/web', port: 'p'}, 'node-a').verdict, 'works')
    // The fixture's kube-dns slice carries the port `p`, not the Service's `dns`: kube-proxy has no endpoint for it.
    assert.equal(
      whyVerdict(report, cluster, {kind: 'service', service: 'kube-system/kube-dns', port: 'dns'}, 'node-a').headline,
      'broken: no ready endpoint of kube-system/kube-dns serves port dns (its EndpointSlices carry no such port)',
    )
  })

  it('an unknown port is broken, naming the ports there are', async () => {
    const {cluster, report} = await analysed('healthy-routed')
    assert.equal(whyVerdict(report, cluster, {kind: 'service', service: 'shop/web', port: 'https'}, 'node-a').headline, 'broken: Service shop/web has no port https (ports: p)')
  })
})

describe('why dns and why pod', () => {
  it('dns works on a routed, healthy node and says what it checked', async () => {
    const {cluster, report} = await analysed('healthy-routed')
    const v = whyVerdict(report, cluster, {kind: 'dns'}, 'node-a')
    assert.equal(v.verdict, 'works')
    assert.deepEqual(v.checked, ['kube-system/kube-dns: 2 ready CoreDNS endpoints, all reachable from node-a (routes)'])
  })

  it('dns is partly broken with a CoreDNS endpoint behind a missing route: RT-001 and DNS-004', async () => {
    const {cluster, report} = await analysed('coredns-unreachable')
    const v = whyVerdict(report, cluster, {kind: 'dns'}, 'node-a')
    assert.equal(v.headline, 'partly broken: 1 of 2 endpoints unreachable from node-a')
    assert.deepEqual(v.causes.map((c) => c.id), ['RT-001', 'DNS-004'])
    assert.deepEqual(v.checked, [])
  })

  it('does not claim reachability it did not judge (no routes collected)', async () => {
    const {cluster, report} = await analysed('healthy')
    const v = whyVerdict(report, cluster, {kind: 'dns'}, 'node-a')
    assert.deepEqual(v.checked, ['kube-system/kube-dns: 2 ready CoreDNS endpoints'])
    assert.ok(v.unknown.some((u) => u.startsWith('DNS-004, RT-001') && u.endsWith('not judged: missing input: ip-route')), v.unknown.join('\n'))
  })

  it('dns with CoreDNS scaled to zero is broken', async () => {
    const {cluster, report} = await analysed('coredns-scaled-to-zero')
    const v = whyVerdict(report, cluster, {kind: 'dns'}, 'node-a')
    assert.equal(v.verdict, 'broken')
    assert.equal(v.headline, 'broken: kube-system/kube-dns has no ready endpoints')
    assert.deepEqual(v.causes.map((c) => c.id), ['DNS-001'])
  })

  it('a pod behind a missing route is broken; one on the node is reachable', async () => {
    const {cluster, report} = await analysed('coredns-unreachable')
    const far = whyVerdict(report, cluster, {kind: 'pod', pod: 'shop/web-b'}, 'node-a')
    assert.equal(far.headline, 'broken: pod shop/web-b (10.244.2.10 on node-b) is unreachable from node-a')
    assert.deepEqual(far.causes.map((c) => c.id), ['RT-001'])
    assert.equal(whyVerdict(report, cluster, {kind: 'pod', pod: 'shop/web-a'}, 'node-a').verdict, 'works')
  })
})

describe('why with stale conntrack entries', () => {
  it('kube-dns is partly broken for the clients holding them, naming CT-001 and its fix', async () => {
    const {cluster, report} = await analysed('healthy-routed')
    const ct: Finding = {
      id: 'CT-001',
      node: 'node-a',
      area: 'conntrack',
      severity: 'error',
      message: '1 UDP conntrack entry for kube-system/kube-dns (10.96.0.10:53/udp) still goes to 10.244.3.3, which is no longer an endpoint',
      subject: {kind: 'Service', name: 'kube-dns', namespace: 'kube-system'},
      evidence: ['udp 17 29 src=10.244.1.10 dst=10.96.0.10 sport=40000 dport=53 src=10.244.3.3 dst=10.244.1.10 sport=53 dport=40000 mark=0 use=1'],
      remedy: 'On node-a: `conntrack -D -p udp --orig-dst 10.96.0.10 --reply-src 10.244.3.3`, or `kubectl node-doctor fix conntrack node-a --service kube-system/kube-dns`.',
      group: 'kube-system/kube-dns:dns',
    }
    const withCt = buildReport({metadata: META, nodes: report.nodes, results: report.results, findings: attachImpact(cluster, [...report.findings, ct])})
    const v = whyVerdict(withCt, cluster, {kind: 'dns'}, 'node-a')
    assert.equal(v.verdict, 'partly-broken')
    assert.equal(v.headline, 'partly broken: all 2 endpoints are reachable from node-a, but CT-001 affects it')
    assert.equal(v.next, 'kubectl node-doctor fix conntrack node-a --service kube-system/kube-dns')
  })
})

describe('why dns with node-local-dns', () => {
  it('says the node-local-dns pod on the node is Ready, or that none runs there', async () => {
    const {cluster, report} = await analysed('healthy-routed')
    const ds = {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'node-local-dns', labels: {'k8s-app': 'node-local-dns'}}}
    const pod = (node: string, ready: boolean) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {namespace: 'kube-system', name: `node-local-dns-${node}`, labels: {'k8s-app': 'node-local-dns'}},
      spec: {nodeName: node, hostNetwork: true, containers: [{name: 'node-cache'}]},
      status: {phase: 'Running', conditions: [{type: 'Ready', status: ready ? 'True' : 'False'}]},
    })
    const withLocal = (pods: object[]) => ({...cluster, daemonSets: [...cluster.daemonSets, ds], pods: [...cluster.pods, ...pods]}) as typeof cluster
    assert.ok(whyVerdict(report, withLocal([pod('node-a', true)]), {kind: 'dns'}, 'node-a').checked.includes('node-local-dns: pod node-local-dns-node-a on node-a is Ready'))
    const none = whyVerdict(report, withLocal([pod('node-b', true)]), {kind: 'dns'}, 'node-a')
    assert.ok(none.unknown.includes('node-local-dns runs in the cluster (DaemonSet node-local-dns) but no pod of it runs on node-a: pods whose clusterDNS is its link-local address get no answer'), none.unknown.join('\n'))
  })
})

describe('why: Not judged names only the checks the question needs', () => {
  // The `healthy` bundle collected nothing from node-a: every check there is skipped, each for its missing input.
  const ids = (unknown: string[]) => unknown.flatMap((u) => /^(.*) not judged: /.exec(u)?.[1]?.split(', ') ?? []).sort()

  it('svc: the path (rules, routes to pods, forwarding), the endpoints and stale conntrack entries; not CT-002, NODE-005, the kubelet or BGP', async () => {
    const {cluster, report} = await analysed('healthy')
    const v = ids(whyVerdict(report, cluster, {kind: 'service', service: 'shop/web'}, 'node-a').unknown)
    for (const id of ['IPT-003', 'NFT-001', 'RT-001', 'RT-005', 'NODE-001', 'NODE-003', 'CT-001']) assert.ok(v.includes(id), `${id} in ${v.join(', ')}`)
    for (const id of ['CT-002', 'CT-003', 'CT-004', 'NODE-002', 'NODE-004', 'NODE-005', 'NODE-006', 'NODE-022', 'RT-007', 'RT-008', 'KUBELET-016', 'PROXY-005', 'DNS-004']) assert.ok(!v.includes(id), `${id} in ${v.join(', ')}`)
    // Every line left is a check the question needs.
    assert.deepEqual(v.filter((id) => !questionNeeds('service', id)), [])
  })

  it('dns (and svc kube-dns asked for by name) add the DNS checks and the kubelet\'s clusterDNS; a pod only the path', async () => {
    const {cluster, report} = await analysed('healthy')
    const dns = ids(whyVerdict(report, cluster, {kind: 'dns'}, 'node-a').unknown)
    for (const id of ['DNS-004', 'KUBELET-016', 'CT-001', 'RT-001']) assert.ok(dns.includes(id), `${id} in ${dns.join(', ')}`)
    assert.ok(!dns.includes('CT-002') && !dns.includes('NODE-005') && !dns.includes('KUBELET-017'), dns.join(', '))
    assert.deepEqual(ids(whyVerdict(report, cluster, {kind: 'service', service: 'kube-system/kube-dns'}, 'node-a').unknown), dns)
    const pod = ids(whyVerdict(report, cluster, {kind: 'pod', pod: 'shop/web-b'}, 'node-a').unknown)
    assert.ok(pod.includes('RT-001') && pod.includes('IPT-003'), pod.join(', '))
    assert.deepEqual(pod.filter((id) => !questionNeeds('pod', id)), [])
    assert.ok(!pod.includes('CT-001') && !pod.includes('DNS-004'), pod.join(', '))
  })

  it('questionNeeds', () => {
    assert.deepEqual(
      ['IPT-001', 'IPVS-004', 'NFT-010', 'RT-001', 'RT-002', 'RT-012', 'NODE-001', 'NODE-005', 'CT-001', 'CT-002', 'EP-001', 'DNS-001', 'KUBELET-016'].map((id) => [id, questionNeeds('pod', id), questionNeeds('service', id), questionNeeds('dns', id)]),
      [
        ['IPT-001', true, true, true],
        ['IPVS-004', true, true, true],
        ['NFT-010', true, true, true],
        ['RT-001', true, true, true],
        ['RT-002', false, false, false],
        ['RT-012', true, true, true],
        ['NODE-001', true, true, true],
        ['NODE-005', false, false, false],
        ['CT-001', false, true, true],
        ['CT-002', false, false, false],
        ['EP-001', false, true, true],
        ['DNS-001', false, false, true],
        ['KUBELET-016', false, false, true],
      ],
    )
  })
})
