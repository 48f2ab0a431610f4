// The layout resolver over one fixture bundle per layout (test/fixtures/layouts/nodes, written by generate.py from
// the discovery outputs and the API objects those clusters carry): distribution, kubelet config, kube-proxy
// placement, CNI, Services owner, and the one-line summary each node's header prints (golden).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {RunFacts} from '../../../../src/core/facts/node-facts.js'
import {resolveLayout} from '../../../../src/core/layout/resolve.js'
import {layoutSummary, toNodeLayout} from '../../../../src/core/layout/summary.js'
import {type ClusterSnapshot, emptyClusterSnapshot, type NodeSnapshot, SNAPSHOT_API_VERSION} from '../../../../src/core/model/snapshot.js'
import {parseLayoutDiscovery} from '../../../../src/core/parse/layout-discovery.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {expectGolden, FIXTURES, readFixture} from '../../../support/golden.js'
import {FUZZ_RUNS, mutated} from '../parse/fuzz-support.js'

const NODES = join(FIXTURES, 'layouts', 'nodes')

interface Expected {
  distribution: string
  kubeletConfig: string[]
  kubeletDirs: string[]
  kubeProxy: string
  cni: string
  cniMode?: string
  owner: string
  layoutFact: string
  dataplane: string
}

const EXPECTED: Record<string, Expected> = {
  'kubeadm-calico': {distribution: 'kubeadm', kubeletConfig: ['/var/lib/kubelet/config.yaml'], kubeletDirs: [], kubeProxy: 'daemonset', cni: 'calico', cniMode: 'ipip', owner: 'kube-proxy', layoutFact: 'calico', dataplane: 'unknown'},
  'k3s-flannel': {distribution: 'k3s', kubeletConfig: [], kubeletDirs: ['/var/lib/rancher/k3s/agent/etc/kubelet.conf.d'], kubeProxy: 'embedded', cni: 'flannel', cniMode: 'vxlan', owner: 'kube-proxy', layoutFact: 'flannel', dataplane: 'unknown'},
  'rke2-canal': {distribution: 'rke2', kubeletConfig: [], kubeletDirs: ['/var/lib/rancher/rke2/agent/etc/kubelet.conf.d'], kubeProxy: 'static-pod', cni: 'canal', cniMode: 'vxlan', owner: 'kube-proxy', layoutFact: 'canal', dataplane: 'unknown'},
  'eks-al2023': {distribution: 'eks-al2023', kubeletConfig: ['/etc/kubernetes/kubelet/config.json'], kubeletDirs: ['/etc/kubernetes/kubelet/config.json.d'], kubeProxy: 'daemonset', cni: 'aws-vpc-cni', cniMode: 'eni', owner: 'kube-proxy', layoutFact: 'aws-vpc-cni', dataplane: 'unknown'},
  'gke-cos': {distribution: 'gke-cos', kubeletConfig: ['/home/kubernetes/kubelet-config.yaml'], kubeletDirs: [], kubeProxy: 'static-pod', cni: 'gke', cniMode: 'ptp', owner: 'kube-proxy', layoutFact: 'gke', dataplane: 'unknown'},
  'cilium-kpr': {distribution: 'kubeadm', kubeletConfig: ['/var/lib/kubelet/config.yaml'], kubeletDirs: [], kubeProxy: 'none', cni: 'cilium', cniMode: 'vxlan', owner: 'cilium', layoutFact: 'cilium', dataplane: 'ebpf'},
  'cilium-kpr-two-owners': {distribution: 'kubeadm', kubeletConfig: ['/var/lib/kubelet/config.yaml'], kubeletDirs: [], kubeProxy: 'daemonset', cni: 'cilium', cniMode: 'vxlan', owner: 'cilium', layoutFact: 'cilium', dataplane: 'ebpf'},
}

