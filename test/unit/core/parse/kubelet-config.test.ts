// KubeletConfiguration parsing, defaulting and drop-in merging.
// Fixtures (test/fixtures/config/kubelet): kubeadm's config.yaml as kubeadm ≥1.30 writes it (many "0s"), an
// EKS-style kubelet-config.json, a /configz body, and a --config-dir with drop-ins (one in a subdirectory).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {
  applyKubeletDefaults,
  applyKubeletStartFills,
  compareDropInNames,
  defaultEvictionHardFor,
  detectKubeletDocument,
  isKubeletDropInName,
  kubeletSetting,
  mergeKubeletDropIns,
  parseKubeletConfig,
  parseKubeletConfigz,
} from '../../../../src/core/parse/kubelet-config.js'
import {formatGoDuration, normalizeGoDuration, parseGoDuration, parseQuantity} from '../../../../src/core/parse/component-config.js'
import {ParseError} from '../../../../src/errors.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const K = 'config/kubelet/'
const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n'

describe('parseKubeletConfig', () => {
  it("reads kubeadm's config.yaml with a line for every field and no issues", () => {
    const cfg = parseKubeletConfig(readFixture(K + 'kubeadm-config.yaml'), {source: 'config.yaml'})
    assert.deepEqual(cfg.issues, [])
    assert.equal(cfg.kind, 'KubeletConfiguration')
    assert.deepEqual(kubeletSetting(cfg, 'cgroupDriver'), {value: 'systemd', origin: {kind: 'file', source: 'config.yaml', line: 15}})
    assert.deepEqual(kubeletSetting(cfg, 'authentication.x509.clientCAFile').origin, {kind: 'file', source: 'config.yaml', line: 9})
    // A list carries one origin for the whole list (lists are replaced, never merged).
    assert.deepEqual(cfg.origins['/clusterDNS'], {kind: 'file', source: 'config.yaml', line: 17})
    assert.equal(cfg.origins['/clusterDNS/0'], undefined)
    expectGolden(K + 'kubeadm-config.golden.json', json(cfg))
  })

  it('reads an EKS-style JSON config with JSON line numbers', () => {
    const cfg = parseKubeletConfig(readFixture(K + 'eks-kubelet-config.json'), {source: 'kubelet-config.json'})
    assert.equal(cfg.format, 'json')
    assert.deepEqual(cfg.issues, [])
    assert.equal(kubeletSetting(cfg, 'maxPods').value, 29)
    assert.equal(cfg.origins['/maxPods']?.line, 37)
    assert.deepEqual(cfg.values['kubeReserved'], {cpu: '70m', 'ephemeral-storage': '1Gi', memory: '442Mi'})
    expectGolden(K + 'eks-kubelet-config.golden.json', json(applyKubeletDefaults(cfg, '1.29')))
  })

  it('reports wrong types the way Go decoding fails, with lines, and keeps going', () => {
    const cfg = parseKubeletConfig(readFixture(K + 'bad-type.yaml'), {source: 'bad.yaml'})
    const found = cfg.issues.map((i) => [i.severity, i.code, i.path, i.line])
    assert.deepEqual(found, [
      ['error', 'wrong-type', '/maxPods', 3],
      ['error', 'wrong-type', '/failSwapOn', 4],
      ['error', 'wrong-type', '/clusterDomain', 5],
      ['error', 'wrong-type', '/systemReserved/pid', 8],
      ['error', 'invalid-quantity', '/evictionHard/memory.available', 10],
      ['warning', 'unknown-field', '/CgroupDriver', 11],
    ])
    assert.match(cfg.issues[0]?.message ?? '', /expected an integer, got string "250"/)
    assert.match(cfg.issues[5]?.message ?? '', /did you mean cgroupDriver\?/)
    assert.equal(cfg.values['maxPods'], undefined, 'a field that fails to decode is not kept')
    assert.equal(cfg.values['systemReserved'] && (cfg.values['systemReserved'] as Record<string, unknown>)['memory'], '1Gi')
  })

  it('reads YAML 1.1 booleans as the kubelet does (sigs.k8s.io/yaml)', () => {
    const cfg = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfailSwapOn: no\nserializeImagePulls: off\n')
    assert.deepEqual(cfg.issues, [])
    assert.equal(cfg.values['failSwapOn'], false)
    assert.equal(cfg.values['serializeImagePulls'], false)
  })

  it('reports invalid durations and bare numbers in duration fields', () => {
    const cfg = parseKubeletConfig(readFixture(K + 'bad-duration.yaml'), {source: 'd.yaml'})
    assert.deepEqual(
      cfg.issues.map((i) => [i.code, i.path, i.line]),
      [
        ['invalid-duration', '/streamingConnectionIdleTimeout', 3],
        ['wrong-type', '/nodeStatusUpdateFrequency', 4],
      ],
    )
    assert.match(cfg.issues[1]?.message ?? '', /a bare number is not accepted/)
    assert.equal(cfg.values['syncFrequency'], '1m')
  })

  it('throws ParseError naming the line of malformed YAML', () => {
    assert.throws(
      () => parseKubeletConfig(readFixture(K + 'malformed.yaml')),
      (e: unknown) => e instanceof ParseError && e.line === 6 && /malformed YAML/.test(e.message),
    )
    assert.throws(() => parseKubeletConfig(''), (e: unknown) => e instanceof ParseError && e.line === 1)
    assert.throws(() => parseKubeletConfig('- a\n- b\n'), (e: unknown) => e instanceof ParseError && /KubeletConfiguration mapping/.test(e.message))
  })

  it('flags a missing or wrong kind/apiVersion as errors the kubelet would refuse', () => {
    const cfg = parseKubeletConfig('maxPods: 10\n')
    assert.deepEqual(cfg.issues.map((i) => i.code).sort(), ['missing-api-version', 'missing-kind'])
    const wrong = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1alpha1\nkind: KubeletConfig\n')
    assert.deepEqual(wrong.issues.map((i) => [i.code, i.line]).sort(), [
      ['wrong-api-version', 1],
      ['wrong-kind', 2],
    ])
  })

  it('warns about fields newer than the given kubelet version', () => {
    const text = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncontainerRuntimeEndpoint: unix:///run/containerd/containerd.sock\n'
    assert.deepEqual(parseKubeletConfig(text, {version: '1.26'}).issues.map((i) => [i.code, i.line]), [['field-too-new', 3]])
    assert.deepEqual(parseKubeletConfig(text, {version: 'v1.27.3'}).issues, [])
  })

  it('detects configz bodies and kubelet configs by content', () => {
    assert.equal(detectKubeletDocument(readFixture(K + 'configz.json')), 'configz')
    assert.equal(detectKubeletDocument(readFixture(K + 'kubeadm-config.yaml')), 'kubelet-config')
    assert.equal(detectKubeletDocument('kind: ConfigMap\n'), undefined)
    assert.equal(detectKubeletDocument('a: [\n'), undefined)
  })
})

