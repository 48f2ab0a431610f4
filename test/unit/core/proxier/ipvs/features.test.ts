// One fixture per IPVS proxier feature, rendered through the same path as `proxy render --mode ipvs` (objects →
// kube-proxy ConfigMap → ProxierOptions + IpvsOptions → state text) and compared with its golden. Each golden was
// reviewed against pkg/proxy/ipvs/proxier.go (syncProxyRules, syncEndpoint, writeIptablesRules); the assertions next
// to each case pin the behaviour that makes the case worth having, so a regenerated golden cannot silently change it.
//
// Fixture conventions: see test/fixtures/proxier/ipvs/README.md (node-a 192.168.0.2 / 2001:db8::2 is local).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {formatIpvsState, type IpvsState} from '../../../../../src/core/proxier/ipvs/generate.js'
import {expectGolden} from '../../../../support/golden.js'
import {renderIpvsCase} from './helpers.js'

const lines = (t: string) => t.split('\n')
const has = (text: string, line: string): void => assert.ok(lines(text).includes(line), `missing line: ${line}`)
const lacks = (text: string, re: RegExp): void => assert.ok(!re.test(text), `unexpected match for ${re}`)
const vs = (s: IpvsState, id: string) => {
  const v = s.virtualServers.find((x) => x.id === id)
  assert.ok(v, `virtual server ${id}`)
  return v
}
const set = (s: IpvsState, name: string) => s.ipsets.find((x) => x.name === name)!.entries

interface Case {
  dir: string
  version?: string
  family?: 'ipv4' | 'ipv6'
  expected?: string
  check: (s: IpvsState, text: string) => void
}

