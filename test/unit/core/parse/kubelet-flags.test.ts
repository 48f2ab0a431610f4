// The kubelet's command line: pflag parsing, removed flags by version, flags that override the config file,
// and command lines captured from k3s (config.yaml kubelet-arg, "Running kubelet" journal line) and ps.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {applyKubeletDefaults, kubeletSetting, parseKubeletConfig} from '../../../../src/core/parse/kubelet-config.js'
import {
  applyKubeletFlags,
  KUBELET_FLAGS,
  parseK3sKubeletArgs,
  parseKubeletArgs,
  parseKubeletCommandLine,
  REMOVED_KUBELET_FLAGS,
  removalIsFatal,
  removedFlagMessage,
} from '../../../../src/core/parse/kubelet-flags.js'
import {type ArgToken, parseGoInt, parsePflags, splitCsv, splitShellWords} from '../../../../src/core/parse/pflag.js'
import {KUBELET_SCHEMA} from '../../../../src/core/parse/kubelet-config.js'
import {ParseError} from '../../../../src/errors.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const K = 'config/kubelet/'

function tokens(line: string, source = 'cmdline', lineNo = 1): ArgToken[] {
  return splitShellWords(line).map((text) => ({text, origin: {kind: 'file', source, line: lineNo}}))
}

describe('parsePflags', () => {
  it('parses pflag syntax: =value, separate values, bare booleans, shorthands, --', () => {
    const r = parsePflags(
      tokens('--config /etc/k.yaml --fail-swap-on --v=2 -v 3 -v4 --node_ip=10.0.0.1 --unknown-flag value --other -- rest'),
      (n) => ({config: {name: 'config', type: 'string' as const}, 'fail-swap-on': {name: 'fail-swap-on', type: 'bool' as const}, v: {name: 'v', type: 'int' as const}, 'node-ip': {name: 'node-ip', type: 'string' as const}})[n as 'config'],
      {v: 'v'},
    )
    assert.deepEqual(
      r.flags.map((f) => [f.name, f.value, f.written]),
      [
        ['config', '/etc/k.yaml', '--config /etc/k.yaml'],
        ['fail-swap-on', 'true', '--fail-swap-on'],
        ['v', '2', '--v=2'],
        ['v', '3', '-v 3'],
        ['v', '4', '-v4'],
        ['node-ip', '10.0.0.1', '--node_ip=10.0.0.1'],
        ['unknown-flag', 'value', '--unknown-flag value'],
        ['other', 'true', '--other'],
      ],
    )
    assert.deepEqual(r.positional.map((p) => p.text), ['rest'])
  })

  it('reports a missing argument and unknown shorthands', () => {
    const r = parsePflags(tokens('--config -x -x'), (n) => (n === 'config' ? {name: 'config', type: 'string'} : undefined))
    assert.equal(r.flags[0]?.value, '-x', 'pflag takes the next word even if it starts with a dash')
    assert.deepEqual(r.issues.map((i) => i.code), ['unknown-shorthand'])
    const r2 = parsePflags(tokens('--config'), (n) => (n === 'config' ? {name: 'config', type: 'string'} : undefined))
    assert.deepEqual(r2.issues.map((i) => i.code), ['flag-needs-argument'])
  })

  it('parses Go integers and CSV lists', () => {
    assert.equal(parseGoInt('0x10'), 16)
    assert.equal(parseGoInt('010'), 8)
    assert.equal(parseGoInt('-1_000'), -1000)
    assert.equal(parseGoInt('1.5'), undefined)
    assert.deepEqual(splitCsv('a,"b,c",d'), ['a', 'b,c', 'd'])
    assert.deepEqual(splitCsv(''), [])
  })
})

describe('kubelet flag tables', () => {
  it('maps every config-backed flag to a real KubeletConfiguration field', () => {
    for (const f of KUBELET_FLAGS) {
      if (!f.configPath) continue
      const top = f.configPath.split('/')[1] ?? ''
      assert.ok(KUBELET_SCHEMA[top], `${f.name} → ${f.configPath}`)
    }
    const names = [...KUBELET_FLAGS, ...REMOVED_KUBELET_FLAGS].map((f) => f.name)
    assert.equal(new Set(names).size, names.length, 'no flag is both current and removed')
  })
})

