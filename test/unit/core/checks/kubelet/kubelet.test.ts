// KUBELET-001..026 over in-code kubeadm worlds (test/support/kubelet-cases.ts): every finding, every skip reason,
// and the fire/quiet bundles under test/fixtures/checks/kubelet (also run by catalog.test.ts once registered).
import assert from 'node:assert/strict'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {KUBELET_CHECKS} from '../../../../../src/core/checks/kubelet/index.js'
import {corefileKubernetesZones, validationErrors} from '../../../../../src/core/checks/kubelet/rules.js'
import {KUBELET_SPECS} from '../../../../../src/core/checks/kubelet/specs.js'
import {diffConfigs, kubeletView, splitDropIns} from '../../../../../src/core/checks/kubelet/view.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {Finding} from '../../../../../src/core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {applyKubeletDefaults, parseKubeletConfig} from '../../../../../src/core/parse/kubelet-config.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {clusterSnapshot, nodeSnapshot} from '../../../../support/calico-dns-builders.js'
import {FIXTURES} from '../../../../support/golden.js'
import {
  CONTAINERD_CGROUPFS,
  HEALTHY,
  KUBELET_CASES,
  kubeadmKubeletConfig,
  type KubeletDoc,
  type KubeletWorld,
  kubeletWorld,
  NODE,
  PACKAGED_EXTRA_ARGS,
  defaultArgs,
  sysconfigArgs,
} from '../../../../support/kubelet-cases.js'

const cfg = (patch: KubeletDoc): KubeletDoc => ({...kubeadmKubeletConfig(), ...patch})
const FLAGS = (args: string) => `KUBELET_KUBEADM_ARGS="--node-ip=192.168.0.11 ${args}"\n`

function runOn(cluster: ClusterSnapshot, node: NodeSnapshot, id: string) {
  const check = KUBELET_CHECKS.find((c) => c.spec.id === id)!
  const out = runChecks([check], cluster, [node])
  assert.deepEqual(out.errors, [])
  return {result: out.results[0]!, findings: out.findings}
}

function run(w: KubeletWorld, id: string) {
  const {cluster, node} = kubeletWorld(w)
  return runOn(cluster, node, id)
}

function fired(w: KubeletWorld, id: string): Finding[] {
  const r = run(w, id)
  assert.equal(r.result.status, 'failed', `${id}: ${JSON.stringify(r.result)}`)
  return r.findings
}

function skipped(w: KubeletWorld | {cluster: ClusterSnapshot; node: NodeSnapshot}, id: string): string {
  const r = 'config' in w ? run(w, id) : runOn(w.cluster, w.node, id)
  assert.equal(r.result.status, 'skipped', `${id}: ${JSON.stringify(r.result)}`)
  return (r.result as {reason: string}).reason
}

function passed(w: KubeletWorld, id: string): void {
  const r = run(w, id)
  assert.equal(r.result.status, 'passed', `${id}: ${JSON.stringify(r.result)} ${JSON.stringify(r.findings)}`)
}

/** A node with no kubelet artifacts and no /configz. */
function bare(): {cluster: ClusterSnapshot; node: NodeSnapshot} {
  return {cluster: clusterSnapshot({serverVersion: 'v1.30.4'}), node: nodeSnapshot(NODE, {})}
}

describe('kubelet checks: catalog', () => {
  it('has 26 specs with unique ids in order, areas kubelet/dns, and runs every check on a healthy kubeadm node', () => {
    assert.deepEqual(
      KUBELET_CHECKS.map((c) => c.spec.id),
      Array.from({length: 26}, (_, i) => `KUBELET-${String(i + 1).padStart(3, '0')}`),
    )
    assert.deepEqual(KUBELET_CHECKS.map((c) => c.spec), [...KUBELET_SPECS])
    assert.deepEqual(KUBELET_CHECKS.filter((c) => c.spec.area === 'dns').map((c) => c.spec.id), ['KUBELET-016', 'KUBELET-017', 'KUBELET-018'])
    const {cluster, node} = kubeletWorld(HEALTHY)
    const out = runChecks(KUBELET_CHECKS, cluster, [node])
    assert.deepEqual(out.errors, [])
    assert.deepEqual(out.results.filter((r) => r.status !== 'passed'), [])
  })

  it('every in-code fire case fires its check', () => {
    for (const c of KUBELET_CASES) fired(c.world, c.id)
  })
})

