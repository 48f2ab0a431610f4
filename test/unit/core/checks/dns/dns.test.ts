// DNS (DNS-001..003; DNS-004 in reachability.test.ts) and Service endpoint (EP-001..002) checks over small in-code snapshots.
// Cluster: node-a and node-b; CoreDNS pods coredns-a (10.244.1.2 on node-a) and coredns-b (10.244.2.2 on node-b);
// Service shop/web selecting app=web with web-a (10.244.1.10, node-a) and web-b (10.244.2.10, node-b).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {DNS_CHECKS} from '../../../../../src/core/checks/dns/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {EndpointSlice, Pod, Service} from '../../../../../src/core/model/k8s.js'
import type {Finding} from '../../../../../src/core/model/report.js'
import type {ClusterSnapshot} from '../../../../../src/core/model/snapshot.js'
import {podHealthProblem} from '../../../../../src/core/checks/dns/pods.js'
import {clusterSnapshot, COLLECTED_AT, endpointSlice, type EndpointSpec, nodeSnapshot, planNodes, pod, service} from '../../../../support/calico-dns-builders.js'

const DNS = {'k8s-app': 'kube-dns'}
const WEB = {app: 'web'}

interface World {
  dnsPods?: Pod[]
  dnsEndpoints?: EndpointSpec[]
  dnsService?: Service | null
  webPods?: Pod[]
  webEndpoints?: EndpointSpec[]
  webService?: Service
  extraServices?: Service[]
  extraSlices?: EndpointSlice[]
  extraPods?: Pod[]
}

const corednsA = (o = {}) => pod('kube-system', 'coredns-a', 'node-a', '10.244.1.2', {labels: DNS, ...o})
const corednsB = (o = {}) => pod('kube-system', 'coredns-b', 'node-b', '10.244.2.2', {labels: DNS, ...o})
const webA = (o = {}) => pod('shop', 'web-a', 'node-a', '10.244.1.10', {labels: WEB, ...o})
const webB = (o = {}) => pod('shop', 'web-b', 'node-b', '10.244.2.10', {labels: WEB, ...o})
const DNS_EPS: EndpointSpec[] = [
  {ip: '10.244.1.2', node: 'node-a', pod: 'coredns-a'},
  {ip: '10.244.2.2', node: 'node-b', pod: 'coredns-b'},
]
const WEB_EPS: EndpointSpec[] = [
  {ip: '10.244.1.10', node: 'node-a', pod: 'web-a'},
  {ip: '10.244.2.10', node: 'node-b', pod: 'web-b'},
]

function world(w: World = {}): ClusterSnapshot {
  const dnsSvc = w.dnsService === null ? undefined : (w.dnsService ?? service('kube-system', 'kube-dns', '10.96.0.10', DNS))
  return clusterSnapshot({
    nodes: planNodes(['node-a', 'node-b']),
    services: [...(dnsSvc ? [dnsSvc] : []), w.webService ?? service('shop', 'web', '10.96.1.1', WEB), ...(w.extraServices ?? [])],
    endpointSlices: [
      ...(dnsSvc ? [endpointSlice('kube-system', dnsSvc.metadata.name, w.dnsEndpoints ?? DNS_EPS)] : []),
      endpointSlice('shop', 'web', w.webEndpoints ?? WEB_EPS),
      ...(w.extraSlices ?? []),
    ],
    pods: [...(w.dnsPods ?? [corednsA(), corednsB()]), ...(w.webPods ?? [webA(), webB()]), ...(w.extraPods ?? [])],
  })
}

function run(cluster: ClusterSnapshot, nodes = ['node-a', 'node-b']) {
  // DNS-004 needs the node's routes: reachability.test.ts runs it on real route captures.
  const out = runChecks(DNS_CHECKS.filter((c) => c.spec.id !== 'DNS-004'), cluster, nodes.map((n) => nodeSnapshot(n, {})))
  assert.deepEqual(out.errors, [])
  return out
}

const brief = (fs: Finding[], id: string) => fs.filter((f) => f.id === id).map((f) => [f.node, f.severity, f.message])

describe('healthy cluster', () => {
  it('every DNS and endpoint check passes on every node', () => {
    const out = run(world())
    assert.deepEqual(out.findings, [])
    assert.deepEqual(new Set(out.results.map((r) => r.status)), new Set(['passed']))
    assert.equal(out.results.length, 10)
  })
})

