// One fixture per proxier feature, rendered through the same path as `proxy render` (objects → kube-proxy
// ConfigMap → ProxierOptions → restore text) and compared byte for byte with its golden. Each golden was reviewed
// rule by rule against kube-proxy's proxier.go; the assertions next to each case pin the behaviour that makes the
// case worth having, so a regenerated golden cannot silently change it.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parse as parseYaml} from 'yaml'
import {parseKubeProxyVersion, type RuntimeFacts} from '../../../../src/core/proxier/config.js'
import {generateIptablesRestore} from '../../../../src/core/proxier/iptables/generate.js'
import {loadObjects} from '../../../../src/core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText} from '../../../../src/core/proxier/render-input.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {checkRuleJumps, packetFlowFailures} from './helpers.js'

interface FeatureCase {
  dir: string
  node?: string
  version?: string
  facts?: Omit<RuntimeFacts, 'version'>
  /** Golden file name in the case dir (default expected.restore). */
  expected?: string
  check?: (text: string) => void
}

const BASE = 'proxier/iptables'

function render(c: FeatureCase): string {
  const objects = loadObjects([
    {name: 'nodes.yaml', text: readFixture(`${BASE}/nodes.yaml`)},
    {name: `${c.dir}/objects.yaml`, text: readFixture(`${BASE}/${c.dir}/objects.yaml`)},
  ])
  const configText = kubeProxyConfigText(objects)
  const version = parseKubeProxyVersion(c.version ?? 'v1.35')!
  const r = buildRenderInput(objects, {
    nodeName: c.node ?? 'node-a',
    version,
    ...(configText ? {kubeProxyConfig: parseYaml(configText) as Record<string, unknown>} : {}),
    facts: c.facts ?? {},
  })
  return generateIptablesRestore(r.input).text
}

const has = (text: string, line: string): void => assert.ok(text.split('\n').includes(line), `missing line: ${line}`)
const lacks = (text: string, re: RegExp): void => assert.ok(!re.test(text), `unexpected match for ${re}`)

