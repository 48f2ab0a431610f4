// Packet-flow tables (kube-proxy's runPacketFlowTests style) over the expected rules of the proxier fixtures, traced
// as a node's iptables-save. IP plan: see flow.ts. Pod sources are node-a's pods (10.0.1.0/24) unless named.
import {describe, it} from 'node:test'
import {renderFixture, runPacketFlowTests} from './flow.js'

const POD = '10.0.1.254'
const THIRD = 1 / 3

describe('packet flow: ClusterIP', () => {
  const fx = renderFixture('clusterip')
  it('one endpoint, several endpoints with equal shares, host and outside sources', () => {
    runPacketFlowTests(fx, [
      {name: 'one endpoint', from: 'pod', src: POD, to: '172.30.0.11:8443', expect: {'10.0.2.20:8443': 1}, masq: false},
      {
        name: 'three endpoints, 1/3 each',
        from: 'pod',
        src: POD,
        to: '172.30.0.10:53/udp',
        expect: {'10.0.1.2:53': THIRD, '10.0.2.10:53': THIRD, '10.0.2.9:53': THIRD},
        masq: false,
      },
      {
        name: 'four endpoints, 1/4 each',
        from: 'pod',
        src: POD,
        to: '172.30.0.10:80',
        expect: {'10.0.1.2:8080': 0.25, '10.0.1.3:8080': 0.25, '10.0.2.10:8080': 0.25, '10.0.2.9:8080': 0.25},
        masq: false,
      },
      {name: 'pod with unknown address', from: 'pod', to: '172.30.0.11:8443', expect: {'10.0.2.20:8443': 1}, masq: false},
      {name: 'from the node: outside the cluster CIDR, masqueraded', from: 'host', to: '172.30.0.11:8443', expect: {'10.0.2.20:8443': 1}, masq: true},
      {name: 'from outside: masqueraded', from: 'external', src: '203.0.113.9', to: '172.30.0.11:8443', expect: {'10.0.2.20:8443': 1}, masq: true},
      {name: 'remote pod: not masqueraded', from: 'external', src: '10.0.2.77', to: '172.30.0.11:8443', expect: {'10.0.2.20:8443': 1}, masq: false},
      {name: 'port of no service', from: 'pod', src: POD, to: '172.30.0.11:80', expect: {'no-dnat': 1}, masq: false},
      {name: 'protocol of no service', from: 'pod', src: POD, to: '172.30.0.11:8443/udp', expect: {'no-dnat': 1}, masq: false},
      {name: 'ignored headless service IP', from: 'pod', src: POD, to: '172.30.0.12:80', expect: {'no-dnat': 1}, masq: false},
    ])
  })
})

describe('packet flow: no endpoints', () => {
  it('REJECT for the cluster IP, external IP, LB VIP and nodePort', () => {
    runPacketFlowTests(renderFixture('no-endpoints'), [
      {name: 'cluster IP, empty slice', from: 'pod', src: POD, to: '172.30.7.2:9000', expect: {REJECT: 1}, masq: false},
      {name: 'cluster IP, endpoint neither ready nor serving', from: 'pod', src: POD, to: '172.30.7.1:80', expect: {REJECT: 1}, masq: false},
      {name: 'nodePort', from: 'external', src: '203.0.113.9', to: '192.168.0.2:31700', expect: {REJECT: 1}, masq: false},
      {name: 'external IP', from: 'external', src: '203.0.113.9', to: '192.168.99.31:80', expect: {REJECT: 1}, masq: false},
      {name: 'LB VIP', from: 'external', src: '203.0.113.9', to: '1.2.3.7:80', expect: {REJECT: 1}, masq: false},
      {name: 'from the node', from: 'host', to: '172.30.7.2:9000', expect: {REJECT: 1}, masq: false},
    ])
  })
})

describe('packet flow: NodePort', () => {
  it('external traffic is masqueraded; localhost nodePorts; other nodes\' IPs are not nodePorts here', () => {
    runPacketFlowTests(renderFixture('nodeport'), [
      {name: 'from outside', from: 'external', src: '203.0.113.9', to: '192.168.0.2:30080', expect: {'10.0.1.5:8080': 0.5, '10.0.2.5:8080': 0.5}, masq: true},
      {name: 'UDP', from: 'external', to: '192.168.0.2:30090/udp', expect: {'10.0.1.5:9090': 0.5, '10.0.2.5:9090': 0.5}, masq: true},
      {name: 'to localhost from the node', from: 'host', to: '127.0.0.1:30080', expect: {'10.0.1.5:8080': 0.5, '10.0.2.5:8080': 0.5}, masq: true},
      {name: 'to the node IP from the node', from: 'host', to: '192.168.0.2:30080', expect: {'10.0.1.5:8080': 0.5, '10.0.2.5:8080': 0.5}, masq: true},
      {name: 'from a pod', from: 'pod', src: POD, to: '192.168.0.2:30080', expect: {'10.0.1.5:8080': 0.5, '10.0.2.5:8080': 0.5}, masq: true},
      {name: 'no endpoints', from: 'external', to: '192.168.0.2:30081', expect: {REJECT: 1}, masq: false},
      {name: 'another node\'s IP is not local', from: 'external', to: '192.168.0.3:30080', expect: {'no-dnat': 1}, masq: false},
    ])
  })

  it('with localhostNodePorts off, 127.0.0.1 is not a nodePort address', () => {
    runPacketFlowTests(renderFixture('localhost-nodeports-off'), [
      {name: 'localhost', from: 'host', to: '127.0.0.1:30201', expect: {'no-dnat': 1}, masq: false},
      {name: 'node IP', from: 'host', to: '192.168.0.2:30201', expect: {'10.0.2.81:8080': 1}, masq: true},
    ])
  })
})

