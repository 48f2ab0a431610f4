// systemd units (`systemctl cat kubelet`), EnvironmentFile= parsing and ExecStart expansion, plus kubeadm-flags.env.
// Fixtures: kubeadm's kubelet.service + 10-kubeadm.conf (pkgs.k8s.io layout under /usr/lib/systemd/system), its
// kubeadm-flags.env and an /etc/sysconfig/kubelet override; a broken drop-in that adds a second ExecStart.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parseKubeadmFlagsEnv} from '../../../../src/core/parse/kubeadm-flags.js'
import {parseEnvironmentFile, parseSystemctlCat, resolveExecStart, splitUnitWords} from '../../../../src/core/parse/systemd-unit.js'
import {ParseError} from '../../../../src/errors.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const K = 'config/kubelet/'

describe('parseSystemctlCat', () => {
  it("splits kubeadm's unit and drop-in and keeps the effective ExecStart after the reset", () => {
    const unit = parseSystemctlCat(readFixture(K + 'systemctl-cat-kubeadm.txt'))
    assert.equal(unit.name, 'kubelet.service')
    assert.deepEqual(
      unit.files.map((f) => [f.path, f.kind, f.firstInputLine]),
      [
        ['/usr/lib/systemd/system/kubelet.service', 'unit', 2],
        ['/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf', 'drop-in', 18],
      ],
    )
    assert.equal(unit.execStart.length, 1)
    assert.deepEqual(unit.execStart[0]?.words, ['/usr/bin/kubelet', '$KUBELET_KUBECONFIG_ARGS', '$KUBELET_CONFIG_ARGS', '$KUBELET_KUBEADM_ARGS', '$KUBELET_EXTRA_ARGS'])
    assert.deepEqual(unit.execStart[0]?.origin, {kind: 'file', source: '/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf', line: 11})
    assert.deepEqual(unit.environmentFiles.map((e) => [e.path, e.optional]), [
      ['/var/lib/kubelet/kubeadm-flags.env', true],
      ['/etc/sysconfig/kubelet', true],
    ])
    assert.deepEqual(unit.issues, [])
    expectGolden(K + 'systemctl-cat-kubeadm.golden.json', JSON.stringify(unit, null, 2) + '\n')
  })

  it('expands $VAR into words with the origin of each variable', () => {
    const unit = parseSystemctlCat(readFixture(K + 'systemctl-cat-kubeadm.txt'))
    const r = resolveExecStart(unit, [
      {path: '/var/lib/kubelet/kubeadm-flags.env', text: readFixture(K + 'kubeadm-flags.env')},
      {path: '/etc/sysconfig/kubelet', text: readFixture(K + 'sysconfig-kubelet')},
    ])
    assert.equal(r.executable, '/usr/bin/kubelet')
    assert.deepEqual(
      r.args.map((a) => [a.text, a.via, `${a.origin.source}:${a.origin.line}`]),
      [
        ['--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf', '$KUBELET_KUBECONFIG_ARGS', '/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf:3'],
        ['--kubeconfig=/etc/kubernetes/kubelet.conf', '$KUBELET_KUBECONFIG_ARGS', '/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf:3'],
        ['--config=/var/lib/kubelet/config.yaml', '$KUBELET_CONFIG_ARGS', '/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf:4'],
        ['--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock', '$KUBELET_KUBEADM_ARGS', '/var/lib/kubelet/kubeadm-flags.env:1'],
        ['--pod-infra-container-image=registry.k8s.io/pause:3.9', '$KUBELET_KUBEADM_ARGS', '/var/lib/kubelet/kubeadm-flags.env:1'],
        ['--node-ip=192.168.0.11', '$KUBELET_EXTRA_ARGS', '/etc/sysconfig/kubelet:2'],
        ['--max-pods=150', '$KUBELET_EXTRA_ARGS', '/etc/sysconfig/kubelet:2'],
        ['--cluster-dns=10.96.0.53', '$KUBELET_EXTRA_ARGS', '/etc/sysconfig/kubelet:2'],
      ],
    )
    assert.deepEqual(r.issues, [])
  })

  it('reports missing environment files and unset variables', () => {
    const unit = parseSystemctlCat(readFixture(K + 'systemctl-cat-kubeadm.txt'))
    const r = resolveExecStart(unit, [])
    assert.deepEqual(
      r.issues.map((i) => [i.severity, i.code, i.line]),
      [
        ['info', 'environment-file-missing', 6],
        ['info', 'environment-file-missing', 9],
        ['info', 'unset-variable', 11],
        ['info', 'unset-variable', 11],
      ],
    )
    assert.equal(r.args.length, 3)
  })

  it('joins continuation lines and reports a second ExecStart without reset', () => {
    const unit = parseSystemctlCat(readFixture(K + 'systemctl-cat-broken-dropin.txt'))
    assert.deepEqual(unit.execStart[0]?.words, ['/usr/bin/kubelet', '--config=/var/lib/kubelet/config.yaml', '--kubeconfig=/etc/kubernetes/kubelet.conf'])
    assert.equal(unit.execStart[0]?.origin.line, 5, 'the line where the continued directive starts')
    assert.equal(unit.directives.find((d) => d.key === 'Restart')?.line, 8)
    assert.deepEqual(
      unit.issues.map((i) => [i.severity, i.code, i.source, i.line]),
      [['error', 'multiple-execstart', '/etc/systemd/system/kubelet.service.d/20-extra.conf', 3]],
    )
  })

  it('handles Environment= quoting, resets and invalid assignments', () => {
    const text = [
      '[Service]',
      'Environment=A=1 "B=two words" C=\'single q\'',
      'Environment=',
      'Environment="D=x\\"y" 9BAD=1',
      'ExecStart=-/usr/bin/kubelet ${D} $UNSET',
    ].join('\n')
    const unit = parseSystemctlCat(text, {source: 'kubelet.service'})
    assert.deepEqual(unit.environment.map((e) => [e.name, e.value]), [['D', 'x"y']])
    assert.deepEqual(unit.issues.map((i) => i.code), ['invalid-environment'])
    assert.equal(unit.execStart[0]?.prefix, '-')
    const r = resolveExecStart(unit, [])
    assert.deepEqual(r.args.map((a) => a.text), ['x"y'])
    assert.equal(r.args[0]?.via, '${D}')
  })

  it('treats a comment inside a continuation as skipped, like systemd', () => {
    const unit = parseSystemctlCat('[Service]\nExecStart=/usr/bin/kubelet \\\n# --max-pods=10 \\\n  --v=2\n')
    assert.deepEqual(unit.execStart[0]?.words, ['/usr/bin/kubelet', '--v=2'])
  })

  it('rejects text with no unit content', () => {
    assert.throws(() => parseSystemctlCat('just some text\nwithout sections\n'), (e: unknown) => e instanceof ParseError && e.line === 1)
  })
})