describe('kubelet checks: fixture bundles', () => {
  const dir = join(FIXTURES, 'checks/kubelet')
  const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Record<string, {fire: string; quiet: string; node: string}>
  const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}
  it('cases.json covers every KUBELET check', () => {
    assert.deepEqual(Object.keys(cases).sort(), KUBELET_SPECS.map((s) => s.id).sort())
  })
  for (const [id, c] of Object.entries(cases)) {
    it(`${id} fires on ${c.fire} and stays quiet on ${c.quiet}`, async () => {
      assert.ok(existsSync(join(dir, c.fire)))
      const check = KUBELET_CHECKS.find((k) => k.spec.id === id)!
      const fire = await readBundle(join(dir, c.fire))
      const f = analyzeSnapshots(fire.cluster, fire.nodes, {metadata: meta, checks: [check]})
      assert.equal(f.results.find((r) => r.node === c.node)?.status, 'failed')
      const quiet = await readBundle(join(dir, c.quiet))
      const q = analyzeSnapshots(quiet.cluster, quiet.nodes, {metadata: meta, checks: [check]})
      assert.equal(q.results.find((r) => r.node === c.node)?.status, 'passed')
    })
  }
})

describe('kubelet checks: every fire bundle', () => {
  const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}
  for (const c of KUBELET_CASES) {
    it(`${c.name} fires ${c.id}`, async () => {
      const bundle = await readBundle(join(FIXTURES, 'checks/kubelet', c.name))
      const out = analyzeSnapshots(bundle.cluster, bundle.nodes, {metadata: meta, checks: KUBELET_CHECKS.filter((k) => k.spec.id === c.id)})
      assert.equal(out.results.find((r) => r.node === NODE)?.status, 'failed')
    })
  }
})

