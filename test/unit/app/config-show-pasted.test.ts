// `kube-proxy show` / `kubelet show` on pasted input (test/fixtures/pasted/{kube-proxy,kubelet}, written from the
// kubeadm ConfigMaps as `kubectl get cm -o yaml` prints them): a ConfigMap cut off before kind:/metadata:, only its
// data block (indented), a configuration fragment without apiVersion/kind. Each gives the settings at the user's
// lines and `pasted-input` warning issues saying what was assumed, in the table and in -o json; strict refuses.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {showKubelet} from '../../../src/app/kubelet-show.js'
import {showKubeProxy} from '../../../src/app/kube-proxy-show.js'
import {readPastedComponentConfig} from '../../../src/core/parse/pasted-config.js'
import {renderKubeletShow} from '../../../src/render/kubelet-show.js'
import {renderKubeProxyShow} from '../../../src/render/kube-proxy-show.js'
import fc from 'fast-check'
import {expectGolden, readFixture} from '../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated} from '../core/parse/fuzz-support.js'
import {InputError, UsageError} from '../../../src/errors.js'

type Want = {settings: Record<string, string>; warnings: Array<[number, string]>}

const KUBE_PROXY: Record<string, Want> = {
  'configmap-data-block-cut.txt': {
    settings: {mode: 'ipvs@20', clusterCIDR: '10.244.0.0/16@9', 'ipvs.strictARP': 'true@17', 'clientConnection.kubeconfig': '/var/lib/kube-proxy/kubeconfig.conf@8'},
    warnings: [
      [1, 'shell prompt `$ kubectl -n kube-system get cm kube-proxy -o yaml` skipped'],
      [4, 'kube-proxy ConfigMap without its kind:/metadata: lines (cut off): the `config.conf` data block read as the KubeProxyConfiguration'],
    ],
  },
  'config-conf-indented.txt': {
    settings: {mode: 'iptables@6', 'iptables.masqueradeAll': 'true@9', 'iptables.syncPeriod': '30s@10'},
    warnings: [[3, 'kube-proxy ConfigMap without its kind:/metadata: lines (cut off): the `config.conf` data block read as the KubeProxyConfiguration']],
  },
  'fragment-no-kind.txt': {
    settings: {mode: 'nftables@2', clusterCIDR: '10.244.0.0/16,fd00:10:244::/56@3', 'nftables.syncPeriod': '1m0s@6'},
    warnings: [
      [1, 'Markdown fence ```yaml skipped'],
      [2, 'no apiVersion/kind: assumed a KubeProxyConfiguration (kubeproxy.config.k8s.io/v1alpha1) from the fields mode, clusterCIDR, nftables'],
      [7, 'Markdown fence ``` skipped'],
    ],
  },
}

const KUBELET: Record<string, Want> = {
  'fragment-no-kind.txt': {
    settings: {cgroupDriver: 'systemd@1', clusterDNS: '10.96.0.10@3', maxPods: '250@5', failSwapOn: 'false@6'},
    warnings: [
      [1, 'e-mail quoting "> " removed from 6 lines'],
      [1, 'no apiVersion/kind: assumed a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) from the fields cgroupDriver, clusterDNS, clusterDomain, maxPods, …'],
    ],
  },
  'configmap-cut-crlf.txt': {
    settings: {cgroupDriver: 'systemd@10', 'authentication.anonymous.enabled': 'false@7', staticPodPath: '/etc/kubernetes/manifests@15'},
    warnings: [
      [1, 'CRLF line ends read as LF'],
      [2, 'kubelet ConfigMap without its kind:/metadata: lines (cut off): the `kubelet` data block read as the KubeletConfiguration'],
    ],
  },
}

function check(result: {settings: Array<{path: string; display: string; location?: string}>; issues: Array<{code: string; line?: number; message: string; severity: string}>}, want: Want, name: string): void {
  for (const [path, v] of Object.entries(want.settings)) {
    const s = result.settings.find((x) => x.path === path)
    assert.equal(`${s?.display}@${s?.location?.split(':').at(-1)}`, v, `${name} ${path}`)
    assert.equal(s?.location?.startsWith(`${name}:`), true)
  }
  const pasted = result.issues.filter((i) => i.code === 'pasted-input')
  assert.deepEqual(pasted.map((i) => [i.line, i.message]), want.warnings)
  assert.ok(pasted.every((i) => i.severity === 'warning'))
  assert.equal(result.issues.some((i) => i.code === 'missing-kind' || i.code === 'missing-api-version'), false)
}

