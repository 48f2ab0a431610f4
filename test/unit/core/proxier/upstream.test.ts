// Reproductions of kube-proxy's own tests (kubernetes/kubernetes pkg/proxy/iptables/proxier_test.go @531be812,
// the v1.34/v1.35 line), run through the embedded proxier with NewFakeProxier's settings (see helpers.ts).
// Whole-dump tests compare after kube-proxy's sortIPTablesRules; packet-flow tests use a port of tracePacket.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {readFixture} from '../../../support/golden.js'
import {featureGatesFor, parseKubeProxyVersion, type ProxierOptions} from '../../../../src/core/proxier/config.js'
import {serializeSave} from '../../../../src/core/proxier/iptables/save.js'
import {rulesByChain, restoreRuleLine} from '../../../../src/core/proxier/iptables/ruleset.js'
import {
  checkRuleJumps,
  fakeProxierOptions,
  generate,
  generateFromFixture,
  makeService,
  makeSlice,
  packetFlowFailures,
  type PacketFlowTest,
  sortIPTablesRules,
  TEST_EXTERNAL_CLIENT,
  TEST_EXTERNAL_CLIENT_BLOCKED,
  TEST_NODE_IP,
  TEST_NODE_IP_ALT,
  TEST_NODE_IPV6,
  TEST_NODE_IPV6_ALT,
  TEST_NODE_NAME,
} from './helpers.js'

function chainLines(text: string, table: 'filter' | 'nat', chain: string): string[] {
  let inTable = false
  const out: string[] = []
  for (const line of text.split('\n')) {
    if (line.startsWith('*')) inTable = line === `*${table}`
    else if (inTable && line.startsWith(`-A ${chain} `)) out.push(line)
  }
  return out
}

describe('kube-proxy whole-dump tests', () => {
  const cases: Array<[string, string, Partial<ProxierOptions>]> = [
    ['TestOverallIPTablesRules', 'upstream-overall', {}],
    ['TestBadIPs', 'upstream-bad-ips', {}],
    ['TestSyncProxyRulesRepeated (initial full sync)', 'upstream-sync-repeated', {}],
    [
      'TestSyncProxyRulesRepeated (final full resync deletes stale chains)',
      'upstream-sync-repeated-final',
      {existingNatChains: ['KUBE-SEP-AYCN5HPXMIRJNJXU', 'KUBE-SEP-DKCFIS26GWF2WLWC', 'KUBE-SEP-JVVZVJ7BSEPPRNBS', 'KUBE-SEP-SNQ3ZNILQDEJNDQO', 'KUBE-SVC-4SW47YFZTEDKD3PK', 'KUBE-SVC-X27LE4BHSL4DOUIK', 'KUBE-SVC-XPGD46QRK7WJZT7O', 'KUBE-MARK-MASQ', 'KUBE-SERVICES']},
    ],
  ]
  // The v1.28-era test (danwinship/kubernetes rules_test.go @07fb8ceb): no nfacct matches even though the fake's
  // counters exist, since v1.28 predates them.
  cases.push(['TestOverallIPTablesRulesWithMultipleServices (v1.28)', 'upstream-v1.28-overall', {version: {major: 1, minor: 28}, featureGates: featureGatesFor({major: 1, minor: 28})}])
  for (const [name, fixture, extra] of cases) {
    it(name, () => {
      const out = generateFromFixture(`proxier/iptables/${fixture}/objects.yaml`, fakeProxierOptions('ipv4', extra))
      assert.equal(sortIPTablesRules(out.text), readFixture(`proxier/iptables/${fixture}/upstream-expected.txt`))
      assert.deepEqual(checkRuleJumps(out.text), [])
    })
  }

  // v1.36 and v1.37 changed no iptables rule (docs/research/kube-proxy-v1.36-v1.37.md §7: release notes of v1.36.0,
  // v1.37.0-alpha.1 and v1.38.0-alpha.1, PR searches): the same upstream expectations hold for each of them.
  for (const minor of [35, 36, 37]) {
    it(`TestOverallIPTablesRules and TestBadIPs at v1.${minor}`, () => {
      for (const fixture of ['upstream-overall', 'upstream-bad-ips']) {
        const version = {major: 1, minor}
        const out = generateFromFixture(`proxier/iptables/${fixture}/objects.yaml`, fakeProxierOptions('ipv4', {version, featureGates: featureGatesFor(version)}))
        assert.equal(sortIPTablesRules(out.text), readFixture(`proxier/iptables/${fixture}/upstream-expected.txt`), fixture)
        assert.equal(out.ruleset.version, `v1.${minor}`)
        assert.equal(out.ruleset.layoutNote, undefined)
      }
    })
  }

  it('a version newer than the newest layout renders the v1.37 rules under a # line that says so', () => {
    const opts = (version: ProxierOptions['version']) => fakeProxierOptions('ipv4', {version, featureGates: featureGatesFor(version)})
    const v137 = generateFromFixture('proxier/iptables/upstream-overall/objects.yaml', opts({major: 1, minor: 37}))
    const v138 = generateFromFixture('proxier/iptables/upstream-overall/objects.yaml', opts(parseKubeProxyVersion('v1.38.0-alpha.2')!))
    const note = "# kube-proxy v1.38.0-alpha.2 is newer than the newest layout known (v1.37): rendered with v1.37's rules\n"
    assert.equal(v138.text, note + v137.text)
    assert.ok(serializeSave(v138.ruleset).startsWith(note))
    assert.equal(serializeSave(v138.ruleset), note + serializeSave(v137.ruleset))
  })

  it('TestSyncProxyRulesRepeated: -X lines come before the nodeports jump in the natural order', () => {
    const out = generateFromFixture('proxier/iptables/upstream-sync-repeated-final/objects.yaml', fakeProxierOptions('ipv4', {existingNatChains: ['KUBE-SVC-4SW47YFZTEDKD3PK', 'KUBE-SEP-AYCN5HPXMIRJNJXU']}))
    const lines = out.text.split('\n')
    const x = lines.indexOf('-X KUBE-SEP-AYCN5HPXMIRJNJXU')
    const jump = lines.findIndex((l) => l.includes('must be the last rule'))
    assert.ok(x > 0 && jump === x + 2, `-X lines directly precede the nodeports jump (x=${x}, jump=${jump})`)
    assert.deepEqual(out.ruleset.tables[1].deletedChains, ['KUBE-SEP-AYCN5HPXMIRJNJXU', 'KUBE-SVC-4SW47YFZTEDKD3PK'])
  })
})

