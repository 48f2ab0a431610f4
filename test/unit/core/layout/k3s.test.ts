// k3s and RKE2 specifics of the layout (#17): their config.yaml/config.yaml.d (`rancher-config` artifact) and the
// k3s command line give kubelet-arg, kube-proxy-arg, disable-kube-proxy and cluster settings; the embedded
// kube-proxy's configuration (k3s's own --proxy-mode/--cluster-cidr, then kube-proxy-arg) and a static-pod
// kube-proxy's (its command line) are what the proxier renders with where no ConfigMap holds one.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {embeddedKubeProxyConfig, resolveLayout} from '../../../../src/core/layout/resolve.js'
import {emptyClusterSnapshot} from '../../../../src/core/model/snapshot.js'
import {parseLayoutDiscovery, parseRancherSettings} from '../../../../src/core/parse/layout-discovery.js'

const CONFIG = [
  '# node-doctor-file: /etc/rancher/k3s/config.yaml',
  'cluster-cidr: 10.52.0.0/16',
  'kube-proxy-arg:',
  '  - proxy-mode=ipvs',
  'kubelet-arg: max-pods=150',
  '',
  '# node-doctor-file: /etc/rancher/k3s/config.yaml.d/50-proxy.yaml',
  'kube-proxy-arg+:',
  '  - masquerade-all=true',
  '',
].join('\n')

function cluster() {
  const c = emptyClusterSnapshot('2026-12-03T00:00:00Z')
  c.nodes = [{metadata: {name: 'k3s-1'}, spec: {providerID: 'k3s://k3s-1'}, status: {nodeInfo: {kubeletVersion: 'v1.33.4+k3s1'}}}]
  c.daemonSets = [{metadata: {name: 'coredns', namespace: 'kube-system'}}]
  return c
}

const DISCOVERY = parseLayoutDiscovery('format=node-doctor-layout/1\nprocess=812 k3s /usr/local/bin/k3s server --kube-proxy-arg=nodeport-addresses=192.168.0.0/24\nlink=flannel.1\n')