describe('DNS-001 kube-dns has no ready endpoints', () => {
  it('reports the cause on every node: each node loses DNS', () => {
    const out = run(world({dnsPods: [corednsA({ready: false}), corednsB({ready: false})], dnsEndpoints: DNS_EPS.map((e) => ({...e, ready: false}))}))
    assert.deepEqual(brief(out.findings, 'DNS-001'), [
      ['node-a', 'error', 'kube-system/kube-dns has no ready endpoints (none of its 2 CoreDNS pods are Ready): name resolution fails for every pod on node-a'],
      ['node-b', 'error', 'kube-system/kube-dns has no ready endpoints (none of its 2 CoreDNS pods are Ready): name resolution fails for every pod on node-b'],
    ])
    const f = out.findings.find((x) => x.id === 'DNS-001')!
    assert.deepEqual(f.subject, {kind: 'Service', name: 'kube-dns', namespace: 'kube-system'})
    assert.deepEqual(f.evidence.slice(0, 1), ['EndpointSlice kube-dns-abcde: 10.244.1.2 ready=false'])
  })

  it('names the cause when pods are Ready but the Service has no EndpointSlice', () => {
    const cluster = world()
    cluster.endpointSlices = cluster.endpointSlices.filter((s) => s.metadata.namespace !== 'kube-system')
    assert.deepEqual(brief(run(cluster, ['node-a']).findings, 'DNS-001'), [
      ['node-a', 'error', 'kube-system/kube-dns has no ready endpoints (2 CoreDNS pods are Ready but the Service has no EndpointSlice): name resolution fails for every pod on node-a'],
    ])
  })

  it('finds the DNS Service by selector when it is not called kube-dns, and reports a missing one', () => {
    const renamed = service('kube-system', 'rke2-coredns', '10.96.0.10', {...DNS, 'app.kubernetes.io/instance': 'rke2-coredns'})
    const pods = [corednsA({labels: {...DNS, 'app.kubernetes.io/instance': 'rke2-coredns'}})]
    const ok = world({dnsService: renamed, dnsPods: pods, dnsEndpoints: [DNS_EPS[0]!]})
    assert.equal(run(ok, ['node-a']).results.find((r) => r.id === 'DNS-001')!.status, 'passed')
    assert.deepEqual(brief(run(world({dnsService: null}), ['node-a']).findings, 'DNS-001'), [
      ['node-a', 'error', "no Service selects the CoreDNS pods (k8s-app=kube-dns): pods on node-a send DNS queries to kubelet's clusterDNS address and nothing answers there"],
    ])
  })

  it('skips when the cluster has no in-cluster DNS at all', () => {
    const out = run(world({dnsService: null, dnsPods: []}), ['node-a'])
    assert.deepEqual(
      out.results.filter((r) => r.id.startsWith('DNS')).map((r) => [r.id, r.status]),
      [['DNS-001', 'skipped'], ['DNS-002', 'skipped'], ['DNS-003', 'skipped']],
    )
  })
})

describe('DNS-002 CoreDNS pod health', () => {
  it('reports each pod on its own node only: not ready is an error, restarting a warning', () => {
    const out = run(world({dnsPods: [corednsA({ready: false, waiting: 'CrashLoopBackOff'}), corednsB({restarts: {count: 4, agoSeconds: 120, reason: 'OOMKilled'}})], dnsEndpoints: [{...DNS_EPS[0]!, ready: false}, DNS_EPS[1]!]}))
    assert.deepEqual(brief(out.findings, 'DNS-002'), [
      ['node-a', 'error', 'CoreDNS pod kube-system/coredns-a on this node is not ready (CrashLoopBackOff)'],
      ['node-b', 'warning', 'CoreDNS pod kube-system/coredns-b on this node is restarting: 4 restarts, last 2m before collection (OOMKilled)'],
    ])
    assert.deepEqual(brief(out.findings, 'DNS-001'), [], 'one CoreDNS endpoint is still ready')
  })
})

describe('DNS-003 kube-dns slices against CoreDNS pods', () => {
  it('a stale ready endpoint and a Ready pod without one are reported on their node', () => {
    const extra = pod('kube-system', 'coredns-c', 'node-b', '10.244.2.3', {labels: DNS})
    const eps = [{ip: '10.244.1.99', node: 'node-a', pod: 'coredns-old'}, DNS_EPS[1]!]
    const out = run(world({dnsPods: [corednsA(), corednsB(), extra], dnsEndpoints: eps}))
    assert.deepEqual(brief(out.findings, 'DNS-003'), [
      ['node-a', 'error', 'the DNS Service kube-system/kube-dns has a ready endpoint 10.244.1.99, but its pod coredns-old no longer exists: its share of connections fails'],
      ['node-a', 'error', 'pod coredns-a (10.244.1.2) is Ready and selected by the DNS Service kube-system/kube-dns, but absent from every IPv4 EndpointSlice of the Service'],
      ['node-b', 'error', 'pod coredns-c (10.244.2.3) is Ready and selected by the DNS Service kube-system/kube-dns, but absent from every IPv4 EndpointSlice of the Service'],
    ])
    assert.deepEqual(brief(out.findings, 'EP-001'), [], 'kube-dns is left to DNS-003')
    assert.deepEqual(brief(out.findings, 'EP-002'), [])
  })
})

