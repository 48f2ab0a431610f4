// Where each layout keeps kube-proxy's configured mode (core/layout/kube-proxy-mode.ts): k3s's kube-proxy-arg (files,
// then the command line), RKE2's kube-proxy-arg over its static pod manifest, GKE's kube-proxy.manifest (sh -c
// command), and nothing for ConfigMap layouts or a static pod that reads a --config file.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {layoutProxyMode} from '../../../../src/core/layout/kube-proxy-mode.js'
import {resolveLayout} from '../../../../src/core/layout/resolve.js'
import {emptyClusterSnapshot} from '../../../../src/core/model/snapshot.js'
import {parseLayoutDiscovery} from '../../../../src/core/parse/layout-discovery.js'

function layoutOf(kubeletVersion: string, discovery: string, rancherConfig?: string) {
  const cluster = emptyClusterSnapshot('')
  cluster.nodes = [{metadata: {name: 'n'}, status: {nodeInfo: {kubeletVersion}}}]
  cluster.daemonSets = [{metadata: {name: 'coredns', namespace: 'kube-system'}}]
  return resolveLayout({node: 'n', cluster, discovery: parseLayoutDiscovery(`format=node-doctor-layout/1\n${discovery}`), ...(rancherConfig === undefined ? {} : {rancherConfig})})
}

const GKE_MANIFEST = (flags: string) =>
  '# node-doctor-file: /etc/kubernetes/manifests/kube-proxy.manifest\napiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\nspec:\n  containers:\n  - name: kube-proxy\n' +
  `    image: gke.gcr.io/kube-proxy-amd64:v1.33.5-gke.1000\n    command:\n    - /bin/sh\n    - -c\n    - exec kube-proxy --master=https://34.30.1.2 ${flags} 1>>/var/log/kube-proxy.log 2>&1\n`

describe('layoutProxyMode', () => {
  it('k3s: the command line wins over the files, an empty proxy-mode means iptables', () => {
    const config = '# node-doctor-file: /etc/rancher/k3s/config.yaml\nkube-proxy-arg:\n  - proxy-mode=ipvs\n'
    const l = layoutOf('v1.33.4+k3s1', 'process=812 k3s /usr/local/bin/k3s server --kube-proxy-arg=proxy-mode=nftables\n', config)
    assert.deepEqual(layoutProxyMode(l, {rancherConfig: config}), {mode: 'nftables', source: 'kube-proxy-arg proxy-mode=nftables in the k3s command line', applies: 'restart-k3s'})
    const empty = '# node-doctor-file: /etc/rancher/k3s/config.yaml\nkube-proxy-arg: proxy-mode=\n'
    assert.equal((layoutProxyMode(layoutOf('v1.33.4+k3s1', '', empty), {rancherConfig: empty}) as {mode: string}).mode, 'iptables')
  })

  it("RKE2: kube-proxy-arg in /etc/rancher/rke2 wins over the manifest; k3s's files on the same host do not count", () => {
    const config = '# node-doctor-file: /etc/rancher/k3s/config.yaml\nkube-proxy-arg: proxy-mode=ipvs\n# node-doctor-file: /etc/rancher/rke2/config.yaml\ncni: canal\n'
    const manifest = '# node-doctor-file: /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: kube-proxy\n    command: [kube-proxy, --proxy-mode, nftables]\n'
    const l = layoutOf('v1.33.4+rke2r1', 'path=/etc/rancher/rke2/config.yaml\nfile=/var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml\n')
    assert.equal(l.kubeProxy.where, 'static-pod')
    assert.deepEqual(layoutProxyMode(l, {rancherConfig: config, manifest}), {mode: 'nftables', source: 'flag --proxy-mode=nftables in /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml line 6', applies: 'restart-rke2'})
    const withArg = `${config}kube-proxy-arg:\n  - proxy-mode=ipvs\n`
    assert.deepEqual(layoutProxyMode(l, {rancherConfig: withArg, manifest}), {mode: 'ipvs', source: 'kube-proxy-arg proxy-mode=ipvs in /etc/rancher/rke2/config.yaml', applies: 'restart-rke2'})
  })

  it("GKE: the flags inside kube-proxy.manifest's sh -c command; without --proxy-mode the default", () => {
    const l = layoutOf('v1.33.5-gke.1000', 'path=/home/kubernetes/kubelet-config.yaml\nfile=/etc/kubernetes/manifests/kube-proxy.manifest\n')
    assert.deepEqual(layoutProxyMode(l, {manifest: GKE_MANIFEST('--proxy-mode=ipvs --v=2')}), {mode: 'ipvs', source: 'flag --proxy-mode=ipvs in /etc/kubernetes/manifests/kube-proxy.manifest line 13', applies: 'static-pod'})
    assert.deepEqual(layoutProxyMode(l, {manifest: GKE_MANIFEST('--v=2')}), {mode: 'iptables', source: 'default (no --proxy-mode in /etc/kubernetes/manifests/kube-proxy.manifest: iptables on Linux)', applies: 'static-pod'})
  })

  it('leaves the decision to the ConfigMap facts: DaemonSet layouts, a static pod with --config, no manifest read', () => {
    const kubeadm = layoutOf('v1.34.2', 'path=/var/lib/kubelet/kubeadm-flags.env\n')
    assert.equal(layoutProxyMode(kubeadm, {}), undefined)
    const gke = layoutOf('v1.33.5-gke.1000', 'path=/home/kubernetes/kubelet-config.yaml\nfile=/etc/kubernetes/manifests/kube-proxy.manifest\n')
    assert.equal(layoutProxyMode(gke, {manifest: GKE_MANIFEST('--config=/var/lib/kube-proxy/config.conf')}), undefined)
    assert.equal(layoutProxyMode(gke, {}), undefined)
  })
})