describe('parseKubeletConfigz', () => {
  it('reads the running configuration into the same model, origin configz', () => {
    const cfg = parseKubeletConfig(readFixture(K + 'configz.json'), {source: 'configz.json'})
    assert.equal(cfg.format, 'configz')
    assert.deepEqual(cfg.issues, [])
    assert.deepEqual(kubeletSetting(cfg, 'streamingConnectionIdleTimeout'), {value: '4h0m0s', origin: {kind: 'configz', source: 'configz.json', line: 45}})
    // Already defaulted by the kubelet: defaulting changes nothing.
    const d = applyKubeletDefaults(cfg)
    assert.deepEqual(d.values, cfg.values)
    assert.deepEqual(d.defaults, [])
    expectGolden(K + 'configz.golden.json', json(cfg))
  })

  it('rejects bodies without kubeletconfig', () => {
    assert.throws(() => parseKubeletConfigz('{"kubeproxy.config.k8s.io": {}}'), /no "kubeletconfig" key/)
    assert.throws(() => parseKubeletConfigz('{"kubeletconfig": 3}'), /is not an object/)
  })
})

describe('applyKubeletDefaults', () => {
  const kubeadm = (): ReturnType<typeof parseKubeletConfig> => parseKubeletConfig(readFixture(K + 'kubeadm-config.yaml'), {source: 'config.yaml'})

  it('turns 0s and omitted fields into what the kubelet uses, and records why', () => {
    const d = applyKubeletDefaults(kubeadm(), '1.30')
    assert.equal(d.values['streamingConnectionIdleTimeout'], '4h0m0s')
    assert.deepEqual(
      d.defaults.find((x) => x.path === '/streamingConnectionIdleTimeout'),
      {
        path: '/streamingConnectionIdleTimeout',
        value: '4h0m0s',
        reason: 'zero',
        written: '0s',
        writtenAt: {kind: 'file', source: 'config.yaml', line: 46},
        source: 'pkg/kubelet/apis/config/v1beta1/defaults.go',
      },
    )
    assert.equal(d.values['readOnlyPort'], undefined, 'readOnlyPort has no default: 0 (disabled)')
    assert.equal(d.values['cgroupDriver'], 'systemd', 'explicit values stay')
    assert.deepEqual(d.origins['/port'], {kind: 'default', detail: 'pkg/kubelet/apis/config/v1beta1/defaults.go'})
    assert.equal(d.values['containerRuntimeEndpoint'], 'unix:///run/containerd/containerd.sock', '"" is unset for a non-pointer string')
    expectGolden(K + 'kubeadm-config.defaults-1.30.golden.txt', d.defaults.map((x) => `${x.path} = ${JSON.stringify(x.value)} (${x.reason})\n`).join(''))
  })

  it('keeps explicit zeros of pointer fields (eventRecordQPS: 0 means unlimited)', () => {
    const cfg = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\neventRecordQPS: 0\nhealthzPort: 0\nenforceNodeAllocatable: []\nevictionHard: {}\n')
    const d = applyKubeletDefaults(cfg)
    assert.equal(d.values['eventRecordQPS'], 0)
    assert.equal(d.values['healthzPort'], 0)
    assert.deepEqual(d.values['enforceNodeAllocatable'], [])
    assert.deepEqual(d.values['evictionHard'], {}, 'an explicit empty map disables the defaults')
  })

  it('uses the defaults of the given version', () => {
    const empty = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n')
    const v126 = applyKubeletDefaults(empty, '1.26')
    const v130 = applyKubeletDefaults(empty, '1.30')
    const v131 = applyKubeletDefaults(empty, '1.31')
    const v135 = applyKubeletDefaults(empty, '1.35')
    assert.equal(v126.values['eventRecordQPS'], 5)
    assert.equal(v130.values['eventRecordQPS'], 50)
    assert.equal(v126.values['containerRuntimeEndpoint'], undefined, 'no default before 1.27 (it was a flag)')
    assert.deepEqual(v126.values['evictionHard'], defaultEvictionHardFor(26))
    assert.equal((v126.values['evictionHard'] as Record<string, string>)['imagefs.inodesFree'], undefined)
    assert.equal((v130.values['evictionHard'] as Record<string, string>)['imagefs.inodesFree'], '5%')
    assert.equal(v130.values['failCgroupV1'], undefined, 'failCgroupV1 exists from 1.31')
    assert.equal(v131.values['failCgroupV1'], false)
    assert.equal(v135.values['failCgroupV1'], true)
  })

  it('derives nodeStatusReportFrequency from an explicit nodeStatusUpdateFrequency', () => {
    const cfg = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nnodeStatusUpdateFrequency: 4s\n')
    assert.equal(applyKubeletDefaults(cfg).values['nodeStatusReportFrequency'], '4s')
  })

  it('serializeImagePulls follows maxParallelImagePulls from 1.27', () => {
    const cfg = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxParallelImagePulls: 5\n')
    assert.equal(applyKubeletDefaults(cfg, '1.29').values['serializeImagePulls'], false)
    assert.equal(applyKubeletDefaults(cfg, '1.26').values['serializeImagePulls'], true)
  })

  it('fills missing thresholds only with mergeDefaultEvictionSettings', () => {
    const base = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  memory.available: 500Mi\n'
    assert.deepEqual(applyKubeletDefaults(parseKubeletConfig(base)).values['evictionHard'], {'memory.available': '500Mi'})
    const merged = applyKubeletDefaults(parseKubeletConfig(base + 'mergeDefaultEvictionSettings: true\n'), '1.33').values['evictionHard'] as Record<string, string>
    assert.equal(merged['memory.available'], '500Mi')
    assert.equal(merged['nodefs.available'], '10%')
  })

  it('models a kubelet without --config (flag defaults)', () => {
    const d = applyKubeletDefaults(parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'), undefined, {legacyFlagDefaults: true})
    assert.equal(kubeletSetting(d, 'authentication.anonymous.enabled').value, true)
    assert.equal(kubeletSetting(d, 'authorization.mode').value, 'AlwaysAllow')
    assert.equal(d.values['readOnlyPort'], 10255)
  })
})

describe('mergeKubeletDropIns', () => {
  const dropIns = ['10-base.conf', '20-gates.conf', '30-null.conf', 'sub/05-early.conf', '99-disabled.conf.bak'].map((n) => ({
    name: `kubelet.conf.d/${n}`,
    text: readFixture(K + 'dropins/' + n),
  }))
  const base = (): ReturnType<typeof parseKubeletConfig> =>
    applyKubeletDefaults(parseKubeletConfig(readFixture(K + 'kubeadm-config.yaml'), {source: 'config.yaml'}), '1.30')

  it('orders like filepath.WalkDir: by name per directory, subdirectories in place', () => {
    const names = ['b/01.conf', 'a-b.conf', 'a/x.conf', '10.conf', '9.conf', 'B.conf']
    assert.deepEqual([...names].sort(compareDropInNames), ['10.conf', '9.conf', 'B.conf', 'a/x.conf', 'a-b.conf', 'b/01.conf'])
    assert.equal(isKubeletDropInName('x.conf'), true)
    assert.equal(isKubeletDropInName('x.conf.bak'), false)
    assert.equal(isKubeletDropInName('x.CONF'), false)
    assert.equal(isKubeletDropInName('conf'), false)
  })

  it('merges maps per key, replaces lists, ignores null, and the last file wins', () => {
    const m = mergeKubeletDropIns(base(), dropIns)
    // sub/ sorts after 30-null.conf, so its maxPods (300) wins over 10-base (200); null in 30-null changes nothing.
    assert.equal(m.values['maxPods'], 300)
    assert.deepEqual(m.origins['/maxPods'], {kind: 'drop-in', source: 'kubelet.conf.d/sub/05-early.conf', line: 1})
    assert.equal(m.values['cgroupDriver'], 'cgroupfs')
    assert.deepEqual(m.values['featureGates'], {GracefulNodeShutdown: true, MemoryQoS: false})
    assert.equal(m.origins['/featureGates/GracefulNodeShutdown']?.source, 'kubelet.conf.d/10-base.conf')
    assert.equal(m.origins['/featureGates/MemoryQoS']?.source, 'kubelet.conf.d/20-gates.conf')
    assert.deepEqual(m.values['clusterDNS'], ['169.254.20.10'])
    // Nested struct: only the one field changes.
    assert.deepEqual(m.values['authorization'], {mode: 'Webhook', webhook: {cacheAuthorizedTTL: '8m', cacheUnauthorizedTTL: '30s'}})
    assert.equal(m.origins['/authorization/mode']?.source, 'config.yaml')
    // 0s in a drop-in is literal: defaults were applied to the base before merging.
    assert.equal(m.values['streamingConnectionIdleTimeout'], '0s')
    const codes = m.issues.map((i) => [i.code, i.source, i.line])
    assert.deepEqual(codes, [
      ['drop-in-zero', 'kubelet.conf.d/20-gates.conf', 7],
      ['drop-in-null', 'kubelet.conf.d/30-null.conf', 3],
      ['drop-in-ignored', 'kubelet.conf.d/99-disabled.conf.bak', undefined],
    ])
  })

  it('does not change the base config', () => {
    const b = base()
    const before = JSON.stringify(b)
    mergeKubeletDropIns(b, dropIns)
    assert.equal(JSON.stringify(b), before)
  })

  it('names the drop-in and line when one is malformed', () => {
    assert.throws(
      () => mergeKubeletDropIns(base(), [{name: 'd/50-bad.conf', text: 'kind: KubeletConfiguration\nmaxPods: [1,\n'}]),
      (e: unknown) => e instanceof ParseError && e.file === 'd/50-bad.conf' && e.line === 3 && /malformed YAML/.test(e.message),
    )
  })
})

describe('Go durations and quantities', () => {
  it('parses what time.ParseDuration accepts and formats like Duration.String', () => {
    const cases: Array<[string, string | undefined]> = [
      ['0', '0s'],
      ['0s', '0s'],
      ['4h', '4h0m0s'],
      ['90s', '1m30s'],
      ['1.5h', '1h30m0s'],
      ['100ms', '100ms'],
      ['1h2m3.5s', '1h2m3.5s'],
      ['-2m', '-2m0s'],
      ['1µs', '1µs'],
      ['2562047h', '2562047h0m0s'],
      ['', undefined],
      ['1', undefined],
      ['.s', undefined],
      ['4 hours', undefined],
      ['1d', undefined],
      ['3000000h', undefined],
    ]
    for (const [input, want] of cases) assert.equal(normalizeGoDuration(input), want, input)
    assert.equal(parseGoDuration('1.0000000005s'), 1_000_000_000n, 'fractions below a nanosecond are dropped')
    assert.equal(formatGoDuration(1_500n), '1.5µs')
  })

  it('parses resource quantities', () => {
    assert.equal(parseQuantity('100Mi'), 100 * 2 ** 20)
    assert.equal(parseQuantity('500m'), 0.5)
    assert.equal(parseQuantity('1e3'), 1000)
    assert.equal(parseQuantity('1.5Gi'), 1.5 * 2 ** 30)
    assert.equal(parseQuantity('100MB'), undefined)
    assert.equal(parseQuantity('10%'), undefined)
  })
})

describe("kubeadm's kubelet-config ConfigMap", () => {
  it('reads the `kubelet` key with lines of the ConfigMap file', () => {
    const text = readFixture(K + 'kubelet-config-configmap.yaml')
    assert.equal(detectKubeletDocument(text), 'kubelet-config')
    const cfg = parseKubeletConfig(text, {source: 'cm.yaml'})
    assert.deepEqual(cfg.configMap, {key: 'kubelet', name: 'kubelet-config', namespace: 'kube-system'})
    assert.deepEqual(cfg.issues, [])
    assert.deepEqual(kubeletSetting(cfg, 'cgroupDriver'), {value: 'systemd', origin: {kind: 'file', source: 'cm.yaml', line: 15}})
    assert.equal(applyKubeletDefaults(cfg).values['streamingConnectionIdleTimeout'], '4h0m0s')
  })

  it('maps errors inside the ConfigMap to its lines', () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\ndata:\n  kubelet: |\n    apiVersion: kubelet.config.k8s.io/v1beta1\n    kind: KubeletConfiguration\n    maxPods: many\n    x: [\n'
    assert.throws(() => parseKubeletConfig(text), (e: unknown) => e instanceof ParseError && /^data\.kubelet: malformed YAML/.test(e.message) && (e.line ?? 0) >= 8)
    const ok = parseKubeletConfig(text.replace('    x: [\n', ''), {source: 'cm.yaml'})
    assert.deepEqual(ok.issues.map((i) => [i.code, i.line]), [['wrong-type', 7]])
  })
})

describe('applyKubeletStartFills (the kubelet fills these at start, so /configz shows them)', () => {
  const base = () => parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n', {source: 'config.yaml'})
  it('fills the self-signed serving certificate paths in --cert-dir when neither is set and serverTLSBootstrap is off', () => {
    const filled = applyKubeletStartFills(base())
    assert.equal(kubeletSetting(filled, 'tlsCertFile').value, '/var/lib/kubelet/pki/kubelet.crt')
    assert.equal(kubeletSetting(filled, 'tlsPrivateKeyFile').value, '/var/lib/kubelet/pki/kubelet.key')
    assert.match(kubeletSetting(filled, 'tlsCertFile').origin?.detail ?? '', /filled in by the kubelet at start/)
    assert.equal(kubeletSetting(applyKubeletStartFills(base(), '/srv/pki/'), 'tlsPrivateKeyFile').value, '/srv/pki/kubelet.key')
  })
  it('leaves the config alone with serverTLSBootstrap on, or with either file set', () => {
    const boot = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nserverTLSBootstrap: true\n', {source: 'c'})
    assert.equal(kubeletSetting(applyKubeletStartFills(boot), 'tlsCertFile').value, undefined)
    const one = parseKubeletConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntlsCertFile: /x.crt\n', {source: 'c'})
    const out = applyKubeletStartFills(one)
    assert.equal(kubeletSetting(out, 'tlsCertFile').value, '/x.crt')
    assert.equal(kubeletSetting(out, 'tlsPrivateKeyFile').value, undefined)
  })
})
