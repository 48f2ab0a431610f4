// Per-endpoint verdicts on the Calico plan of calico-plan.ts: kube-proxy's rules plus Calico's workload chains on
// node-a, the node's real route captures (test/fixtures/checks/routes/<scenario>/nodes/node-a/ip-route.txt), a
// trace from shop/api-a to kube-dns 10.96.0.10:53/udp.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import type {Pod} from '../../../../src/core/model/k8s.js'
import {parseIptablesSave} from '../../../../src/core/iptables/save.js'
import {parseRoutes} from '../../../../src/core/parse/routes.js'
import {serviceEndpoints} from '../../../../src/core/trace/destination.js'
import {traceIptables} from '../../../../src/core/trace/iptables-trace.js'
import {indexRoutes} from '../../../../src/core/trace/route-lookup.js'
import {traceSetup} from '../../../../src/core/trace/setup.js'
import {endpointVerdicts, routeHop, type VerdictSummary} from '../../../../src/core/trace/verdict.js'
import {readFixture} from '../../../support/golden.js'
import {calicoFilterRestore, calicoTraceObjects, kubeProxyRules, mergeSave, WORKLOADS} from './calico-plan.js'
import {renderFixture} from './flow.js'

const BLOCKS = [
  {cidr: '10.244.1.0/26', node: 'node-a'},
  {cidr: '10.244.2.0/26', node: 'node-b'},
]
const NODE_ADDRESSES = new Map([
  ['node-a', ['192.168.0.11']],
  ['node-b', ['192.168.0.12']],
])

function verdicts(scenario: string, from = 'pod/shop/api-a', alterDump: (save: string) => string = (s) => s): VerdictSummary & {origin: string} {
  const objects = calicoTraceObjects()
  const {render, save} = kubeProxyRules(objects, 'node-a')
  const dump = parseIptablesSave(alterDump(mergeSave(save, calicoFilterRestore(Object.keys(WORKLOADS)))))
  const routes = indexRoutes(parseRoutes(readFixture(`checks/routes/${scenario}/nodes/node-a/ip-route.txt`)).routes)
  const pods = objects.filter((o): o is Pod => o.kind === 'Pod')
  const setup = traceSetup(render, from, {protocol: 'udp', dst: '10.96.0.10', dport: 53}, 'ipv4', {cluster: {pods, blocks: BLOCKS}, routes})
  assert.ok(!('error' in setup), JSON.stringify(setup))
  const actual = traceIptables(dump, setup.packet, setup.node)
  const expected = traceIptables(parseIptablesSave(save), setup.packet, setup.node)
  const target = {namespace: 'kube-system', name: 'kube-dns', portName: 'dns', port: 53, protocol: 'udp' as const, via: 'cluster IP' as const}
  const endpoints = serviceEndpoints(render.input.endpointSlices, target, 'ipv4')
  return {...endpointVerdicts({node: 'node-a', family: 'ipv4', actual, expected, endpoints, routes, blocks: BLOCKS, nodeAddresses: NODE_ADDRESSES}), origin: setup.origin}
}

const table = (v: VerdictSummary) => v.endpoints.map((e) => [e.endpoint, e.verdict, e.failsAt ?? '', e.route?.kind ?? ''])