describe('k3s settings', () => {
  it('reads kubelet-arg and kube-proxy-arg from every config file (string or list, key or key+), then the command line', () => {
    const s = parseRancherSettings(CONFIG, ['/usr/local/bin/k3s', 'server', '--kube-proxy-arg', 'v=2', '--cluster-dns=10.52.0.10'])
    assert.deepEqual(s.kubeletArgs, [{flag: '--max-pods=150', source: '/etc/rancher/k3s/config.yaml'}])
    assert.deepEqual(s.kubeProxyArgs.map((a) => `${a.flag} @ ${a.source}`), [
      '--proxy-mode=ipvs @ /etc/rancher/k3s/config.yaml',
      '--masquerade-all=true @ /etc/rancher/k3s/config.yaml.d/50-proxy.yaml',
      '--v=2 @ the k3s command line',
    ])
    assert.deepEqual(s.scalars, {'cluster-cidr': {value: '10.52.0.0/16', source: '/etc/rancher/k3s/config.yaml'}, 'cluster-dns': {value: '10.52.0.10', source: 'the k3s command line'}})
    assert.equal(s.disableKubeProxy, undefined)
    assert.equal(parseRancherSettings('# node-doctor-file: /etc/rancher/k3s/config.yaml\ndisable-kube-proxy: true\n').disableKubeProxy, '/etc/rancher/k3s/config.yaml')
    assert.match(parseRancherSettings('# node-doctor-file: /etc/rancher/k3s/config.yaml\nkube-proxy-arg: [\n').problems[0] ?? '', /^\/etc\/rancher\/k3s\/config.yaml: /)
  })

  it("resolves the embedded kube-proxy's mode and configuration from them", () => {
    const l = resolveLayout({node: 'k3s-1', cluster: cluster(), discovery: DISCOVERY, rancherConfig: CONFIG})
    assert.deepEqual([l.kubeProxy.where, l.kubeProxy.mode], ['embedded', 'ipvs'])
    assert.deepEqual(l.kubeProxy.config, {apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', mode: 'ipvs', clusterCIDR: '10.52.0.0/16', iptables: {masqueradeAll: true}, nodePortAddresses: ['192.168.0.0/24']})
    assert.match(l.kubeProxy.detail, /kube-proxy-arg --proxy-mode=ipvs \(\/etc\/rancher\/k3s\/config.yaml\)/)
    const defaults = resolveLayout({node: 'k3s-1', cluster: cluster(), discovery: DISCOVERY})
    assert.deepEqual([defaults.kubeProxy.mode, defaults.kubeProxy.config?.clusterCIDR], ['iptables', '10.42.0.0/16'])
    const off = resolveLayout({node: 'k3s-1', cluster: cluster(), discovery: DISCOVERY, rancherConfig: '# node-doctor-file: /etc/rancher/k3s/config.yaml\ndisable-kube-proxy: true\n'})
    assert.deepEqual([off.kubeProxy.where, off.kubeProxy.detail], ['none', 'disabled in k3s (disable-kube-proxy in /etc/rancher/k3s/config.yaml)'])
  })

  it("a static pod's kube-proxy (RKE2) is configured by its command line; one with --config is not", () => {
    const rke2 = (argv: string) =>
      resolveLayout({
        node: 'rke2-1',
        cluster: emptyClusterSnapshot('2026-12-03T00:00:00Z'),
        discovery: parseLayoutDiscovery(`format=node-doctor-layout/1\nprocess=1201 rke2 /usr/local/bin/rke2 agent\nprocess=1544 kube-proxy ${argv}\npath=/etc/rancher/rke2/config.yaml\nfile=/var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml\n`),
      })
    assert.deepEqual(rke2('kube-proxy --cluster-cidr=10.42.0.0/16 --proxy-mode=iptables --healthz-bind-address=127.0.0.1').kubeProxy.config, {apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', clusterCIDR: '10.42.0.0/16', mode: 'iptables'})
    assert.equal(rke2('kube-proxy --config=/var/lib/kube-proxy/config.conf').kubeProxy.config, undefined)
    assert.deepEqual(embeddedKubeProxyConfig('', '', [{flag: '--detect-local-mode=NodeCIDR', source: 'x'}, {flag: '--unknown=1', source: 'x'}]), {apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', detectLocalMode: 'NodeCIDR'})
  })

  it("clusterDNS: cluster-dns from this distribution's config files or command line, else 10.43.0.10 (said as the default)", () => {
    const rke2Discovery = parseLayoutDiscovery('format=node-doctor-layout/1\nprocess=1201 rke2 /usr/local/bin/rke2 server\npath=/etc/rancher/rke2/config.yaml\n')
    const rke2 = (rancherConfig?: string) => resolveLayout({node: 'rke2-1', cluster: emptyClusterSnapshot(''), discovery: rke2Discovery, ...(rancherConfig === undefined ? {} : {rancherConfig})})
    const set = rke2('# node-doctor-file: /etc/rancher/rke2/config.yaml\nservice-cidr: 10.53.0.0/16\ncluster-dns: 10.53.0.10\n')
    assert.equal(set.clusterDNS, '10.53.0.10')
    assert.ok(set.evidence.includes('clusterDNS 10.53.0.10 (cluster-dns in /etc/rancher/rke2/config.yaml)'), set.evidence.join('\n'))
    const unset = rke2('# node-doctor-file: /etc/rancher/rke2/config.yaml\ncni: canal\n')
    assert.equal(unset.clusterDNS, '10.43.0.10')
    assert.match(unset.evidence.join('\n'), /clusterDNS 10\.43\.0\.10 \(RKE2's default cluster-dns/)
    assert.equal(rke2('# node-doctor-file: /etc/rancher/k3s/config.yaml\ncluster-dns: 10.99.0.10\n').clusterDNS, '10.43.0.10', "k3s's file on an RKE2 node is not RKE2's setting")
    const k3s = resolveLayout({node: 'k3s-1', cluster: cluster(), discovery: DISCOVERY, rancherConfig: CONFIG})
    assert.equal(k3s.clusterDNS, '10.43.0.10')
    const k3sFlag = resolveLayout({node: 'k3s-1', cluster: cluster(), discovery: parseLayoutDiscovery('format=node-doctor-layout/1\nprocess=812 k3s /usr/local/bin/k3s server --cluster-dns=10.52.0.10\n')})
    assert.ok(k3sFlag.evidence.includes('clusterDNS 10.52.0.10 (cluster-dns in the k3s command line)'), k3sFlag.evidence.join('\n'))
  })
})