const CASES: Case[] = [
  {
    dir: 'services',
    check: (s, t) => {
      assert.deepEqual(vs(s, 'TCP 172.30.0.10:80').realServers.map((r) => `${r.address}:${r.port}/${r.weight}`), ['10.0.1.2:8080/1', '10.0.2.9:8080/1'])
      // Only local endpoints go into KUBE-LOOP-BACK (hairpin).
      assert.deepEqual(set(s, 'KUBE-LOOP-BACK'), ['10.0.1.2,tcp:8080,10.0.1.2'])
      // NodePorts on every node address but loopback (and kube-ipvs0): eth0 and docker0.
      assert.deepEqual(s.nodePortAddresses, ['172.17.0.1', '192.168.0.2'])
      vs(s, 'TCP 172.17.0.1:30080')
      vs(s, 'UDP 192.168.0.2:30053')
      lacks(t, /127\.0\.0\.1:30/)
      // The externalIP that is the node's own address gets a virtual server but is not bound to kube-ipvs0.
      vs(s, 'TCP 192.168.0.2:8443')
      assert.ok(s.boundAddresses.includes('192.168.99.11') && !s.boundAddresses.includes('192.168.0.2'))
      // An EndpointSlice port 0 is dropped: the virtual server stays, without real servers; same without endpoints.
      assert.deepEqual(vs(s, 'TCP 172.30.4.1:9100').realServers, [])
      assert.deepEqual(vs(s, 'TCP 172.30.6.1:80').realServers, [])
      // SCTP NodePort: hash:ip,port per node IP; --sctp-service in the save form.
      assert.deepEqual(set(s, 'KUBE-NODE-PORT-SCTP-HASH'), ['172.17.0.1,sctp:30868', '192.168.0.2,sctp:30868'])
      has(t, '-A --sctp-service 172.30.5.1:3868 -s rr')
      // Source ranges: the node IP is inside lb's, so its VIP may be the source; lb-outside is dropped from the node.
      assert.deepEqual(set(s, 'KUBE-LOAD-BALANCER-SOURCE-IP'), ['1.2.3.4,tcp:80,1.2.3.4'])
      has(t, '-A KUBE-IPVS-OUT-FILTER -s 1.2.3.5 -m ipvs --vaddr 1.2.3.5 --vproto tcp --vport 80 -j DROP')
      has(t, '-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ')
    },
  },
  {
    dir: 'services',
    version: 'v1.28',
    expected: 'expected-v1.28.txt',
    check: (_s, t) => {
      // KUBE-IPVS-OUT-FILTER came with v1.29 (kubernetes/kubernetes PR #119791).
      lacks(t, /KUBE-IPVS-OUT-FILTER/)
    },
  },
  {
    dir: 'traffic-policy',
    check: (s) => {
      const only = (id: string) => vs(s, id).realServers.map((r) => r.address)
      assert.deepEqual(only('TCP 172.30.7.1:80'), ['10.0.1.7', '10.0.2.7'], 'eTP Local does not change the cluster IP')
      for (const id of ['TCP 1.2.3.7:80', 'TCP 192.168.99.12:80', 'TCP 192.168.0.2:31500']) assert.deepEqual(only(id), ['10.0.1.7'], id)
      // No local endpoint: IPVS still programs the cluster endpoints (PR #97081).
      assert.deepEqual(only('UDP 192.168.0.2:31553'), ['10.0.2.11', '10.0.2.12'])
      assert.deepEqual(only('TCP 172.30.7.3:80'), ['10.0.1.13'], 'iTP Local: local endpoints only')
      assert.deepEqual(only('TCP 172.30.7.4:80'), [], 'iTP Local without a local endpoint: none')
      assert.deepEqual(set(s, 'KUBE-NODE-PORT-LOCAL-TCP'), ['31500'])
      assert.deepEqual(set(s, 'KUBE-NODE-PORT-LOCAL-UDP'), ['31553'])
      assert.deepEqual(set(s, 'KUBE-EXTERNAL-IP-LOCAL'), ['192.168.99.12,tcp:80'])
      assert.deepEqual(set(s, 'KUBE-EXTERNAL-IP'), [])
      assert.deepEqual(set(s, 'KUBE-LOAD-BALANCER-LOCAL'), ['1.2.3.7,tcp:80'])
      assert.deepEqual(set(s, 'KUBE-HEALTH-CHECK-NODE-PORT'), ['32000'])
    },
  },
  {
    dir: 'affinity-terminating',
    check: (s, t) => {
      assert.equal(vs(s, 'TCP 172.30.8.1:80').persistence, 600)
      assert.equal(vs(s, 'TCP 192.168.0.2:30600').persistence, 600, 'NodePort virtual servers share the affinity')
      assert.equal(vs(s, 'TCP 172.30.8.2:80').persistence, 10800)
      has(t, '-A -t 172.30.8.1:80 -s rr -p 600')
      // Ready endpoints only: no entry (not even weight 0) for the terminating ones kube-proxy does not use.
      assert.deepEqual(vs(s, 'TCP 172.30.8.3:80').realServers, [{address: '10.0.2.30', port: 8080, weight: 1}])
      assert.deepEqual(vs(s, 'UDP 172.30.8.3:53').realServers, [{address: '10.0.2.30', port: 53, weight: 1}])
      lacks(t, /-r 10\.0\.2\.3[12]:|-w 0/)
      // No ready endpoint: the serving+terminating one, at weight 1; the not-serving one is never used.
      assert.deepEqual(vs(s, 'TCP 172.30.8.4:80').realServers, [{address: '10.0.2.40', port: 8080, weight: 1}])
    },
  },
  {
    dir: 'scheduler-mh',
    check: (s, t) => {
      for (const v of s.virtualServers) assert.deepEqual([v.scheduler, v.schedulerFlags], ['mh', ['mh-port']], v.id)
      has(t, '-A -t 172.30.9.2:80 -s mh -p 60 -b mh-port')
      has(t, '-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ')
    },
  },
  {
    dir: 'nodeport-addresses',
    check: (s, t) => {
      assert.deepEqual(s.nodePortAddresses, ['192.168.0.2'])
      has(t, '-A -t 192.168.0.2:30100 -s wrr')
      has(t, '-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP src,dst -j KUBE-MARK-MASQ')
    },
  },
  {
    dir: 'dual-stack',
    family: 'ipv6',
    check: (s, t) => {
      assert.equal(s.family, 'ipv6')
      has(t, '-A -t [fd00:172:30::11]:80 -s rr')
      has(t, '-a -t [fd00:172:30::11]:80 -r [fd00:10:0:1::70]:8080 -m -w 1')
      lacks(t, /172\.30\.11\.1|1\.2\.3\.11|203\.0\.113/)
      // NodePorts on the global IPv6 address only (no ::1, no link-local).
      assert.deepEqual(s.nodePortAddresses, ['2001:db8::2'])
      assert.ok(s.ipsets.every((x) => x.name.startsWith('KUBE-6-') && x.name.length <= 31))
      assert.deepEqual(set(s, 'KUBE-6-NODE-PORT-LOCAL-SCTP-HAS'), ['2001:db8::2,sctp:30869'])
      assert.deepEqual(set(s, 'KUBE-6-LOAD-BALANCER-SOURCE-CID'), ['2600:1::11,tcp:80,2001:db8::/64'])
      has(t, '-A KUBE-SERVICES -s ::1/128 -j RETURN')
      has(t, 'create KUBE-6-CLUSTER-IP hash:ip,port family inet6 hashsize 1024 maxelem 65536')
    },
  },
]

describe('IPVS proxier features (golden)', () => {
  for (const c of CASES) {
    it(`${c.dir}${c.version ? ` ${c.version}` : ''}${c.family ? ` ${c.family}` : ''}`, () => {
      const state = renderIpvsCase(c.dir, {...(c.version ? {version: c.version} : {}), ...(c.family ? {family: c.family} : {})})
      const text = formatIpvsState(state)
      expectGolden(`proxier/ipvs/${c.dir}/${c.expected ?? 'expected.txt'}`, text)
      c.check(state, text)
    })
  }

  it('renders the same whatever the order of the objects', () => {
    for (const dir of ['services', 'traffic-policy', 'affinity-terminating']) {
      assert.equal(formatIpvsState(renderIpvsCase(dir, {reverse: true})), formatIpvsState(renderIpvsCase(dir)), dir)
    }
  })
})
