// The pure half of `fix kube-proxy-mode`: the ConfigMap edit that changes only the mode value's bytes, the backup
// annotation and the byte-identical restore, the prerequisites table from snapshots, and the per-node verdict.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {parse as parseYaml} from 'yaml'
import {
  BACKUP_ANNOTATION,
  changedConfigMap,
  formatPrerequisites,
  modeChangeRefusal,
  modePrerequisites,
  restoredConfigMap,
  setModeInConfig,
  verifyMode,
} from '../../../../src/app/repair/mode-plan.js'
import type {ConfigMap} from '../../../../src/core/model/k8s.js'
import {buildReport, type CheckResult, type Finding} from '../../../../src/core/model/report.js'
import {UsageError} from '../../../../src/errors.js'
import {procModules, proxyCluster, proxyNode} from '../../../support/proxy-mode-builders.js'

const KUBEADM = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
bindAddress: 0.0.0.0
clientConnection:
  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf   # mounted from the Secret
  qps: 0
clusterCIDR: 10.244.0.0/16
iptables:
  masqueradeAll: false
  syncPeriod: 0s
ipvs:
  scheduler: ""
kind: KubeProxyConfiguration
mode: ""
nodePortAddresses: null
`

describe('setModeInConfig', () => {
  it("kubeadm's empty mode: only the value changes, quoting kept", () => {
    const {text, from} = setModeInConfig(KUBEADM, 'nftables')
    assert.equal(text, KUBEADM.replace('mode: ""', 'mode: "nftables"'))
    assert.equal(from, '')
  })

  it('a plain value with a comment after it, and a single-quoted one', () => {
    assert.equal(setModeInConfig('kind: KubeProxyConfiguration\nmode: ipvs   # old\nipvs: {}\n', 'iptables').text, 'kind: KubeProxyConfiguration\nmode: iptables   # old\nipvs: {}\n')
    assert.equal(setModeInConfig("mode: 'ipvs'\n", 'nftables').text, "mode: 'nftables'\n")
  })

  it('a JSON config keeps its JSON; `mode:` without a value gets one; no mode key gets a line', () => {
    assert.equal(setModeInConfig('{"kind": "KubeProxyConfiguration", "mode": "iptables"}', 'ipvs').text, '{"kind": "KubeProxyConfiguration", "mode": "ipvs"}')
    assert.equal(setModeInConfig('kind: KubeProxyConfiguration\nmode:\nclusterCIDR: 10.0.0.0/8\n', 'ipvs').text, 'kind: KubeProxyConfiguration\nmode: ipvs\nclusterCIDR: 10.0.0.0/8\n')
    assert.equal(setModeInConfig('kind: KubeProxyConfiguration', 'nftables').text, 'kind: KubeProxyConfiguration\nmode: nftables\n')
  })

  it('refuses what is not a YAML mapping, naming the problem', () => {
    assert.throws(() => setModeInConfig('mode: [unclosed', 'ipvs'), (e: unknown) => e instanceof UsageError && /not valid YAML/.test(e.message))
    assert.throws(() => setModeInConfig('- a\n- b\n', 'ipvs'), /not a mapping/)
  })

  it('property: the result parses to the same object with mode replaced, and other lines are untouched', () => {
    const key = fc.stringMatching(/^[a-z][a-zA-Z]{0,8}$/).filter((k) => k !== 'mode')
    fc.assert(
      fc.property(fc.dictionary(key, fc.oneof(fc.integer(), fc.stringMatching(/^[a-z0-9./]{1,12}$/))), fc.constantFrom('iptables', 'ipvs', 'nftables', ''), fc.constantFrom('iptables', 'ipvs', 'nftables'), (rest, old, to) => {
        const lines = Object.entries(rest).map(([k, v]) => `${k}: ${typeof v === 'string' ? JSON.stringify(v) : v}`)
        const text = ['kind: KubeProxyConfiguration', `mode: ${JSON.stringify(old)}`, ...lines].join('\n') + '\n'
        const out = setModeInConfig(text, to as 'iptables').text
        assert.deepEqual(parseYaml(out), {...(parseYaml(text) as object), mode: to})
        assert.deepEqual(out.split('\n').filter((l) => !l.startsWith('mode:')), text.split('\n').filter((l) => !l.startsWith('mode:')))
      }),
    )
  })
})

describe('ConfigMap backup and restore', () => {
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {name: 'kube-proxy', namespace: 'kube-system', uid: 'u1', resourceVersion: '41', labels: {app: 'kube-proxy'}, annotations: {owner: 'kubeadm'}},
    data: {'config.conf': KUBEADM, kubeconfig: 'apiVersion: v1\nkind: Config\n'},
  }

  it('changes only the config key, keeps the resourceVersion as the precondition, and stores the old data in the annotation', () => {
    const {configMap, key} = changedConfigMap(cm, 'nftables', 'iptables')
    assert.equal(key, 'config.conf')
    assert.equal(configMap.metadata.resourceVersion, '41')
    assert.equal(configMap.data!['kubeconfig'], cm.data!['kubeconfig'])
    const backup = JSON.parse(configMap.metadata.annotations![BACKUP_ANNOTATION]!) as {data: unknown; annotations: unknown; from: string; to: string}
    assert.deepEqual(backup, {data: cm.data, annotations: {owner: 'kubeadm'}, labels: {app: 'kube-proxy'}, from: 'iptables', to: 'nftables'})
  })

  it('restores data, labels and annotations exactly, on top of the current resourceVersion', () => {
    const changed = changedConfigMap(cm, 'nftables', 'iptables').configMap
    const current = {...changed, metadata: {...changed.metadata, resourceVersion: '42', labels: {app: 'kube-proxy', extra: 'x'}}}
    const restored = restoredConfigMap(current, cm)
    assert.deepEqual(restored, {...cm, metadata: {...cm.metadata, resourceVersion: '42'}})
  })
})

describe('modePrerequisites', () => {
  it('nftables: kernel, nft and the kube-proxy version, from the snapshots', () => {
    const rows = modePrerequisites(proxyCluster({version: 'v1.30.2'}), proxyNode({uname: '5.10.0-21-amd64\n', 'nft-ruleset': ''}), 'nftables')
    assert.deepEqual(
      rows.map((r) => [r.requirement, r.ok, r.found]),
      [
        ['kernel >= 5.13', false, '5.10.0-21-amd64'],
        ['nft', true, 'installed'],
        ['kube-proxy >= v1.31', false, 'v1.30.2'],
      ],
    )
  })

  it('nftables: nft >= 1.0.1 from nft --version when collected; nft missing or unreadable counts as not met', () => {
    const nft = (version: Record<string, string> | {error: string}) => {
      const node = proxyNode({uname: '6.1.0-18-amd64\n', 'nft-ruleset': ''})
      node.artifacts['nft-version'] = 'error' in version ? {id: 'nft-version', source: 'nft --version', content: '', error: version.error} : {id: 'nft-version', source: 'nft --version', content: version.text!, exitCode: 0}
      return modePrerequisites(proxyCluster({version: 'v1.33.1'}), node, 'nftables').find((r) => r.requirement.startsWith('nft'))
    }
    assert.deepEqual(nft({text: 'nftables v1.0.6 (Lester Gooch #5)\n'}), {node: 'node-a', requirement: 'nft >= 1.0.1', ok: true, found: 'nftables v1.0.6 (Lester Gooch #5)'})
    assert.deepEqual(nft({text: 'nftables v0.9.8 (E.D.S.)\n'})?.ok, false)
    assert.deepEqual(nft({text: 'nftables v1.0 (x)\n'})?.ok, false, '1.0 is 1.0.0')
    assert.deepEqual(nft({error: 'nft is not installed on the node'}), {node: 'node-a', requirement: 'nft >= 1.0.1', ok: false, found: 'nft is not installed on the node'})
    assert.deepEqual(nft({text: 'something else\n'})?.found, 'unknown (nft --version said: something else)')
  })

  it('ipvs: the ip_vs modules and ipset; missing inputs count as not met', () => {
    const ok = modePrerequisites(proxyCluster(), proxyNode({modules: procModules(['ip_vs', 'ip_vs_rr', 'ip_vs_wrr', 'ip_vs_sh', 'nf_conntrack']), ipset: ''}), 'ipvs')
    assert.deepEqual(ok.map((r) => r.ok), [true, true])
    const missing = modePrerequisites(proxyCluster(), proxyNode({modules: procModules(['ip_vs', 'nf_conntrack'])}), 'ipvs')
    assert.deepEqual(missing.map((r) => [r.ok, r.found]), [[false, 'not loaded: ip_vs_rr, ip_vs_wrr, ip_vs_sh'], [false, 'ipset was not collected']])
    assert.equal(
      formatPrerequisites(missing),
      '  NODE    REQUIREMENT                                                 OK  FOUND\n' +
        '  node-a  modules ip_vs, ip_vs_rr, ip_vs_wrr, ip_vs_sh, nf_conntrack  NO  not loaded: ip_vs_rr, ip_vs_wrr, ip_vs_sh\n' +
        '  node-a  ipset                                                       NO  ipset was not collected',
    )
  })
})

describe('verifyMode', () => {
  const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: '0'}, command: 'x'}
  const f = (id: string, severity: Finding['severity'] = 'error'): Finding => ({id, node: 'node-a', area: 'proxy-mode', severity, message: `${id} message`, subject: {kind: 'process', name: 'kube-proxy'}, evidence: [], remedy: ''})
  const r = (status: CheckResult['status'], findings: Finding[] = []) =>
    buildReport({metadata: meta, nodes: [{name: 'node-a'}], results: [{id: 'PROXY-003', node: 'node-a', area: 'proxy-mode', status, ...(status === 'skipped' ? {reason: 'the running mode is unknown'} : {})}], findings})

  it('passes when the running mode is confirmed; leftovers are reported, not blocking', () => {
    assert.deepEqual(verifyMode(r('passed', [f('PROXY-005', 'warning')]), 'node-a', 'iptables'), {ok: true, problems: [], leftovers: ['PROXY-005 message']})
  })

  it('fails on an unconfirmed mode, a mode mismatch, an unhealthy kube-proxy, and rule drift in iptables mode only', () => {
    assert.deepEqual(verifyMode(r('skipped'), 'node-a', 'nftables').problems, ['the running mode could not be confirmed (the running mode is unknown)'])
    assert.deepEqual(verifyMode(r('failed', [f('PROXY-003', 'warning')]), 'node-a', 'nftables').problems, ['PROXY-003: PROXY-003 message'])
    assert.deepEqual(verifyMode(r('passed', [f('PROXY-007')]), 'node-a', 'nftables').problems, ['PROXY-007: PROXY-007 message'])
    assert.equal(verifyMode(r('passed', [f('IPT-003')]), 'node-a', 'iptables').ok, false)
    assert.equal(verifyMode(r('passed', [f('IPT-003')]), 'node-a', 'nftables').ok, true)
  })
})

describe('modeChangeRefusal (#17): layouts where no ConfigMap sets the mode', () => {
  const now = {configured: {mode: 'iptables', source: 'default (no --proxy-mode in /etc/kubernetes/manifests/kube-proxy.manifest: iptables on Linux)'}}

  it('a DaemonSet layout (kubeadm, EKS kube-proxy-config) is not refused', () => {
    assert.equal(modeChangeRefusal({distribution: 'eks-al2023', kubeProxy: {where: 'daemonset', detail: 'DaemonSet kube-system/kube-proxy, ConfigMap kube-system/kube-proxy-config key config'}}, now, 'nftables'), undefined)
    assert.equal(modeChangeRefusal({distribution: 'unknown', kubeProxy: {where: 'unknown', detail: 'not seen'}}, now, 'nftables'), undefined)
  })

  it("GKE's static pod: the manifest's flag to edit, and that the node image owns the file", () => {
    const r = modeChangeRefusal({distribution: 'gke-cos', kubeProxy: {where: 'static-pod', detail: 'static pod /etc/kubernetes/manifests/kube-proxy.manifest'}}, now, 'ipvs')!
    assert.equal(
      r.reason,
      'kube-proxy runs as a static pod configured by the flags in its manifest /etc/kubernetes/manifests/kube-proxy.manifest; no ConfigMap sets the mode (now iptables: default (no --proxy-mode in /etc/kubernetes/manifests/kube-proxy.manifest: iptables on Linux))',
    )
    assert.match(r.remedy, /^on every node set --proxy-mode=ipvs in \/etc\/kubernetes\/manifests\/kube-proxy\.manifest; the kubelet restarts the pod when its manifest changes\. On GKE/)
  })

  it('an unknown configured mode is said as such (k3s without its config files)', () => {
    const r = modeChangeRefusal({distribution: 'k3s', kubeProxy: {where: 'embedded', detail: 'embedded in k3s'}}, {configuredUnknown: 'k3s keeps kube-proxy\'s mode in kube-proxy-arg, which was not read'}, 'nftables')!
    assert.match(r.reason, /\(k3s keeps kube-proxy's mode in kube-proxy-arg, which was not read\)$/)
    assert.match(r.remedy, /`kube-proxy-arg: \[proxy-mode=nftables\]` in \/etc\/rancher\/k3s\/config\.yaml/)
  })
})