describe('resolveLayout over the layout fixtures', () => {
  const summaries: string[] = []
  for (const [name, want] of Object.entries(EXPECTED)) {
    it(`${name}: ${want.distribution}, kube-proxy ${want.kubeProxy}, ${want.cni}, Services by ${want.owner}`, async () => {
      const b = await readBundle(join(NODES, name))
      const facts = new RunFacts(b.cluster).forNode(b.nodes[0]!)
      const l = facts.resolvedLayout
      assert.equal(l.distribution, want.distribution, l.evidence.join('\n'))
      assert.deepEqual(l.kubelet.configPaths, want.kubeletConfig)
      assert.deepEqual(l.kubelet.configDirs, want.kubeletDirs)
      assert.equal(l.kubeProxy.where, want.kubeProxy, l.kubeProxy.detail)
      assert.deepEqual([l.cni.name, l.cni.mode], [want.cni, want.cniMode])
      assert.equal(l.servicesOwner.owner, want.owner, l.servicesOwner.reason)
      assert.equal(facts.layout, want.layoutFact)
      assert.equal(facts.dataplane, want.dataplane)
      assert.equal(l.discovered, true)
      assert.ok(l.evidence.length > 0)
      summaries.push(`${name}: ${layoutSummary(l)}`)
    })
  }
  it('prints the golden one-line summaries', () => {
    assert.equal(summaries.length, Object.keys(EXPECTED).length)
    expectGolden('layouts/summaries.txt', `${summaries.join('\n')}\n`)
  })

  it('k3s: clusterDNS 10.43.0.10 and the kubelet embedded in k3s', async () => {
    const b = await readBundle(join(NODES, 'k3s-flannel'))
    const l = new RunFacts(b.cluster).forNode(b.nodes[0]!).resolvedLayout
    assert.equal(l.clusterDNS, '10.43.0.10')
    assert.equal(l.kubelet.embeddedIn, 'k3s')
    assert.equal(l.version, 'v1.33.4+k3s1')
  })

  it('two owners: Cilium replaces kube-proxy and a kube-proxy pod still runs on the node', async () => {
    const b = await readBundle(join(NODES, 'cilium-kpr-two-owners'))
    const l = new RunFacts(b.cluster).forNode(b.nodes[0]!).resolvedLayout
    assert.match(l.servicesOwner.kubeProxyAlsoRunning ?? '', /kube-proxy pod kube-system\/kube-proxy-x7k2p/)
  })
})