describe('parseKubeletArgs', () => {
  it('judges removed flags by the kubelet version', () => {
    const args = tokens('--network-plugin=cni --pod-infra-container-image=registry.k8s.io/pause:3.9 --container-runtime=remote --logtostderr')
    const v123 = parseKubeletArgs(args, {version: '1.23'})
    assert.deepEqual(v123.issues.map((i) => i.severity), ['warning', 'warning', 'warning', 'warning'])
    const v127 = parseKubeletArgs(args, {version: '1.27'})
    assert.deepEqual(
      v127.issues.map((i) => [i.severity, i.message.slice(0, 40)]),
      [
        ['error', '--network-plugin=cni: removed in 1.24; t'],
        ['warning', '--pod-infra-container-image=registry.k8s'],
        ['error', '--container-runtime=remote: removed in 1'],
        ['error', '--logtostderr: removed in 1.26; this kub'],
      ],
    )
    assert.match(v127.issues[0]?.message ?? '', /exits with "unknown flag: --network-plugin"/)
    const unknownVersion = parseKubeletArgs(args)
    assert.ok(unknownVersion.issues.every((i) => i.severity === 'error' && /removed in/.test(i.message)))
    assert.deepEqual(v127.flags.map((f) => f.status), ['removed', 'removed', 'removed', 'removed'])
  })

  it('carries a removed flag\'s facts as fields and composes the message from them once', () => {
    // A value with colons: the flag as written is a field, not the message's head up to the first colon.
    const r = parseKubeletArgs(tokens('--docker-endpoint=unix:///var/run/docker.sock'), {version: '1.30'})
    const removal = r.issues[0]?.removal
    assert.deepEqual(removal, {
      written: '--docker-endpoint=unix:///var/run/docker.sock',
      flag: 'docker-endpoint',
      removedIn: 24,
      approximate: false,
      replacement: '--container-runtime-endpoint (cri-dockerd if Docker is still needed)',
      ref: 'kubernetes/kubernetes#106907 (dockershim removal)',
      kubeletMinor: 30,
    })
    assert.equal(removalIsFatal(removal!), true)
    assert.equal(r.issues[0]?.message, removedFlagMessage(removal!))
    assert.equal(
      r.issues[0]?.message,
      '--docker-endpoint=unix:///var/run/docker.sock: removed in 1.24; this kubelet (1.30) exits with "unknown flag: --docker-endpoint". ' +
        'Use --container-runtime-endpoint (cri-dockerd if Docker is still needed) (kubernetes/kubernetes#106907 (dockershim removal))',
    )
    // A caller that knows more tells its own consequence; the rest of the sentence stays the same.
    assert.equal(
      removedFlagMessage(removal!, 'the next restart will fail'),
      '--docker-endpoint=unix:///var/run/docker.sock: removed in 1.24; the next restart will fail. Use --container-runtime-endpoint (cri-dockerd if Docker is still needed) (kubernetes/kubernetes#106907 (dockershim removal))',
    )
    // Approximate versions and an unknown kubelet version.
    const old = parseKubeletArgs(tokens('--cadvisor-port=4194'))
    assert.equal(old.issues[0]?.removal?.approximate, true)
    assert.equal(old.issues[0]?.removal?.kubeletMinor, undefined)
    assert.equal(removalIsFatal(old.issues[0]!.removal!), undefined)
    assert.match(old.issues[0]?.message ?? '', /^--cadvisor-port=4194: removed in about 1\.12; a kubelet at about 1\.12 or newer exits with "unknown flag: --cadvisor-port"\. Use /)
    // Other issues carry no removal.
    assert.equal(parseKubeletArgs(tokens('--frobnicate=1')).issues[0]?.removal, undefined)
  })

  it('rejects `--bool false` (a positional argument) and invalid values', () => {
    const r = parseKubeletArgs(tokens('--fail-swap-on false --max-pods=lots --sync-frequency=10'))
    assert.deepEqual(
      r.issues.map((i) => i.code),
      ['invalid-flag-value', 'invalid-flag-value', 'positional-argument'],
    )
    assert.match(r.issues[2]?.message ?? '', /"false" is not a flag/)
  })

  it('finds --config and --config-dir and marks config-backed flags deprecated', () => {
    const r = parseKubeletArgs(tokens('--config=/a.yaml --config-dir /etc/kubelet.conf.d --max-pods=50 --hostname-override=n1 --frobnicate=1'))
    assert.equal(r.configFile, '/a.yaml')
    assert.equal(r.configDir, '/etc/kubelet.conf.d')
    assert.deepEqual(r.flags.map((f) => [f.name, f.status, f.configPath]), [
      ['config', 'ok', undefined],
      ['config-dir', 'ok', undefined],
      ['max-pods', 'deprecated', '/maxPods'],
      ['hostname-override', 'ok', undefined],
      ['frobnicate', 'unknown', undefined],
    ])
    assert.deepEqual(r.issues.map((i) => i.code), ['unknown-flag'])
  })
})