describe('KUBELET-001/002 three-way drift', () => {
  it('reports disk ≠ running with both values and where the disk value came from', () => {
    const [f, ...rest] = fired({config: cfg({maxPods: 250}), runningConfig: kubeadmKubeletConfig(), intended: cfg({maxPods: 250})}, 'KUBELET-001')
    assert.equal(rest.length, 0)
    assert.match(f!.message, /^maxPods: the files give 250 but the running kubelet has 110/)
    assert.match(f!.evidence[0]!, /^on disk: maxPods: 250 \(\/var\/lib\/kubelet\/config\.yaml:\d+\)$/)
    assert.equal(f!.evidence[1], 'running: maxPods: 110 (/configz)')
  })

  it('treats 0s/omitted as the default and normalises durations: the real kubeadm files match the real /configz', () => {
    const read = (f: string) => readFileSync(join(FIXTURES, 'config/kubelet', f), 'utf8')
    const cluster = clusterSnapshot({nodes: [{apiVersion: 'v1', kind: 'Node', metadata: {name: NODE}, status: {nodeInfo: {kubeletVersion: 'v1.30.2'}}}], serverVersion: 'v1.30.4'})
    cluster.configz = {[NODE]: read('configz.json')}
    const node = nodeSnapshot(NODE, {'kubelet-config': read('kubeadm-config.yaml'), 'kubelet-unit': read('systemctl-cat-kubeadm.txt'), 'kubeadm-flags': read('kubeadm-flags.env')})
    assert.equal(runOn(cluster, node, 'KUBELET-001').result.status, 'passed')
  })

  it('a flag that differs from the running value also counts (the unit is what the next start uses)', () => {
    // The world starts the kubelet with the same flags; edit /configz to what an older start reported.
    const {cluster, node} = kubeletWorld({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--max-pods=90')})
    const z = JSON.parse(cluster.configz[NODE]!) as {kubeletconfig: Record<string, unknown>}
    assert.equal(z.kubeletconfig['maxPods'], 90)
    z.kubeletconfig['maxPods'] = 110
    cluster.configz[NODE] = JSON.stringify(z)
    const r = runOn(cluster, node, 'KUBELET-001')
    assert.match(r.findings[0]!.evidence[0]!, /maxPods: 90 \(flag --max-pods=90 via \$KUBELET_KUBEADM_ARGS at \/var\/lib\/kubelet\/kubeadm-flags\.env:1\)/)
  })

  it('KUBELET-001 skips without /configz or without config.yaml', () => {
    assert.match(skipped({config: kubeadmKubeletConfig(), noConfigz: true}, 'KUBELET-001'), /missing input: \/configz of node-a/)
    assert.match(skipped(bare(), 'KUBELET-001'), /missing input: kubelet-config/)
  })

  it('KUBELET-002 names the drop-in that drifted and the ConfigMap value', () => {
    const [f] = fired(KUBELET_CASES.find((c) => c.id === 'KUBELET-002')!.world, 'KUBELET-002')
    assert.match(f!.message, /maxPods: the node has 250 but ConfigMap kube-system\/kubelet-config intends 110/)
    assert.match(f!.evidence[0]!, /\/etc\/kubernetes\/kubelet\.conf\.d\/50-max-pods\.conf:3/)
    assert.match(f!.evidence[1]!, /kubelet default/)
  })

  it('KUBELET-002 ignores per-node resolvConf, reads kubelet-config-1.NN, and skips without the ConfigMap', () => {
    passed({config: cfg({resolvConf: '/etc/resolv.conf'}), intended: kubeadmKubeletConfig(), resolvConf: 'nameserver 10.0.0.2\n'}, 'KUBELET-002')
    const {cluster, node} = kubeletWorld({config: cfg({maxPods: 50})})
    cluster.configMaps = cluster.configMaps.map((c) => (c.metadata.name === 'kubelet-config' ? {...c, metadata: {...c.metadata, name: 'kubelet-config-1.30'}} : c))
    assert.equal(runOn(cluster, node, 'KUBELET-002').result.status, 'passed')
    assert.match(skipped({config: kubeadmKubeletConfig(), intended: null}, 'KUBELET-002'), /not applicable: no kube-system\/kubelet-config ConfigMap/)
  })
})

describe('KUBELET-003/004 schema and validation', () => {
  it('reports unknown fields (warning) and wrong types (error) with file:line', () => {
    const fs = fired({config: cfg({maxPods: 'many', evictonHard: {'memory.available': '200Mi'}, syncFrequency: '1 minute'}), noConfigz: true}, 'KUBELET-003')
    assert.ok(fs.some((f) => f.severity === 'warning' && /config\.yaml:\d+: unknown field evictonHard/.test(f.message)))
    assert.ok(fs.some((f) => f.severity === 'error' && /maxPods: expected an integer/.test(f.message) && f.subject.name === 'maxPods'))
    assert.ok(fs.some((f) => f.severity === 'error' && /syncFrequency/.test(f.message)))
  })

  it('reports a file that is not YAML, and issues in drop-ins', () => {
    const {cluster, node} = kubeletWorld(HEALTHY)
    node.artifacts['kubelet-config']!.content = 'kind: KubeletConfiguration\nmaxPods: [1\n'
    const r = runOn(cluster, node, 'KUBELET-003')
    assert.equal(r.result.status, 'failed')
    assert.match(r.findings[0]!.message, /cannot be read as YAML.*the kubelet exits at start/)
    const d = fired({config: kubeadmKubeletConfig(), dropIns: [{name: '/etc/kubernetes/kubelet.conf.d/10-x.conf', text: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: true\n'}], noConfigz: true}, 'KUBELET-003')
    assert.match(d[0]!.message, /^\/etc\/kubernetes\/kubelet\.conf\.d\/10-x\.conf:3: maxPods/)
    assert.match(skipped(bare(), 'KUBELET-003'), /missing input: kubelet-config/)
  })

  it('applies the startup validation rules of E.5', () => {
    const errs = (patch: KubeletDoc) => validationErrors(applyKubeletDefaults(parseKubeletConfig(JSON.stringify(cfg(patch))), '1.30')).map((e) => e.path)
    assert.deepEqual(errs({}), [])
    assert.deepEqual(errs({port: 70000, readOnlyPort: -1, iptablesMasqueradeBit: 32, oomScoreAdj: -1001}), ['port', 'readOnlyPort', 'iptablesMasqueradeBit', 'oomScoreAdj'])
    assert.deepEqual(errs({enforceNodeAllocatable: ['pods', 'system-reserved'], cgroupsPerQOS: false}), ['enforceNodeAllocatable', 'systemReservedCgroup'])
    assert.deepEqual(errs({enforceNodeAllocatable: ['none', 'pods']}), ['enforceNodeAllocatable'])
    assert.deepEqual(errs({maxParallelImagePulls: 5, serializeImagePulls: true}), ['maxParallelImagePulls'])
    assert.deepEqual(errs({maxParallelImagePulls: 5}), [], 'serializeImagePulls defaults to false when maxParallelImagePulls > 1 (1.27+)')
    assert.deepEqual(errs({shutdownGracePeriod: '10s', shutdownGracePeriodCriticalPods: '30s'}), ['shutdownGracePeriodCriticalPods'])
    assert.deepEqual(errs({systemCgroups: '/system.slice'}), ['systemCgroups'])
    assert.deepEqual(errs({eventRecordQPS: -1, podPidsLimit: -2}), ['eventRecordQPS', 'podPidsLimit'])
  })

  it('KUBELET-004 reports with evidence and includes flags; skips without config.yaml', () => {
    const [f] = fired({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--image-gc-low-threshold=90 --image-gc-high-threshold=80'), noConfigz: true}, 'KUBELET-004')
    assert.match(f!.message, /imageGCLowThresholdPercent \(90\) must be less than imageGCHighThresholdPercent \(80\)/)
    assert.match(f!.evidence[0]!, /flag --image-gc-low-threshold=90/)
    assert.match(skipped(bare(), 'KUBELET-004'), /missing input: kubelet-config/)
  })
})

describe('KUBELET-005..014 security settings', () => {
  it('judges the running config first and names its basis', () => {
    const [f] = fired({config: cfg({readOnlyPort: 10255})}, 'KUBELET-007')
    assert.match(f!.evidence[0]!, /^readOnlyPort: 10255 \(running kubelet \(\/configz\); judged on the running \(\/configz\) config\)$/)
  })

  it('falls back to files + flags without /configz, and flags win over the file (kube-bench semantics)', () => {
    const [f] = fired({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--anonymous-auth=true'), noConfigz: true}, 'KUBELET-005')
    assert.match(f!.evidence[0]!, /authentication\.anonymous\.enabled: true \(flag --anonymous-auth=true via \$KUBELET_KUBEADM_ARGS at \/var\/lib\/kubelet\/kubeadm-flags\.env:1; judged on the \/var\/lib\/kubelet\/config\.yaml \+ flags config\)/)
  })

  it('fires on each insecure value and stays quiet on the secure defaults', () => {
    for (const id of ['KUBELET-005', 'KUBELET-006', 'KUBELET-007', 'KUBELET-008', 'KUBELET-009', 'KUBELET-010', 'KUBELET-011', 'KUBELET-012', 'KUBELET-013', 'KUBELET-014']) passed(HEALTHY, id)
    const rot = fired({config: cfg({featureGates: {RotateKubeletServerCertificate: false}})}, 'KUBELET-009')
    assert.deepEqual(rot.map((f) => f.subject.name), ['featureGates.RotateKubeletServerCertificate'])
    const tls = fired({config: cfg({tlsMinVersion: 'VersionTLS11'})}, 'KUBELET-010')
    assert.match(tls[0]!.message, /TLS 1\.0\/1\.1/)
    passed({config: cfg({tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305']})}, 'KUBELET-010')
  })

  it('streamingConnectionIdleTimeout: 0s in the file means the 4h default; only a real 0 fires', () => {
    passed({config: cfg({streamingConnectionIdleTimeout: '0s'})}, 'KUBELET-011')
    fired({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--streaming-connection-idle-timeout=0s')}, 'KUBELET-011')
  })

  it('eventRecordQPS: unset defaults to 50 (quiet), explicit 0 fires as info', () => {
    passed({config: cfg({eventRecordQPS: null})}, 'KUBELET-013')
    assert.equal(fired({config: cfg({eventRecordQPS: 0})}, 'KUBELET-013')[0]!.severity, 'info')
  })

  it('skips when neither config.yaml nor /configz is available', () => {
    for (const id of ['KUBELET-005', 'KUBELET-011', 'KUBELET-023', 'KUBELET-024', 'KUBELET-025', 'KUBELET-026']) {
      assert.match(skipped(bare(), id), /missing input: kubelet-config; missing input: \/configz of node-a/)
    }
  })
})

describe('KUBELET-015 cgroup driver', () => {
  it('is an error on containerd 1.7 in both directions', () => {
    const [a] = fired({config: kubeadmKubeletConfig(), containerd: CONTAINERD_CGROUPFS}, 'KUBELET-015')
    assert.equal(a!.severity, 'error')
    assert.match(a!.evidence[1]!, /containerd: cgroupfs \(SystemdCgroup = false at \/etc\/containerd\/config\.toml:\d+\)/)
    const [b] = fired({config: cfg({cgroupDriver: 'cgroupfs'})}, 'KUBELET-015')
    assert.match(b!.message, /cgroupsPath format/)
  })

  it('is info only when the kubelet takes the driver from containerd 2.x (1.31+ beta, 1.34 GA)', () => {
    const [f] = fired({config: kubeadmKubeletConfig(), containerd: CONTAINERD_CGROUPFS, kubeletVersion: 'v1.31.1', serverVersion: 'v1.31.1', runtimeVersion: 'containerd://2.0.2'}, 'KUBELET-015')
    assert.equal(f!.severity, 'info')
    assert.match(f!.message, /setting is ignored/)
    // Gate switched off on 1.31: the config value counts again.
    const [g] = fired({config: cfg({featureGates: {KubeletCgroupDriverFromCRI: false}}), containerd: CONTAINERD_CGROUPFS, kubeletVersion: 'v1.31.1', serverVersion: 'v1.31.1', runtimeVersion: 'containerd://2.0.2'}, 'KUBELET-015')
    assert.equal(g!.severity, 'error')
  })

  it('skips for other runtimes, a disabled CRI plugin and unparsable TOML', () => {
    assert.match(skipped({config: kubeadmKubeletConfig(), runtimeVersion: 'cri-o://1.30.2'}, 'KUBELET-015'), /runtime is cri-o/)
    assert.match(skipped({config: kubeadmKubeletConfig(), containerd: 'version = 2\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n'}, 'KUBELET-015'), /CRI plugin is disabled/)
    assert.match(skipped({config: kubeadmKubeletConfig(), containerd: 'version = = 2'}, 'KUBELET-015'), /cannot be parsed/)
    assert.match(skipped(bare(), 'KUBELET-015'), /missing input: containerd-config/)
  })
})

describe('KUBELET-016..018 DNS settings', () => {
  it('clusterDNS: stale IP and empty list fire; node-local-dns link-local is accepted', () => {
    const [f] = fired({config: cfg({clusterDNS: ['10.32.0.10']})}, 'KUBELET-016')
    assert.equal(f!.evidence[1], 'Service kube-system/kube-dns: ClusterIP 10.96.0.10')
    assert.match(fired({config: cfg({clusterDNS: []})}, 'KUBELET-016')[0]!.message, /clusterDNS is empty/)
    const w = kubeletWorld({config: cfg({clusterDNS: ['169.254.20.10']})})
    assert.equal(runOn(w.cluster, w.node, 'KUBELET-016').result.status, 'failed')
    w.cluster.daemonSets = [{apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'node-local-dns', namespace: 'kube-system', labels: {'k8s-app': 'node-local-dns'}}}]
    assert.equal(runOn(w.cluster, w.node, 'KUBELET-016').result.status, 'passed')
    assert.match(skipped({config: kubeadmKubeletConfig(), dnsIP: null}, 'KUBELET-016'), /no Service kube-system\/kube-dns/)
  })

  it('clusterDomain: empty fires; a domain the Corefile does not serve fires as error; no Corefile zones passes', () => {
    assert.match(fired({config: cfg({clusterDomain: ''})}, 'KUBELET-017')[0]!.message, /clusterDomain is empty/)
    assert.equal(fired({config: cfg({clusterDomain: 'cluster.internal'})}, 'KUBELET-017')[0]!.severity, 'error')
    passed({config: cfg({clusterDomain: 'cluster.local.'})}, 'KUBELET-017')
    passed({config: cfg({clusterDomain: 'cluster.internal'}), corefile: '.:53 {\n  forward . 8.8.8.8\n}\n'}, 'KUBELET-017')
    assert.deepEqual(corefileKubernetesZones('.:53 {\n    kubernetes cluster.local. in-addr.arpa {\n    }\n}\n'), ['cluster.local', 'in-addr.arpa'])
  })

  it('resolvConf: the stub file fires, /etc/resolv.conf fires only with a loopback nameserver, else skipped without the file', () => {
    fired({config: cfg({resolvConf: '/run/systemd/resolve/stub-resolv.conf'})}, 'KUBELET-018')
    passed({config: cfg({resolvConf: '/etc/resolv.conf'}), resolvConf: 'nameserver 10.0.0.2\nnameserver 10.0.0.3\n'}, 'KUBELET-018')
    passed({config: cfg({resolvConf: ''})}, 'KUBELET-018')
    assert.match(skipped({config: cfg({resolvConf: '/etc/resolv.conf'})}, 'KUBELET-018'), /missing input: resolv-conf/)
  })
})

describe('KUBELET-019..021 flags', () => {
  it('removed flags are errors for the running version, with file:line', () => {
    const [f] = fired({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--network-plugin=cni'), noConfigz: true}, 'KUBELET-019')
    assert.match(f!.message, /this kubelet \(1\.30\) exits with "unknown flag: --network-plugin"/)
    assert.equal(f!.subject.in, '/var/lib/kubelet/kubeadm-flags.env:1')
    fired({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--pod-infra-container-image=registry.k8s.io/pause:3.10'), kubeletVersion: 'v1.35.0', serverVersion: 'v1.35.0', noConfigz: true}, 'KUBELET-019')
    passed({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--pod-infra-container-image=registry.k8s.io/pause:3.9')}, 'KUBELET-019')
    fired({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--fail-swap-on false'), noConfigz: true}, 'KUBELET-019')
  })

  it('deprecated, later-removed and unknown flags are warnings', () => {
    const fs = fired({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--minimum-container-ttl-duration=1m --made-up-flag=1'), noConfigz: true}, 'KUBELET-020')
    assert.deepEqual(fs.map((f) => f.subject.name).sort(), ['--made-up-flag=1', '--minimum-container-ttl-duration=1m'])
  })

  it('uses the unit + kubeadm-flags.env, else the running command line; skips with neither', () => {
    const {cluster, node} = kubeletWorld({config: kubeadmKubeletConfig(), unit: null})
    const {'kubeadm-flags': _env, ...rest} = node.artifacts
    const withCmdline = {...node, artifacts: {...rest, 'kubelet-cmdline': {id: 'kubelet-cmdline', source: 'cmdline', content: '/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --network-plugin=cni '}}}
    assert.match(runOn(cluster, withCmdline, 'KUBELET-019').findings[0]!.subject.in!, /kubelet command line/)
    assert.match(skipped({cluster, node: {...node, artifacts: rest}}, 'KUBELET-019'), /missing input: kubelet-unit, kubeadm-flags, kubelet-default-env, kubelet-sysconfig-env or kubelet-cmdline/)
  })

  it('flag overrides: warning when it changes the file value, info when the file does not set it', () => {
    const [w] = fired({config: cfg({maxPods: 110}), kubeadmFlags: FLAGS('--max-pods=250')}, 'KUBELET-021')
    assert.equal(w!.severity, 'warning')
    assert.match(w!.evidence[1]!, /^file: maxPods: 110 \(\/var\/lib\/kubelet\/config\.yaml:\d+\)$/)
    const [i] = fired({config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--max-pods=250')}, 'KUBELET-021')
    assert.equal(i!.severity, 'info')
    assert.match(skipped(bare(), 'KUBELET-021'), /missing input/)
  })
})

describe('KUBELET-019..021: the KUBELET_EXTRA_ARGS files', () => {
  it('flags in the file the unit names are judged with that file and line, after kubeadm-flags.env', () => {
    const [f] = fired({config: kubeadmKubeletConfig(), extraArgs: sysconfigArgs('--network-plugin=cni'), noConfigz: true}, 'KUBELET-019')
    assert.equal(f!.subject.in, '/etc/sysconfig/kubelet:1')
    assert.match(f!.message, /--network-plugin=cni: removed in 1\.24; this kubelet \(1\.30\) exits/)
    // KUBELET_EXTRA_ARGS come last on the command line, so they win over kubeadm's flags.
    const [o] = fired({config: cfg({maxPods: 110}), kubeadmFlags: FLAGS('--max-pods=200'), extraArgs: sysconfigArgs('--max-pods=250')}, 'KUBELET-021')
    assert.match(o!.message, /^--max-pods=250 \(\/etc\/sysconfig\/kubelet:1\) overrides maxPods: the file says 110, the kubelet uses 250$/)
    assert.equal(o!.evidence[0], 'flag: --max-pods=250 at /etc/sysconfig/kubelet:1 via $KUBELET_EXTRA_ARGS')
  })

  it('a file the unit does not name is not read (systemd would not), nor is the empty file the packages ship', () => {
    passed({config: kubeadmKubeletConfig(), extraArgs: defaultArgs('--network-plugin=cni'), noConfigz: true}, 'KUBELET-019')
    passed({config: kubeadmKubeletConfig(), extraArgs: PACKAGED_EXTRA_ARGS}, 'KUBELET-020')
    passed({config: kubeadmKubeletConfig(), extraArgs: null}, 'KUBELET-021')
  })

  it('without the unit: kubeadm-flags.env then the extra-args file; the file alone when nothing else tells', () => {
    const [d] = fired({config: kubeadmKubeletConfig(), unit: null, extraArgs: defaultArgs('--pod-infra-container-image=registry.k8s.io/pause:3.9')}, 'KUBELET-020')
    assert.equal(d!.subject.in, '/etc/default/kubelet:2')
    const {cluster, node} = kubeletWorld({config: kubeadmKubeletConfig(), unit: null, extraArgs: defaultArgs('--network-plugin=cni'), noConfigz: true})
    const {'kubeadm-flags': _env, ...rest} = node.artifacts
    assert.equal(runOn(cluster, {...node, artifacts: rest}, 'KUBELET-019').findings[0]!.subject.in, '/etc/default/kubelet:2')
    const withCmdline = {...node, artifacts: {...rest, 'kubelet-cmdline': {id: 'kubelet-cmdline', source: 'cmdline', content: '/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --max-pods=90 '}}}
    assert.equal(runOn(cluster, withCmdline, 'KUBELET-019').result.status, 'passed', 'the running command line beats a lone extra-args file')
  })
})

describe('KUBELET-022 version skew', () => {
  it('allows 3 minors behind from API 1.28 (2 before), never newer', () => {
    passed({config: kubeadmKubeletConfig(), kubeletVersion: 'v1.27.3', serverVersion: 'v1.30.4'}, 'KUBELET-022')
    fired({config: kubeadmKubeletConfig(), kubeletVersion: 'v1.24.3', serverVersion: 'v1.27.1'}, 'KUBELET-022')
    assert.match(fired({config: kubeadmKubeletConfig(), kubeletVersion: 'v1.31.0', serverVersion: 'v1.30.4'}, 'KUBELET-022')[0]!.message, /newer than the API server/)
  })
  it('skips without versions', () => {
    assert.match(skipped(bare(), 'KUBELET-022'), /kubelet version of node-a is unknown/)
    assert.match(skipped({config: kubeadmKubeletConfig(), serverVersion: ''}, 'KUBELET-022'), /API server version is unknown/)
  })
})

describe('KUBELET-023..026 sanity', () => {
  it('staticPodPath: empty matters only on control-plane nodes; relative and file paths fire', () => {
    passed({config: cfg({staticPodPath: ''}), controlPlane: false}, 'KUBELET-023')
    assert.match(fired({config: cfg({staticPodPath: 'manifests'})}, 'KUBELET-023')[0]!.message, /relative/)
    assert.match(fired({config: cfg({staticPodPath: '/etc/kubernetes/manifests/etcd.yaml'})}, 'KUBELET-023')[0]!.message, /names a file/)
  })

  it('evictionHard: empty, partial and tight maps fire; mergeDefaultEvictionSettings fills the gaps on 1.33', () => {
    assert.match(fired({config: cfg({evictionHard: {}}), noConfigz: true}, 'KUBELET-024')[0]!.message, /empty/)
    assert.match(fired({config: cfg({evictionHard: {'memory.available': '500Mi', 'nodefs.available': '2%'}})}, 'KUBELET-024')[0]!.message, /nodefs\.available<2%/)
    passed({config: cfg({evictionHard: {'memory.available': '1%', 'nodefs.available': '10%'}})}, 'KUBELET-024')
    passed({config: cfg({evictionHard: {'memory.available': '500Mi'}, mergeDefaultEvictionSettings: true}), kubeletVersion: 'v1.33.1', serverVersion: 'v1.33.1'}, 'KUBELET-024')
  })

  it('swap: LimitedSwap passes, UnlimitedSwap on 1.30 is an error', () => {
    passed({config: cfg({failSwapOn: false, memorySwap: {swapBehavior: 'LimitedSwap'}})}, 'KUBELET-025')
    assert.equal(fired({config: cfg({failSwapOn: false, memorySwap: {swapBehavior: 'UnlimitedSwap'}}), noConfigz: true}, 'KUBELET-025')[0]!.severity, 'error')
  })

  it("node status: uses kube-controller-manager's --node-monitor-grace-period, else the version default", () => {
    passed({config: cfg({nodeStatusUpdateFrequency: '12s'}), serverVersion: 'v1.32.0', kubeletVersion: 'v1.32.0'}, 'KUBELET-026')
    fired({config: cfg({nodeStatusUpdateFrequency: '12s'})}, 'KUBELET-026')
    const kcm = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'kube-controller-manager-node-a', namespace: 'kube-system', labels: {component: 'kube-controller-manager'}},
      spec: {containers: [{name: 'kube-controller-manager', command: ['kube-controller-manager', '--node-monitor-grace-period=20s']}]},
    }
    const fs = fired({config: cfg({nodeLeaseDurationSeconds: 80}), pods: [kcm]}, 'KUBELET-026')
    assert.deepEqual(fs.map((f) => f.severity), ['error', 'warning'])
    assert.match(fs[0]!.evidence[2]!, /--node-monitor-grace-period=20s \(pod kube-system\/kube-controller-manager-node-a\)/)
  })
})

describe('kubelet view', () => {
  it('splits the kubelet-dropins artifact and merges drop-ins in name order', () => {
    assert.deepEqual(splitDropIns('# node-doctor-file: /d/20-b.conf\nmaxPods: 2\n# node-doctor-file: /d/10-a.conf\nmaxPods: 1\n').map((d) => d.name), ['/d/20-b.conf', '/d/10-a.conf'])
    const dropIns = [
      {name: '/etc/kubernetes/kubelet.conf.d/20-b.conf', text: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 2\n'},
      {name: '/etc/kubernetes/kubelet.conf.d/10-a.conf', text: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 1\n'},
    ]
    const {cluster, node} = kubeletWorld({config: kubeadmKubeletConfig(), dropIns})
    const v = kubeletView({cluster, node})
    assert.ok(v.disk.ok)
    assert.equal(v.disk.ok && v.disk.value.values['maxPods'], 2)
  })

  it('diffConfigs compares maps whole and skips pointer fields unset on one side', () => {
    const a = applyKubeletDefaults(parseKubeletConfig(JSON.stringify(cfg({evictionHard: {'memory.available': '200Mi'}}))), '1.30')
    const b = applyKubeletDefaults(parseKubeletConfig(JSON.stringify(cfg({}))), '1.30')
    assert.deepEqual(diffConfigs(a, b).map((d) => d.path), ['evictionHard'])
    assert.deepEqual(diffConfigs(b, b), [])
  })
})