describe('resolveLayout without discovery or with little to go on', () => {
  it('no discovery and no API hints: unknown everything, never a guess', () => {
    const cluster = emptyClusterSnapshot('2026-12-03T00:00:00Z')
    const l = resolveLayout({node: 'n', cluster})
    assert.deepEqual([l.distribution, l.cni.name, l.servicesOwner.owner, l.kubeProxy.where, l.discovered], ['unknown', 'unknown', 'unknown', 'unknown', false])
    assert.match(l.evidence.join('\n'), /unknown layout: no layout discovery from the node/)
    assert.equal(layoutSummary(l), 'unknown layout · Services: unknown · CNI unknown')
  })

  it('an unreadable discovery output is named in the evidence; the API still resolves', () => {
    const cluster = emptyClusterSnapshot('')
    cluster.nodes = [{metadata: {name: 'node-1'}, status: {nodeInfo: {kubeletVersion: 'v1.33.4+k3s1'}}}]
    const node: NodeSnapshot = {apiVersion: SNAPSHOT_API_VERSION, kind: 'NodeSnapshot', node: 'node-1', collectedAt: '', transport: 'ssh', errors: [],
      artifacts: {layout: {id: 'layout', source: 'sh -c ...', content: 'format=node-doctor-layout/1\nsh: 3: grep: not found\n'}}}
    const l = new RunFacts(cluster).forNode(node).resolvedLayout
    assert.equal(l.distribution, 'k3s')
    assert.equal(l.evidence[0], 'layout discovery unreadable: layout (sh -c ...):2: not a key=value line: "sh: 3: grep: not found"')
  })

  it("NodeFacts.dataplane: the iptables backend `iptables --version` names when kube-proxy (or nobody known) owns Services", () => {
    const cluster = emptyClusterSnapshot('')
    const snap = (version: string): NodeSnapshot => ({apiVersion: SNAPSHOT_API_VERSION, kind: 'NodeSnapshot', node: 'n', collectedAt: '', transport: 'ssh', errors: [],
      artifacts: {'iptables-version': {id: 'iptables-version', source: 'iptables --version', content: version}}})
    const run = new RunFacts(cluster)
    assert.equal(run.forNode(snap('iptables v1.8.10 (nf_tables)\n')).dataplane, 'iptables-nft')
    assert.equal(run.forNode(snap('iptables v1.8.7 (legacy)\n')).dataplane, 'iptables-legacy')
    assert.equal(run.forNode(snap('')).dataplane, 'unknown')
  })

  it('an unknown layout says what was found', () => {
    const d = parseLayoutDiscovery('format=node-doctor-layout/1\nos-id=nixos\nos-version-id=25.11\nprocess=10 kubelet /run/current-system/sw/bin/kubelet --config=/etc/kubernetes/kubelet.json\n')
    const l = resolveLayout({node: 'n', cluster: emptyClusterSnapshot(''), discovery: d})
    assert.equal(l.distribution, 'unknown')
    assert.deepEqual(l.kubelet.configPaths, ['/etc/kubernetes/kubelet.json'])
    assert.match(l.evidence.join('\n'), /unknown layout: os nixos 25\.11; kubelet pid 10 --config=\/etc\/kubernetes\/kubelet\.json/)
  })

  it('the API alone: k3s from kubeletVersion, Cilium ownership from cilium-config', () => {
    const cluster = emptyClusterSnapshot('')
    cluster.nodes = [{metadata: {name: 'n'}, status: {nodeInfo: {kubeletVersion: 'v1.33.4+k3s1'}}}]
    cluster.configMaps = [{metadata: {name: 'cilium-config', namespace: 'kube-system'}, data: {'kube-proxy-replacement': 'true'}}]
    const l = resolveLayout({node: 'n', cluster})
    assert.equal(l.distribution, 'k3s')
    assert.equal(l.servicesOwner.owner, 'cilium')
    assert.equal(l.servicesOwner.reason, 'kube-proxy-replacement=true in kube-system/cilium-config')
    // k3s embeds kube-proxy unless disabled (config.yaml, not read): no second owner without proof that one runs.
    assert.equal(l.servicesOwner.kubeProxyAlsoRunning, undefined)
    assert.equal(resolveLayout({node: 'n', cluster, kubeProxyAnswered: true}).servicesOwner.kubeProxyAlsoRunning, 'a kube-proxy answers on 127.0.0.1:10249/proxyMode')
  })

  it('cilium-config kube-proxy-replacement "false" (or the old "partial") leaves Services with kube-proxy', () => {
    for (const v of ['false', 'partial', 'disabled']) {
      const cluster = emptyClusterSnapshot('')
      cluster.configMaps = [{metadata: {name: 'cilium-config', namespace: 'kube-system'}, data: {'kube-proxy-replacement': v}}]
      cluster.daemonSets = [{metadata: {name: 'kube-proxy', namespace: 'kube-system'}}]
      assert.equal(resolveLayout({node: 'n', cluster}).servicesOwner.owner, 'kube-proxy', v)
    }
  })

  it('Calico eBPF from FELIX_BPFENABLED on calico-node; OVN-Kubernetes from its management link', () => {
    const cluster = emptyClusterSnapshot('')
    cluster.daemonSets = [{metadata: {name: 'calico-node', namespace: 'kube-system'}, spec: {template: {spec: {containers: [{name: 'calico-node', env: [{name: 'FELIX_BPFENABLED', value: 'true'}]}]}}}}]
    const c = resolveLayout({node: 'n', cluster})
    assert.deepEqual([c.servicesOwner.owner, c.cni.name, c.cni.mode], ['calico-ebpf', 'calico', 'ebpf'])
    const ovn = resolveLayout({node: 'n', cluster: emptyClusterSnapshot(''), discovery: parseLayoutDiscovery('link=ovn-k8s-mp0\nlink=br-int\n')})
    assert.deepEqual([ovn.servicesOwner.owner, ovn.cni.name], ['ovn-kubernetes', 'ovn-kubernetes'])
  })

  it('the report form keeps the structure and the summary', () => {
    const d = parseLayoutDiscovery(readFixture('layouts/discovery/k3s-flannel.txt'))
    const cluster = emptyClusterSnapshot('')
    cluster.nodes = [{metadata: {name: 'n'}, status: {nodeInfo: {kubeletVersion: 'v1.33.4+k3s1'}}}]
    const r = toNodeLayout(resolveLayout({node: 'n', cluster, discovery: d, proxyMode: 'iptables'}))
    assert.equal(r.summary, 'k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan')
    assert.deepEqual([r.distribution, r.kubeProxy.where, r.kubeProxy.mode, r.servicesOwner.owner, r.clusterDNS], ['k3s', 'embedded', 'iptables', 'kube-proxy', '10.43.0.10'])
  })
})

