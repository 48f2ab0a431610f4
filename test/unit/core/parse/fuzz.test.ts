// Fuzzing every configuration parser of this folder: random text, damaged real fixtures and generated
// well-formed documents. A parser returns a model or throws ParseError (with a line inside the input); the
// derived steps (defaulting, merging, flag parsing, effective config) never throw on what the parsers return.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {stringify} from 'yaml'
import {parseContainerdConfig} from '../../../../src/core/parse/containerd-config.js'
import {parseKernelModules} from '../../../../src/core/parse/kernel-modules.js'
import {applyKubeProxyDefaults, KUBE_PROXY_SCHEMA, parseKubeProxyConfig} from '../../../../src/core/parse/kube-proxy-config.js'
import {effectiveKubeProxyConfig, kubeProxyFromManifest, parseKubeProxyArgs} from '../../../../src/core/parse/kube-proxy-flags.js'
import {parseKubeadmFlagsEnv} from '../../../../src/core/parse/kubeadm-flags.js'
import {applyKubeletDefaults, KUBELET_SCHEMA, mergeKubeletConfigs, parseKubeletConfig} from '../../../../src/core/parse/kubelet-config.js'
import {applyKubeletFlags, kubeletArgsFromUnit, parseK3sKubeletArgs, parseKubeletArgs, parseKubeletCommandLine} from '../../../../src/core/parse/kubelet-flags.js'
import {kubeProxySyncMetrics, parsePrometheusText} from '../../../../src/core/parse/prom-metrics.js'
import {parseProxierLog, parseProxyModeBody} from '../../../../src/core/parse/proxy-mode.js'
import {parseSysctl} from '../../../../src/core/parse/sysctl.js'
import {parseEnvironmentFile, parseSystemctlCat} from '../../../../src/core/parse/systemd-unit.js'
import type {ArgToken} from '../../../../src/core/parse/pflag.js'
import {readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from './fuzz-support.js'

const runs = {numRuns: Math.max(100, Math.floor(FUZZ_RUNS / 3))}
const fx = (dir: string, names: string[]): string[] => names.map((n) => readFixture(`config/${dir}/${n}`))

const KUBELET_SEEDS = fx('kubelet', ['kubeadm-config.yaml', 'eks-kubelet-config.json', 'configz.json', 'bad-type.yaml', 'bad-duration.yaml', 'dropins/10-base.conf'])
const KUBELET_TOKENS = ['apiVersion:', 'kubelet.config.k8s.io/v1beta1', 'kind:', 'KubeletConfiguration', 'maxPods:', '0s', '4h', 'null', '~', '- ', '  ', '{', '}', '[', ']', '"', "'", ':', 'evictionHard:', 'memory.available:', '100Mi', '10%', 'featureGates:', 'true', 'no', '|', '>', '&a', '*a', '!!str', '---', '"kubeletconfig":', 'constructor:', '__proto__:', 'valueOf:', 'featureGates: {__proto__: true}']
const UNIT_SEEDS = fx('kubelet', ['systemctl-cat-kubeadm.txt', 'systemctl-cat-broken-dropin.txt'])
const UNIT_TOKENS = ['[Service]', '[Unit]', 'ExecStart=', 'Environment=', 'EnvironmentFile=-/x', '# /etc/systemd/system/kubelet.service', '\\', '"', "'", '$KUBELET_EXTRA_ARGS', '${A}', '=', '@', '-', '$constructor', '${toString}', 'Environment=__proto__=x']
const ENV_TOKENS = ['KUBELET_KUBEADM_ARGS=', 'KUBELET_EXTRA_ARGS=', '__proto__=', 'constructor=', '"', "'", '\\', 'export ', '--max-pods=1', '#', '=', ' ']
const PROXY_SEEDS = fx('kube-proxy', ['kubeadm-configmap.yaml', 'ipvs-config.yaml', 'eks-configmap.json'])
const PROXY_TOKENS = ['kind:', 'ConfigMap', 'valueOf:', '__proto__:', 'hasOwnProperty:', 'KubeProxyConfiguration', 'data:', 'config.conf: |', 'config:', 'mode:', 'ipvs', '""', 'null', '0s', 'iptables:', '  ', '- ', '"', '|-', '---']
const WORKLOAD_SEEDS = fx('kube-proxy', ['kubeadm-daemonset.yaml'])
const METRICS_SEEDS = fx('kube-proxy', ['kube-proxy-metrics.txt'])
const METRICS_TOKENS = ['__proto__="x"', 'ip_family="__proto__"', 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', '# HELP', '# TYPE', 'counter', 'histogram', 'm', '{', '}', '="', '"', ',', 'le="+Inf"', 'NaN', '+Inf', '1e3', '\\', '\\"', '# EOF', 'ip_family="IPv4"', '_bucket', '_sum', '_count']
const LOG_SEEDS = fx('kube-proxy', ['kube-proxy-ipvs-fallback.log', 'kube-proxy-nftables.json.log'])
const TOML_SEEDS = fx('runtime', ['containerd-v2.toml', 'containerd-v3.toml', 'containerd-v1.toml', 'docker-containerd.toml'])
const TOML_TOKENS = ['version = 2', 'version = 3', '[plugins]', '[plugins."io.containerd.grpc.v1.cri"]', "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]", 'SystemdCgroup = true', '=', '"', "'", '[[', ']]', 'disabled_plugins = ["cri"]', '#']
const MODULE_SEEDS = fx('runtime', ['proc-modules.txt', 'lsmod.txt'])
const MODULE_TOKENS = ['__proto__', 'constructor', 'ip_vs', '16384', '0', '-', 'Live', '0x0', '(OE)', 'Module', 'Size', 'Used by', 'nf_conntrack,', 'kernel/net/x.ko']

function tokensOf(words: string[]): ArgToken[] {
  return words.map((text, i) => ({text, origin: {kind: 'file' as const, source: 'x', line: i + 1}}))
}

describe('fuzz: kubelet', () => {
  it('parseKubeletConfig (random and damaged), then defaults and merging never throw', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(KUBELET_TOKENS), mutated(KUBELET_SEEDS, KUBELET_TOKENS)), (text) =>
        parsesOrFailsCleanly(
          (t) => parseKubeletConfig(t, {source: 'f', version: '1.29'}),
          text,
          (cfg) => {
            const lines = text.split(/\r\n|\n|\r/).length
            for (const i of cfg.issues) if (i.line !== undefined) assert.ok(i.line >= 1 && i.line <= lines + 1, `issue line ${i.line}`)
            const d = applyKubeletDefaults(cfg, '1.30')
            const m = mergeKubeletConfigs(d, [cfg])
            applyKubeletFlags(m, parseKubeletArgs(tokensOf(['--max-pods=3', '--feature-gates=A=true'])).flags)
          },
        ),
      ),
      runs,
    )
  })

  it('well-formed documents with known fields and random values decode without throwing', () => {
    const keys = Object.keys(KUBELET_SCHEMA)
    const doc = fc.dictionary(fc.constantFrom(...keys), fc.jsonValue({maxDepth: 2}), {maxKeys: 12})
    fc.assert(
      fc.property(doc, fc.boolean(), (obj, asJson) => {
        const text = asJson ? JSON.stringify({apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', ...obj}) : stringify({apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', ...obj})
        const cfg = parseKubeletConfig(text)
        for (const k of Object.keys(cfg.values)) assert.ok(keys.includes(k), `kept only schema fields, got ${k}`)
        const d1 = applyKubeletDefaults(cfg)
        const d2 = applyKubeletDefaults(d1)
        assert.deepEqual(d2.values, d1.values, 'defaulting is idempotent')
        for (const [k, v] of Object.entries(cfg.values)) {
          if (v !== null && v !== 0 && v !== '' && v !== false && !(typeof v === 'string' && /^[-+]?0+[a-zµμ]*$/.test(v))) {
            assert.deepEqual(d1.values[k] !== undefined, true, `${k} stays`)
          }
        }
      }),
      runs,
    )
  })

  it('systemd units, environment files, kubeadm-flags.env and command lines', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(UNIT_TOKENS), mutated(UNIT_SEEDS, UNIT_TOKENS)), (text) =>
        parsesOrFailsCleanly((t) => parseSystemctlCat(t), text, (unit) => {
          const r = kubeletArgsFromUnit(unit, [{path: '/var/lib/kubelet/kubeadm-flags.env', text}])
          parseKubeletArgs(r.args, {version: '1.30'})
        }),
      ),
      runs,
    )
    fc.assert(
      fc.property(anyText(ENV_TOKENS), (text) => {
        parsesOrFailsCleanly((t) => parseKubeadmFlagsEnv(t), text, (env) => parseKubeletArgs([...env.kubeadmArgs, ...env.extraArgs]))
        const env = parseEnvironmentFile(text)
        for (const v of env.vars) assert.match(v.name, /^[A-Za-z_][A-Za-z0-9_]*$/)
      }),
      runs,
    )
    fc.assert(
      fc.property(anyText(['kubelet', '--max-pods=1', 'Running kubelet', '/usr/bin/kubelet', '"', "'", '\\', '--', '-v', '=']), (text) => {
        parsesOrFailsCleanly((t) => parseKubeletCommandLine(t), text, (cl) => parseKubeletArgs(cl.args))
        parsesOrFailsCleanly((t) => parseK3sKubeletArgs(t), text)
      }),
      runs,
    )
  })

  it('flag parsing takes any words', () => {
    const word = fc.oneof(fc.constantFrom('--max-pods', '--fail-swap-on', '-v', '--', '-', '--=', '--feature-gates=a=b,c', '--eviction-hard=x<1', '--network-plugin', 'false'), fc.string({maxLength: 10}))
    fc.assert(
      fc.property(fc.array(word, {maxLength: 12}), (words) => {
        const flags = parseKubeletArgs(tokensOf(words), {version: '1.28'})
        const cfg = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n')
        applyKubeletFlags(applyKubeletDefaults(cfg), flags.flags)
        effectiveKubeProxyConfig({flags: parseKubeProxyArgs(tokensOf(words))})
      }),
      runs,
    )
  })
})

