// A kubeadm node whose Services Cilium implements (kube-proxy-replacement=true), built for real
// (test/integration/layout/node.ts): kubeadm's kubelet files, Cilium's CNI config, the cilium_host/cilium_net veth
// pair and cilium_vxlan, kubelet and cilium-agent processes, and Cilium's iptables rules restored into the node's
// namespace. Clean, the kube-proxy checks are skipped with Cilium as the reason and nothing is raised; with
// kube-proxy's rules left behind (the state after moving from kube-proxy to Cilium), SVC-001 finds them.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import {type ClusterSnapshot, type NodeSnapshot, SNAPSHOT_API_VERSION} from '../../../src/core/model/snapshot.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {FIXTURES, readFixture} from '../../support/golden.js'
import {createLayoutNode, type LayoutNode, layoutNodeSkipReason} from './node.js'

const FILES: Record<string, string> = {
  'var/lib/kubelet/config.yaml': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDNS:\n- 10.96.0.10\nclusterDomain: cluster.local\ncgroupDriver: systemd\n',
  'var/lib/kubelet/kubeadm-flags.env': 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10"\n',
  'etc/cni/net.d/05-cilium.conflist': '{\n  "cniVersion": "0.3.1",\n  "name": "cilium",\n  "plugins": [\n    {\n       "type": "cilium-cni",\n       "enable-debug": false,\n       "log-file": "/var/run/cilium/cilium-cni.log"\n    }\n  ]\n}\n',
}
const REASON = 'Services on this node are implemented by Cilium (kube-proxy-replacement=true in kube-system/cilium-config)'
const meta = {generatedAt: '2026-12-03T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}

describe('a Cilium kube-proxy-replacement node, built in namespaces', {skip: layoutNodeSkipReason()}, () => {
  let node: LayoutNode
  let cluster: ClusterSnapshot

  before(async () => {
    node = createLayoutNode(FILES, [
      {name: 'kubelet', argv0: '/usr/bin/kubelet', args: ['--kubeconfig=/etc/kubernetes/kubelet.conf', '--config=/var/lib/kubelet/config.yaml']},
      {name: 'cilium-agent', argv0: 'cilium-agent', args: ['--config-dir=/tmp/cilium/config-map']},
    ])
    const ip = (...a: string[]) => node.ns.exec(['ip', ...a])
    ip('link', 'add', 'cilium_host', 'type', 'veth', 'peer', 'name', 'cilium_net')
    ip('link', 'add', 'cilium_vxlan', 'type', 'vxlan', 'external', 'dstport', '8472')
    cluster = (await readBundle(join(FIXTURES, 'layouts', 'nodes', 'cilium-kpr'))).cluster
  })

  after(() => node?.destroy())

  function snapshotNow(): NodeSnapshot {
    const artifacts: NodeSnapshot['artifacts'] = {}
    for (const id of ['layout', 'iptables-save', 'iptables-version']) {
      const r = node.collect(id)
      assert.equal(r.status, 0, `${id}: ${r.stderr}`)
      artifacts[id] = {id, source: id, exitCode: 0, content: r.stdout}
    }
    return {apiVersion: SNAPSHOT_API_VERSION, kind: 'NodeSnapshot', node: 'node-1', collectedAt: meta.generatedAt, transport: 'local', artifacts, errors: []}
  }

  function restore(fixture: string): void {
    node.ns.exec(['iptables-restore'], readFixture(`layouts/iptables/${fixture}`))
  }

  it('clean: the layout resolves, kube-proxy checks are skipped with Cilium as the reason, nothing is raised', () => {
    restore('cilium-clean.txt')
    const r = analyzeSnapshots(cluster, [snapshotNow()], {metadata: meta})
    assert.equal(r.nodes[0]?.layout?.summary, 'kubeadm v1.34.2 · Services by Cilium (kube-proxy replacement) · cilium vxlan')
    assert.deepEqual(r.findings.filter((f) => f.severity !== 'info').map((f) => `${f.id} ${f.message}`), [])
    // CT-002/003 (conntrack table fill, insert failures) are the kernel's, whoever implements Services.
    const kp = r.results.filter((x) => /^(?:(?:IPT|IPVS|NFT|PROXY)-|CT-00[14]$)/.test(x.id))
    assert.ok(kp.length > 0 && kp.every((x) => x.status === 'skipped' && x.reason === REASON), JSON.stringify(kp.filter((x) => x.reason !== REASON)))
    assert.deepEqual(r.results.filter((x) => x.id.startsWith('SVC-')).map((x) => x.status), ['passed', 'passed'])
  })

  it("kube-proxy's rules left behind: SVC-001 names the KUBE-SERVICES jumps and the KUBE-SVC chain", () => {
    restore('cilium-kube-proxy-leftovers.txt')
    const r = analyzeSnapshots(cluster, [snapshotNow()], {metadata: meta})
    const f = r.findings.filter((x) => x.id === 'SVC-001')
    assert.equal(f.length, 1, JSON.stringify(r.findings))
    assert.match(f[0]!.message, /2 jump\(s\) to KUBE-SERVICES in nat PREROUTING\/OUTPUT, 4 KUBE-\* chain\(s\) \(1 KUBE-SVC\)/)
    assert.ok(f[0]!.evidence.includes('KUBE-SVC-NPX46M4PTMTKRN6Y'), f[0]!.evidence.join('\n'))
    assert.deepEqual(r.findings.filter((x) => x.id !== 'SVC-001' && x.severity !== 'info').map((x) => x.id), [])
  })
})