describe('packet flow: LoadBalancer', () => {
  it('source ranges allow, drop; nodePorts ignore them; an LB without ranges is open', () => {
    runPacketFlowTests(renderFixture('loadbalancer'), [
      {name: 'allowed range', from: 'external', src: '203.0.113.5', to: '1.2.3.4:80', expect: {'10.0.2.8:80': 1}, masq: true},
      {name: 'second VIP, allowed', from: 'external', src: '203.0.113.5', to: '5.6.7.8:80', expect: {'10.0.2.8:80': 1}, masq: true},
      {name: 'outside the ranges', from: 'external', src: '203.0.113.200', to: '1.2.3.4:80', expect: {DROP: 1}, masq: false},
      {name: 'unknown outside client', from: 'external', to: '1.2.3.4:80', expect: {DROP: 1}, masq: false},
      {name: 'the node itself (its IP is in a range)', from: 'host', to: '1.2.3.4:80', expect: {'10.0.2.8:80': 1}, masq: true},
      {name: 'nodePort is not filtered by source ranges', from: 'external', src: '198.51.100.1', to: '192.168.0.2:31080', expect: {'10.0.2.8:80': 1}, masq: true},
      {name: 'LB without source ranges', from: 'external', src: '198.51.100.1', to: '1.2.3.5:80', expect: {'10.0.2.9:80': 1}, masq: true},
      {name: 'LB without endpoints', from: 'external', src: '203.0.113.5', to: '1.2.3.6:80', expect: {REJECT: 1}, masq: false},
      {name: 'ipMode Proxy VIP is not programmed', from: 'external', src: '203.0.113.5', to: '9.10.11.12:80', expect: {'no-dnat': 1}, masq: false},
    ])
  })
})

describe('packet flow: externalTrafficPolicy Local', () => {
  it('local endpoints only, DROP without them, pod and host short-circuits', () => {
    runPacketFlowTests(renderFixture('etp-local'), [
      {name: 'LB VIP, local endpoint, source kept', from: 'external', src: '203.0.113.5', to: '1.2.3.4:80', expect: {'10.0.1.10:8080': 1}, masq: false},
      {name: 'external IP, local endpoint', from: 'external', to: '192.168.99.21:80', expect: {'10.0.1.10:8080': 1}, masq: false},
      {name: 'nodePort, local endpoint', from: 'external', to: '192.168.0.2:31001', expect: {'10.0.1.10:8080': 1}, masq: false},
      {name: 'LB VIP, no local endpoint', from: 'external', src: '203.0.113.5', to: '5.6.7.8:80', expect: {DROP: 1}, masq: false},
      {name: 'external IP, no local endpoint', from: 'external', to: '192.168.99.22:80', expect: {DROP: 1}, masq: false},
      {name: 'nodePort, no local endpoint', from: 'external', to: '192.168.0.2:31002', expect: {DROP: 1}, masq: false},
      {name: 'pod to VIP: short-circuit to all endpoints', from: 'pod', src: POD, to: '1.2.3.4:80', expect: {'10.0.1.10:8080': 0.5, '10.0.2.10:8080': 0.5}, masq: false},
      {name: 'pod to VIP without local endpoint still works', from: 'pod', src: POD, to: '5.6.7.8:80', expect: {'10.0.2.11:8080': 1}, masq: false},
      {name: 'host to nodePort without local endpoint', from: 'host', to: '192.168.0.2:31002', expect: {'10.0.2.11:8080': 1}, masq: true},
      {name: 'health check nodePort is accepted, not DNATed', from: 'external', to: '192.168.0.2:32000', expect: {'no-dnat': 1}, masq: false},
    ])
  })
})