describe('TestSyncProxyRulesLargeClusterMode', () => {
  const services = [
    makeService('ns1', 'svc1', {type: 'ClusterIP', clusterIP: '172.30.0.41', ports: [{name: 'p80', port: 80, protocol: 'TCP'}]}),
    makeService('ns2', 'svc2', {type: 'ClusterIP', clusterIP: '172.30.0.42', ports: [{name: 'p8080', port: 8080, protocol: 'TCP'}]}),
    makeService('ns3', 'svc3', {type: 'ClusterIP', clusterIP: '172.30.0.43', ports: [{name: 'p8081', port: 8081, protocol: 'TCP'}]}),
  ]
  const many = (prefix: string): Array<{addresses: string[]}> =>
    Array.from({length: 1000 / 2 - 1}, (_, i) => ({addresses: [`${prefix}.${i % 256}.${Math.floor(i / 256)}`]}))
  const slices = [
    makeSlice('ns1', 'svc1', many('10.0'), [{name: 'p80', port: 80, protocol: 'TCP'}]),
    makeSlice('ns2', 'svc2', many('10.1'), [{name: 'p8080', port: 8080, protocol: 'TCP'}]),
  ]
  const svc3Slice = makeSlice('ns3', 'svc3', [{addresses: ['203.0.113.4']}, {addresses: ['203.0.113.8']}, {addresses: ['203.0.113.12']}], [{name: 'p8081', port: 8081, protocol: 'TCP'}])
  const opts = fakeProxierOptions('ipv4', {masqueradeAll: true})
  const dnatLines = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('-A KUBE-SEP-') && l.includes('-j DNAT'))

  it('keeps comments at 998 endpoints', () => {
    const out = generate(services, slices, opts)
    const dnat = dnatLines(out.text)
    assert.equal(dnat.length, 998)
    assert.equal(dnat.filter((l) => l.includes('--comment')).length, 998)
    assert.ok(dnat.includes('-A KUBE-SEP-DKGQUZGBKLTPAR56 -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80'))
    assert.equal(out.ruleset.largeClusterMode, false)
  })

  it('drops per-endpoint comments above 1000 endpoints (full resync), keeps the others', () => {
    const out = generate(services, [...slices, svc3Slice], opts)
    const dnat = dnatLines(out.text)
    assert.equal(dnat.length, 1001)
    assert.equal(dnat.filter((l) => l.includes('--comment')).length, 0)
    assert.ok(dnat.includes('-A KUBE-SEP-DKGQUZGBKLTPAR56 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80'))
    assert.ok(dnat.includes('-A KUBE-SEP-RUVVH7YV3PHQBDOS -m tcp -p tcp -j DNAT --to-destination 203.0.113.4:8081'))
    assert.equal(out.ruleset.largeClusterMode, true)
    // SEP masquerade and SVC→SEP rules lose their comments; cluster-IP rules keep theirs.
    assert.ok(out.text.includes('-A KUBE-SEP-RUVVH7YV3PHQBDOS -s 203.0.113.4 -j KUBE-MARK-MASQ\n'))
    // Endpoints sort as strings: 203.0.113.12 < 203.0.113.4 < 203.0.113.8, so .4 is second (1/2).
    const svc3 = out.text.split('\n').filter((l) => l.startsWith('-A KUBE-SVC-') && l.includes('-j KUBE-SEP-'))
    assert.ok(svc3.some((l) => /^-A KUBE-SVC-\S+ -m statistic --mode random --probability 0\.5000000000 -j KUBE-SEP-RUVVH7YV3PHQBDOS$/.test(l)))
    assert.ok(out.text.includes('-m comment --comment "ns3/svc3:p8081 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 8081 -j KUBE-MARK-MASQ'))
  })

  it('deletes a deleted service\'s stale chains', () => {
    const out = generate(services, [...slices, svc3Slice], {...opts, existingNatChains: ['KUBE-SVC-EBDQOQU5SJFXRIL3', 'KUBE-SEP-SU5STNODRYEWJAUF']})
    assert.ok(out.text.includes('-X KUBE-SVC-EBDQOQU5SJFXRIL3\n'))
    assert.ok(out.text.includes('-X KUBE-SEP-SU5STNODRYEWJAUF\n'))
    const svc4 = makeService('ns4', 'svc4', {type: 'ClusterIP', clusterIP: '172.30.0.44', ports: [{name: 'p8082', port: 8082, protocol: 'TCP'}]})
    const svc4Slice = makeSlice('ns4', 'svc4', [{addresses: ['10.4.0.1']}], [{name: 'p8082', port: 8082, protocol: 'TCP'}])
    const with4 = generate([...services, svc4], [...slices, svc3Slice, svc4Slice], opts)
    assert.ok(with4.text.includes('-A KUBE-SEP-SU5STNODRYEWJAUF -m tcp -p tcp -j DNAT --to-destination 10.4.0.1:8082\n'))
    assert.ok(with4.text.includes(':KUBE-SVC-EBDQOQU5SJFXRIL3 - [0:0]\n'))
  })
})

