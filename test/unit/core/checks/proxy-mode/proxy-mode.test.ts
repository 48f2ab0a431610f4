// PROXY-001..010 over small in-code snapshots (test/support/proxy-mode-builders.ts: node-a, pod kube-proxy-a,
// kube-dns 10.96.0.10:53/UDP, shop/web 10.96.1.1:80 NodePort 30080). Each finding and each skip reason once.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {PROXY_MODE_CHECKS} from '../../../../../src/core/checks/proxy-mode/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {
  healthzBody,
  IPVSADM_SAVE,
  ipLinkJson,
  kubeProxyPod,
  metricsText,
  procModules,
  proxyCluster,
  proxyNode,
} from '../../../../support/proxy-mode-builders.js'

function run(id: string, cluster: ClusterSnapshot, node: NodeSnapshot) {
  const check = PROXY_MODE_CHECKS.find((c) => c.spec.id === id)!
  const out = runChecks([check], cluster, [node])
  assert.deepEqual(out.errors, [])
  const result = out.results[0]!
  return {status: result.status, reason: result.reason, findings: out.findings}
}

const IPT_SAVE = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]',
  ':KUBE-SERVICES - [0:0]',
  ':KUBE-SVC-TCOU7JCQXEZGVUNU - [0:0]',
  ':KUBE-SEP-AAAAAAAAAAAAAAAA - [0:0]',
  '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
  'COMMIT',
  '',
].join('\n')
const IPT_IPVS_MODE = ['*nat', ':PREROUTING ACCEPT [0:0]', ':KUBE-SERVICES - [0:0]', '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES', 'COMMIT', ''].join('\n')
const NFT_KUBE_PROXY = 'table ip kube-proxy {\n\tchain services {\n\t}\n}\n'
const FALLBACK_LOG = [
  'I1202 11:00:00.000000       1 server_others.go:269] "Using ipvs Proxier"',
  'E1202 11:00:00.100000       1 server_others.go:300] "Can\'t use ipvs proxier, trying iptables proxier" err="IPVS proxier will not be used because the following required kernel modules are not loaded: [ip_vs_rr ip_vs_wrr ip_vs_sh]"',
  'I1202 11:00:00.200000       1 server_others.go:206] "Using iptables Proxier"',
  '',
].join('\n')