describe('EP-001 stale endpoints', () => {
  it('no pod, pod not Ready, pod terminating, IP reused by an unselected pod, pod relabelled', () => {
    const eps: EndpointSpec[] = [
      {ip: '10.244.1.10', node: 'node-a', pod: 'web-a'},
      {ip: '10.244.1.11', node: 'node-a', pod: 'web-gone'},
      {ip: '10.244.1.12', node: 'node-a', pod: 'web-sick'},
      {ip: '10.244.1.13', node: 'node-a', pod: 'web-leaving'},
      {ip: '10.244.1.14', node: 'node-a'},
      {ip: '10.244.1.15', node: 'node-a', pod: 'web-relabelled'},
      {ip: '10.244.1.16', node: 'node-a', pod: 'web-down', ready: false},
      {ip: '10.244.2.10', node: 'node-b', pod: 'web-b'},
    ]
    const pods = [
      webA(),
      webB(),
      pod('shop', 'web-sick', 'node-a', '10.244.1.12', {labels: WEB, ready: false}),
      pod('shop', 'web-leaving', 'node-a', '10.244.1.13', {labels: WEB, terminating: true}),
      pod('shop', 'db-0', 'node-a', '10.244.1.14', {labels: {app: 'db'}}),
      pod('shop', 'web-relabelled', 'node-a', '10.244.1.15', {labels: {app: 'web-canary'}}),
    ]
    const out = run(world({webPods: pods, webEndpoints: eps}))
    const stale = out.findings.filter((f) => f.id === 'EP-001')
    assert.deepEqual(
      stale.map((f) => [f.node, f.message]),
      [
        ['node-a', 'Service shop/web has a ready endpoint 10.244.1.11, but its pod web-gone no longer exists: its share of connections fails'],
        ['node-a', 'Service shop/web has a ready endpoint 10.244.1.12, but pod web-sick is not Ready: its share of connections fails'],
        ['node-a', 'Service shop/web has a ready endpoint 10.244.1.13, but pod web-leaving is terminating: its share of connections fails'],
        ['node-a', 'Service shop/web has a ready endpoint 10.244.1.14, but the IP now belongs to pod db-0, which the Service does not select: its share of connections fails'],
        ['node-a', "Service shop/web has a ready endpoint 10.244.1.15, but pod web-relabelled no longer matches the Service's selector: its share of connections fails"],
      ],
    )
    assert.deepEqual(stale[0]!.subject, {kind: 'EndpointSlice', name: 'web-abcde', namespace: 'shop'})
    assert.equal(stale[0]!.group, 'Service shop/web')
    assert.deepEqual(stale[1]!.evidence, [
      'EndpointSlice web-abcde: 10.244.1.12 ready=true serving=true terminating=false targetRef=Pod/web-sick nodeName=node-a',
      'Pod web-sick: IPs 10.244.1.12 phase=Running Ready=False node=node-a',
    ])
  })

  it('publishNotReadyAddresses makes a not-Ready pod a legitimate ready endpoint', () => {
    const svc = service('shop', 'web', '10.96.1.1', WEB, {publishNotReadyAddresses: true})
    const out = run(world({webService: svc, webPods: [webA({ready: false}), webB()]}))
    assert.deepEqual(out.findings, [])
  })
})