describe('applyKubeletFlags', () => {
  const base = (): ReturnType<typeof parseKubeletConfig> =>
    applyKubeletDefaults(
      parseKubeletConfig(
        'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 20\nfeatureGates:\n  A: true\n  B: true\nevictionHard:\n  memory.available: 1Gi\n  nodefs.available: 20%\nclusterDNS: [10.0.0.10]\n',
        {source: 'config.yaml'},
      ),
    )

  it('lets flags override the file, with the flag and its location as origin', () => {
    const flags = parseKubeletArgs(tokens('--max-pods=250 --streaming-connection-idle-timeout=0', '/etc/default/kubelet', 3))
    const out = applyKubeletFlags(base(), flags.flags)
    assert.equal(out.values['maxPods'], 250)
    assert.deepEqual(kubeletSetting(out, 'maxPods').origin, {kind: 'flag', source: '/etc/default/kubelet', line: 3, detail: '--max-pods=250'})
    assert.equal(out.values['streamingConnectionIdleTimeout'], '0', 'a flag value is literal, 0 disables the timeout')
  })

  it('merges --feature-gates with the file, replaces map flags whole, appends repeated list flags', () => {
    const flags = parseKubeletArgs(tokens('--feature-gates=B=false,C=true --eviction-hard=memory.available<200Mi --cluster-dns=10.0.0.53 --cluster-dns=10.0.0.54 --register-with-taints=dedicated=edge:NoSchedule,gpu:NoExecute'))
    const out = applyKubeletFlags(base(), flags.flags)
    assert.deepEqual(out.values['featureGates'], {A: true, B: false, C: true})
    assert.deepEqual(out.values['evictionHard'], {'memory.available': '200Mi'})
    assert.deepEqual(out.values['clusterDNS'], ['10.0.0.53', '10.0.0.54'])
    assert.deepEqual(out.values['registerWithTaints'], [
      {key: 'dedicated', value: 'edge', effect: 'NoSchedule'},
      {key: 'gpu', effect: 'NoExecute'},
    ])
  })

  it('skips flags whose values are invalid', () => {
    const out = applyKubeletFlags(base(), parseKubeletArgs(tokens('--max-pods=lots')).flags)
    assert.equal(out.values['maxPods'], 20)
  })
})

describe('captured command lines', () => {
  it('reads k3s config.yaml kubelet-arg entries with their lines', () => {
    const args = parseK3sKubeletArgs(readFixture(K + 'k3s-config.yaml'), {source: '/etc/rancher/k3s/config.yaml'})
    assert.deepEqual(args.map((a) => [a.text, a.origin.line]), [
      ['--max-pods=250', 5],
      ['--eviction-hard=memory.available<200Mi,nodefs.available<5%', 6],
      ['--feature-gates=GracefulNodeShutdown=true', 7],
      ['--cgroup-driver=systemd', 8],
      ['--network-plugin=cni', 9],
    ])
    const flags = parseKubeletArgs(args, {version: '1.30'})
    assert.deepEqual(flags.issues.map((i) => [i.code, i.line]), [['removed-flag', 9]])
  })

  it('finds the kubelet command line in a k3s journal', () => {
    const cl = parseKubeletCommandLine(readFixture(K + 'k3s-journal.log'), {source: 'journal.log'})
    assert.equal(cl.line, 2)
    const flags = parseKubeletArgs(cl.args, {version: '1.30'})
    assert.deepEqual(flags.issues, [])
    const byName = Object.fromEntries(flags.flags.map((f) => [f.name, f.value]))
    assert.equal(byName['eviction-hard'], 'imagefs.available<5%,nodefs.available<5%')
    assert.equal(byName['node-labels'], '')
    assert.equal(byName['read-only-port'], '0')
    expectGolden(K + 'k3s-journal.flags.golden.txt', flags.flags.map((f) => `${f.name}\t${f.value}\t${f.status}\t${f.configPath ?? '-'}\n`).join(''))
  })

  it('finds a kubelet command line in ps output and fails clearly without one', () => {
    const ps = 'root  1234  2.1  /usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --node-ip="10.0.0.7"\n'
    const cl = parseKubeletCommandLine(ps)
    assert.equal(cl.executable, '/usr/bin/kubelet')
    assert.deepEqual(cl.args.map((a) => a.text), ['--config=/var/lib/kubelet/config.yaml', '--node-ip=10.0.0.7'])
    assert.throws(() => parseKubeletCommandLine('nothing here\n'), ParseError)
  })
})
