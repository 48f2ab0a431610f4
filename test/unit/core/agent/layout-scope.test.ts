// The agent's host mounts follow the target nodes' layouts as the API tells them (the layout fixture clusters,
// test/fixtures/layouts/nodes): a kubeadm-only run mounts no k3s/RKE2/GKE directory, a mixed k3s + kubeadm run gets
// both layouts' (one DaemonSet: the union), and a node the API does not place gets every layout's, with a warning.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {before, describe, it} from 'node:test'
import {agentLayoutScope, layoutScopedMounts, unresolvedLayoutWarning} from '../../../../src/core/agent/layout-scope.js'
import {agentManifests, MOUNTS_FOR_LAYOUTS_ANNOTATION} from '../../../../src/core/agent/manifests.js'
import {agentPlan, LAYOUT_SCOPED_MOUNTS} from '../../../../src/core/agent/privileges.js'
import {KNOWN_LAYOUTS} from '../../../../src/core/layout/known-layouts.js'
import type {KubeObject, Node} from '../../../../src/core/model/k8s.js'
import type {ClusterSnapshot} from '../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../support/golden.js'

const base = {runId: '0a1b2c3d', image: 'ghcr.io/node-doctor/kubectl-node-doctor:0.1.0', commandTimeoutSeconds: 30}
const GENERIC = ['/etc/cni', '/etc/containerd', '/etc/default', '/etc/kubernetes', '/etc/os-release', '/etc/resolv.conf', '/etc/sysconfig', '/var/lib/kubelet']
const RANCHER_OR_GKE = Object.keys(LAYOUT_SCOPED_MOUNTS)

const clusters: Record<string, ClusterSnapshot> = {}
const cluster = (name: string): ClusterSnapshot => clusters[name]!
const renamed = (n: Node, name: string): Node => ({...n, metadata: {...n.metadata, name}})

type DaemonSet = KubeObject & {spec: {template: {spec: {volumes: Array<{hostPath?: {path: string}}>}}}}
/** The host paths the DaemonSet of a run over these target nodes mounts, and its annotations. */
function run(c: ClusterSnapshot, nodes: readonly Node[]) {
  const scope = agentLayoutScope(c, nodes)
  const ds = agentManifests({...base, layouts: scope.layouts}).objects[2] as DaemonSet
  const paths = ds.spec.template.spec.volumes.flatMap((v) => (v.hostPath ? [v.hostPath.path] : []))
  return {scope, paths, annotations: ds.metadata.annotations ?? {}, warning: unresolvedLayoutWarning(scope, undefined)}
}

