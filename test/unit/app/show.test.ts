// `kubelet show` and `kube-proxy show` services and renderers: files in, effective settings with sources out.
// Inputs are the fixtures under test/fixtures/config, named as a user would pass them.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {showKubeProxy} from '../../../src/app/kube-proxy-show.js'
import {detectKubeletInput, showKubelet} from '../../../src/app/kubelet-show.js'
import {InputError, UsageError} from '../../../src/errors.js'
import {renderKubeProxyShow} from '../../../src/render/kube-proxy-show.js'
import {renderKubeletShow} from '../../../src/render/kubelet-show.js'
import {expectGolden, readFixture} from '../../support/golden.js'

const K = 'config/kubelet/'
const P = 'config/kube-proxy/'
const file = (dir: string, name: string, as = name): {name: string; text: string} => ({name: as, text: readFixture(dir + name)})

describe('showKubelet', () => {
  const kubeadmNode = [
    file(K, 'kubeadm-config.yaml', 'config.yaml'),
    file(K, 'systemctl-cat-kubeadm.txt', 'systemctl-cat-kubelet.txt'),
    file(K, 'kubeadm-flags.env'),
    file(K, 'sysconfig-kubelet', 'etc-sysconfig-kubelet'),
  ]

  it('combines config file, unit, kubeadm-flags.env and /etc/sysconfig/kubelet (flags win)', () => {
    const r = showKubelet(kubeadmNode, {node: 'worker-1', version: '1.30'})
    assert.equal(r.basis, 'files')
    assert.equal(r.configFile, '/var/lib/kubelet/config.yaml')
    const s = (p: string): (typeof r.settings)[number] | undefined => r.settings.find((x) => x.path === p)
    assert.deepEqual([s('maxPods')?.display, s('maxPods')?.source, s('maxPods')?.location], ['150', 'flag', '--max-pods=150 via $KUBELET_EXTRA_ARGS at /etc/sysconfig/kubelet:2'])
    assert.deepEqual([s('streamingConnectionIdleTimeout')?.display, s('streamingConnectionIdleTimeout')?.source, s('streamingConnectionIdleTimeout')?.written], ['4h0m0s', 'default', '0s at config.yaml:46'])
    assert.deepEqual([s('readOnlyPort')?.display, s('readOnlyPort')?.source], ['0', 'unset'])
    assert.deepEqual([s('cgroupDriver')?.display, s('cgroupDriver')?.location], ['systemd', 'config.yaml:15'])
    assert.deepEqual(r.inputs.map((i) => [i.file, i.kind, i.detail]), [
      ['config.yaml', 'kubelet-config', '--config=/var/lib/kubelet/config.yaml'],
      ['systemctl-cat-kubelet.txt', 'systemd-unit', 'kubelet.service + 1 drop-in'],
      ['kubeadm-flags.env', 'env-file', 'EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env'],
      ['etc-sysconfig-kubelet', 'env-file', 'EnvironmentFile=-/etc/sysconfig/kubelet'],
    ])
    expectGolden(K + 'show-kubeadm.golden.txt', renderKubeletShow(r, 'table', {color: false}))
    expectGolden(K + 'show-kubeadm.golden.json', renderKubeletShow(r, 'json', {color: false}))
  })

  it('shows the running config from /configz and reports drift from the files', () => {
    const r = showKubelet([file(K, 'configz.json'), ...kubeadmNode], {version: '1.30'})
    assert.equal(r.basis, 'configz')
    assert.deepEqual(
      r.drift.map((d) => [d.path, d.running, d.intended]),
      [
        ['clusterDNS', '10.96.0.10', '10.96.0.53'],
        ['maxPods', '110', '150'],
      ],
    )
    assert.equal(r.settings.find((x) => x.path === 'readOnlyPort')?.display, '0', '/configz omits zero values')
    expectGolden(K + 'show-configz.golden.txt', renderKubeletShow(r, 'table', {color: false}))
  })

  it('merges drop-ins given after the main config, in kubelet order', () => {
    const r = showKubelet([
      file(K, 'kubeadm-config.yaml', 'config.yaml'),
      file(K, 'dropins/20-gates.conf', 'kubelet.conf.d/20-gates.conf'),
      file(K, 'dropins/10-base.conf', 'kubelet.conf.d/10-base.conf'),
    ])
    const s = (p: string): (typeof r.settings)[number] | undefined => r.settings.find((x) => x.path === p)
    assert.deepEqual([s('maxPods')?.display, s('maxPods')?.source, s('maxPods')?.location], ['200', 'drop-in', 'kubelet.conf.d/10-base.conf:3'])
    assert.deepEqual([s('featureGates')?.display, s('featureGates')?.source], ['GracefulNodeShutdown=true,MemoryQoS=false', 'drop-in'])
    assert.deepEqual(r.inputs.map((i) => i.kind), ['kubelet-config', 'drop-in', 'drop-in'])
  })

  it("reads k3s's logged command line: no --config, so legacy flag defaults except what k3s sets", () => {
    const r = showKubelet([file(K, 'k3s-journal.log')], {version: '1.30'})
    const s = (p: string): (typeof r.settings)[number] | undefined => r.settings.find((x) => x.path === p)
    assert.deepEqual([s('authentication.anonymous.enabled')?.display, s('authentication.anonymous.enabled')?.source], ['false', 'flag'])
    assert.deepEqual([s('authentication.webhook.enabled')?.display, s('authentication.webhook.enabled')?.source], ['true', 'flag'])
    assert.deepEqual([s('readOnlyPort')?.display, s('readOnlyPort')?.source], ['0', 'flag'])
    assert.deepEqual([s('evictionHard')?.display], ['imagefs.available=5%,nodefs.available=5%'])
    assert.ok(r.issues.some((i) => i.code === 'no-config-file'))
    expectGolden(K + 'show-k3s.golden.txt', renderKubeletShow(r, 'table', {color: false}))
  })

  it('reports the broken drop-in unit with its removed flag and positional argument', () => {
    const r = showKubelet([file(K, 'systemctl-cat-broken-dropin.txt', 'cat.txt'), file(K, 'kubeadm-config.yaml', 'config.yaml')], {version: '1.29'})
    assert.deepEqual(
      r.issues.filter((i) => i.severity === 'error').map((i) => [i.code, i.source, i.line]),
      [
        ['multiple-execstart', '/etc/systemd/system/kubelet.service.d/20-extra.conf', 3],
        ['removed-flag', '/etc/systemd/system/kubelet.service.d/20-extra.conf', 2],
        ['positional-argument', '/etc/systemd/system/kubelet.service.d/20-extra.conf', 2],
      ],
    )
  })

  it('detects inputs and fails clearly on unknown or broken files', () => {
    assert.equal(detectKubeletInput(readFixture(K + 'kubeadm-flags.env')), 'env-file')
    assert.equal(detectKubeletInput(readFixture(K + 'k3s-config.yaml')), 'k3s-config')
    assert.equal(detectKubeletInput(readFixture(K + 'systemctl-cat-kubeadm.txt')), 'systemd-unit')
    assert.equal(detectKubeletInput('hello world'), undefined)
    assert.throws(() => showKubelet([{name: 'notes.txt', text: 'hello world'}]), (e: unknown) => e instanceof UsageError && /cannot tell what notes\.txt is/.test(e.message))
    assert.throws(
      () => showKubelet([{name: 'config.yaml', text: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: [1\n'}]),
      (e: unknown) => e instanceof InputError && e.file === 'config.yaml' && e.line === 4,
    )
    assert.throws(() => showKubelet([file(K, 'kubeadm-config.yaml')], {version: 'latest'}), UsageError)
    assert.throws(() => showKubelet([]), UsageError)
  })
})

describe('showKubeProxy', () => {
  it("shows kubeadm's ConfigMap with defaults marked", () => {
    const r = showKubeProxy([file(P, 'kubeadm-configmap.yaml', 'kube-proxy-cm.yaml')], {node: 'worker-1'})
    assert.equal(r.configuredMode, 'iptables')
    const mode = r.settings.find((x) => x.path === 'mode')
    assert.deepEqual([mode?.display, mode?.source, mode?.written], ['iptables', 'default', '"" at kube-proxy-cm.yaml:55'])
    expectGolden(P + 'show-kubeadm.golden.txt', renderKubeProxyShow(r, 'table', {color: false}))
  })

  it('reports the ignored --proxy-mode flag, the IPVS fallback and sync trouble', () => {
    const r = showKubeProxy([
      file(P, 'kubeadm-configmap.yaml', 'kube-proxy-cm.yaml'),
      file(P, 'kubeadm-daemonset.yaml', 'kube-proxy-ds.yaml'),
      file(P, 'kube-proxy-ipvs-fallback.log', 'kube-proxy.log'),
      file(P, 'kube-proxy-metrics.txt', 'metrics.txt'),
    ])
    assert.deepEqual(r.running, {source: 'log', fellBackFromIPVS: true, failed: false, mode: 'iptables', location: 'kube-proxy.log:4'})
    assert.deepEqual(
      r.issues.filter((i) => i.severity !== 'info').map((i) => i.code),
      ['flag-ignored', 'ipvs-fallback', 'sync-pending', 'restore-failures'],
    )
    expectGolden(P + 'show-daemonset.golden.txt', renderKubeProxyShow(r, 'table', {color: false}))
    expectGolden(P + 'show-daemonset.golden.yaml', renderKubeProxyShow(r, 'yaml', {color: false}))
  })

  it('reports a configured IPVS mode that is not what runs', () => {
    const r = showKubeProxy([file(P, 'ipvs-config.yaml', 'config.conf'), file(P, 'proxymode-iptables.txt', 'proxyMode')])
    assert.equal(r.configuredMode, 'ipvs')
    assert.deepEqual(r.issues.map((i) => [i.severity, i.code, i.source]), [['error', 'mode-mismatch', 'proxyMode']])
    assert.ok(r.settings.some((s) => s.path === 'ipvs.strictARP'), 'ipvs settings are shown in ipvs mode')
    assert.ok(!r.settings.some((s) => s.path === 'nftables.syncPeriod'))
  })

  it('fails clearly on unknown or broken files', () => {
    assert.throws(() => showKubeProxy([{name: 'x', text: 'hello'}]), (e: unknown) => e instanceof UsageError && /cannot tell what x is/.test(e.message))
    assert.throws(() => showKubeProxy([file(P, 'proxymode-iptables.txt')]), (e: unknown) => e instanceof UsageError && /nothing to show/.test(e.message))
    assert.throws(
      () => showKubeProxy([{name: 'cm.yaml', text: 'apiVersion: v1\nkind: ConfigMap\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: [\n'}]),
      (e: unknown) => e instanceof InputError && e.file === 'cm.yaml' && e.line !== undefined,
    )
  })

  it('colours only when asked', () => {
    const r = showKubeProxy([file(P, 'ipvs-config.yaml'), file(P, 'proxymode-iptables.txt')])
    assert.doesNotMatch(renderKubeProxyShow(r, 'table', {color: false}), /\u001b\[/)
    assert.match(renderKubeProxyShow(r, 'table', {color: true}), /\u001b\[31m/)
  })
})
