// KubeProxyConfiguration: raw files, ConfigMaps (kubeadm `config.conf` as a | block, EKS `config` as a JSON
// string), defaulting, and the flags/--config precedence of kube-proxy.
// Fixtures (test/fixtures/config/kube-proxy): kubeadm's ConfigMap as `kubectl get cm -o yaml` prints it (every
// field written, mostly "" / 0s / null), an IPVS config for MetalLB, EKS's kube-proxy-config ConfigMap as JSON,
// and kubeadm's DaemonSet with an extra --proxy-mode flag.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {
  applyKubeProxyDefaults,
  detectKubeProxyDocument,
  kubeProxySetting,
  parseKubeProxyConfig,
} from '../../../../src/core/parse/kube-proxy-config.js'
import {effectiveKubeProxyConfig, kubeProxyFromManifest, parseKubeProxyArgs} from '../../../../src/core/parse/kube-proxy-flags.js'
import {ParseError} from '../../../../src/errors.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const P = 'config/kube-proxy/'
const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n'

describe('parseKubeProxyConfig', () => {
  it("finds config.conf in kubeadm's ConfigMap and maps lines to the ConfigMap file", () => {
    const cfg = parseKubeProxyConfig(readFixture(P + 'kubeadm-configmap.yaml'), {source: 'cm.yaml'})
    assert.equal(cfg.container, 'configmap')
    assert.deepEqual(cfg.configMap, {key: 'config.conf', name: 'kube-proxy', namespace: 'kube-system'})
    assert.deepEqual(kubeProxySetting(cfg, 'mode'), {value: '', origin: {kind: 'file', source: 'cm.yaml', line: 55}})
    assert.deepEqual(kubeProxySetting(cfg, 'clusterCIDR').origin, {kind: 'file', source: 'cm.yaml', line: 13})
    assert.deepEqual(cfg.issues.map((i) => [i.code, i.line]), [['empty-mode', 55]])
    expectGolden(P + 'kubeadm-configmap.golden.json', json(applyKubeProxyDefaults(cfg, '1.30')))
  })

  it("defaults kubeadm's empty values to what kube-proxy runs with", () => {
    const d = applyKubeProxyDefaults(parseKubeProxyConfig(readFixture(P + 'kubeadm-configmap.yaml')), '1.30')
    const v = (p: string): unknown => kubeProxySetting(d, p).value
    assert.equal(v('mode'), 'iptables')
    assert.equal(v('detectLocalMode'), 'ClusterCIDR')
    assert.equal(v('iptables.masqueradeBit'), 14)
    assert.equal(v('iptables.syncPeriod'), '30s')
    assert.equal(v('iptables.minSyncPeriod'), '1s')
    assert.equal(v('iptables.localhostNodePorts'), true)
    assert.equal(v('conntrack.maxPerCore'), 32768)
    assert.equal(v('conntrack.tcpEstablishedTimeout'), '24h0m0s')
    assert.equal(v('healthzBindAddress'), '0.0.0.0:10256')
    assert.equal(v('metricsBindAddress'), '127.0.0.1:10249')
    assert.equal(v('oomScoreAdj'), -999)
    assert.equal(v('ipvs.scheduler'), '', 'rr only matters (and is only filled) in ipvs mode')
    assert.equal(v('nodePortAddresses'), null)
  })

  it('reads an IPVS config: rr scheduler default, explicit 0 kept, port appended to a bare address', () => {
    const d = applyKubeProxyDefaults(parseKubeProxyConfig(readFixture(P + 'ipvs-config.yaml'), {source: 'config.conf'}))
    const v = (p: string): unknown => kubeProxySetting(d, p).value
    assert.equal(v('ipvs.scheduler'), 'rr')
    assert.equal(v('ipvs.syncPeriod'), '30s')
    assert.equal(v('ipvs.minSyncPeriod'), '5s')
    assert.equal(v('conntrack.maxPerCore'), 0, '0 means "leave nf_conntrack_max alone", not the default')
    assert.equal(v('metricsBindAddress'), '0.0.0.0:10249')
    assert.deepEqual(
      d.defaults.find((x) => x.path === '/metricsBindAddress'),
      {path: '/metricsBindAddress', value: '0.0.0.0:10249', reason: 'normalized', written: '0.0.0.0', source: 'pkg/proxy/util (AppendPortIfNeeded)'},
    )
    expectGolden(P + 'ipvs-config.golden.json', json(d))
  })

  it("reads EKS's ConfigMap (key `config`, a JSON string) and flags its removed field", () => {
    const cfg = parseKubeProxyConfig(readFixture(P + 'eks-configmap.json'), {source: 'cm.json'})
    assert.deepEqual(cfg.configMap, {key: 'config', name: 'kube-proxy-config', namespace: 'kube-system'})
    assert.equal(cfg.values['oomScoreAdj'], -998)
    // Quoted values cannot be mapped to file lines: the source names the key and lines count inside it.
    assert.deepEqual(cfg.origins['/mode'], {kind: 'file', source: 'cm.json[data.config]', line: 31})
    assert.deepEqual(cfg.issues.map((i) => [i.code, i.path]), [['field-removed', '/udpIdleTimeout']])
    assert.deepEqual(parseKubeProxyConfig(readFixture(P + 'eks-configmap.json'), {version: '1.25'}).issues, [])
  })

  it('defaults by bind address family and by mode', () => {
    const v6 = applyKubeProxyDefaults(parseKubeProxyConfig('apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nbindAddress: "::"\nmode: nftables\n'))
    assert.equal(v6.values['healthzBindAddress'], '[::]:10256')
    assert.equal(v6.values['metricsBindAddress'], '[::1]:10249')
    assert.deepEqual(v6.values['nodePortAddresses'], ['primary'], 'nftables mode defaults nodePortAddresses to primary')
    const old = applyKubeProxyDefaults(parseKubeProxyConfig('apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n'), '1.24')
    assert.equal(old.values['udpIdleTimeout'], '250ms')
    assert.equal((old.values['iptables'] as Record<string, unknown>)['localhostNodePorts'], undefined)
  })

  it('reports bad values with lines inside the ConfigMap', () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\ndata:\n  config.conf: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: ipvsx\n    iptables:\n      syncPeriod: 30\n'
    const cfg = parseKubeProxyConfig(cm, {source: 'cm.yaml'})
    assert.deepEqual(cfg.issues.map((i) => [i.code, i.line]), [
      ['invalid-value', 9],
      ['wrong-type', 11],
    ])
  })

  it('throws ParseError with the ConfigMap line for malformed embedded YAML', () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: [ipvs\n'
    assert.throws(
      () => parseKubeProxyConfig(cm),
      (e: unknown) => e instanceof ParseError && /data\.config\.conf: malformed YAML/.test(e.message) && e.line === 7,
    )
    assert.throws(
      () => parseKubeProxyConfig('apiVersion: v1\nkind: ConfigMap\ndata:\n  kubeconfig.conf: x\n'),
      (e: unknown) => e instanceof ParseError && /holds no KubeProxyConfiguration \(keys: kubeconfig\.conf\)/.test(e.message),
    )
  })

  it('detects the document kinds', () => {
    assert.equal(detectKubeProxyDocument(readFixture(P + 'kubeadm-configmap.yaml')), 'configmap')
    assert.equal(detectKubeProxyDocument(readFixture(P + 'ipvs-config.yaml')), 'kube-proxy-config')
    assert.equal(detectKubeProxyDocument(readFixture(P + 'kubeadm-daemonset.yaml')), 'workload')
    assert.equal(detectKubeProxyDocument('iptables'), undefined)
  })
})

