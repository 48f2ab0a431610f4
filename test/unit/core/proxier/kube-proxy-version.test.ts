// Version truth: which source decides the kube-proxy version of a node, what is said when sources disagree, odd
// version strings (pre-releases, distribution builds, unknown text), and the layout a version renders with.
// Fixture conventions: node-a is the node under test, node-b another node; kube-system holds kube-proxy.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {NodeFacts} from '../../../../src/core/facts/node-facts.js'
import type {DaemonSet, Node, Pod} from '../../../../src/core/model/k8s.js'
import {parsePrometheusText} from '../../../../src/core/parse/prom-metrics.js'
import {formatFullKubeProxyVersion, NEWEST_SUPPORTED_VERSION, OLDEST_SUPPORTED_VERSION, parseKubeProxyVersion, versionFromImage} from '../../../../src/core/proxier/config.js'
import {
  resolveKubeProxyVersion,
  versionFromBuildInfo,
  versionFromDistribution,
  versionFromStaticManifest,
  type VersionInputs,
} from '../../../../src/core/proxier/kube-proxy-version.js'
import {loadObjects} from '../../../../src/core/proxier/objects.js'
import {buildRenderInput, renderLayoutFor} from '../../../../src/core/proxier/render-input.js'
import {proxyCluster, proxyNode} from '../../../support/proxy-mode-builders.js'

const NEWEST = NEWEST_SUPPORTED_VERSION

function pod(name: string, node: string, image: string, o: {statusImage?: string; terminating?: boolean; phase?: string} = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {namespace: 'kube-system', name, labels: {'k8s-app': 'kube-proxy'}, ...(o.terminating ? {deletionTimestamp: '2026-12-01T00:00:00Z'} : {})},
    spec: {nodeName: node, containers: [{name: 'kube-proxy', image}]},
    status: {phase: o.phase ?? 'Running', containerStatuses: [{name: 'kube-proxy', ready: true, restartCount: 0, ...(o.statusImage ? {image: o.statusImage} : {})}]},
  }
}

function ds(image: string): DaemonSet {
  return {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image}]}}}}
}

function node(kubeProxyVersion?: string): Node {
  return {apiVersion: 'v1', kind: 'Node', metadata: {name: 'node-a'}, status: {addresses: [{type: 'InternalIP', address: '192.168.0.2'}], nodeInfo: {kubeletVersion: 'v1.35.1', ...(kubeProxyVersion ? {kubeProxyVersion} : {})}}}
}

/** kube-proxy's /metrics as it serves it (v1.36+: [BETA] in HELP; label order as the text encoder writes it). */
function metrics(gitVersion: string, label = 'git_version'): string {
  return [
    "# HELP kubernetes_build_info [BETA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
    '# TYPE kubernetes_build_info gauge',
    `kubernetes_build_info{build_date="2026-08-26T10:00:00Z",compiler="gc",git_commit="0123456789abcdef0123456789abcdef01234567",git_tree_state="clean",${label}="${gitVersion}",go_version="go1.26.1",major="1",minor="37",platform="linux/amd64"} 1`,
    '',
  ].join('\n')
}

const GKE_MANIFEST = `# node-doctor-file: /etc/kubernetes/manifests/kube-proxy.manifest
apiVersion: v1
kind: Pod
metadata:
  name: kube-proxy
  namespace: kube-system
  labels:
    component: kube-proxy
spec:
  hostNetwork: true
  containers:
  - name: kube-proxy
    image: gke.gcr.io/kube-proxy-amd64:v1.31.6-gke.1000
    command:
    - /bin/sh
    - -c
    - exec kube-proxy --master=https://10.0.0.2 --kubeconfig=/var/lib/kube-proxy/kubeconfig --cluster-cidr=10.8.0.0/14 --oom-score-adj=-998 --v=2
`

const RKE2_MANIFEST = `# node-doctor-file: /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml
apiVersion: v1
kind: Pod
metadata:
  name: kube-proxy
  namespace: kube-system
spec:
  containers:
  - args:
    - --cluster-cidr=10.42.0.0/16
    command:
    - kube-proxy
    image: index.docker.io/rancher/hardened-kubernetes:v1.31.6-rke2r1-build20250213
    name: kube-proxy
`

const base = (o: Partial<VersionInputs> = {}): VersionInputs => ({nodeName: 'node-a', ...o})
const v = (text: string) => parseKubeProxyVersion(text)!

