// The KUBELET checks on layouts other than kubeadm (#17): the config file the node's kubelet really uses (the
// `kubelet-config` artifact's "# node-doctor-file: PATH" header) in findings' subject.in, the "absent" artifacts of
// layouts without such an input (k3s, RKE2), k3s's kubelet flags (kubelet-arg) and settings (cluster-dns), RKE2's
// implied --read-only-port=0, and
// KUBELET-025 reading /proc/swaps. The artifacts are the plan scripts' output formats (their real output is
// exercised by test/integration/layout/check-layouts.test.ts).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {KUBELET_CHECKS} from '../../../../../src/core/checks/kubelet/index.js'
import {activeSwaps} from '../../../../../src/core/checks/kubelet/rules.js'
import {absentReason, kubeletView, readKubeletConfigArtifact} from '../../../../../src/core/checks/kubelet/view.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import type {Node, Service} from '../../../../../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {clusterSnapshot, nodeSnapshot} from '../../../../support/calico-dns-builders.js'

const NODE = 'node-a'

function node(kubeletVersion: string): Node {
  return {apiVersion: 'v1', kind: 'Node', metadata: {name: NODE}, status: {nodeInfo: {kubeletVersion, containerRuntimeVersion: 'containerd://2.0.5'}}} as Node
}

function cluster(kubeletVersion: string, dnsIP: string): ClusterSnapshot {
  const dns: Service = {apiVersion: 'v1', kind: 'Service', metadata: {name: 'kube-dns', namespace: 'kube-system'}, spec: {clusterIP: dnsIP, clusterIPs: [dnsIP], ports: [{port: 53, protocol: 'UDP'}]}}
  return clusterSnapshot({nodes: [node(kubeletVersion)], services: [dns], serverVersion: kubeletVersion})
}

const EKS_JSON = '{\n    "apiVersion": "kubelet.config.k8s.io/v1beta1",\n    "kind": "KubeletConfiguration",\n    "clusterDNS": [\n        "10.100.0.99"\n    ],\n    "clusterDomain": "cluster.local"\n}\n'
const EKS_CMDLINE = '/usr/bin/kubelet --config /etc/kubernetes/kubelet/config.json --config-dir /etc/kubernetes/kubelet/config.json.d --kubeconfig /var/lib/kubelet/kubeconfig --node-ip=10.0.12.34 '
const K3S_DROPIN = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nauthentication:\n  anonymous:\n    enabled: false\n  webhook:\n    enabled: true\n  x509:\n    clientCAFile: /var/lib/rancher/k3s/agent/client-ca.crt\nauthorization:\n  mode: Webhook\nfailSwapOn: false\n'
const K3S_LAYOUT = 'format=node-doctor-layout/1\nprocess=812 k3s /usr/local/bin/k3s server --kubelet-arg=max-pods=200\npath=/etc/rancher/k3s/config.yaml\n'

function k3sNode(extra: Record<string, string> = {}): NodeSnapshot {
  return nodeSnapshot(NODE, {
    layout: K3S_LAYOUT,
    'kubelet-config': '# node-doctor-absent: the kubelet runs inside k3s, configured by /var/lib/rancher/k3s/agent/etc/kubelet.conf.d and kubelet-arg\n',
    'kubelet-unit': '# node-doctor-absent: the kubelet runs inside k3s (its unit is k3s.service or k3s-agent.service)\n',
    'kubelet-cmdline': '# node-doctor-absent: the kubelet runs inside k3s (no kubelet process)\n',
    'kubelet-dropins': `# node-doctor-file: /var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf\n${K3S_DROPIN}`,
    'rancher-config': "# node-doctor-file: /etc/rancher/k3s/config.yaml\nkubelet-arg:\n  - node-status-update-frequency=5s\ncluster-dns: 10.43.0.53\n\n",
    ...extra,
  })
}

function run(c: ClusterSnapshot, n: NodeSnapshot, id: string) {
  const out = runChecks(KUBELET_CHECKS.filter((k) => k.spec.id === id), c, [n])
  assert.deepEqual(out.errors, [])
  return out
}