describe('EP-002 missing endpoints', () => {
  it('a Ready pod absent from the slices, or marked not ready; an error when the Service has no ready endpoint', () => {
    const out = run(world({webEndpoints: [{ip: '10.244.2.10', node: 'node-b', pod: 'web-b', ready: false}]}))
    assert.deepEqual(brief(out.findings, 'EP-002'), [
      ['node-a', 'error', 'pod web-a (10.244.1.10) is Ready and selected by Service shop/web, but absent from every IPv4 EndpointSlice of the Service; the Service has no ready endpoint at all'],
      ['node-b', 'error', 'pod web-b (10.244.2.10) is Ready and selected by Service shop/web, but its endpoint is marked not ready although pod web-b is Ready; the Service has no ready endpoint at all'],
    ])
    const partial = run(world({webEndpoints: [WEB_EPS[1]!]}))
    assert.deepEqual(brief(partial.findings, 'EP-002'), [
      ['node-a', 'warning', 'pod web-a (10.244.1.10) is Ready and selected by Service shop/web, but absent from every IPv4 EndpointSlice of the Service'],
    ])
  })

  it('a Service with no EndpointSlice at all says so', () => {
    const cluster = world()
    cluster.endpointSlices = cluster.endpointSlices.filter((s) => s.metadata.namespace !== 'shop')
    const f = run(cluster, ['node-b']).findings.filter((x) => x.id === 'EP-002')
    assert.deepEqual(f.map((x) => x.message), ['pod web-b (10.244.2.10) is Ready and selected by Service shop/web, but the Service has no EndpointSlice at all; the Service has no ready endpoint at all'])
    assert.deepEqual(f[0]!.evidence.at(-1), 'no EndpointSlice labelled kubernetes.io/service-name=web')
  })

  it('not for pods that became Ready moments before collection, nor for an IP family the Service lacks', () => {
    const fresh = pod('shop', 'web-a', 'node-a', '10.244.1.10', {labels: WEB})
    ;(fresh.status!.conditions![0] as {lastTransitionTime?: string}).lastTransitionTime = new Date(Date.parse(COLLECTED_AT) - 10_000).toISOString()
    assert.deepEqual(run(world({webPods: [fresh, webB()], webEndpoints: [WEB_EPS[1]!]})).findings, [])
    // A dual-stack pod behind an IPv4-only Service needs only its IPv4 endpoint.
    const dual = pod('shop', 'web-a', 'node-a', ['10.244.1.10', 'fd00:10:244:1::a'], {labels: WEB})
    assert.deepEqual(run(world({webPods: [dual, webB()]})).findings, [])
    const dualSvc = service('shop', 'web', '10.96.1.1', WEB, {ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack'})
    const f = run(world({webService: dualSvc, webPods: [dual, webB()]})).findings
    assert.deepEqual(brief(f, 'EP-002'), [
      ['node-a', 'warning', 'pod web-a (fd00:10:244:1::a) is Ready and selected by Service shop/web, but absent from every IPv6 EndpointSlice of the Service'],
    ])
  })
})

describe('which Services are judged', () => {
  it('Services without a selector, ExternalName Services and slices of other controllers are left alone', () => {
    const manual = service('shop', 'external-db', '10.96.2.2', undefined)
    const emptySel = service('default', 'kubernetes', '10.96.0.1', {})
    const extName: Service = {...service('shop', 'alias', '', WEB), spec: {type: 'ExternalName', externalName: 'db.example.com', selector: WEB}}
    const slices = [
      endpointSlice('shop', 'external-db', [{ip: '10.1.2.3', node: 'node-a'}], {managedBy: 'endpointslicemirroring-controller.k8s.io'}),
      endpointSlice('default', 'kubernetes', [{ip: '192.168.0.11', node: 'node-a'}]),
      endpointSlice('shop', 'web', [{ip: '10.244.1.77', node: 'node-a'}], {name: 'web-custom', managedBy: 'my-controller'}),
    ]
    assert.deepEqual(run(world({extraServices: [manual, emptySel, extName], extraSlices: slices})).findings, [])
  })

  it('each discrepancy is reported once across the fleet, on the node of the pod', () => {
    const out = run(world({webEndpoints: [{ip: '10.244.2.99', node: 'node-b', pod: 'web-old'}, WEB_EPS[0]!]}))
    assert.deepEqual(brief(out.findings, 'EP-001').map((x) => x[0]), ['node-b'])
    assert.deepEqual(brief(out.findings, 'EP-002').map((x) => x[0]), ['node-b'])
  })
})

describe('podHealthProblem', () => {
  it('judges readiness, recent restarts and restart storms without timestamps; not terminating pods', () => {
    assert.equal(podHealthProblem(corednsA(), COLLECTED_AT), undefined)
    assert.deepEqual(podHealthProblem(corednsA({phase: 'Pending', ready: false, waiting: 'ImagePullBackOff'}), COLLECTED_AT)?.summary, 'not ready (Pending, ImagePullBackOff)')
    assert.equal(podHealthProblem(corednsA({restarts: {count: 12}}), COLLECTED_AT)?.summary, 'restarting: 12 restarts (Error)')
    assert.equal(podHealthProblem(corednsA({restarts: {count: 3}}), COLLECTED_AT), undefined, 'a few restarts at an unknown time are history')
    assert.equal(podHealthProblem(corednsA({restarts: {count: 1, agoSeconds: 7200}}), COLLECTED_AT), undefined, 'older than an hour')
    assert.equal(podHealthProblem(corednsA({ready: false, terminating: true}), COLLECTED_AT), undefined)
  })
})
