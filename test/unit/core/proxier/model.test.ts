// The model kube-proxy builds before writing rules: IP text, service ports per family, endpoints per service port,
// and endpoint categorisation (pkg/proxy/serviceport.go, endpointslicecache.go, topology.go).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {featureGatesFor, type KubeProxyVersion} from '../../../../src/core/proxier/config.js'
import {buildEndpointsMap, type EndpointInfo} from '../../../../src/core/proxier/endpoints.js'
import {cidrContains, formatIP, parseCIDRSloppy, parseIPSloppy} from '../../../../src/core/net/ip.js'
import {buildServicePorts, clusterIPForFamily, type ServicePortInfo} from '../../../../src/core/proxier/service-ports.js'
import {categorizeEndpoints} from '../../../../src/core/proxier/topology.js'
import {makeService, makeSlice} from './helpers.js'

const V = (minor: number): KubeProxyVersion => ({major: 1, minor})
const gates = (minor: number) => featureGatesFor(V(minor))

describe('IP text (Go net.IP semantics)', () => {
  it('parses sloppily and prints canonically', () => {
    assert.equal(parseIPSloppy('010.180.00.001')!.text, '10.180.0.1')
    assert.equal(parseIPSloppy('FD00:0:0:0:0:0:0:1')!.text, 'fd00::1')
    assert.equal(parseIPSloppy('2001:db8:0:0:1:0:0:1')!.text, '2001:db8::1:0:0:1')
    assert.deepEqual(parseIPSloppy('::ffff:10.0.0.1'), {family: 'ipv4', bytes: [10, 0, 0, 1], text: '10.0.0.1'})
    assert.equal(parseIPSloppy('::10.0.0.1')!.text, '::a00:1')
    for (const bad of ['256.0.0.1', '1.2.3', 'fe80::1%eth0', 'host.example', '']) assert.equal(parseIPSloppy(bad), undefined, bad)
    assert.equal(parseCIDRSloppy(' 10.0.0.0/8'), undefined)
    assert.equal(parseCIDRSloppy('10.1.2.3/8')!.text, '10.0.0.0/8')
    assert.equal(parseCIDRSloppy('fd00:10::1/48')!.text, 'fd00:10::/48')
    assert.ok(cidrContains(parseCIDRSloppy('192.168.0.0/24')!, parseIPSloppy('192.168.0.2')!))
    assert.ok(!cidrContains(parseCIDRSloppy('::/0')!, parseIPSloppy('192.168.0.2')!))
  })

  it('canonical text is a fixed point', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (s) => {
        const p = parseIPSloppy(s)
        assert.ok(p, s)
        assert.equal(parseIPSloppy(p.text)!.text, p.text)
        assert.equal(formatIP(p.bytes), p.text)
      }),
    )
  })
})

describe('service ports', () => {
  const lb = makeService('ns', 'lb', {
    type: 'LoadBalancer',
    externalTrafficPolicy: 'Local',
    healthCheckNodePort: 30000,
    ipFamilies: ['IPv6', 'IPv4'],
    clusterIPs: ['fd00::1', '172.30.0.1'],
    clusterIP: 'fd00::1',
    externalIPs: ['192.168.99.011', 'fd00:99::1'],
    loadBalancerSourceRanges: ['203.0.113.7/25 ', 'fd00::/8', 'bogus'],
    ports: [{name: 'a', port: 80}, {name: 'b', port: 53, protocol: 'UDP', nodePort: 30053}],
  }, [{ip: '1.2.3.4', ipMode: 'Proxy'}, {ip: '5.6.7.8'}, {hostname: 'x'}])

  it('picks the cluster IP of the family by ipFamilies index', () => {
    assert.equal(clusterIPForFamily(lb, 'ipv4'), '172.30.0.1')
    assert.equal(clusterIPForFamily(lb, 'ipv6'), 'fd00::1')
    assert.equal(clusterIPForFamily(makeService('n', 's', {clusterIP: '10.0.0.1'}), 'ipv6'), '')
  })

  it('filters external IPs, VIPs and ranges to the family; ipMode Proxy skipped from v1.30; canonical text from v1.29', () => {
    const at = (minor: number): ServicePortInfo => buildServicePorts([lb], {family: 'ipv4', version: V(minor), featureGates: gates(minor)})[0]!
    assert.deepEqual(at(30).externalIPs, ['192.168.99.11'])
    assert.deepEqual(at(28).externalIPs, ['192.168.99.011'])
    assert.deepEqual(at(30).loadBalancerVIPs, ['5.6.7.8'])
    assert.deepEqual(at(29).loadBalancerVIPs, ['1.2.3.4', '5.6.7.8'])
    assert.deepEqual(at(30).loadBalancerSourceRanges.map((r) => r.text), ['203.0.113.0/25'])
    assert.deepEqual(at(28).loadBalancerSourceRanges.map((r) => r.text), ['203.0.113.7/25'])
    assert.equal(at(30).healthCheckNodePort, 30000)
    assert.equal(at(30).name, 'ns/lb:a')
    assert.equal(at(30).protocol, 'TCP')
  })

  it('counts eTP Local only for externally accessible types, HC only for LoadBalancers', () => {
    const np = makeService('n', 'np', {type: 'NodePort', clusterIP: '10.0.0.2', externalTrafficPolicy: 'Local', healthCheckNodePort: 30001, ports: [{port: 80, nodePort: 30080}]})
    const plain = makeService('n', 'plain', {clusterIP: '10.0.0.3', externalTrafficPolicy: 'Local', externalIPs: ['192.168.99.1'], ports: [{port: 80}]})
    const [npInfo, plainInfo] = buildServicePorts([np, plain], {family: 'ipv4', version: V(35), featureGates: gates(35)})
    assert.deepEqual([npInfo!.externalPolicyLocal, npInfo!.healthCheckNodePort], [true, 0])
    // An empty type never counts as externally accessible (makeTestService leaves it empty).
    assert.equal(plainInfo!.externalPolicyLocal, false)
  })
})