describe('agent mounts by the target nodes layouts (from the API)', () => {
  before(async () => {
    for (const name of ['kubeadm-calico', 'k3s-flannel', 'rke2-canal', 'gke-cos', 'eks-al2023', 'cilium-kpr-two-owners']) {
      clusters[name] = (await readBundle(join(FIXTURES, 'layouts', 'nodes', name))).cluster
    }
  })

  it('kubeadm-only cluster: no /etc/rancher, /var/lib/rancher or /home/kubernetes mount; the generic kubeadm ones stay', () => {
    const c = cluster('kubeadm-calico')
    const r = run(c, c.nodes)
    assert.deepEqual(r.scope.nodes.map((n) => [n.node, n.distribution, n.evidence]), [['node-1', 'kubeadm', ['ConfigMap kube-system/kubeadm-config (cluster-wide; the node was not examined)']]])
    assert.deepEqual(r.paths.sort(), GENERIC)
    for (const p of r.paths) assert.ok(!p.includes('rancher') && !p.startsWith('/home/'), p)
    assert.equal(r.annotations[MOUNTS_FOR_LAYOUTS_ANNOTATION], 'kubeadm')
    assert.equal(r.warning, undefined)
  })

  it('mixed k3s + kubeadm nodes: one DaemonSet with the union (k3s directories and the generic ones, no RKE2 or GKE)', () => {
    const c = {...cluster('kubeadm-calico')}
    const k3s = renamed(cluster('k3s-flannel').nodes[0]!, 'node-2')
    c.nodes = [...c.nodes, k3s]
    const r = run(c, c.nodes)
    assert.deepEqual(r.scope.layouts, ['k3s', 'kubeadm'])
    assert.deepEqual(r.scope.nodes.find((n) => n.node === 'node-2')?.evidence, ['kubeletVersion v1.33.4+k3s1 (k3s build)'])
    assert.deepEqual(r.paths.sort(), [...GENERIC, '/etc/rancher', '/var/lib/rancher/k3s/agent/etc'].sort())
    assert.equal(r.annotations[MOUNTS_FOR_LAYOUTS_ANNOTATION], 'k3s,kubeadm')
    assert.equal(r.warning, undefined)
    // Only the kubeadm node targeted: k3s's directories go again.
    assert.deepEqual(run(c, [c.nodes[0]!]).paths.sort(), GENERIC)
  })

  it('each layout the API tells gets its own directories only (k3s, RKE2, GKE by providerID and labels, EKS by providerID and osImage)', () => {
    const only = (name: string) => run(cluster(name), cluster(name).nodes).paths.filter((p) => RANCHER_OR_GKE.includes(p)).sort()
    assert.deepEqual(only('k3s-flannel'), ['/etc/rancher', '/var/lib/rancher/k3s/agent/etc'])
    assert.deepEqual(only('rke2-canal'), ['/etc/rancher', '/var/lib/rancher/rke2/agent/etc'])
    assert.deepEqual(only('gke-cos'), ['/home/kubernetes'])
    assert.deepEqual(only('eks-al2023'), [])
    assert.deepEqual(run(cluster('eks-al2023'), cluster('eks-al2023').nodes).scope.layouts, ['eks-al2023'])
  })

  it('a node the API does not place (no kubeadm-config, plain kubelet version, no provider): every layout\'s directories, and a warning naming the node and them', () => {
    const c = cluster('cilium-kpr-two-owners')
    const r = run(c, c.nodes)
    assert.deepEqual(r.scope.unresolved, ['node-1'])
    assert.deepEqual(r.paths.sort(), agentPlan().privileges.mounts.map((m) => m.path).sort())
    assert.deepEqual(r.paths.sort(), [...GENERIC, ...RANCHER_OR_GKE].sort())
    assert.equal(r.annotations[MOUNTS_FOR_LAYOUTS_ANNOTATION], 'unknown')
    assert.ok(r.warning?.startsWith('WARNING: the layout of node(s) node-1 cannot be told from the API'), r.warning)
    assert.ok(r.warning?.includes('the container runtime creates them, empty: /etc/rancher, /home/kubernetes, /var/lib/rancher/k3s/agent/etc, /var/lib/rancher/rke2/agent/etc.'), r.warning)
  })

  it('unknown beside known nodes: still every layout (one DaemonSet), the warning names the unknown nodes and the known layouts', () => {
    const unknown = cluster('cilium-kpr-two-owners')
    const k3s = cluster('k3s-flannel').nodes[0]!
    const many = Array.from({length: 7}, (_, i) => renamed(unknown.nodes[0]!, `plain-${i}`))
    const c = {...unknown, nodes: [renamed(k3s, 'k3s-1'), ...many]}
    const r = run(c, c.nodes)
    assert.deepEqual(r.scope.layouts, ['k3s', 'unknown'])
    assert.deepEqual(r.paths.sort(), [...GENERIC, ...RANCHER_OR_GKE].sort())
    assert.ok(r.warning?.includes('node(s) plain-0, plain-1, plain-2, plain-3, plain-4 and 2 more cannot'), r.warning)
    assert.ok(r.warning?.includes('(the other target nodes: k3s)'), r.warning)
  })

  it('the layout-only directories the warning names follow the areas (all of them: layout discovery runs for every area)', () => {
    assert.deepEqual(layoutScopedMounts(['conntrack']), [...RANCHER_OR_GKE].sort())
    assert.deepEqual(layoutScopedMounts(undefined, ['kubeadm']), [])
  })

  it('every layout-only directory is a mount of the full set, and names known layouts; the full set has no other mount than those and the generic ones', () => {
    const full = agentPlan().privileges.mounts.map((m) => m.path)
    for (const [dir, layouts] of Object.entries(LAYOUT_SCOPED_MOUNTS)) {
      assert.ok(full.includes(dir), dir)
      for (const l of layouts) assert.ok(KNOWN_LAYOUTS.some((k) => k.distribution === l) && l !== 'unknown' && l !== 'kubeadm', l)
    }
    // A new mount (a new layout row, a new discovery path) is a decision: layout-only (LAYOUT_SCOPED_MOUNTS) or generic.
    assert.deepEqual(full.filter((p) => !(p in LAYOUT_SCOPED_MOUNTS)).sort(), GENERIC)
    // Without layouts (agent manifests, deploy/): the full set.
    assert.deepEqual(agentPlan(undefined, undefined).privileges.mounts, agentPlan().privileges.mounts)
  })
})