describe('TestDropInvalidRule', () => {
  const forward = [
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT',
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
  ]
  for (const [tcpBeLiberal, nfacct, drop] of [
    [false, false, '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP'],
    [false, true, '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP'],
    [true, false, ''],
  ] as const) {
    it(`tcpLiberal is ${tcpBeLiberal} and nfacctEnsured is ${nfacct}`, () => {
      const out = generate([], [], fakeProxierOptions('ipv4', {tcpBeLiberal, nfacct: {ctStateInvalidDroppedPkts: nfacct, localhostNpsAcceptedPkts: false}}))
      assert.deepEqual(chainLines(out.text, 'filter', 'KUBE-FORWARD'), drop ? [drop, ...forward] : forward)
    })
  }
})

describe('TestMasqueradeRule', () => {
  for (const randomFully of [false, true]) {
    it(`randomFully ${randomFully}`, () => {
      const out = generate([], [], fakeProxierOptions('ipv4', {randomFully}))
      assert.deepEqual(chainLines(out.text, 'nat', 'KUBE-POSTROUTING'), [
        '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN',
        '-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000',
        `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE${randomFully ? ' --random-fully' : ''}`,
      ])
    })
  }
})

describe('TestTracePacket-style flows', () => {
  it('TestClusterIPGeneral', () => {
    const services = [
      makeService('ns1', 'svc1', {clusterIP: '172.30.0.41', ports: [{name: 'http', port: 80, protocol: 'TCP'}]}),
      makeService('ns2', 'svc2', {
        clusterIP: '172.30.0.42',
        ports: [
          {name: 'http', port: 80, protocol: 'TCP'},
          {name: 'https', port: 443, protocol: 'TCP', targetPort: 8443},
          {name: 'dns-udp', port: 53, protocol: 'UDP'},
          {name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 5353},
          {name: 'dns-sctp', port: 53, protocol: 'SCTP'},
        ],
      }),
    ]
    const slices = [
      makeSlice('ns1', 'svc1', [{addresses: ['10.180.0.1'], nodeName: TEST_NODE_NAME}], [{name: 'http', port: 80, protocol: 'TCP'}]),
      makeSlice('ns2', 'svc2', [{addresses: ['10.180.0.1'], nodeName: TEST_NODE_NAME}, {addresses: ['10.180.2.1'], nodeName: 'node2'}], [
        {name: 'http', port: 80, protocol: 'TCP'},
        {name: 'https', port: 8443, protocol: 'TCP'},
        {name: 'dns-udp', port: 53, protocol: 'UDP'},
        {name: 'dns-tcp', port: 5353, protocol: 'TCP'},
        {name: 'dns-sctp', port: 53, protocol: 'SCTP'},
      ]),
    ]
    const out = generate(services, slices)
    assert.deepEqual(packetFlowFailures(out.text, [
      {name: 'simple clusterIP', sourceIP: '10.180.0.2', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80'},
      {name: 'hairpin to cluster IP', sourceIP: '10.180.0.1', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80', masq: true},
      {name: 'clusterIP with multiple endpoints', sourceIP: '10.180.0.2', destIP: '172.30.0.42', destPort: 80, output: '10.180.0.1:80, 10.180.2.1:80'},
      {name: 'clusterIP with TargetPort', sourceIP: '10.180.0.2', destIP: '172.30.0.42', destPort: 443, output: '10.180.0.1:8443, 10.180.2.1:8443'},
      {name: 'TCP on same port', sourceIP: '10.180.0.2', protocol: 'tcp', destIP: '172.30.0.42', destPort: 53, output: '10.180.0.1:5353, 10.180.2.1:5353'},
      {name: 'UDP on same port', sourceIP: '10.180.0.2', protocol: 'udp', destIP: '172.30.0.42', destPort: 53, output: '10.180.0.1:53, 10.180.2.1:53'},
      {name: 'SCTP on same port', sourceIP: '10.180.0.2', protocol: 'sctp', destIP: '172.30.0.42', destPort: 53, output: '10.180.0.1:53, 10.180.2.1:53'},
      {name: 'TCP-only port does not match UDP traffic', sourceIP: '10.180.0.2', protocol: 'udp', destIP: '172.30.0.42', destPort: 80, output: ''},
      {name: "svc1 does not accept svc2's ports", sourceIP: '10.180.0.2', destIP: '172.30.0.41', destPort: 443, output: ''},
    ]), [])
  })

  it('TestLoadBalancer (source ranges, node allowed through the VIP)', () => {
    const out = generate(
      [makeService('ns1', 'svc1', {type: 'LoadBalancer', clusterIP: '172.30.0.41', ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001}], loadBalancerSourceRanges: ['192.168.0.0/24', ' 203.0.113.0/25']}, [{ip: '1.2.3.4'}, {ip: '5.6.7.8'}])],
      [makeSlice('ns1', 'svc1', [{addresses: ['10.180.0.1']}], [{name: 'p80', port: 80, protocol: 'TCP'}])],
    )
    const ep = '10.180.0.1:80'
    assert.deepEqual(packetFlowFailures(out.text, [
      {name: 'pod to cluster IP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: ep},
      {name: 'external to nodePort', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3001, output: ep, masq: true},
      {name: 'nodePort bypasses LoadBalancerSourceRanges', sourceIP: TEST_EXTERNAL_CLIENT_BLOCKED, destIP: TEST_NODE_IP, destPort: 3001, output: ep, masq: true},
      {name: 'accepted external to LB1', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: ep, masq: true},
      {name: 'accepted external to LB2', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '5.6.7.8', destPort: 80, output: ep, masq: true},
      {name: 'blocked external to LB1', sourceIP: TEST_EXTERNAL_CLIENT_BLOCKED, destIP: '1.2.3.4', destPort: 80, output: 'DROP'},
      {name: 'blocked external to LB2', sourceIP: TEST_EXTERNAL_CLIENT_BLOCKED, destIP: '5.6.7.8', destPort: 80, output: 'DROP'},
      {name: 'pod to LB1 (blocked by LoadBalancerSourceRanges)', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: 'DROP'},
      {name: 'pod to LB2 (blocked by LoadBalancerSourceRanges)', sourceIP: '10.0.0.2', destIP: '5.6.7.8', destPort: 80, output: 'DROP'},
      {name: 'node to LB1 (allowed by LoadBalancerSourceRanges)', sourceIP: TEST_NODE_IP, destIP: '1.2.3.4', destPort: 80, output: ep, masq: true},
      {name: 'node to LB2 (allowed by LoadBalancerSourceRanges)', sourceIP: TEST_NODE_IP, destIP: '5.6.7.8', destPort: 80, output: ep, masq: true},
      {name: 'same node to LB1, SNATted to LB1 (implicitly allowed)', sourceIP: '1.2.3.4', destIP: '1.2.3.4', destPort: 80, output: ep, masq: true},
      {name: 'same node to LB2, SNATted to LB2 (implicitly allowed)', sourceIP: '5.6.7.8', destIP: '5.6.7.8', destPort: 80, output: ep, masq: true},
    ]), [])
  })

  it('TestNoEndpointsReject', () => {
    const out = generate([makeService('ns1', 'svc1', {type: 'LoadBalancer', clusterIP: '172.30.0.41', externalIPs: ['192.168.99.11'], ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001}]}, [{ip: '1.2.3.4'}])], [])
    const flows: PacketFlowTest[] = []
    for (const [who, src] of [['pod', '10.0.0.2'], ['external', TEST_EXTERNAL_CLIENT]] as const) {
      flows.push({name: `${who} to cluster IP`, sourceIP: src, destIP: '172.30.0.41', destPort: 80, output: 'REJECT'})
      flows.push({name: `${who} to external IP`, sourceIP: src, destIP: '192.168.99.11', destPort: 80, output: 'REJECT'})
      flows.push({name: `${who} to NodePort`, sourceIP: src, destIP: TEST_NODE_IP, destPort: 3001, output: 'REJECT'})
      flows.push({name: `${who} to LoadBalancer IP`, sourceIP: src, destIP: '1.2.3.4', destPort: 80, output: 'REJECT'})
    }
    assert.deepEqual(packetFlowFailures(out.text, flows), [])
  })

  for (const policy of ['Local', 'Cluster'] as const) {
    it(`TestExternalTrafficPolicy${policy}`, () => {
      const out = generate(
        [makeService('ns1', 'svc1', {type: 'LoadBalancer', externalTrafficPolicy: policy, clusterIP: '172.30.0.41', externalIPs: ['192.168.99.11'], ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001, targetPort: 80}], healthCheckNodePort: 30000}, [{ip: '1.2.3.4'}])],
        [makeSlice('ns1', 'svc1', [{addresses: ['10.180.0.1']}, {addresses: ['10.180.2.1'], nodeName: TEST_NODE_NAME}], [{name: 'p80', port: 80, protocol: 'TCP'}])],
      )
      const both = '10.180.0.1:80, 10.180.2.1:80'
      const local = policy === 'Local'
      assert.deepEqual(packetFlowFailures(out.text, [
        {name: 'pod to cluster IP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: both},
        {name: 'pod to external IP', sourceIP: '10.0.0.2', destIP: '192.168.99.11', destPort: 80, output: both, masq: !local},
        {name: 'external to external IP', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '192.168.99.11', destPort: 80, output: local ? '10.180.2.1:80' : both, masq: !local},
        {name: 'pod to LB IP', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: both, masq: !local},
        {name: 'external to LB IP', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: local ? '10.180.2.1:80' : both, masq: !local},
        {name: 'pod to NodePort', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: both, masq: !local},
        {name: 'external to NodePort', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3001, output: local ? '10.180.2.1:80' : both, masq: !local},
      ]), [])
      // Health-check rule only for eTP=Local LoadBalancers.
      assert.equal(chainLines(out.text, 'filter', 'KUBE-NODEPORTS').length, local ? 1 : 0)
    })
  }

  it('TestHealthCheckNodePort (nodePortAddresses 127.0.0.0/8)', () => {
    const svc = makeService('ns1', 'svc1', {type: 'LoadBalancer', clusterIP: '172.30.0.42', ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001}], healthCheckNodePort: 30000, externalTrafficPolicy: 'Local'})
    const opts = fakeProxierOptions('ipv4', {nodePortAddresses: ['127.0.0.0/8']})
    const out = generate([svc], [], opts)
    assert.deepEqual(packetFlowFailures(out.text, [{name: 'firewall accepts HealthCheckNodePort', sourceIP: '1.2.3.4', destIP: TEST_NODE_IP, destPort: 30000, output: 'ACCEPT'}]), [])
    assert.deepEqual(chainLines(out.text, 'nat', 'KUBE-SERVICES').slice(-1), ['-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 127.0.0.1 -j KUBE-NODEPORTS'])
    const gone = generate([], [], opts)
    assert.deepEqual(packetFlowFailures(gone.text, [{name: 'HealthCheckNodePort no longer has any rule', sourceIP: '1.2.3.4', destIP: TEST_NODE_IP, destPort: 30000, output: ''}]), [])
  })

  it('TestNodePorts', () => {
    const cases = [
      {name: 'ipv4, localhost-nodeports enabled', family: 'ipv4', localhost: true, npa: [], alt: true, firewall: true},
      {name: 'ipv4, localhost-nodeports disabled', family: 'ipv4', localhost: false, npa: [], alt: true, firewall: false},
      {name: 'ipv4, localhost-nodeports disabled, localhost in nodeport-addresses', family: 'ipv4', localhost: false, npa: ['192.168.0.0/24', '127.0.0.1/32'], alt: false, firewall: false},
      {name: 'ipv4, multiple nodeport-addresses', family: 'ipv4', localhost: false, npa: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'], alt: true, firewall: false},
      {name: 'ipv6, localhost-nodeports enabled', family: 'ipv6', localhost: true, npa: [], alt: true, firewall: false},
      {name: 'ipv6, localhost-nodeports disabled', family: 'ipv6', localhost: false, npa: [], alt: true, firewall: false},
      {name: 'ipv6, multiple nodeport-addresses', family: 'ipv6', localhost: false, npa: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'], alt: false, firewall: false},
    ] as const
    for (const tc of cases) {
      const v4 = tc.family === 'ipv4'
      const [svcIP, ep1, ep2] = v4 ? ['172.30.0.41', '10.180.0.1', '10.180.2.1'] : ['fd00:172:30::41', 'fd00:10:180::1', 'fd00:10:180::2:1']
      const out = generate(
        [makeService('ns1', 'svc1', {type: 'NodePort', clusterIP: svcIP, ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001}]})],
        [makeSlice('ns1', 'svc1', [{addresses: [ep1]}, {addresses: [ep2], nodeName: TEST_NODE_NAME}], [{name: 'p80', port: 80, protocol: 'TCP'}], v4 ? 'IPv4' : 'IPv6')],
        fakeProxierOptions(tc.family, {localhostNodePorts: tc.localhost, nodePortAddresses: [...tc.npa]}),
      )
      const [pod, ext, node, alt, lo] = v4 ? ['10.0.0.2', TEST_EXTERNAL_CLIENT, TEST_NODE_IP, TEST_NODE_IP_ALT, '127.0.0.1'] : ['fd00:10::2', '2600:5200::1', TEST_NODE_IPV6, TEST_NODE_IPV6_ALT, '::1']
      const output = v4 ? `${ep1}:80, ${ep2}:80` : `[${ep1}]:80, [${ep2}]:80`
      const flows: PacketFlowTest[] = [
        {name: 'pod to cluster IP', sourceIP: pod, destIP: svcIP, destPort: 80, output},
        {name: 'external to nodePort', sourceIP: ext, destIP: node, destPort: 3001, output, masq: true},
        {name: 'node to nodePort', sourceIP: node, destIP: node, destPort: 3001, output, masq: true},
        v4 && tc.localhost
          ? {name: 'localhost to nodePort gets masqueraded', sourceIP: lo, destIP: lo, destPort: 3001, output, masq: true}
          : {name: 'localhost to nodePort is ignored', sourceIP: lo, destIP: lo, destPort: 3001, output: ''},
        tc.alt
          ? {name: 'external to nodePort on secondary IP', sourceIP: ext, destIP: alt, destPort: 3001, output, masq: true}
          : {name: 'secondary nodeIP ignores NodePorts', sourceIP: ext, destIP: alt, destPort: 3001, output: ''},
      ]
      assert.deepEqual(packetFlowFailures(out.text, flows), [], tc.name)
      assert.deepEqual(
        chainLines(out.text, 'filter', 'KUBE-FIREWALL'),
        tc.firewall ? ['-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP'] : [],
        tc.name,
      )
    }
  })

  it('TestInternalTrafficPolicy', () => {
    const cases: Array<{name: string; itp?: 'Cluster' | 'Local'; eps: Array<[string, string]>; output: string}> = [
      {name: 'cluster', itp: 'Cluster', eps: [['10.0.1.1', TEST_NODE_NAME], ['10.0.1.2', 'node1'], ['10.0.1.3', 'node2']], output: '10.0.1.1:80, 10.0.1.2:80, 10.0.1.3:80'},
      {name: 'local, one local endpoint', itp: 'Local', eps: [['10.0.1.1', TEST_NODE_NAME], ['10.0.1.2', 'node1'], ['10.0.1.3', 'node2']], output: '10.0.1.1:80'},
      {name: 'local, several local endpoints', itp: 'Local', eps: [['10.0.1.1', TEST_NODE_NAME], ['10.0.1.2', TEST_NODE_NAME], ['10.0.1.3', 'node2']], output: '10.0.1.1:80, 10.0.1.2:80'},
      {name: 'local, no local endpoints', itp: 'Local', eps: [['10.0.1.1', 'node0'], ['10.0.1.2', 'node1'], ['10.0.1.3', 'node2']], output: 'DROP'},
    ]
    for (const tc of cases) {
      const svc = makeService('ns1', 'svc1', {clusterIP: '172.30.1.1', selector: {foo: 'bar'}, ports: [{name: '', port: 80, protocol: 'TCP'}], ...(tc.itp ? {internalTrafficPolicy: tc.itp} : {})})
      const slice = makeSlice('ns1', 'svc1', tc.eps.map(([ip, node]) => ({addresses: [ip], conditions: {ready: true}, nodeName: node})), [{name: '', port: 80, protocol: 'TCP'}])
      assert.deepEqual(packetFlowFailures(generate([svc], [slice]).text, [{name: tc.name, sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: tc.output}]), [])
      assert.deepEqual(packetFlowFailures(generate([svc], []).text, [{name: 'endpoints deleted', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: 'REJECT'}]), [])
    }
  })

  for (const policy of ['Local', 'Cluster'] as const) {
    it(`TestTerminatingEndpointsTrafficPolicy${policy}`, () => {
      const svc = makeService('ns1', 'svc1', {clusterIP: '172.30.1.1', type: 'LoadBalancer', externalTrafficPolicy: policy, ports: [{name: '', targetPort: 80, port: 80, protocol: 'TCP'}], healthCheckNodePort: 30000}, [{ip: '1.2.3.4'}])
      const ep = (ip: string, ready: boolean, serving: boolean, terminating: boolean, nodeName: string) => ({addresses: [ip], conditions: {ready, serving, terminating}, nodeName})
      const other = policy === 'Local' ? 'node-1' : 'another-node'
      const cases: Array<{name: string; eps: ReturnType<typeof ep>[]; flows: PacketFlowTest[]}> = policy === 'Local'
        ? [
            {name: 'ready endpoints exist', eps: [ep('10.0.1.1', true, true, false, TEST_NODE_NAME), ep('10.0.1.2', true, true, false, TEST_NODE_NAME), ep('10.0.1.3', false, true, true, TEST_NODE_NAME), ep('10.0.1.4', false, false, true, TEST_NODE_NAME), ep('10.0.1.5', true, true, false, other)],
              flows: [{name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: '10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80'}, {name: 'external to LB', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: '10.0.1.1:80, 10.0.1.2:80'}]},
            {name: 'only terminating endpoints exist', eps: [ep('10.0.1.2', false, true, true, TEST_NODE_NAME), ep('10.0.1.3', false, true, true, TEST_NODE_NAME), ep('10.0.1.4', false, false, true, TEST_NODE_NAME), ep('10.0.1.5', true, true, false, other)],
              flows: [{name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: '10.0.1.5:80'}, {name: 'external to LB', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: '10.0.1.2:80, 10.0.1.3:80'}]},
            {name: 'terminating endpoints on remote node', eps: [ep('10.0.1.5', false, true, true, other)],
              flows: [{name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: '10.0.1.5:80'}, {name: 'external to LB, no locally-usable endpoints', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: 'DROP'}]},
            {name: 'no usable endpoints on any node', eps: [ep('10.0.1.5', false, false, true, TEST_NODE_NAME), ep('10.0.1.5', false, false, true, other)],
              flows: [{name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: 'REJECT'}, {name: 'external to LB', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: 'REJECT'}]},
          ]
        : [
            {name: 'ready endpoints exist', eps: [ep('10.0.1.1', true, true, false, TEST_NODE_NAME), ep('10.0.1.2', true, true, false, TEST_NODE_NAME), ep('10.0.1.3', false, true, true, other), ep('10.0.1.4', false, false, true, other), ep('10.0.1.5', true, true, false, other)],
              flows: [{name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: '10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80'}, {name: 'external to LB', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: '10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80', masq: true}]},
            {name: 'only terminating endpoints exist', eps: [ep('10.0.1.2', false, true, true, TEST_NODE_NAME), ep('10.0.1.3', false, true, true, TEST_NODE_NAME), ep('10.0.1.4', false, false, true, other), ep('10.0.1.5', false, true, true, other)],
              flows: [{name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: '10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80'}, {name: 'external to LB', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: '10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80', masq: true}]},
            {name: 'terminating endpoints on remote node', eps: [ep('10.0.1.5', false, true, true, 'node-1')],
              flows: [{name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: '10.0.1.5:80'}, {name: 'external to LB', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: '10.0.1.5:80', masq: true}]},
          ]
      for (const tc of cases) {
        const slice = makeSlice('ns1', 'svc1', tc.eps, [{name: '', port: 80, protocol: 'TCP'}])
        assert.deepEqual(packetFlowFailures(generate([svc], [slice]).text, tc.flows), [], tc.name)
        assert.deepEqual(packetFlowFailures(generate([svc], []).text, [
          {name: 'pod to clusterIP after endpoints deleted', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: 'REJECT'},
          {name: 'external to LB after endpoints deleted', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: 'REJECT'},
        ]), [], tc.name)
      }
    })
  }

  it('TestInternalExternalMasquerade', () => {
    const services = [
      makeService('ns1', 'svc1', {type: 'LoadBalancer', clusterIP: '172.30.0.41', ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001}], healthCheckNodePort: 30001}, [{ip: '1.2.3.4'}]),
      makeService('ns2', 'svc2', {type: 'LoadBalancer', clusterIP: '172.30.0.42', ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3002}], healthCheckNodePort: 30002, externalTrafficPolicy: 'Local'}, [{ip: '5.6.7.8'}]),
      makeService('ns3', 'svc3', {type: 'LoadBalancer', clusterIP: '172.30.0.43', ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3003}], healthCheckNodePort: 30003, internalTrafficPolicy: 'Local'}, [{ip: '9.10.11.12'}]),
    ]
    const slices = [1, 2, 3].map((n) => makeSlice(`ns${n}`, `svc${n}`, [{addresses: [`10.180.0.${n}`], nodeName: TEST_NODE_NAME}, {addresses: [`10.180.1.${n}`], nodeName: 'remote'}], [{name: 'p80', port: 80, protocol: 'TCP'}]))
    const all = (n: number): string => `10.180.0.${n}:80, 10.180.1.${n}:80`
    const base: PacketFlowTest[] = [
      {name: 'pod to ClusterIP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: all(1)},
      {name: 'pod to NodePort', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: all(1), masq: true},
      {name: 'pod to LB', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: all(1), masq: true},
      {name: 'node to ClusterIP', sourceIP: TEST_NODE_IP, destIP: '172.30.0.41', destPort: 80, output: all(1), masq: true},
      {name: 'node to NodePort', sourceIP: TEST_NODE_IP, destIP: TEST_NODE_IP, destPort: 3001, output: all(1), masq: true},
      {name: 'localhost to NodePort', sourceIP: '127.0.0.1', destIP: '127.0.0.1', destPort: 3001, output: all(1), masq: true},
      {name: 'node to LB', sourceIP: TEST_NODE_IP, destIP: '1.2.3.4', destPort: 80, output: all(1), masq: true},
      {name: 'external to ClusterIP', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '172.30.0.41', destPort: 80, output: all(1), masq: true},
      {name: 'external to NodePort', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3001, output: all(1), masq: true},
      {name: 'external to LB', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: all(1), masq: true},
      {name: 'pod to ClusterIP with eTP:Local', sourceIP: '10.0.0.2', destIP: '172.30.0.42', destPort: 80, output: all(2)},
      {name: 'pod to NodePort with eTP:Local', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3002, output: all(2)},
      {name: 'pod to LB with eTP:Local', sourceIP: '10.0.0.2', destIP: '5.6.7.8', destPort: 80, output: all(2)},
      {name: 'node to ClusterIP with eTP:Local', sourceIP: TEST_NODE_IP, destIP: '172.30.0.42', destPort: 80, output: all(2), masq: true},
      {name: 'node to NodePort with eTP:Local', sourceIP: TEST_NODE_IP, destIP: TEST_NODE_IP, destPort: 3001, output: all(1), masq: true},
      {name: 'localhost to NodePort with eTP:Local', sourceIP: '127.0.0.1', destIP: '127.0.0.1', destPort: 3002, output: all(2), masq: true},
      {name: 'node to LB with eTP:Local', sourceIP: TEST_NODE_IP, destIP: '5.6.7.8', destPort: 80, output: all(2), masq: true},
      {name: 'external to ClusterIP with eTP:Local', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '172.30.0.42', destPort: 80, output: all(2), masq: true},
      {name: 'external to NodePort with eTP:Local', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3002, output: '10.180.0.2:80'},
      {name: 'external to LB with eTP:Local', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '5.6.7.8', destPort: 80, output: '10.180.0.2:80'},
      {name: 'pod to ClusterIP with iTP:Local', sourceIP: '10.0.0.2', destIP: '172.30.0.43', destPort: 80, output: '10.180.0.3:80'},
      {name: 'pod to NodePort with iTP:Local', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3003, output: all(3), masq: true},
      {name: 'pod to LB with iTP:Local', sourceIP: '10.0.0.2', destIP: '9.10.11.12', destPort: 80, output: all(3), masq: true},
      {name: 'node to ClusterIP with iTP:Local', sourceIP: TEST_NODE_IP, destIP: '172.30.0.43', destPort: 80, output: '10.180.0.3:80', masq: true},
      {name: 'node to NodePort with iTP:Local', sourceIP: TEST_NODE_IP, destIP: TEST_NODE_IP, destPort: 3003, output: all(3), masq: true},
      {name: 'localhost to NodePort with iTP:Local', sourceIP: '127.0.0.1', destIP: '127.0.0.1', destPort: 3003, output: all(3), masq: true},
      {name: 'node to LB with iTP:Local', sourceIP: TEST_NODE_IP, destIP: '9.10.11.12', destPort: 80, output: all(3), masq: true},
      {name: 'external to ClusterIP with iTP:Local', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '172.30.0.43', destPort: 80, output: '10.180.0.3:80', masq: true},
      {name: 'external to NodePort with iTP:Local', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3003, output: all(3), masq: true},
      {name: 'external to LB with iTP:Local', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '9.10.11.12', destPort: 80, output: all(3), masq: true},
    ]
    const noDetectorOverrides: Record<string, Partial<PacketFlowTest>> = {
      'node to ClusterIP': {masq: false},
      'node to ClusterIP with eTP:Local': {masq: false},
      'node to ClusterIP with iTP:Local': {masq: false},
      'external to ClusterIP': {masq: false},
      'external to ClusterIP with eTP:Local': {masq: false},
      'external to ClusterIP with iTP:Local': {masq: false},
      'pod to NodePort with eTP:Local': {output: '10.180.0.2:80'},
      'pod to LB with eTP:Local': {output: '10.180.0.2:80'},
    }
    const masqAllOverrides: Record<string, Partial<PacketFlowTest>> = {
      'pod to ClusterIP': {masq: true},
      'pod to ClusterIP with eTP:Local': {masq: true},
      'pod to ClusterIP with iTP:Local': {masq: true},
    }
    const cases = [
      {name: 'base', masqueradeAll: false, detector: true, overrides: {}},
      {name: 'no LocalTrafficDetector', masqueradeAll: false, detector: false, overrides: noDetectorOverrides},
      {name: 'masqueradeAll', masqueradeAll: true, detector: true, overrides: masqAllOverrides},
      {
        name: 'masqueradeAll, no LocalTrafficDetector',
        masqueradeAll: true,
        detector: false,
        overrides: {...masqAllOverrides, 'pod to NodePort with eTP:Local': {output: '10.180.0.2:80'}, 'pod to LB with eTP:Local': {output: '10.180.0.2:80'}},
      },
    ]
    for (const tc of cases) {
      const opts = fakeProxierOptions('ipv4', {masqueradeAll: tc.masqueradeAll, ...(tc.detector ? {} : {localDetector: {mode: 'NoOp' as const}})})
      const flows = base.map((f) => ({...f, ...(tc.overrides as Record<string, Partial<PacketFlowTest>>)[f.name]}))
      assert.deepEqual(packetFlowFailures(generate(services, slices, opts).text, flows), [], tc.name)
    }
  })

  it('TestLoadBalancerIngressRouteTypeProxy', () => {
    for (const [svcIP, lbIP, ipMode, expected] of [
      ['10.20.30.41', '1.2.3.4', 'Proxy', false],
      ['10.20.30.42', '1.2.3.5', 'VIP', true],
      ['10.20.30.43', '1.2.3.6', undefined, true],
    ] as const) {
      const out = generate(
        [makeService('ns1', 'svc1', {type: 'LoadBalancer', clusterIP: svcIP, ports: [{name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001}]}, [{ip: lbIP, ...(ipMode ? {ipMode} : {})}])],
        [makeSlice('ns1', 'svc1', [{addresses: ['10.180.0.1']}], [{name: 'p80', port: 80, protocol: 'TCP'}])],
      )
      const rules = rulesByChain(out.ruleset.tables[1]).get('KUBE-SERVICES')!.map(restoreRuleLine)
      assert.equal(rules.some((r) => r.includes(` -d ${lbIP} `)), expected, `ipMode ${ipMode}`)
    }
  })
})