describe('endpoints', () => {
  const opts = {family: 'ipv4' as const, version: V(35), nodeName: 'node-a', featureGates: gates(35)}

  it('merges slices, keeps the local copy of a duplicate, sorts by endpoint string', () => {
    const map = buildEndpointsMap([
      makeSlice('ns', 'svc', [{addresses: ['10.0.0.10']}, {addresses: ['10.0.0.9'], conditions: {ready: false}}], [{name: 'p', port: 80, protocol: 'TCP'}]),
      makeSlice('ns', 'svc', [{addresses: ['10.0.0.9'], nodeName: 'node-a'}, {addresses: ['fd00::1']}], [{name: 'p', port: 80, protocol: 'TCP'}], 'IPv4', 2),
    ], opts)
    const eps = map.get('ns/svc:p/TCP')!
    assert.deepEqual(eps.map((e) => [e.endpoint, e.isLocal, e.ready]), [['10.0.0.10:80', false, true], ['10.0.0.9:80', true, true]])
  })

  it('ignores nil port names, port 0, and excluded or unlabelled slices; matches by name and protocol', () => {
    const slices = [
      makeSlice('ns', 'svc', [{addresses: ['10.0.0.1']}], [{port: 80}, {name: 'z', port: 0}, {name: 'u', port: 53, protocol: 'UDP'}]),
      {...makeSlice('ns', 'svc', [{addresses: ['10.0.0.2']}], [{name: 'u', port: 53, protocol: 'UDP'}], 'IPv4', 2), metadata: {namespace: 'ns', name: 'x', labels: {'kubernetes.io/service-name': 'svc', 'service.kubernetes.io/headless': ''}}},
    ]
    const map = buildEndpointsMap(slices, opts)
    assert.deepEqual([...map.keys()], ['ns/svc:u/UDP'])
    assert.deepEqual(map.get('ns/svc:u/UDP')!.map((e) => e.endpoint), ['10.0.0.1:53'])
  })

  it('brackets IPv6 endpoints and reads hints only when their gates are on', () => {
    const slice = makeSlice('ns', 'svc', [{addresses: ['FD00::0:1'], hints: {forZones: [{name: 'z1'}], forNodes: [{name: 'node-a'}]}}], [{name: '', port: 80, protocol: 'TCP'}], 'IPv6')
    const v6 = buildEndpointsMap([slice], {...opts, family: 'ipv6'}).get('ns/svc/TCP')![0]!
    assert.equal(v6.endpoint, '[fd00::1]:80')
    assert.deepEqual([...v6.zoneHints!], ['z1'])
    assert.deepEqual([...v6.nodeHints!], ['node-a'])
    const old = buildEndpointsMap([slice], {...opts, family: 'ipv6', version: V(33), featureGates: gates(33)}).get('ns/svc/TCP')![0]!
    assert.equal(old.nodeHints, undefined)
  })
})