describe('packet flow: internalTrafficPolicy Local', () => {
  it('cluster IP to local endpoints only; DROP without; nodePort uses all endpoints', () => {
    runPacketFlowTests(renderFixture('itp-local'), [
      {name: 'local endpoint', from: 'pod', src: POD, to: '172.30.5.1:53/udp', expect: {'10.0.1.20:53': 1}, masq: false},
      {name: 'no local endpoint', from: 'pod', src: POD, to: '172.30.5.2:53/udp', expect: {DROP: 1}, masq: false},
      {name: 'cluster IP of a NodePort service', from: 'pod', src: POD, to: '172.30.5.3:80', expect: {'10.0.1.22:80': 1}, masq: false},
      {name: 'its nodePort', from: 'external', to: '192.168.0.2:31500', expect: {'10.0.1.22:80': 0.5, '10.0.2.22:80': 0.5}, masq: true},
      {name: 'from the node', from: 'host', to: '172.30.5.1:53/udp', expect: {'10.0.1.20:53': 1}, masq: true},
    ])
  })
})

describe('packet flow: externalIPs', () => {
  it('DNAT with masquerade, REJECT without endpoints, other ports untouched', () => {
    runPacketFlowTests(renderFixture('externalips'), [
      {name: 'from outside', from: 'external', src: '203.0.113.9', to: '192.168.99.11:443', expect: {'10.0.2.7:8443': 1}, masq: true},
      {name: 'from a pod: eTP Cluster masquerades all', from: 'pod', src: POD, to: '192.168.99.12:443', expect: {'10.0.2.7:8443': 1}, masq: true},
      {name: 'no endpoints', from: 'external', to: '192.168.99.13:443', expect: {REJECT: 1}, masq: false},
      {name: 'other port', from: 'external', to: '192.168.99.11:80', expect: {'no-dnat': 1}, masq: false},
    ])
  })
})

describe('packet flow: session affinity', () => {
  it('a first packet has no affinity entry and is load-balanced', () => {
    runPacketFlowTests(renderFixture('session-affinity'), [
      {name: 'ClientIP', from: 'pod', src: POD, to: '172.30.6.1:80', expect: {'10.0.1.30:8080': THIRD, '10.0.2.30:8080': THIRD, '10.0.2.31:8080': THIRD}, masq: false},
      {name: 'ClientIP + eTP Local nodePort', from: 'external', to: '192.168.0.2:31600', expect: {'10.0.1.32:8080': 1}, masq: false},
      {name: 'ClientIP + eTP Local cluster IP', from: 'pod', src: POD, to: '172.30.6.2:80', expect: {'10.0.1.32:8080': 0.5, '10.0.2.32:8080': 0.5}, masq: false},
    ])
  })
})

describe('packet flow: IPv6', () => {
  it('[ip6]:port endpoints, nodePorts, no localhost nodePorts, LB source ranges', () => {
    runPacketFlowTests(renderFixture('ipv6', 'ipv6'), [
      {
        name: 'cluster IP',
        from: 'pod',
        src: 'fd00:10:0:1::fe',
        to: '[fd00:172:30::a01]:80',
        expect: {'[fd00:10:0:1::70]:8080': THIRD, '[fd00:10:0:2::70]:8080': THIRD, '[fd00:10:0:2::71]:8080': THIRD},
        masq: false,
      },
      {
        name: 'nodePort from outside',
        from: 'external',
        to: '[2001:db8::2]:32080',
        expect: {'[fd00:10:0:1::70]:8080': THIRD, '[fd00:10:0:2::70]:8080': THIRD, '[fd00:10:0:2::71]:8080': THIRD},
        masq: true,
      },
      {name: '::1 is never a nodePort address', from: 'host', to: '[::1]:32080', expect: {'no-dnat': 1}, masq: false},
      {name: 'LB VIP, allowed range, eTP Local', from: 'external', src: '2001:db8::99', to: '[2600:1::10]:443', expect: {'[fd00:10:0:1::72]:8443': 1}, masq: false},
      {name: 'LB VIP, outside the ranges', from: 'external', src: '2001:db9::1', to: '[2600:1::10]:443', expect: {DROP: 1}, masq: false},
    ])
  })
})

describe('packet flow: interface-based local detection', () => {
  for (const [kase, iface] of [['detect-local-bridge', 'cbr0'], ['detect-local-interface-prefix', 'veth+']] as const) {
    it(`${kase}: local pods arrive on ${iface}, remote pods and outside clients do not`, () => {
      runPacketFlowTests(renderFixture(kase), [
        {name: 'local pod to cluster IP', from: 'pod', src: POD, to: '172.30.11.2:80', expect: {'10.0.2.81:8080': 1}, masq: false},
        {name: 'remote pod to cluster IP', from: 'external', src: '10.0.2.7', to: '172.30.11.2:80', expect: {'10.0.2.81:8080': 1}, masq: true},
        {name: 'local pod short-circuits the eTP Local VIP', from: 'pod', src: POD, to: '1.2.3.10:80', expect: {'10.0.1.80:8080': 0.5, '10.0.2.80:8080': 0.5}, masq: false},
        {name: 'outside client to the eTP Local VIP', from: 'external', src: '203.0.113.9', to: '1.2.3.10:80', expect: {'10.0.1.80:8080': 1}, masq: false},
      ])
    })
  }
})