describe('resolveLayout from DaemonSets in the namespaces CNIs really use (API only)', () => {
  const kubeadmCluster = (daemonSets: ClusterSnapshot['daemonSets']) => {
    const cluster = emptyClusterSnapshot('')
    cluster.nodes = [{metadata: {name: 'n', annotations: {'flannel.alpha.coreos.com/backend-type': 'vxlan'}}, status: {nodeInfo: {kubeletVersion: 'v1.34.2'}}}]
    cluster.configMaps = [{metadata: {name: 'kubeadm-config', namespace: 'kube-system'}, data: {}}]
    cluster.daemonSets = [{metadata: {name: 'kube-proxy', namespace: 'kube-system'}}, ...daemonSets]
    return cluster
  }
  const labels = {app: 'flannel', 'k8s-app': 'flannel', tier: 'node'}

  it("flannel's manifest: DaemonSet kube-flannel/kube-flannel-ds, the backend from the Nodes' lease annotation", () => {
    const l = resolveLayout({node: 'n', cluster: kubeadmCluster([{metadata: {name: 'kube-flannel-ds', namespace: 'kube-flannel', labels}}])})
    assert.deepEqual([l.distribution, l.cni.name, l.cni.mode, l.servicesOwner.owner], ['kubeadm', 'flannel', 'vxlan', 'kube-proxy'])
    assert.ok(l.evidence.includes('CNI: DaemonSet kube-flannel/kube-flannel-ds'), l.evidence.join('\n'))
  })

  it('a renamed flannel DaemonSet is still flannel by its app=flannel label', () => {
    const l = resolveLayout({node: 'n', cluster: kubeadmCluster([{metadata: {name: 'kube-flannel-ds-amd64', namespace: 'kube-flannel', labels}}])})
    assert.equal(l.cni.name, 'flannel')
  })

  it('the Tigera operator: calico-system/calico-node is Calico; its FELIX_BPFENABLED=true makes Calico eBPF the Services owner', () => {
    const calicoNode = (env: Array<{name: string; value: string}>) => ({metadata: {name: 'calico-node', namespace: 'calico-system'}, spec: {template: {spec: {containers: [{name: 'calico-node', env}]}}}})
    const iptables = resolveLayout({node: 'n', cluster: kubeadmCluster([calicoNode([{name: 'CALICO_NETWORKING_BACKEND', value: 'bird'}])])})
    assert.deepEqual([iptables.cni.name, iptables.servicesOwner.owner], ['calico', 'kube-proxy'])
    assert.ok(iptables.evidence.includes('CNI: DaemonSet calico-system/calico-node'), iptables.evidence.join('\n'))
    const bpf = resolveLayout({node: 'n', cluster: kubeadmCluster([calicoNode([{name: 'FELIX_BPFENABLED', value: 'true'}])])})
    assert.deepEqual([bpf.cni.name, bpf.cni.mode, bpf.servicesOwner.owner], ['calico', 'ebpf', 'calico-ebpf'])
    assert.equal(bpf.servicesOwner.reason, 'FELIX_BPFENABLED=true on DaemonSet calico-system/calico-node')
  })

  it("Cilium's DaemonSet in kube-system (its Helm default) or a namespace of its own", () => {
    for (const ns of ['kube-system', 'cilium']) {
      const l = resolveLayout({node: 'n', cluster: kubeadmCluster([{metadata: {name: 'cilium', namespace: ns}}])})
      assert.equal(l.cni.name, 'cilium', ns)
      assert.ok(l.evidence.includes(`CNI: DaemonSet ${ns}/cilium`), l.evidence.join('\n'))
    }
  })

  it("Cilium in a namespace of its own: its cilium-config there says who implements Services", () => {
    const cluster = kubeadmCluster([{metadata: {name: 'cilium', namespace: 'cilium'}}])
    cluster.configMaps.push({metadata: {name: 'cilium-config', namespace: 'cilium'}, data: {'kube-proxy-replacement': 'true', 'routing-mode': 'native'}})
    const l = resolveLayout({node: 'n', cluster})
    assert.deepEqual([l.cni.name, l.cni.mode, l.servicesOwner.owner], ['cilium', 'native', 'cilium'])
    assert.equal(l.servicesOwner.reason, 'kube-proxy-replacement=true in cilium/cilium-config')
  })

  it('where DaemonSets outside kube-system could not be listed, an unknown CNI says so', () => {
    const cluster = kubeadmCluster([])
    cluster.unavailable = [{resource: 'daemonsets', why: 'forbidden', note: 'listing DaemonSets in all namespaces is forbidden for this user'}]
    const l = resolveLayout({node: 'n', cluster})
    assert.equal(l.cni.name, 'unknown')
    assert.ok(l.evidence.includes('CNI: unknown; listing DaemonSets in all namespaces is forbidden for this user'), l.evidence.join('\n'))
  })

  it('kube-router with --run-service-proxy owns Services wherever its DaemonSet is', () => {
    const router = {metadata: {name: 'kube-router', namespace: 'kube-system'}, spec: {template: {spec: {containers: [{name: 'kube-router', args: ['--run-router=true', '--run-service-proxy=true']}]}}}}
    const l = resolveLayout({node: 'n', cluster: kubeadmCluster([router])})
    assert.deepEqual([l.cni.name, l.servicesOwner.owner], ['kube-router', 'kube-router'])
  })

  it("kube-system's DaemonSet wins where two namespaces have one of the same name", () => {
    const l = resolveLayout({node: 'n', cluster: kubeadmCluster([{metadata: {name: 'calico-node', namespace: 'calico-system'}}, {metadata: {name: 'calico-node', namespace: 'kube-system'}}])})
    assert.ok(l.evidence.includes('CNI: DaemonSet kube-system/calico-node'), l.evidence.join('\n'))
  })

  it("an older bundle (kube-system's DaemonSets only) still resolves: flannel unseen from the API is unknown, not guessed", () => {
    const l = resolveLayout({node: 'n', cluster: kubeadmCluster([])})
    assert.deepEqual([l.distribution, l.cni.name, l.servicesOwner.owner], ['kubeadm', 'unknown', 'kube-proxy'])
  })
})

describe('resolveLayout property', () => {
  it('any discovery the parser accepts resolves without throwing, with evidence and a three-part summary', () => {
    const seeds = ['kubeadm-calico', 'k3s-flannel', 'rke2-canal', 'eks-al2023', 'gke-cos', 'cilium-kpr'].map((n) => readFixture(`layouts/discovery/${n}.txt`))
    const tokens = ['link=tunl0', 'link=cilium_host', 'link=flannel.1', 'link=ovn-k8s-mp0', 'process=1 kube-proxy kube-proxy', 'process=2 k3s k3s agent', 'path=/etc/rancher/rke2/config.yaml', 'os-id=talos']
    fc.assert(
      fc.property(mutated(seeds, tokens), (text) => {
        let d
        try {
          d = parseLayoutDiscovery(text)
        } catch {
          return
        }
        const l = resolveLayout({node: 'n', cluster: emptyClusterSnapshot(''), discovery: d})
        assert.ok(l.evidence.length > 0)
        assert.equal(layoutSummary(l).split(' · ').length, 3)
      }),
      {numRuns: FUZZ_RUNS / 3},
    )
  })
})