describe('parseEnvironmentFile', () => {
  it('reads quoted, multi-line and escaped values as systemd does', () => {
    const text = [
      '# comment',
      'A="--x=1 --y=2"',
      "B='it''s'",
      'C=plain value with spaces   ',
      'D="line one',
      'line two"',
      'E=continued \\',
      'here',
      'export F=1',
      'no equals sign',
      ' G = spaced',
    ].join('\n')
    const env = parseEnvironmentFile(text, {source: 'env'})
    assert.deepEqual(
      env.vars.map((v) => [v.name, v.value, v.origin.line]),
      [
        ['A', '--x=1 --y=2', 2],
        ['B', 'its', 3],
        ['C', 'plain value with spaces', 4],
        ['D', 'line one\nline two', 5],
        ['E', 'continued here', 7],
        ['G', 'spaced', 11],
      ],
    )
    assert.deepEqual(
      env.issues.map((i) => [i.code, i.line]),
      [
        ['invalid-environment', 9],
        ['env-syntax', 10],
      ],
    )
    assert.match(env.issues[0]?.message ?? '', /does not understand "export"/)
  })
})

describe('parseKubeadmFlagsEnv', () => {
  it('splits KUBELET_KUBEADM_ARGS into flags with the file and line', () => {
    const env = parseKubeadmFlagsEnv(readFixture(K + 'kubeadm-flags.env'), {source: '/var/lib/kubelet/kubeadm-flags.env'})
    assert.deepEqual(env.kubeadmArgs.map((a) => a.text), [
      '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock',
      '--pod-infra-container-image=registry.k8s.io/pause:3.9',
    ])
    assert.deepEqual(env.kubeadmArgs[0]?.origin, {kind: 'file', source: '/var/lib/kubelet/kubeadm-flags.env', line: 1})
    assert.deepEqual(env.extraArgs, [])
    assert.deepEqual(env.issues, [])
  })

  it('reads /etc/default/kubelet style KUBELET_EXTRA_ARGS', () => {
    const env = parseKubeadmFlagsEnv(readFixture(K + 'sysconfig-kubelet'))
    assert.deepEqual(env.extraArgs.map((a) => [a.text, a.origin.line]), [
      ['--node-ip=192.168.0.11', 2],
      ['--max-pods=150', 2],
      ['--cluster-dns=10.96.0.53', 2],
    ])
  })

  it('rejects files without assignments', () => {
    assert.throws(() => parseKubeadmFlagsEnv('--max-pods=10\n'), (e: unknown) => e instanceof ParseError && e.line === 1)
  })
})

describe('splitUnitWords', () => {
  it('unquotes and unescapes', () => {
    assert.deepEqual(splitUnitWords(`a "b c" 'd e' f\\ g "h\\"i"`).words, ['a', 'b c', 'd e', 'f g', 'h"i'])
    assert.equal(splitUnitWords('"open').error, 'unterminated " quote')
  })
})