const CASES: FeatureCase[] = [
  {
    dir: 'clusterip',
    check: (t) => {
      has(t, '-A KUBE-SVC-CDGGSHYLG3RE2FKL -m comment --comment "default/web:http -> 10.0.1.2:8080" -m statistic --mode random --probability 0.2500000000 -j KUBE-SEP-RI3S4YZKGFE22XN7')
      has(t, '-A KUBE-SVC-GI2DS44EQ6V3GHV6 -m comment --comment "default/single -> 10.0.2.20:8443" -j KUBE-SEP-P44U3WCJKUTY2VJC')
      lacks(t, /10\.0\.2\.11|10\.0\.2\.99|headless|external-name|other-proxy|:5353/)
      assert.deepEqual(packetFlowFailures(t, [
        {name: 'pod to web', sourceIP: '10.0.1.9', destIP: '172.30.0.10', destPort: 80, output: '10.0.1.2:8080, 10.0.1.3:8080, 10.0.2.10:8080, 10.0.2.9:8080'},
        {name: 'node to dns (udp)', sourceIP: '192.168.0.2', protocol: 'udp', destIP: '172.30.0.10', destPort: 53, output: '10.0.1.2:53, 10.0.2.10:53, 10.0.2.9:53', masq: true},
      ], ['192.168.0.2']), [])
    },
  },
  {
    dir: 'nodeport',
    check: (t) => {
      has(t, '-A KUBE-EXTERNAL-SERVICES -m comment --comment "shop/empty:http has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30081 -j REJECT')
      has(t, '-A KUBE-NODEPORTS -m comment --comment shop/api:metrics -m udp -p udp --dport 30090 -j KUBE-EXT-GU6VBFX6OIIKWS5I')
    },
  },
  {
    dir: 'externalips',
    check: (t) => {
      has(t, '-A KUBE-EXTERNAL-SERVICES -m comment --comment "default/ext-empty:https has no endpoints" -m tcp -p tcp -d 192.168.99.13 --dport 443 -j REJECT')
      lacks(t, /2001:db8:99::1/)
    },
  },
  {
    dir: 'loadbalancer',
    check: (t) => {
      has(t, '-A KUBE-FW-JSLCNGWSGB5JPS5Q -m comment --comment "default/lb:http loadbalancer IP" -s 203.0.113.0/25 -j KUBE-EXT-JSLCNGWSGB5JPS5Q')
      has(t, '-A KUBE-FW-JSLCNGWSGB5JPS5Q -m comment --comment "default/lb:http loadbalancer IP" -s 5.6.7.8 -j KUBE-EXT-JSLCNGWSGB5JPS5Q')
      has(t, '-A KUBE-FW-JSLCNGWSGB5JPS5Q -m comment --comment "other traffic to default/lb:http will be dropped by KUBE-PROXY-FIREWALL"')
      lacks(t, /9\.10\.11\.12|2001:db8::\/32|-m comment --comment "default\/lb-empty:http traffic not accepted/)
    },
  },
  {
    dir: 'etp-local',
    check: (t) => {
      has(t, '-A KUBE-NODEPORTS -m comment --comment "default/remote-lb:http health check node port" -m tcp -p tcp --dport 32001 -j ACCEPT')
      has(t, '-A KUBE-EXTERNAL-SERVICES -m comment --comment "default/remote-lb:http has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 31002 -j DROP')
      lacks(t, /KUBE-SVL-5TOOZUI7M2CYFBWT|dport 32002/)
      assert.deepEqual(packetFlowFailures(t, [
        {name: 'external to local LB', sourceIP: '203.0.113.2', destIP: '1.2.3.4', destPort: 80, output: '10.0.1.10:8080'},
        {name: 'pod to local LB (short-circuit)', sourceIP: '10.0.1.9', destIP: '1.2.3.4', destPort: 80, output: '10.0.1.10:8080, 10.0.2.10:8080'},
        {name: 'external to remote LB', sourceIP: '203.0.113.2', destIP: '5.6.7.8', destPort: 80, output: 'DROP'},
        {name: 'node to remote LB', sourceIP: '192.168.0.2', destIP: '5.6.7.8', destPort: 80, output: '10.0.2.11:8080', masq: true},
      ], ['192.168.0.2']), [])
    },
  },
  {
    dir: 'itp-local',
    check: (t) => {
      has(t, '-A KUBE-SERVICES -m comment --comment "default/itp-remote:dns has no local endpoints" -m udp -p udp -d 172.30.5.2 --dport 53 -j DROP')
      has(t, '-A KUBE-SERVICES -m comment --comment "default/itp-np:http cluster IP" -m tcp -p tcp -d 172.30.5.3 --dport 80 -j KUBE-SVL-KWSJGGYBRRTBJPTF')
      lacks(t, /KUBE-SVC-5WJRE2BR37GY4MUR/)
    },
  },
  {
    dir: 'session-affinity',
    check: (t) => {
      has(t, '-A KUBE-SVC-T2ECBIYT2WDZZK45 -m comment --comment "default/sticky:http -> 10.0.1.30:8080" -m recent --name KUBE-SEP-A6UUZKP5CRMQYGSW --rcheck --seconds 600 --reap -j KUBE-SEP-A6UUZKP5CRMQYGSW')
      has(t, '-A KUBE-SEP-A6UUZKP5CRMQYGSW -m comment --comment default/sticky:http -m recent --name KUBE-SEP-A6UUZKP5CRMQYGSW --set -m tcp -p tcp -j DNAT --to-destination 10.0.1.30:8080')
      assert.match(t, /-A KUBE-SVL-GV3VYOL4NROMOIQH .* --rcheck --seconds 10800 --reap /)
    },
  },
  {
    dir: 'no-endpoints',
    check: (t) => {
      has(t, '-A KUBE-EXTERNAL-SERVICES -m comment --comment "default/down:http has no endpoints" -m tcp -p tcp -d 1.2.3.7 --dport 80 -j REJECT')
      has(t, '-A KUBE-SERVICES -m comment --comment "default/zero:grpc has no endpoints" -m tcp -p tcp -d 172.30.7.2 --dport 9000 -j REJECT')
      lacks(t, /KUBE-SVC-|KUBE-SEP-|KUBE-EXT-/)
    },
  },
  {
    dir: 'terminating',
    check: (t) => {
      lacks(t, /10\.0\.2\.50|10\.0\.2\.51|10\.0\.2\.53/)
      has(t, '-A KUBE-SVL-3MSJAKMALF4YRHKE -m comment --comment "default/mixed:http -> 10.0.1.54:80" -j KUBE-SEP-CGPDGYPUOMKMWH46')
      has(t, '-A KUBE-SVC-Y7EDZEKK3VQEVH55 -m comment --comment "default/draining:http -> 10.0.1.52:80" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-23U7DZLKI6HEZAD6')
    },
  },
  {
    dir: 'topology-hints',
    check: (t) => {
      lacks(t, /10\.0\.2\.60|10\.0\.2\.63|10\.0\.3\.63/)
      has(t, '-A KUBE-SVC-TZ2HRJJ3JEXWYMYZ -m comment --comment "default/nodal:http -> 10.0.1.63:80" -j KUBE-SEP-JO3MQ6RZPHF4JIJF')
      has(t, '-A KUBE-SVC-AU6TUVGXCHN2ZXZ3 -m comment --comment "default/partial:http -> 10.0.2.62:80" -j KUBE-SEP-DVT2TPP642NI3SFU')
    },
  },
  {
    // PreferSameNode is alpha (off) in v1.33: nodal falls back to its zone hints (z1: node-a and node-c).
    dir: 'topology-hints',
    version: 'v1.33',
    expected: 'expected-v1.33.restore',
    check: (t) => {
      assert.match(t, /default\/nodal:http -> 10\.0\.3\.63:80/)
      lacks(t, /10\.0\.2\.60|10\.0\.2\.63/)
    },
  },
  {
    // Before ServiceTrafficDistribution (v1.31) hints need the topology annotation: `hinted` spreads over all.
    dir: 'topology-hints',
    version: 'v1.30',
    expected: 'expected-v1.30.restore',
    check: (t) => {
      assert.match(t, /default\/hinted:http -> 10\.0\.2\.60:80/)
      lacks(t, /default\/zonal:http -> 10\.0\.2\.60/)
    },
  },
  {
    dir: 'ipv6',
    facts: {family: 'ipv6'},
    check: (t) => {
      has(t, '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS')
      has(t, '-A KUBE-SVC-FWEJ5PXIIDWNU55J -m comment --comment "default/dual:http -> [fd00:10:0:2::71]:8080" -j KUBE-SEP-I6VQWPZH3AOBM6YH')
      lacks(t, /KUBE-FIREWALL|127\.0\.0\.0|172\.30\.|1\.2\.3\.9|192\.168\.99\.41|203\.0\.113|v4only|FD00/)
    },
  },
  {dir: 'ipv6', node: 'node-v6', expected: 'expected-node-v6.restore', check: (t) => assert.match(t, /-A KUBE-SVL-\S+ -m comment --comment "default\/v6only:https -> \[fd00:10:0:3::72\]:8443"/)},
  {dir: 'masquerade-all', check: (t) => has(t, '-A KUBE-SVC-HMG3V2FJFP2BCWQZ -m comment --comment "default/app:http cluster IP" -m tcp -p tcp -d 172.30.11.1 --dport 80 -j KUBE-MARK-MASQ')},
  {dir: 'detect-local-node-cidr', check: (t) => has(t, '-A KUBE-EXT-HMG3V2FJFP2BCWQZ -m comment --comment "pod traffic for default/app:http external destinations" -s 10.0.1.0/24 -j KUBE-SVC-HMG3V2FJFP2BCWQZ')},
  {dir: 'detect-local-bridge', check: (t) => has(t, '-A KUBE-SVC-HMG3V2FJFP2BCWQZ -m comment --comment "default/app:http cluster IP" -m tcp -p tcp -d 172.30.11.1 --dport 80 ! -i cbr0 -j KUBE-MARK-MASQ')},
  {dir: 'detect-local-interface-prefix', check: (t) => has(t, '-A KUBE-EXT-HMG3V2FJFP2BCWQZ -m comment --comment "pod traffic for default/app:http external destinations" -i veth+ -j KUBE-SVC-HMG3V2FJFP2BCWQZ')},
  {dir: 'detect-local-none', check: (t) => lacks(t, /pod traffic for|cluster IP" -m tcp -p tcp -d 172\.30\.11\.1 --dport 80 .*-j KUBE-MARK-MASQ/)},
  {dir: 'masquerade-bit', check: (t) => has(t, '-A KUBE-MARK-MASQ -j MARK --or-mark 0x00000400')},
  {
    dir: 'nodeport-addresses',
    facts: {nodeInterfaceAddresses: ['127.0.0.1/8', '::1/128', '192.168.0.2/24', '10.0.1.1/24', '2001:db8::2/64', '172.17.0.1/16']},
    check: (t) => {
      const jumps = t.split('\n').filter((l) => l.includes('must be the last rule'))
      assert.deepEqual(jumps.map((l) => / -d (\S+) /.exec(l)?.[1]), ['10.0.1.1', '127.0.0.1', '192.168.0.2'])
      has(t, ':KUBE-FIREWALL - [0:0]')
    },
  },
  {
    dir: 'nodeport-addresses-primary',
    check: (t) => {
      assert.deepEqual(t.split('\n').filter((l) => l.includes('must be the last rule')), ['-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.168.0.2 -j KUBE-NODEPORTS'])
      lacks(t, /KUBE-FIREWALL|localhost_nps_accepted_pkts/)
    },
  },
  {
    dir: 'localhost-nodeports-off',
    check: (t) => {
      has(t, '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j KUBE-NODEPORTS')
      lacks(t, /KUBE-FIREWALL|localhost_nps_accepted_pkts/)
    },
  },
  {
    // v1.28: source range printed as written, ipMode ignored, no nfacct, hints need the annotation.
    dir: 'versions',
    version: 'v1.28',
    expected: 'expected-v1.28.restore',
    check: (t) => {
      has(t, '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP')
      assert.match(t, / -s 203\.0\.113\.9\/25 /)
      assert.match(t, / -d 1\.2\.3\.12 /)
      assert.match(t, /default\/hinted:http -> 10\.0\.2\.91:80/)
    },
  },
  {
    // v1.29: canonical IP/CIDR text; ipMode still ignored (LoadBalancerIPMode alpha).
    dir: 'versions',
    version: 'v1.29',
    expected: 'expected-v1.29.restore',
    check: (t) => {
      assert.match(t, / -s 203\.0\.113\.0\/25 /)
      assert.match(t, / -d 1\.2\.3\.12 /)
      lacks(t, /nfacct/)
    },
  },
  {
    // v1.30: ipMode Proxy VIPs skipped; INVALID drop counted with nfacct.
    dir: 'versions',
    version: 'v1.30',
    expected: 'expected-v1.30.restore',
    check: (t) => {
      has(t, '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP')
      lacks(t, /1\.2\.3\.12|localhost_nps_accepted_pkts/)
      assert.match(t, /default\/hinted:http -> 10\.0\.2\.91:80/)
    },
  },
  {
    // v1.31: localhost NodePort nfacct rule; hints used without the annotation.
    dir: 'versions',
    version: 'v1.31',
    expected: 'expected-v1.31.restore',
    check: (t) => {
      assert.match(t, /-d 127\.0\.0\.0\/8 --dport 30300 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-/)
      lacks(t, /default\/hinted:http -> 10\.0\.2\.91/)
    },
  },
  {dir: 'versions', version: 'v1.35', expected: 'expected-v1.35.restore', check: (t) => assert.equal(t, render({dir: 'versions', version: 'v1.31'}))},
]

describe('proxier feature goldens', () => {
  for (const c of CASES) {
    const file = c.expected ?? 'expected.restore'
    it(`${c.dir}/${file}`, () => {
      const text = render(c)
      expectGolden(`${BASE}/${c.dir}/${file}`, text)
      assert.deepEqual(checkRuleJumps(text), [])
      c.check?.(text)
    })
  }
})

describe('version-gated runtime facts', () => {
  it('conntrack tcp_be_liberal drops the INVALID rule from v1.29 only', () => {
    const rule = /-A KUBE-FORWARD -m conntrack --ctstate INVALID/
    assert.match(render({dir: 'versions', version: 'v1.28', facts: {tcpBeLiberal: true}}), rule)
    lacks(render({dir: 'versions', version: 'v1.29', facts: {tcpBeLiberal: true}}), rule)
    lacks(render({dir: 'versions', version: 'v1.35', facts: {tcpBeLiberal: true}}), rule)
  })

  it('nfacct counters are used only when kube-proxy could create them', () => {
    lacks(render({dir: 'versions', version: 'v1.35', facts: {nfacct: false}}), /nfacct/)
    const onlyInvalid = render({dir: 'versions', version: 'v1.35', facts: {nfacct: {localhostNpsAcceptedPkts: false}}})
    assert.match(onlyInvalid, /ct_state_invalid_dropped_pkts/)
    lacks(onlyInvalid, /localhost_nps_accepted_pkts/)
  })

  it('--random-fully only when iptables supports it', () => {
    assert.match(render({dir: 'versions'}), /-j MASQUERADE --random-fully\n/)
    assert.match(render({dir: 'versions', facts: {randomFully: false}}), /-j MASQUERADE\n/)
  })
})
