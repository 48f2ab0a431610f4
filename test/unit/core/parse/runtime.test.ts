// containerd config.toml (versions 1, 2, 3), loaded kernel modules and sysctls.
// Fixtures (test/fixtures/config/runtime): a containerd 1.7 v2 config with SystemdCgroup=false on runc (the
// classic kubeadm mismatch) and an nvidia runtime; a containerd 2.x v3 config that still carries a v2
// sandbox_image; Docker's packaged config with CRI disabled; /proc/modules of an IPVS node; lsmod of an
// nftables node; `sysctl -a` excerpt.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parseContainerdConfig, splitTomlKey} from '../../../../src/core/parse/containerd-config.js'
import {
  hasKernelModule,
  KERNEL_MODULES_BY_MODE,
  missingKernelModules,
  parseKernelModules,
  parseModulesBuiltin,
} from '../../../../src/core/parse/kernel-modules.js'
import {parseSysctl, sysctlMismatches, sysctlValue} from '../../../../src/core/parse/sysctl.js'
import {ParseError} from '../../../../src/errors.js'
import {expectGolden, readFixture} from '../../../support/golden.js'

const R = 'config/runtime/'
const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n'

describe('parseContainerdConfig', () => {
  it('reads a version 2 config: default runtime, SystemdCgroup with its line, sandbox image', () => {
    const c = parseContainerdConfig(readFixture(R + 'containerd-v2.toml'), {source: 'config.toml'})
    assert.equal(c.version, 2)
    assert.equal(c.runtimePlugin, 'io.containerd.grpc.v1.cri')
    assert.equal(c.defaultRuntimeName, 'runc')
    assert.deepEqual(c.cgroupDriver, {value: 'cgroupfs', explicit: true, line: 20})
    assert.deepEqual(c.sandboxImage, {value: 'registry.k8s.io/pause:3.8', key: 'plugins."io.containerd.grpc.v1.cri".sandbox_image', line: 10})
    assert.deepEqual(c.runtimes.map((r) => [r.name, r.systemdCgroup]), [
      ['runc', false],
      ['nvidia', true],
    ])
    assert.deepEqual(c.issues, [])
    expectGolden(R + 'containerd-v2.golden.json', json(c))
  })

  it('reads a version 3 config from the split plugins and flags v2 leftovers', () => {
    const c = parseContainerdConfig(readFixture(R + 'containerd-v3.toml'), {source: 'config.toml'})
    assert.equal(c.version, 3)
    assert.equal(c.runtimePlugin, 'io.containerd.cri.v1.runtime')
    assert.equal(c.imagesPlugin, 'io.containerd.cri.v1.images')
    assert.deepEqual(c.cgroupDriver, {value: 'systemd', explicit: true, line: 25})
    assert.deepEqual(c.sandboxImage, {value: 'registry.k8s.io/pause:3.10', key: 'plugins."io.containerd.cri.v1.images".pinned_images.sandbox', line: 13})
    assert.deepEqual(c.cni, {binDirs: ['/opt/cni/bin', '/usr/libexec/cni'], confDir: '/etc/cni/net.d'})
    assert.equal(c.snapshotter, 'overlayfs')
    assert.deepEqual(c.issues.map((i) => [i.code, i.line]), [
      ['wrong-plugin-for-version', 32],
      ['imports', undefined],
    ])
    expectGolden(R + 'containerd-v3.golden.json', json(c))
  })

  it("flags Docker's config that disables the CRI plugin", () => {
    const c = parseContainerdConfig(readFixture(R + 'docker-containerd.toml'))
    assert.equal(c.criDisabled, true)
    assert.deepEqual(c.issues.map((i) => [i.severity, i.code, i.line]), [
      ['warning', 'no-version', undefined],
      ['error', 'cri-disabled', 6],
    ])
    assert.deepEqual(c.cgroupDriver, {value: 'cgroupfs', explicit: false})
  })

  it('reads a version 1 config with the legacy systemd_cgroup', () => {
    const c = parseContainerdConfig(readFixture(R + 'containerd-v1.toml'))
    assert.equal(c.version, 1)
    assert.equal(c.defaultRuntime?.runtimeType, 'io.containerd.runtime.v1.linux')
    assert.deepEqual(c.cgroupDriver, {value: 'systemd', explicit: true, line: 3})
    assert.equal(c.sandboxImage?.value, 'k8s.gcr.io/pause:3.2')
  })

  it('reports a missing default runtime and v3 tables in a v2 file', () => {
    const c = parseContainerdConfig(
      'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\ndefault_runtime_name = "crun"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\nruntime_type = "io.containerd.runc.v2"\n[plugins."io.containerd.cri.v1.runtime"]\nenable_cdi = true\n',
    )
    assert.deepEqual(c.issues.map((i) => i.code), ['wrong-plugin-for-version', 'default-runtime-missing'])
  })

  it('throws ParseError with the line for invalid TOML or versions', () => {
    assert.throws(() => parseContainerdConfig('version = 2\n[plugins\n'), (e: unknown) => e instanceof ParseError && e.line === 2)
    assert.throws(() => parseContainerdConfig('version = 7\n'), (e: unknown) => e instanceof ParseError && e.line === 1 && /unsupported config version/.test(e.message))
  })

  it('splits quoted TOML keys', () => {
    assert.deepEqual(splitTomlKey(`plugins."io.containerd.grpc.v1.cri".containerd`), ['plugins', 'io.containerd.grpc.v1.cri', 'containerd'])
    assert.deepEqual(splitTomlKey(`plugins.'a.b' . c`), ['plugins', 'a.b', 'c'])
  })
})