describe('kube-proxy version strings', () => {
  it('keeps the patch and the suffix of pre-releases and distribution builds', () => {
    const cases: Array<[string, ReturnType<typeof parseKubeProxyVersion>]> = [
      ['v1.38.0-alpha.2', {major: 1, minor: 38, patch: 0, suffix: '-alpha.2'}],
      ['v1.33.4+k3s1', {major: 1, minor: 33, patch: 4, suffix: '+k3s1'}],
      ['v1.32.9-eks-113cf36', {major: 1, minor: 32, patch: 9, suffix: '-eks-113cf36'}],
      ['v1.31.6-gke.1000', {major: 1, minor: 31, patch: 6, suffix: '-gke.1000'}],
      ['v1.31.6-rke2r1-build20250213', {major: 1, minor: 31, patch: 6, suffix: '-rke2r1-build20250213'}],
      ['1.30', {major: 1, minor: 30}],
      ['latest', undefined],
      ['', undefined],
      ['v1', undefined],
      ['vv1.30.0', undefined],
    ]
    for (const [text, want] of cases) assert.deepEqual(parseKubeProxyVersion(text), want, text)
    assert.equal(formatFullKubeProxyVersion(v('v1.33.4+k3s1')), 'v1.33.4+k3s1')
    assert.deepEqual(versionFromImage('host:5000/kube-proxy:v1.30.1@sha256:' + 'a'.repeat(64)), {major: 1, minor: 30, patch: 1})
    assert.equal(versionFromImage('registry.internal/kube-proxy@sha256:' + 'a'.repeat(64)), undefined)
    assert.equal(versionFromImage('registry.k8s.io/kube-proxy:latest'), undefined)
  })

  it('renders every version at least as new as the oldest layout: newer ones with the newest layout, never refused', () => {
    assert.deepEqual(renderLayoutFor(v('v1.33.4+k3s1')), {layout: v('v1.33.4+k3s1'), clamped: false})
    for (const text of ['v1.38.0-alpha.2', 'v1.99.0', 'v2.0.0']) {
      const r = renderLayoutFor(v(text))!
      assert.equal(r.clamped, true, text)
      assert.deepEqual([r.layout.major, r.layout.minor], [NEWEST.major, NEWEST.minor], text)
      // No patch: it counts as .0, and every patch-level fix known is in a .0 release of the newest line.
      assert.equal(r.layout.patch, undefined, text)
    }
    assert.equal(renderLayoutFor({major: OLDEST_SUPPORTED_VERSION.major, minor: OLDEST_SUPPORTED_VERSION.minor - 1, patch: 3}), undefined)
  })

  it('buildRenderInput never throws for odd version text: an unknown tag is no source, a pre-release renders', () => {
    const objects = loadObjects([{name: 'o', text: JSON.stringify({kind: 'List', items: [node(), ds('registry.k8s.io/kube-proxy:latest')]})}])
    const r = buildRenderInput(objects, {nodeName: 'node-a'})
    assert.equal(r.versionSource, 'default')
    assert.match(r.notes.join('\n'), /no source named kube-proxy's version .* assuming v1\.\d+, the newest layout known/)
    const pre = buildRenderInput(objects, {nodeName: 'node-a', version: v('v1.38.0-alpha.2')})
    assert.deepEqual(pre.newerThanKnown, v('v1.38.0-alpha.2'))
    assert.deepEqual([pre.version.major, pre.version.minor], [NEWEST.major, NEWEST.minor])
    assert.match(pre.notes.join('\n'), /kube-proxy v1\.38\.0-alpha\.2 is newer than the newest layout known \(v1\.\d+\): rendered with the v1\.\d+ layout/)
  })
})

describe('the sources one by one', () => {
  it('kubernetes_build_info: snake_case, and the camelCase labels of old releases', () => {
    assert.deepEqual(versionFromBuildInfo(parsePrometheusText(metrics('v1.37.2'))), {version: v('v1.37.2'), raw: 'kubernetes_build_info git_version="v1.37.2"'})
    assert.deepEqual(versionFromBuildInfo(parsePrometheusText(metrics('v1.33.4+k3s1', 'gitVersion')))?.version, v('v1.33.4+k3s1'))
    assert.equal(versionFromBuildInfo(parsePrometheusText('# TYPE up gauge\nup 1\n')), undefined)
  })

  it('static pod manifests: GKE and RKE2 images, the path from the marker line', () => {
    assert.deepEqual(versionFromStaticManifest(GKE_MANIFEST), {version: v('v1.31.6-gke.1000'), raw: 'gke.gcr.io/kube-proxy-amd64:v1.31.6-gke.1000', path: '/etc/kubernetes/manifests/kube-proxy.manifest'})
    assert.deepEqual(versionFromStaticManifest(RKE2_MANIFEST)?.version, v('v1.31.6-rke2r1-build20250213'))
    assert.equal(versionFromStaticManifest(''), undefined)
  })

  it('k3s/rke2 --version output', () => {
    assert.deepEqual(versionFromDistribution('k3s version v1.33.4+k3s1 (c1a3a1b8)\ngo version go1.24.4\n'), {version: v('v1.33.4+k3s1'), raw: 'k3s version v1.33.4+k3s1', binary: 'k3s'})
    assert.deepEqual(versionFromDistribution('rke2 version v1.31.6+rke2r1 (4a0ab1c2)\ngo version go1.23.6 X:boringcrypto\n')?.binary, 'rke2')
    assert.equal(versionFromDistribution('sh: k3s: not found\n'), undefined)
  })
})

describe('resolution order', () => {
  const all: VersionInputs = base({
    pods: [pod('kube-proxy-b', 'node-b', 'registry.k8s.io/kube-proxy:v1.30.0'), pod('kube-proxy-a', 'node-a', 'registry.k8s.io/kube-proxy:v1.36.1')],
    metrics: parsePrometheusText(metrics('v1.36.1')),
    staticManifest: GKE_MANIFEST,
    distribution: 'k3s version v1.33.4+k3s1 (c1a3a1b8)\n',
    daemonSets: [ds('registry.k8s.io/kube-proxy:v1.36.1')],
    node: node('v1.29.0'),
  })

  it('takes each source in turn: pod, metrics, static manifest, k3s/RKE2 binary, DaemonSet, Node, assumption', () => {
    const steps: Array<[Partial<VersionInputs>, string, string, string]> = [
      [{}, 'pod', 'pod kube-system/kube-proxy-a', 'v1.36.1'],
      [{pods: []}, 'metrics', 'kube-proxy metrics (127.0.0.1:10249/metrics)', 'v1.36.1'],
      [{pods: [], metrics: []}, 'static-manifest', 'static pod manifest /etc/kubernetes/manifests/kube-proxy.manifest', 'v1.31.6-gke.1000'],
      [{pods: [], metrics: [], staticManifest: ''}, 'distribution', '`k3s --version` on the node', 'v1.33.4+k3s1'],
      [{pods: [], metrics: [], staticManifest: '', distribution: ''}, 'daemonset', 'DaemonSet kube-system/kube-proxy', 'v1.36.1'],
      [{pods: [], metrics: [], staticManifest: '', distribution: '', daemonSets: []}, 'node', 'Node node-a status.nodeInfo.kubeProxyVersion', 'v1.29.0'],
      [{pods: [], metrics: [], staticManifest: '', distribution: '', daemonSets: [], node: node()}, 'default', 'assumed', formatFullKubeProxyVersion(NEWEST)],
    ]
    for (const [without, kind, from, version] of steps) {
      const r = resolveKubeProxyVersion({...all, ...without}, NEWEST)
      assert.deepEqual([r.kind, r.from, formatFullKubeProxyVersion(r.version)], [kind, from, version], kind)
    }
  })

  it('an explicit version (--kube-proxy-version) wins and says what the node says', () => {
    const r = resolveKubeProxyVersion(all, NEWEST, v('v1.35'))
    assert.deepEqual([r.kind, r.from, formatFullKubeProxyVersion(r.version)], ['flag', '--kube-proxy-version', 'v1.35'])
    assert.match(r.notes[0]!, /--kube-proxy-version v1\.35 given; the pod kube-system\/kube-proxy-a says v1\.36\.1/)
  })

  it('agreeing sources say nothing; the Node field is never called a disagreement, only a deprecated hint', () => {
    assert.deepEqual(resolveKubeProxyVersion({...all, staticManifest: '', distribution: ''}, NEWEST).notes, [])
    const hint = resolveKubeProxyVersion(base({node: node('v1.35.0')}), NEWEST)
    assert.equal(hint.kind, 'node')
    assert.match(hint.notes[0]!, /deprecated \(KEP-4004\).*held the kubelet's version/)
  })

  it('a DaemonSet newer than the pod on the node is a rollout in progress: the node\'s own version is used', () => {
    const r = resolveKubeProxyVersion(base({pods: [pod('kube-proxy-a', 'node-a', 'registry.k8s.io/kube-proxy:v1.36.1')], daemonSets: [ds('registry.k8s.io/kube-proxy:v1.37.0')]}), NEWEST)
    assert.equal(formatFullKubeProxyVersion(r.version), 'v1.36.1')
    assert.deepEqual(r.notes, [
      "the DaemonSet kube-system/kube-proxy has image registry.k8s.io/kube-proxy:v1.37.0 but this node's kube-proxy runs v1.36.1 (pod kube-system/kube-proxy-a): a rollout in progress, or the pod was not restarted; rendering for the version that runs",
    ])
  })

  it('the pod image and the metrics disagreeing is said, the pod wins; the running container\'s image beats the spec\'s', () => {
    const r = resolveKubeProxyVersion(base({pods: [pod('kube-proxy-a', 'node-a', 'registry.k8s.io/kube-proxy:v1.36.1')], metrics: parsePrometheusText(metrics('v1.36.2'))}), NEWEST)
    assert.equal(formatFullKubeProxyVersion(r.version), 'v1.36.1')
    assert.match(r.notes[0]!, /the kube-proxy metrics \(127\.0\.0\.1:10249\/metrics\) says v1\.36\.2 .*using v1\.36\.1 from the pod kube-system\/kube-proxy-a/)
    const edited = resolveKubeProxyVersion(base({pods: [pod('kube-proxy-a', 'node-a', 'registry.k8s.io/kube-proxy:v1.37.0', {statusImage: 'registry.k8s.io/kube-proxy:v1.36.1'})]}), NEWEST)
    assert.deepEqual([formatFullKubeProxyVersion(edited.version), edited.claims[0]!.raw], ['v1.36.1', 'registry.k8s.io/kube-proxy:v1.36.1'])
  })

  it('the running pod beats a terminating one; other nodes\' pods never count', () => {
    const pods = [pod('kube-proxy-old', 'node-a', 'registry.k8s.io/kube-proxy:v1.35.0', {terminating: true}), pod('kube-proxy-new', 'node-a', 'registry.k8s.io/kube-proxy:v1.36.0'), pod('kube-proxy-b', 'node-b', 'registry.k8s.io/kube-proxy:v1.37.0')]
    assert.equal(resolveKubeProxyVersion(base({pods}), NEWEST).from, 'pod kube-system/kube-proxy-new')
    assert.equal(resolveKubeProxyVersion(base({pods: pods.slice(2)}), NEWEST).kind, 'default')
  })
})

describe('NodeFacts and the render input take the same resolution', () => {
  it('check (NodeFacts) reads the node\'s metrics and static manifest artifacts', () => {
    const cluster = proxyCluster({pod: null})
    cluster.daemonSets = []
    const facts = NodeFacts.of(cluster, proxyNode({'kube-proxy-metrics': metrics('v1.37.2'), 'kube-proxy-manifest': GKE_MANIFEST}))
    const r = facts.kubeProxyConfig.resolution
    assert.deepEqual([r.kind, formatFullKubeProxyVersion(r.version)], ['metrics', 'v1.37.2'])
    assert.match(r.notes[0]!, /static pod manifest \/etc\/kubernetes\/manifests\/kube-proxy\.manifest says v1\.31\.6-gke\.1000/)
    assert.deepEqual(facts.proxy.version, {text: 'v1.37.2', minor: 37})
  })

  it('offline objects files: a kube-proxy Pod among them decides over the DaemonSet', () => {
    const objects = loadObjects([{name: 'o', text: JSON.stringify({kind: 'List', items: [node(), ds('registry.k8s.io/kube-proxy:v1.33.2'), pod('kube-proxy-a', 'node-a', 'registry.k8s.io/kube-proxy:v1.32.9-eks-113cf36')]})}])
    const r = buildRenderInput(objects, {nodeName: 'node-a'})
    assert.deepEqual([r.versionSource, formatFullKubeProxyVersion(r.resolution.version), formatFullKubeProxyVersion(r.version)], ['pod', 'v1.32.9-eks-113cf36', 'v1.32.9-eks-113cf36'])
    assert.match(r.notes.join('\n'), /rollout in progress/)
  })
})