describe('endpointVerdicts', () => {
  it('clean node: the pod arrives on its cali interface, Calico accepts it; local veth and IPIP tunnel both work', () => {
    const v = verdicts('healthy-ipip')
    assert.match(v.origin, /through its interface cali2222222222b/)
    assert.equal(v.verdict, 'works')
    assert.deepEqual([v.working, v.total], [2, 2])
    assert.deepEqual(table(v), [
      ['10.244.1.5:53', 'works', '', 'local-pod'],
      ['10.244.2.10:53', 'works', '', 'tunnel'],
      ['10.244.2.11:53', 'not ready', 'not ready', ''],
    ])
    assert.equal(v.endpoints[1]!.route!.detail, "tunnel tunl0 to node-b's block 10.244.2.0/26 (10.244.2.0/26 via 192.168.0.12 dev tunl0)")
  })

  it('a missing block route: the endpoint behind it fails at route, naming the block and the route that matched', () => {
    const v = verdicts('missing-route')
    assert.equal(v.verdict, 'partly broken')
    assert.deepEqual(table(v)[1], ['10.244.2.10:53', 'fails', 'route', 'none'])
    assert.equal(v.endpoints[1]!.reason, "no route to node-b's block 10.244.2.0/26: only default via 192.168.0.1 dev eth0 matches")
  })

  it('a local endpoint without its pod route hits the block blackhole; a remote one via the wrong node is named', () => {
    const routes = indexRoutes(parseRoutes(readFixture('checks/routes/pod-route-missing/nodes/node-a/ip-route.txt')).routes)
    const input = {node: 'node-a', family: 'ipv4' as const, blocks: BLOCKS, nodeAddresses: NODE_ADDRESSES}
    const hop = routeHop(input, '10.244.1.6', 'node-a', routes.lookup('10.244.1.6'))
    assert.deepEqual([hop.kind, hop.ok, hop.route], ['reject', false, 'blackhole 10.244.1.0/26'])
    assert.match(hop.detail, /the pod's own route through its interface is missing; only node-a's block 10\.244\.1\.0\/26 blackhole matches/)
    const wrong = routeHop(input, '10.244.2.10', 'node-b', indexRoutes(parseRoutes('10.244.2.0/26 via 192.168.0.11 dev eth0\n').routes).lookup('10.244.2.10'))
    assert.deepEqual([wrong.kind, wrong.ok], ['wrong', false])
    assert.equal(wrong.detail, '10.244.2.0/26 via 192.168.0.11 dev eth0 goes to node-a, but 10.244.2.10 is on node-b')
  })

  it('an unknown interface ends in Calico\'s DROP: every endpoint fails at rule, naming the rule', () => {
    // The dispatch rule for api-a's interface is gone (as when Felix has not programmed the workload yet).
    const v = verdicts('healthy-ipip', 'pod/shop/api-a', (s) => s.split('\n').filter((l) => !l.includes('-i cali2222222222b')).join('\n'))
    assert.equal(v.verdict, 'broken')
    assert.deepEqual(table(v).map((r) => r.slice(0, 3)), [
      ['10.244.1.5:53', 'fails', 'rule'],
      ['10.244.2.10:53', 'fails', 'rule'],
      ['10.244.2.11:53', 'not ready', 'not ready'],
    ])
    assert.match(v.endpoints[0]!.reason!, /^dropped by filter cali-from-wl-dispatch #\d+: .*"Unknown interface" -j DROP$/)
  })

  it('a deleted endpoint chain: that endpoint fails at rule (kube-proxy would send it 50%)', () => {
    const v = verdicts('healthy-ipip', 'pod/shop/api-a', (s) => {
      const sep = /-A KUBE-SVC-\S+ .*"kube-system\/kube-dns:dns -> 10\.244\.2\.10:53".* -j (KUBE-SEP-\S+)/.exec(s)![1]!
      return s.split('\n').filter((l) => !l.includes(sep)).join('\n')
    })
    assert.deepEqual(table(v)[1]!.slice(0, 3), ['10.244.2.10:53', 'fails', 'rule'])
    assert.equal(v.endpoints[1]!.reason, "no rule on node-a sends connections there (kube-proxy's rules would send 50.0%)")
  })

  it('a Service without ready endpoints is broken, naming kube-proxy\'s REJECT; connections left without DNAT fail at rule', () => {
    const trace = (kase: string, to: {dst: string; dport: number}, alter: (s: string) => string = (x) => x) => {
      const fx = renderFixture(kase)
      const packet = {protocol: 'tcp' as const, ...to, from: 'pod' as const, src: '10.0.1.7', srcIsLocalPod: true}
      const actual = traceIptables(parseIptablesSave(alter(fx.save)), packet, fx.node)
      const expected = traceIptables(fx.dump, packet, fx.node)
      return {fx, actual, expected}
    }
    const down = trace('no-endpoints', {dst: '172.30.7.1', dport: 80})
    const target = {namespace: 'default', name: 'down', portName: 'http', port: 80, protocol: 'tcp' as const, via: 'cluster IP' as const}
    const endpoints = serviceEndpoints(down.fx.render.input.endpointSlices, target, 'ipv4')
    const v = endpointVerdicts({node: 'node-a', family: 'ipv4', actual: down.actual, expected: down.expected, endpoints, service: true, blocks: [], nodeAddresses: new Map()})
    assert.equal(v.verdict, 'broken')
    assert.deepEqual(table(v), [['10.0.1.40:80', 'not ready', 'not ready', '']])
    assert.match(v.blockedBy!, /^rejected by filter KUBE-SERVICES #\d+: -d 172\.30\.7\.1\/32 .*has no endpoints.* -j REJECT --reject-with icmp-port-unreachable$/)
    // The only endpoint chain of default/single is gone: its connections keep the cluster IP.
    const lost = trace('clusterip', {dst: '172.30.0.11', dport: 8443}, (s) => s.split('\n').filter((l) => !l.includes('KUBE-SEP-P44U3WCJKUTY2VJC')).join('\n'))
    const single = {namespace: 'default', name: 'single', portName: '', port: 8443, protocol: 'tcp' as const, via: 'cluster IP' as const}
    const w = endpointVerdicts({node: 'node-a', family: 'ipv4', actual: lost.actual, expected: lost.expected, endpoints: serviceEndpoints(lost.fx.render.input.endpointSlices, single, 'ipv4'), service: true, blocks: [], nodeAddresses: new Map()})
    assert.equal(w.verdict, 'broken')
    assert.deepEqual(table(w).map((r) => r.slice(0, 3)), [
      ['10.0.2.20:8443', 'fails', 'rule'],
      ['no-dnat', 'fails', 'rule'],
    ])
    assert.equal(w.endpoints[1]!.reason, '100.0% of connections are not DNATed: they keep the Service address 172.30.0.11, which no endpoint holds')
  })

  it('a DROP reached only because an ipset match could not be evaluated is unknown, not a failure', () => {
    // The profile's accept rule now matches an ipset of allowed sources: the walk cannot evaluate -m set.
    const withSet = (save: string) => save.replace('"cali:pro-accept" -j MARK', '"cali:pro-accept" -m set --match-set cali40s:allowed src -j MARK')
    const v = verdicts('healthy-ipip', 'pod/shop/api-a', withSet)
    assert.equal(v.verdict, 'unknown')
    assert.deepEqual(table(v).map((r) => r.slice(0, 3)), [
      ['10.244.1.5:53', 'unknown', 'rule'],
      ['10.244.2.10:53', 'unknown', 'rule'],
      ['10.244.2.11:53', 'not ready', 'not ready'],
    ])
    assert.match(v.endpoints[0]!.reason!, /^dropped by filter cali-fw-cali2222222222b #6: .*"Drop if no profiles matched" -j DROP; but a rule match could not be evaluated \(unknown match -m set \(in filter cali-pro-kns\.default\) is treated as not matching\), so a rule before it may accept the packet$/)
  })
})