describe('fuzz: kube-proxy', () => {
  it('parseKubeProxyConfig (raw and ConfigMap), defaults and effective config', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(PROXY_TOKENS), mutated(PROXY_SEEDS, PROXY_TOKENS)), (text) =>
        parsesOrFailsCleanly((t) => parseKubeProxyConfig(t, {source: 'cm'}), text, (cfg) => {
          applyKubeProxyDefaults(cfg, '1.31')
          effectiveKubeProxyConfig({config: cfg})
        }),
      ),
      runs,
    )
  })

  it('well-formed documents with known fields decode without throwing', () => {
    const doc = fc.dictionary(fc.constantFrom(...Object.keys(KUBE_PROXY_SCHEMA)), fc.jsonValue({maxDepth: 2}), {maxKeys: 10})
    fc.assert(
      fc.property(doc, (obj) => {
        const cfg = parseKubeProxyConfig(stringify({apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', ...obj}))
        const d = applyKubeProxyDefaults(cfg)
        assert.equal(typeof d.values['mode'] === 'string' || d.values['mode'] === undefined, true)
      }),
      runs,
    )
  })

  it('workload manifests', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(['kind: DaemonSet', 'kind: Pod', 'containers:', '- name: kube-proxy', 'command:', '- kube-proxy', 'args:', '-c', 'sh']), mutated(WORKLOAD_SEEDS, PROXY_TOKENS)), (text) =>
        parsesOrFailsCleanly((t) => kubeProxyFromManifest(t), text, (c) => parseKubeProxyArgs(c.args)),
      ),
      runs,
    )
  })

  it('/proxyMode bodies, logs and metrics', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(['iptables', 'ipvs', 'nftables', 'I0101 00:00:00.000000 1 x.go:1]', '"Using ipvs Proxier"', '{"msg":', '}', "Can't use ipvs proxier, trying iptables proxier"]), mutated(LOG_SEEDS, ['{', '"', ']'])), (text) => {
        parsesOrFailsCleanly((t) => parseProxyModeBody(t), text)
        const log = parseProxierLog(text)
        if (log.modeLine !== undefined) assert.ok(log.modeLine <= text.split(/\r?\n/).length)
      }),
      runs,
    )
    fc.assert(
      fc.property(fc.oneof(anyText(METRICS_TOKENS), mutated(METRICS_SEEDS, METRICS_TOKENS)), (text) =>
        parsesOrFailsCleanly((t) => parsePrometheusText(t), text, (fams) => assert.doesNotThrow(() => JSON.stringify(kubeProxySyncMetrics(fams)))),
      ),
      runs,
    )
  })

  it('generated exposition text parses back to the same samples', () => {
    const labelValue = fc.string({maxLength: 8})
    const sample = fc.record({
      name: fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/),
      labels: fc.dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/), labelValue, {maxKeys: 3}),
      value: fc.oneof(fc.integer(), fc.double({noNaN: true, noDefaultInfinity: true})),
    })
    const esc = (s: string): string => s.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')
    fc.assert(
      fc.property(fc.array(sample, {maxLength: 8}), (samples) => {
        const text = samples.map((s) => `${s.name}{${Object.entries(s.labels).map(([k, v]) => `${k}="${esc(v)}"`).join(',')}} ${String(s.value)}`).join('\n')
        const parsed = parsePrometheusText(text).flatMap((f) => f.samples).sort((a, b) => a.line - b.line)
        assert.deepEqual(
          parsed.map((p) => [p.name, p.labels, p.value]),
          samples.map((s) => [s.name, {...s.labels}, s.value === 0 ? 0 : s.value]),
        )
      }),
      runs,
    )
  })
})

describe('fuzz: runtime', () => {
  it('containerd config.toml', () => {
    fc.assert(fc.property(fc.oneof(anyText(TOML_TOKENS), mutated(TOML_SEEDS, TOML_TOKENS)), (text) => parsesOrFailsCleanly((t) => parseContainerdConfig(t), text)), runs)
  })

  it('/proc/modules, lsmod, modules.builtin and sysctl', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(MODULE_TOKENS), mutated(MODULE_SEEDS, MODULE_TOKENS)), (text) => {
        parsesOrFailsCleanly((t) => parseKernelModules(t), text)
        const s = parseSysctl(text)
        for (const e of Object.values(s.values)) assert.ok(e.line >= 1)
      }),
      runs,
    )
  })
})