describe('kube-proxy flags and --config precedence', () => {
  it("extracts the container's arguments and env references from the DaemonSet", () => {
    const c = kubeProxyFromManifest(readFixture(P + 'kubeadm-daemonset.yaml'), {source: 'ds.yaml'})
    assert.equal(c.workload, 'DaemonSet kube-system/kube-proxy')
    assert.equal(c.image, 'registry.k8s.io/kube-proxy:v1.30.4')
    assert.equal(c.executable, '/usr/local/bin/kube-proxy')
    assert.deepEqual(c.args.map((a) => [a.text, a.origin.line]), [
      ['--config=/var/lib/kube-proxy/config.conf', 20],
      ['--hostname-override=$(NODE_NAME)', 21],
      ['--proxy-mode=ipvs', 22],
      ['--v=2', 23],
    ])
    assert.deepEqual(c.env, {NODE_NAME: 'fieldRef:spec.nodeName'})
    assert.deepEqual(c.issues.map((i) => [i.severity, i.code]), [['info', 'env-reference']])
  })

  it('with --config the file wins except --hostname-override and logging flags', () => {
    const config = parseKubeProxyConfig(readFixture(P + 'kubeadm-configmap.yaml'), {source: 'cm.yaml'})
    const c = kubeProxyFromManifest(readFixture(P + 'kubeadm-daemonset.yaml'), {source: 'ds.yaml'})
    const eff = effectiveKubeProxyConfig({config, flags: parseKubeProxyArgs(c.args)})
    assert.equal(eff.values['mode'], 'iptables', '--proxy-mode=ipvs is ignored')
    assert.equal(eff.values['hostnameOverride'], '$(NODE_NAME)')
    assert.deepEqual(eff.origins['/hostnameOverride'], {kind: 'flag', source: 'ds.yaml', line: 21, detail: '--hostname-override=$(NODE_NAME)'})
    assert.equal((eff.values['logging'] as Record<string, unknown>)['verbosity'], 2)
    const ignored = eff.issues.filter((i) => i.code === 'flag-ignored')
    assert.equal(ignored.length, 1)
    assert.match(ignored[0]?.message ?? '', /--proxy-mode=ipvs is ignored: with --config the file wins \(mode in the file is ""\)/)
    assert.equal(ignored[0]?.line, 22)
  })

  it('without --config the flags apply over the defaults, and a ConfigMap is reported as unused', () => {
    const flags = parseKubeProxyArgs(
      ['--proxy-mode=ipvs', '--cluster-cidr=10.244.0.0/16', '--ipvs-scheduler=lc', '--masquerade-all', '--conntrack-max-per-core=0', '--nodeport-addresses=10.0.0.0/8,primary'].map((text) => ({text, origin: {kind: 'file', source: 'pod.yaml', line: 9}})),
    )
    const config = parseKubeProxyConfig(readFixture(P + 'ipvs-config.yaml'))
    const eff = effectiveKubeProxyConfig({config, flags})
    assert.equal(eff.values['mode'], 'ipvs')
    assert.equal((eff.values['ipvs'] as Record<string, unknown>)['scheduler'], 'lc')
    assert.equal((eff.values['iptables'] as Record<string, unknown>)['masqueradeAll'], true)
    assert.equal((eff.values['conntrack'] as Record<string, unknown>)['maxPerCore'], 0)
    assert.deepEqual(eff.values['nodePortAddresses'], ['10.0.0.0/8', 'primary'])
    assert.equal(eff.origins['/mode']?.kind, 'flag')
    assert.ok(eff.issues.some((i) => i.code === 'config-unused'))
  })

  it('handles hyperkube and sh -c wrappers and removed flags', () => {
    const pod = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata: {name: kube-proxy, namespace: kube-system}',
      'spec:',
      '  containers:',
      '  - name: kube-proxy',
      '    command:',
      '    - /bin/sh',
      '    - -c',
      '    - exec kube-proxy --master=https://10.0.0.1 --udp-timeout=250ms --oom-score-adj=-998 --v=2 1>>/var/log/kube-proxy.log 2>&1',
    ].join('\n')
    const c = kubeProxyFromManifest(pod)
    assert.deepEqual(c.args.map((a) => [a.text, a.origin.line]), [
      ['--master=https://10.0.0.1', 10],
      ['--udp-timeout=250ms', 10],
      ['--oom-score-adj=-998', 10],
      ['--v=2', 10],
    ])
    const flags = parseKubeProxyArgs(c.args, {version: '1.27'})
    assert.deepEqual(flags.issues.map((i) => [i.severity, i.code]), [['error', 'removed-flag']])
    const hyper = kubeProxyFromManifest('kind: Pod\nspec:\n  containers:\n  - name: proxy\n    command: [/hyperkube, proxy, --proxy-mode=iptables]\n')
    assert.deepEqual(hyper.args.map((a) => a.text), ['--proxy-mode=iptables'])
    assert.throws(() => kubeProxyFromManifest('kind: Pod\nspec:\n  containers:\n  - name: nginx\n    image: nginx\n'), /no kube-proxy container/)
  })
})