describe('kube-proxy show of pasted input', () => {
  for (const [name, want] of Object.entries(KUBE_PROXY)) {
    it(`${name}: the settings at the user's lines, what was assumed as warnings; strict cannot read it`, () => {
      const text = readFixture(`pasted/kube-proxy/${name}`)
      const result = showKubeProxy([{name, text}])
      check(result, want, name)
      const table = renderKubeProxyShow(result, 'table', {color: false})
      expectGolden(`pasted/kube-proxy/${name.replace(/\.txt$/, '')}.show.golden.txt`, table)
      for (const [line, message] of want.warnings) assert.ok(table.includes(`${name}:${line}`) && table.includes(message), message)
      const json = JSON.parse(renderKubeProxyShow(result, 'json', {color: false})) as {issues: Array<{code: string}>}
      assert.equal(json.issues.filter((i) => i.code === 'pasted-input').length, want.warnings.length)
      assert.throws(() => showKubeProxy([{name, text}], {strict: true}))
    })
  }
})

describe('kubelet show of pasted input', () => {
  for (const [name, want] of Object.entries(KUBELET)) {
    it(`${name}: the settings at the user's lines, what was assumed as warnings; strict cannot read it`, () => {
      const text = readFixture(`pasted/kubelet/${name}`)
      const result = showKubelet([{name, text}])
      check(result, want, name)
      const table = renderKubeletShow(result, 'table', {color: false})
      expectGolden(`pasted/kubelet/${name.replace(/\.txt$/, '')}.show.golden.txt`, table)
      const json = JSON.parse(renderKubeletShow(result, 'json', {color: false})) as {issues: Array<{code: string}>}
      assert.equal(json.issues.filter((i) => i.code === 'pasted-input').length, want.warnings.length)
      assert.throws(() => showKubelet([{name, text}], {strict: true}))
    })
  }
})

describe('readPastedComponentConfig', () => {
  const spec = {component: 'kube-proxy', kind: 'KubeProxyConfiguration', apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', fields: ['mode', 'clusterCIDR', 'iptables'], configMapKeys: ['config.conf']}
  it('leaves what is not such a configuration alone', () => {
    for (const text of ['mode: ipvs\nfoo: 1\nbar: 2\n', 'kind: Pod\nmode: ipvs\n', 'IP Virtual Server version 1.2.1 (size=4096)\n', '- a\n- b\n', '\x00\x01']) {
      assert.equal(readPastedComponentConfig(text, spec), null, text)
    }
  })
  it('keeps every line at the user line: dropped lines become blank, apiVersion/kind come after the last line', () => {
    const r = readPastedComponentConfig('$ cat x\n  mode: ipvs\n  clusterCIDR: 10.0.0.0/8\n', spec)
    assert.equal(r?.text, '\nmode: ipvs\nclusterCIDR: 10.0.0.0/8\n\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n')
  })
})

describe('pasted configurations, fuzzed', () => {
  it('any text, mutated pastes too: kube-proxy show gives settings or a UsageError/InputError, never a crash', () => {
    const seeds = Object.keys(KUBE_PROXY).map((f) => readFixture(`pasted/kube-proxy/${f}`))
    const tokens = ['config.conf: |-', 'mode: ipvs', 'kind: ConfigMap', 'apiVersion: v1', 'data:', '  ', '    ', '```', '> ', '$ kubectl get cm', 'clusterCIDR: [', 'iptables:', '  syncPeriod: 30s']
    fc.assert(
      fc.property(fc.oneof(mutated(seeds, tokens), anyText(tokens)), (text) => {
        try {
          assert.ok(showKubeProxy([{name: 'f', text}]).settings.length > 0)
        } catch (err) {
          assert.ok(err instanceof UsageError || err instanceof InputError, String(err))
        }
      }),
      {numRuns: FUZZ_RUNS / 3},
    )
  })
})