describe('the kubelet-config artifact', () => {
  it('reads the header path, an absent line, and bundles written before the header (config.yaml)', () => {
    assert.deepEqual(readKubeletConfigArtifact('# node-doctor-file: /etc/kubernetes/kubelet/config.json\n{"kind": "KubeletConfiguration"}\n'), {path: '/etc/kubernetes/kubelet/config.json', body: '{"kind": "KubeletConfiguration"}\n'})
    assert.deepEqual(readKubeletConfigArtifact('# node-doctor-absent: the running kubelet has no --config\n'), {absent: 'the running kubelet has no --config'})
    assert.deepEqual(readKubeletConfigArtifact('kind: KubeletConfiguration\n'), {path: '/var/lib/kubelet/config.yaml', body: 'kind: KubeletConfiguration\n'})
    assert.equal(absentReason('systemd unit text'), undefined)
  })
})

describe('KUBELET checks name the file the layout uses', () => {
  it('EKS AL2023: a wrong clusterDNS in /etc/kubernetes/kubelet/config.json (JSON) is reported in that file, at its line', () => {
    const n = nodeSnapshot(NODE, {'kubelet-config': `# node-doctor-file: /etc/kubernetes/kubelet/config.json\n${EKS_JSON}`, 'kubelet-cmdline': EKS_CMDLINE})
    const out = run(cluster('v1.33.5-eks-113cf36', '10.100.0.10'), n, 'KUBELET-016')
    assert.equal(out.findings.length, 1)
    assert.deepEqual(out.findings[0]!.subject, {kind: 'field', name: 'clusterDNS', in: '/etc/kubernetes/kubelet/config.json'})
    assert.match(out.findings[0]!.evidence.join('\n'), /\/etc\/kubernetes\/kubelet\/config\.json:4;/)
    assert.equal(kubeletView({cluster: cluster('v1.33.5-eks-113cf36', '10.100.0.10'), node: n}).configPath, '/etc/kubernetes/kubelet/config.json')
  })

  it('k3s: no config file, defaults from the flag defaults, the drop-in, kubelet-arg and k3s cluster-dns; nothing raised', () => {
    const c = cluster('v1.33.4+k3s1', '10.43.0.53')
    const n = k3sNode({swaps: 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n'})
    const v = kubeletView({cluster: c, node: n})
    assert.equal(v.embeddedInK3s, true)
    assert.equal(v.configPath, '/var/lib/rancher/k3s/agent/etc/kubelet.conf.d')
    assert.ok(v.flags.ok && v.flags.value.source === 'k3s')
    assert.ok(v.next.ok)
    const values = v.next.value.values
    assert.deepEqual([values['clusterDNS'], values['readOnlyPort'], values['nodeStatusUpdateFrequency'], values['maxPods']], [['10.43.0.53'], 0, '5s', 200])
    const out = runChecks(KUBELET_CHECKS, c, [n], {profile: 'incident'})
    assert.deepEqual(out.errors, [])
    assert.deepEqual(out.findings.filter((f) => f.severity !== 'info').map((f) => `${f.id} ${f.message}`), [])
  })

  it('k3s: a wrong clusterDNS in the drop-in is reported in that drop-in; KUBELET-015 says why it does not apply', () => {
    const c = cluster('v1.33.4+k3s1', '10.43.0.10')
    const n = k3sNode({'kubelet-dropins': `# node-doctor-file: /var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf\n${K3S_DROPIN}clusterDNS:\n- 10.43.0.99\n`})
    const f = run(c, n, 'KUBELET-016').findings
    assert.equal(f.length, 1)
    assert.equal(f[0]!.subject.in, '/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf')
    // A stray /etc/containerd/config.toml (another containerd installed beside k3s) is not what k3s's containerd reads.
    const cg = run(c, {...n, artifacts: {...n.artifacts, 'containerd-config': {id: 'containerd-config', source: 'cat /etc/containerd/config.toml', content: 'version = 2\n'}}}, 'KUBELET-015').results[0]!
    assert.equal(cg.status, 'skipped')
    assert.match(cg.reason ?? '', /^not applicable on k3s/)
  })
})

describe('RKE2: the kubelet settings rke2 passes on its own', () => {
  const RKE2_DROPIN = K3S_DROPIN.replaceAll('/var/lib/rancher/k3s/', '/var/lib/rancher/rke2/')
  function rke2Node(extra: Record<string, string> = {}): NodeSnapshot {
    return nodeSnapshot(NODE, {
      'kubelet-config': '# node-doctor-absent: the running kubelet has no --config\n',
      'kubelet-dropins': `# node-doctor-file: /var/lib/rancher/rke2/agent/etc/kubelet.conf.d/00-rke2-defaults.conf\n${RKE2_DROPIN}`,
      ...extra,
    })
  }
  const readOnly = (n: NodeSnapshot) => run(cluster('v1.33.4+rke2r1', '10.43.0.10'), n, 'KUBELET-007')

  it('without its command line, the read-only port is the 0 rke2 passes, not the flag default 10255', () => {
    const n = rke2Node()
    const v = kubeletView({cluster: cluster('v1.33.4+rke2r1', '10.43.0.10'), node: n})
    assert.equal(v.embeddedInK3s, false)
    assert.equal(v.flags.ok, false)
    assert.ok(v.next.ok)
    assert.equal(v.next.value.values['readOnlyPort'], 0)
    assert.match(v.next.value.origins['/readOnlyPort']?.detail ?? '', /rke2 starts the kubelet with k3s's --read-only-port=0/)
    const out = readOnly(n)
    assert.equal(out.results[0]!.status, 'passed')
    assert.deepEqual(out.findings, [])
  })

  it('a read command line decides: --read-only-port=10255 there (a kubelet-arg) is found; a drop-in setting it is found', () => {
    const cmdline = 'kubelet --volume-plugin-dir=/var/lib/kubelet/volumeplugins --config-dir=/var/lib/rancher/rke2/agent/etc/kubelet.conf.d --read-only-port=10255 '
    const f = readOnly(rke2Node({'kubelet-cmdline': cmdline})).findings
    assert.equal(f.length, 1)
    assert.match(f[0]!.message, /10255/)
    const dropIn = readOnly(rke2Node({'kubelet-dropins': `# node-doctor-file: /var/lib/rancher/rke2/agent/etc/kubelet.conf.d/99-user.conf\n${RKE2_DROPIN}readOnlyPort: 10255\n`})).findings
    assert.equal(dropIn.length, 1)
  })

  it('not RKE2 (a kubeadm kubelet without --config and no command line): the flag default 10255 is still judged', () => {
    const n = nodeSnapshot(NODE, {'kubelet-config': '# node-doctor-absent: the running kubelet has no --config\n'})
    assert.equal(run(cluster('v1.33.4', '10.96.0.10'), n, 'KUBELET-007').findings.length, 1)
  })
})

describe('KUBELET-025 and /proc/swaps', () => {
  it('failSwapOn false is quiet without swap, and fires with a swap area in use', () => {
    assert.deepEqual(activeSwaps('Filename\tType\tSize\tUsed\tPriority\n'), [])
    assert.deepEqual(activeSwaps(undefined), undefined)
    const c = cluster('v1.33.4+k3s1', '10.43.0.10')
    const header = 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n'
    assert.equal(run(c, k3sNode({swaps: header}), 'KUBELET-025').results[0]!.status, 'passed')
    const on = run(c, k3sNode({swaps: `${header}/swap.img                               file\t\t4194300\t\t0\t\t-2\n`}), 'KUBELET-025')
    assert.equal(on.findings.length, 1)
    assert.match(on.findings[0]!.evidence.join('\n'), /\/proc\/swaps: \/swap\.img/)
    // Not collected (older bundles): judged as before.
    assert.equal(run(c, k3sNode(), 'KUBELET-025').findings.length, 1)
  })
})