describe('kernel modules', () => {
  it('reads /proc/modules with users, state and taints', () => {
    const m = parseKernelModules(readFixture(R + 'proc-modules.txt'))
    assert.equal(m.format, 'proc-modules')
    assert.deepEqual(m.modules['nf_conntrack'], {
      name: 'nf_conntrack',
      size: 172032,
      refCount: 6,
      usedBy: ['xt_conntrack', 'xt_MASQUERADE', 'nf_conntrack_netlink', 'nf_nat', 'ip_vs'],
      state: 'Live',
      line: 15,
    })
    assert.equal(m.modules['nvidia']?.taints, '(POE)')
    assert.deepEqual(missingKernelModules(m, KERNEL_MODULES_BY_MODE.ipvs), ['ip_vs_wrr', 'ip_vs_sh'])
    expectGolden(R + 'proc-modules.golden.json', json(m))
  })

  it('reads lsmod output and counts built-in modules as present', () => {
    const m = parseKernelModules(readFixture(R + 'lsmod.txt'))
    assert.equal(m.format, 'lsmod')
    assert.deepEqual(m.modules['nft_fib_inet']?.usedBy, [])
    assert.deepEqual(missingKernelModules(m, KERNEL_MODULES_BY_MODE.nftables), [])
    assert.deepEqual(missingKernelModules(m, KERNEL_MODULES_BY_MODE.ipvs), ['ip_vs', 'ip_vs_rr', 'ip_vs_wrr', 'ip_vs_sh'])
    const builtin = parseModulesBuiltin('kernel/net/netfilter/ipvs/ip_vs.ko\nkernel/net/netfilter/ipvs/ip_vs_rr.ko\nkernel/net/bridge/br-netfilter.ko\n')
    assert.equal(hasKernelModule(m, 'ip_vs', builtin), true)
    assert.equal(hasKernelModule({format: 'lsmod', modules: {}}, 'br_netfilter', builtin), true, 'dashes in file names are underscores in module names')
    assert.equal(hasKernelModule({format: 'lsmod', modules: {nf_conntrack_ipv4: {name: 'nf_conntrack_ipv4', usedBy: [], line: 1}}}, 'nf_conntrack'), true, 'pre-4.19 name')
  })

  it('throws ParseError naming the line that fits no format', () => {
    assert.throws(() => parseKernelModules('ip_vs 16384 0 - Live 0x0\nrubbish\n'), (e: unknown) => e instanceof ParseError && e.line === 2)
    assert.throws(() => parseKernelModules('Module Size Used by\nip_vs x 0\n'), (e: unknown) => e instanceof ParseError && e.line === 2)
  })
})

describe('sysctl', () => {
  it('reads sysctl -a output and compares the relevant keys', () => {
    const s = parseSysctl(readFixture(R + 'sysctl-a.txt'), {source: 'sysctl.txt'})
    assert.equal(sysctlValue(s, 'net.ipv4.ip_forward'), '1')
    assert.equal(sysctlValue(s, 'net/ipv4/ip_forward'), '1')
    assert.equal(sysctlValue(s, 'net.ipv4.tcp_rmem'), '4096 131072 6291456')
    assert.deepEqual(s.issues.map((i) => [i.code, i.line]), [['sysctl-unreadable', 13]])
    assert.deepEqual(
      sysctlMismatches(s, ['node', 'ipvs', 'ipvs-strict-arp']).map((m) => [m.key, m.actual ?? null]),
      [
        ['net.ipv4.conf.all.arp_ignore', '0'],
        ['net.ipv4.conf.all.arp_announce', '0'],
      ],
    )
    assert.deepEqual(sysctlMismatches(s, ['protect-kernel-defaults']).map((m) => [m.key, m.actual]), [['kernel.panic', '0']])
  })

  it('reads sysctl.conf style files', () => {
    const s = parseSysctl('# k8s\nnet.bridge.bridge-nf-call-iptables=1\n-net.ipv4.conf.all.rp_filter = 0\nnot a line\n/proc/sys/vm/overcommit_memory = 1\n')
    assert.deepEqual(Object.keys(s.values), ['net.bridge.bridge-nf-call-iptables', 'net.ipv4.conf.all.rp_filter', 'vm.overcommit_memory'])
    assert.deepEqual(s.issues.map((i) => [i.code, i.line]), [['sysctl-syntax', 4]])
  })
})