describe('PROXY-001 configured IPVS, cannot use it', () => {
  it('fires on the silent fallback and names the missing modules and log lines', () => {
    const r = run('PROXY-001', proxyCluster({version: 'v1.24.17', config: 'mode: ipvs\n', logs: FALLBACK_LOG}), proxyNode({'proxy-mode': 'iptables', modules: procModules(['ip_vs', 'nf_conntrack'])}))
    assert.equal(r.status, 'failed')
    const f = r.findings[0]!
    assert.match(f.message, /configured for IPVS but runs iptables mode.*kernel modules not loaded: ip_vs_rr, ip_vs_wrr, ip_vs_sh/)
    assert.ok(f.evidence.some((e) => e.startsWith('log line 2:') && e.includes("Can't use ipvs proxier")))
    assert.match(f.remedy, /modprobe -a ip_vs_rr ip_vs_wrr ip_vs_sh/)
    assert.deepEqual(f.subject, {kind: 'Pod', name: 'kube-proxy-a', namespace: 'kube-system'})
  })
  it('fires on v1.26+ when kube-proxy exits with "can\'t use the IPVS proxier"', () => {
    const log = 'E1202 11:00:00.000000       1 run.go:74] "command failed" err="can\'t use the IPVS proxier: IPVS proxier will not be used"\n'
    const r = run('PROXY-001', proxyCluster({version: 'v1.30.2', config: 'mode: ipvs\n', logs: log}), proxyNode({}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /exits .*crash-loops/)
  })
  it('passes when IPVS runs, or another mode is configured; skips without mode evidence', () => {
    assert.equal(run('PROXY-001', proxyCluster({config: 'mode: ipvs\n'}), proxyNode({'proxy-mode': 'ipvs'})).status, 'passed')
    assert.equal(run('PROXY-001', proxyCluster(), proxyNode({'proxy-mode': 'iptables'})).status, 'passed')
    const r = run('PROXY-001', proxyCluster({config: 'mode: ipvs\n'}), proxyNode({}))
    assert.equal(r.status, 'skipped')
    assert.match(r.reason!, /running mode is unknown/)
    const none = run('PROXY-001', proxyCluster({config: null, pod: null}), proxyNode({}))
    assert.equal(none.status, 'passed', 'the DaemonSet alone still says iptables (flags only, defaults)')
  })
})

describe('PROXY-002 userspace', () => {
  it('fires as "does not start" from v1.26 and as "breaks on upgrade" before', () => {
    const r = run('PROXY-002', proxyCluster({version: 'v1.28.3', config: 'mode: userspace\n'}), proxyNode({}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /removed in v1\.26: kube-proxy rejects it/)
    assert.match(r.findings[0]!.subject.in!, /ConfigMap kube-system\/kube-proxy line \d+/)
    const old = run('PROXY-002', proxyCluster({version: 'v1.23.1', config: 'mode: userspace\n'}), proxyNode({'proxy-mode': 'userspace'}))
    assert.match(old.findings[0]!.message, /runs the userspace mode/)
  })
  it('passes on iptables; skips when the ConfigMap is unreadable', () => {
    assert.equal(run('PROXY-002', proxyCluster(), proxyNode({})).status, 'passed')
    const cluster = proxyCluster()
    cluster.configMaps[0]!.data = {'config.conf': 'kind: KubeProxyConfiguration\nmode: [unclosed\n'}
    const r = run('PROXY-002', cluster, proxyNode({}))
    assert.equal(r.status, 'skipped')
    assert.match(r.reason!, /could not be read/)
  })
})

describe('PROXY-003 running ≠ configured', () => {
  it('fires when the ConfigMap says nftables and the pod still runs iptables', () => {
    const r = run('PROXY-003', proxyCluster({config: 'mode: nftables\n'}), proxyNode({'proxy-mode': 'iptables\n'}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /runs iptables mode but is configured for nftables .*kube-proxy-a was not restarted/)
    assert.match(r.findings[0]!.remedy, /kubectl -n kube-system delete pod kube-proxy-a/)
  })
  it('uses the log line when /proxyMode was not read', () => {
    const r = run('PROXY-003', proxyCluster({config: 'mode: nftables\n', logs: 'I1202 11:00:00.000000       1 server_linux.go:170] "Using iptables Proxier"\n'}), proxyNode({}))
    assert.equal(r.status, 'failed')
    assert.ok(r.findings[0]!.evidence.includes('running mode: iptables (log of kube-proxy-a line 1)'))
  })
  it('a --proxy-mode flag next to --config is ignored: the file still decides', () => {
    const cluster = proxyCluster({config: 'mode: ""\n', pod: kubeProxyPod('v1.31.4', {extraArgs: ['--proxy-mode=ipvs']})})
    assert.equal(run('PROXY-003', cluster, proxyNode({'proxy-mode': 'iptables'})).status, 'passed')
  })
  it('leaves the IPVS fallback to PROXY-001; skips without a running mode', () => {
    assert.equal(run('PROXY-003', proxyCluster({config: 'mode: ipvs\n'}), proxyNode({'proxy-mode': 'iptables'})).status, 'passed')
    const r = run('PROXY-003', proxyCluster(), proxyNode({}))
    assert.equal(r.status, 'skipped')
    assert.match(r.reason!, /running mode is unknown/)
  })
})

describe('PROXY-004 IPVS deprecated', () => {
  it('fires on v1.35 IPVS, passes on v1.34 IPVS and on nftables', () => {
    const r = run('PROXY-004', proxyCluster({version: 'v1.35.0', config: 'mode: ipvs\n'}), proxyNode({'proxy-mode': 'ipvs'}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /v1\.35\.0 runs IPVS mode, deprecated since v1\.35/)
    assert.equal(run('PROXY-004', proxyCluster({version: 'v1.34.1', config: 'mode: ipvs\n'}), proxyNode({'proxy-mode': 'ipvs'})).status, 'passed')
    assert.equal(run('PROXY-004', proxyCluster({version: 'v1.35.0', config: 'mode: nftables\n'}), proxyNode({'proxy-mode': 'nftables'})).status, 'passed')
  })
  it('skips without a version', () => {
    const cluster = proxyCluster({config: 'mode: ipvs\n'})
    delete cluster.serverVersion
    cluster.daemonSets[0]!.spec!.template!.spec!.containers![0]!.image = 'kube-proxy'
    cluster.pods[0]!.spec!.containers![0]!.image = 'kube-proxy'
    const r = run('PROXY-004', cluster, proxyNode({'proxy-mode': 'ipvs'}))
    assert.equal(r.status, 'skipped')
    assert.match(r.reason!, /version is unknown/)
  })
})

describe('PROXY-005 leftovers of another mode', () => {
  it('iptables Service chains while running IPVS: targeted chain removal, and a warning against kube-proxy --cleanup', () => {
    const r = run('PROXY-005', proxyCluster({config: 'mode: ipvs\n'}), proxyNode({'proxy-mode': 'ipvs', 'iptables-save': IPT_SAVE, ipvsadm: IPVSADM_SAVE, 'ip-link': ipLinkJson(true)}))
    assert.equal(r.status, 'failed')
    assert.equal(r.findings.length, 1)
    assert.match(r.findings[0]!.message, /2 iptables-mode Service chain\(s\).*runs ipvs mode/)
    assert.match(r.findings[0]!.remedy, /Do NOT use `kube-proxy --cleanup` here: on an IPVS node it flushes ALL IPVS/)
  })
  it('IPVS virtual servers and kube-ipvs0 while running iptables; other IPVS users are ignored', () => {
    const ipvs = IPVSADM_SAVE + '-A -t 192.168.0.200:443 -s wlc\n'
    const r = run('PROXY-005', proxyCluster(), proxyNode({'proxy-mode': 'iptables', 'iptables-save': IPT_SAVE, ipvsadm: ipvs, 'ip-link': ipLinkJson(true)}))
    assert.equal(r.status, 'failed')
    const f = r.findings[0]!
    assert.match(f.message, /2 IPVS virtual server\(s\) and the kube-ipvs0 link/)
    assert.ok(!f.evidence.some((e) => e.includes('192.168.0.200')))
    assert.match(f.remedy, /ipvsadm -D -t 10\.96\.1\.1:80; ipvsadm -D -u 10\.96\.0\.10:53/)
    assert.match(f.remedy, /ip link del kube-ipvs0/)
  })
  it('a kube-proxy nft table while running iptables', () => {
    const r = run('PROXY-005', proxyCluster(), proxyNode({'proxy-mode': 'iptables', 'iptables-save': IPT_SAVE, 'nft-ruleset': NFT_KUBE_PROXY}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.remedy, /nft delete table ip kube-proxy/)
  })
  it('passes on a clean node of each mode; skips without a running mode or without any dataplane input', () => {
    assert.equal(run('PROXY-005', proxyCluster(), proxyNode({'proxy-mode': 'iptables', 'iptables-save': IPT_SAVE, ipvsadm: '', 'ip-link': ipLinkJson(false), 'nft-ruleset': ''})).status, 'passed')
    assert.equal(run('PROXY-005', proxyCluster({config: 'mode: ipvs\n'}), proxyNode({'proxy-mode': 'ipvs', 'iptables-save': IPT_IPVS_MODE, ipvsadm: IPVSADM_SAVE, 'ip-link': ipLinkJson(true)})).status, 'passed')
    assert.equal(run('PROXY-005', proxyCluster({config: 'mode: nftables\n'}), proxyNode({'proxy-mode': 'nftables', 'iptables-save': IPT_IPVS_MODE, 'nft-ruleset': NFT_KUBE_PROXY})).status, 'passed')
    assert.match(run('PROXY-005', proxyCluster(), proxyNode({'iptables-save': IPT_SAVE})).reason!, /running mode is unknown/)
    assert.match(run('PROXY-005', proxyCluster(), proxyNode({'proxy-mode': 'iptables'})).reason!, /none of iptables-save/)
  })
})

describe('PROXY-006 kube-proxy pod health', () => {
  it('crash-looping, not ready, many restarts', () => {
    const log = 'E1202 11:00:00.000000       1 run.go:74] "command failed" err="failed complete: unrecognized feature gate: Foo"\n'
    const crash = run('PROXY-006', proxyCluster({pod: kubeProxyPod('v1.31.4', {ready: false, waiting: 'CrashLoopBackOff', restarts: {count: 12, agoSeconds: 30}}), logs: log}), proxyNode({}))
    assert.equal(crash.status, 'failed')
    assert.match(crash.findings[0]!.message, /kube-proxy-a is in CrashLoopBackOff after 12 restarts/)
    assert.ok(crash.findings[0]!.evidence.some((e) => e.startsWith('log line 1:') && e.includes('unrecognized feature gate')))
    const notReady = run('PROXY-006', proxyCluster({pod: kubeProxyPod('v1.31.4', {ready: false})}), proxyNode({}))
    assert.match(notReady.findings[0]!.message, /not ready/)
    const flappy = run('PROXY-006', proxyCluster({pod: kubeProxyPod('v1.31.4', {restarts: {count: 7, reason: 'OOMKilled'}})}), proxyNode({}))
    assert.equal(flappy.findings[0]!.severity, 'warning')
    assert.match(flappy.findings[0]!.message, /restarted 7 times/)
    assert.ok(flappy.findings[0]!.evidence.some((e) => e.includes('OOMKilled')))
  })
  it('no pod on the node although the DaemonSet exists; skipped without any kube-proxy', () => {
    const r = run('PROXY-006', proxyCluster({pod: null}), proxyNode({}))
    assert.match(r.findings[0]!.message, /no pod on node-a/)
    const cluster = proxyCluster({pod: null})
    cluster.daemonSets = []
    assert.match(run('PROXY-006', cluster, proxyNode({})).reason!, /no kube-proxy DaemonSet or pod/)
  })
  it('passes for a ready pod with few restarts', () => {
    assert.equal(run('PROXY-006', proxyCluster({pod: kubeProxyPod('v1.31.4', {restarts: {count: 1}})}), proxyNode({})).status, 'passed')
  })
})

describe('PROXY-007 /healthz', () => {
  it('fires when lastUpdated is older than 2 × syncPeriod, or when nothing answers', () => {
    const stale = run('PROXY-007', proxyCluster(), proxyNode({'kube-proxy-healthz': healthzBody('2026-12-02T11:50:00Z', '2026-12-02T12:00:00Z')}))
    assert.equal(stale.status, 'failed')
    assert.match(stale.findings[0]!.message, /600s before it answered \(limit 60s/)
    const node = proxyNode({})
    node.artifacts['kube-proxy-healthz'] = {id: 'kube-proxy-healthz', source: 'curl', exitCode: 7, content: '', error: 'exit code 7', stderr: 'curl: (7) Failed to connect to 127.0.0.1 port 10256: Connection refused'}
    assert.match(run('PROXY-007', proxyCluster(), node).findings[0]!.message, /does not answer/)
  })
  it('honours a longer syncPeriod', () => {
    const r = run('PROXY-007', proxyCluster({config: 'mode: iptables\niptables:\n  syncPeriod: 10m\n'}), proxyNode({'kube-proxy-healthz': healthzBody('2026-12-02T11:50:00Z', '2026-12-02T12:00:00Z')}))
    assert.equal(r.status, 'passed')
  })
  it('passes when fresh; skips when missing or not JSON', () => {
    assert.equal(run('PROXY-007', proxyCluster(), proxyNode({'kube-proxy-healthz': healthzBody('2026-12-02T11:59:50Z', '2026-12-02T12:00:00Z')})).status, 'passed')
    assert.match(run('PROXY-007', proxyCluster(), proxyNode({})).reason!, /missing input: kube-proxy-healthz/)
    assert.match(run('PROXY-007', proxyCluster(), proxyNode({'kube-proxy-healthz': '<html>'})).reason!, /not kube-proxy's JSON/)
  })
})

describe('PROXY-008 healthy but stuck', () => {
  const T = 1796212800
  it('fires when a change has waited longer than 2 × syncPeriod', () => {
    const r = run('PROXY-008', proxyCluster(), proxyNode({'kube-proxy-metrics': metricsText({lastSync: T - 900, lastQueued: T - 60})}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /\(IPv4\) queued a change .* 840s earlier \(limit 60s\)/)
    assert.equal(r.findings[0]!.group, 'IPv4')
  })
  it('passes when synced after the last queue, also without ip_family labels; skips without metrics', () => {
    assert.equal(run('PROXY-008', proxyCluster(), proxyNode({'kube-proxy-metrics': metricsText({lastSync: T, lastQueued: T - 5, family: false})})).status, 'passed')
    assert.equal(run('PROXY-008', proxyCluster(), proxyNode({'kube-proxy-metrics': metricsText({lastSync: T - 10, lastQueued: T})})).status, 'passed')
    assert.match(run('PROXY-008', proxyCluster(), proxyNode({})).reason!, /missing input: kube-proxy-metrics/)
    assert.match(run('PROXY-008', proxyCluster(), proxyNode({'kube-proxy-metrics': 'up 1\n'})).reason!, /no kubeproxy_sync_proxy_rules_last_\* timestamps/)
    assert.match(run('PROXY-008', proxyCluster(), proxyNode({'kube-proxy-metrics': 'bad{ 1\n'})).reason!, /could not be parsed/)
  })
})

describe('PROXY-009 restore failures', () => {
  const T = 1796212800
  it('fires on restore or partial restore failures', () => {
    const r = run('PROXY-009', proxyCluster(), proxyNode({'kube-proxy-metrics': metricsText({lastSync: T, lastQueued: T, restoreFailures: 3, partialFailures: 1})}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /3 × iptables restore failures, 1 × iptables partial restore failures/)
  })
  it('passes at zero; skips when the counters are absent', () => {
    assert.equal(run('PROXY-009', proxyCluster(), proxyNode({'kube-proxy-metrics': metricsText({lastSync: T, lastQueued: T})})).status, 'passed')
    assert.match(run('PROXY-009', proxyCluster(), proxyNode({'kube-proxy-metrics': 'up 1\n'})).reason!, /no restore or sync failure counters/)
  })
})

describe('PROXY-010 chains in both iptables backends', () => {
  const HINT_ONLY = '*mangle\n:PREROUTING ACCEPT [0:0]\n:KUBE-IPTABLES-HINT - [0:0]\n:KUBE-KUBELET-CANARY - [0:0]\nCOMMIT\n'
  it('fires and names the stale backend from `iptables --version`', () => {
    const r = run('PROXY-010', proxyCluster(), proxyNode({'iptables-legacy-save': IPT_SAVE, 'iptables-nft-save': IPT_SAVE + HINT_ONLY, 'iptables-version': 'iptables v1.8.9 (nf_tables)\n'}))
    assert.equal(r.status, 'failed')
    const f = r.findings[0]!
    assert.match(f.message, /3 in iptables-legacy and 3 in iptables-nft; the host uses iptables-nft, so the iptables-legacy copy is stale/)
    assert.match(f.remedy, /iptables-legacy -t nat -F \$c/)
    assert.ok(!f.remedy.includes('iptables-nft -t'), 'never touches the live backend')
  })
  it('falls back to the kubelet hint when the version is unknown', () => {
    const r = run('PROXY-010', proxyCluster(), proxyNode({'iptables-legacy-save': IPT_SAVE + HINT_ONLY, 'iptables-nft-save': IPT_SAVE}))
    assert.match(r.findings[0]!.message, /host uses iptables-legacy, so the iptables-nft copy is stale/)
  })
  it('passes when the other backend has only kubelet chains or nothing; skips without both dumps', () => {
    assert.equal(run('PROXY-010', proxyCluster(), proxyNode({'iptables-legacy-save': HINT_ONLY, 'iptables-nft-save': IPT_SAVE})).status, 'passed')
    assert.equal(run('PROXY-010', proxyCluster(), proxyNode({'iptables-legacy-save': '', 'iptables-nft-save': IPT_SAVE})).status, 'passed')
    assert.match(run('PROXY-010', proxyCluster(), proxyNode({'iptables-nft-save': IPT_SAVE})).reason!, /missing input: iptables-legacy-save/)
  })
})