describe('categorizeEndpoints', () => {
  const sp = (over: Partial<ServicePortInfo> = {}): ServicePortInfo => ({
    key: 'ns/s:p/TCP', name: 'ns/s:p', namespace: 'ns', serviceName: 's', portName: 'p', protocol: 'TCP', clusterIP: '172.30.0.1', port: 80, nodePort: 0,
    externalIPs: [], loadBalancerVIPs: [], loadBalancerSourceRanges: [], sessionAffinityClientIP: false, stickyMaxAgeSeconds: 0, healthCheckNodePort: 0,
    externalPolicyLocal: false, internalPolicyLocal: false, hintsAnnotation: '', ...over,
  })
  const ep = (ip: string, over: Partial<EndpointInfo> = {}): EndpointInfo => ({ip, port: 80, endpoint: `${ip}:80`, isLocal: false, ready: true, serving: true, terminating: false, ...over})
  const ctx = (minor: number, zone = 'z1') => ({nodeName: 'node-a', zone, featureGates: gates(minor)})
  const ips = (l: EndpointInfo[]) => l.map((e) => e.ip)

  it('uses zone hints from v1.31 without the annotation, before only with it', () => {
    const eps = [ep('10.0.0.1', {zoneHints: new Set(['z1'])}), ep('10.0.0.2', {zoneHints: new Set(['z2'])}), ep('10.0.0.3', {ready: false})]
    assert.deepEqual(ips(categorizeEndpoints(eps, sp(), ctx(31)).clusterEndpoints), ['10.0.0.1'])
    assert.deepEqual(ips(categorizeEndpoints(eps, sp(), ctx(30)).clusterEndpoints), ['10.0.0.1', '10.0.0.2'])
    assert.deepEqual(ips(categorizeEndpoints(eps, sp({hintsAnnotation: 'Auto'}), ctx(30)).clusterEndpoints), ['10.0.0.1'])
    assert.deepEqual(ips(categorizeEndpoints(eps, sp({hintsAnnotation: 'Disabled'}), ctx(30)).clusterEndpoints), ['10.0.0.1', '10.0.0.2'])
    // A node without a zone label, or no hint for its zone: no topology.
    assert.deepEqual(ips(categorizeEndpoints(eps, sp(), ctx(35, '')).clusterEndpoints), ['10.0.0.1', '10.0.0.2'])
    assert.deepEqual(ips(categorizeEndpoints(eps, sp(), ctx(35, 'z9')).clusterEndpoints), ['10.0.0.1', '10.0.0.2'])
  })

  it('prefers node hints from v1.34', () => {
    const eps = [ep('10.0.0.1', {zoneHints: new Set(['z1']), nodeHints: new Set(['node-x'])}), ep('10.0.0.2', {zoneHints: new Set(['z1']), nodeHints: new Set(['node-a'])})]
    assert.equal(categorizeEndpoints(eps, sp(), ctx(34)).topologyMode, 'PreferSameNode')
    assert.deepEqual(ips(categorizeEndpoints(eps, sp(), ctx(34)).clusterEndpoints), ['10.0.0.2'])
    assert.equal(categorizeEndpoints(eps, sp(), ctx(33)).topologyMode, 'PreferSameZone')
  })

  it('falls back to serving+terminating separately for cluster and local, and unions reachable endpoints', () => {
    const eps = [ep('10.0.0.1', {isLocal: true, ready: false, terminating: true}), ep('10.0.0.2'), ep('10.0.0.3', {ready: false, serving: false, terminating: true})]
    const c = categorizeEndpoints(eps, sp({externalPolicyLocal: true, nodePort: 30000}), ctx(35))
    assert.deepEqual([ips(c.clusterEndpoints), ips(c.localEndpoints), ips(c.allReachableEndpoints), c.hasAnyEndpoints, c.localUsesTerminating], [['10.0.0.2'], ['10.0.0.1'], ['10.0.0.1', '10.0.0.2'], true, true])
    const none = categorizeEndpoints([ep('10.0.0.3', {ready: false, serving: false})], sp(), ctx(35))
    assert.deepEqual([none.clusterEndpoints.length, none.hasAnyEndpoints], [0, false])
    const itpOnlyRemote = categorizeEndpoints([ep('10.0.0.2')], sp({internalPolicyLocal: true}), ctx(35))
    assert.deepEqual([itpOnlyRemote.clusterEndpoints.length, itpOnlyRemote.localEndpoints.length, itpOnlyRemote.hasAnyEndpoints], [0, 0, true])
  })
})
