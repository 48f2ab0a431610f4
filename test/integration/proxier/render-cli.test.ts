// `kubectl node-doctor proxy render` through the built CLI (run `npm run build` first): same bytes as the feature
// goldens, version from the DaemonSet image, errors with exit code 2 that name what is wrong.
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {fixturePath, readFixture} from '../../support/golden.js'
import {runCli} from '../../support/run-cli.js'

const NODES = fixturePath('proxier/iptables/nodes.yaml')
const objects = (dir: string): string => fixturePath(`proxier/iptables/${dir}/objects.yaml`)
const tmp = mkdtempSync(join(tmpdir(), 'nd-render-'))
after(() => rmSync(tmp, {recursive: true, force: true}))

describe('proxy render', () => {
  it('prints the exact restore input of the feature goldens', async () => {
    for (const [dir, extra, golden] of [
      ['etp-local', ['--kube-proxy-version', 'v1.35'], 'expected.restore'],
      ['ipv6', ['--kube-proxy-version', 'v1.35', '--ip-family', 'ipv6'], 'expected.restore'],
      ['versions', ['--kube-proxy-version', 'v1.28'], 'expected-v1.28.restore'],
    ] as const) {
      const r = await runCli(['proxy', 'render', '--objects', NODES, '--objects', objects(dir), '--node', 'node-a', ...extra, '-q'])
      assert.equal(r.stderr, '')
      assert.equal(r.exitCode, 0)
      assert.equal(r.stdout, readFixture(`proxier/iptables/${dir}/${golden}`), dir)
    }
  })

  it('takes the version from the kube-proxy DaemonSet image and honours runtime-fact flags', async () => {
    const ds = join(tmp, 'ds.yaml')
    writeFileSync(ds, 'apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: kube-proxy, namespace: kube-system}\nspec: {template: {spec: {containers: [{name: kube-proxy, image: "registry.k8s.io/kube-proxy:v1.30.9"}]}}}\n')
    const r = await runCli(['proxy', 'render', '--objects', NODES, '--objects', objects('versions'), '--objects', ds, '--node', 'node-a', '-v'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stderr, /kube-proxy v1\.30\.9 \(from DaemonSet kube-system\/kube-proxy\), ipv4, node node-a/)
    // Without -q a comment block says what the rules were rendered from; iptables-restore skips it.
    const header = r.stdout.split('\n').filter((l) => l.startsWith('#'))
    assert.ok(header.includes('#   kube-proxy version: v1.30.9 (from DaemonSet kube-system/kube-proxy)'), header.join('\n'))
    assert.ok(header.includes('#   masquerade bit: 14 (default: not set in the configuration)'), header.join('\n'))
    assert.equal(r.stdout.slice(r.stdout.indexOf('\n*') + 1), readFixture('proxier/iptables/versions/expected-v1.30.restore'))
    const off = await runCli(['proxy', 'render', '--objects', NODES, '--objects', objects('versions'), '--objects', ds, '--node', 'node-a', '--no-random-fully', '--no-nfacct', '--tcp-be-liberal'])
    assert.doesNotMatch(off.stdout, /random-fully|nfacct|INVALID/)
  })

  it('renders a newer kube-proxy (a pre-release, a distribution build) with the newest layout and says so', async () => {
    for (const version of ['v1.38.0-alpha.2', 'v1.99.4+k3s1']) {
      const r = await runCli(['proxy', 'render', '--objects', NODES, '--objects', objects('versions'), '--node', 'node-a', '--kube-proxy-version', version])
      assert.equal(r.exitCode, 0, r.stderr)
      assert.match(r.stderr, new RegExp(`note: kube-proxy ${version.replace(/[.+]/g, '\\$&')} is newer than the newest layout known \\(v1\\.\\d+\\): rendered with the v1\\.\\d+ layout`))
      assert.match(r.stdout, new RegExp(`^# node-doctor rendered this from:\n#   kube-proxy version: ${version.replace(/[.+]/g, '\\$&')} \\(from --kube-proxy-version\\)\n`))
      assert.match(r.stdout, /\n# {3}mode: iptables \(from --mode\)\n/)
      assert.match(r.stdout, /\n\*filter\n/)
    }
    for (const mode of ['ipvs', 'nftables']) {
      const r = await runCli(['proxy', 'render', '--mode', mode, '--objects', NODES, '--objects', objects('versions'), '--node', 'node-a', '--kube-proxy-version', 'v1.38.0-alpha.2'])
      assert.equal(r.exitCode, 0, r.stderr)
      assert.match(r.stdout, /^# node-doctor rendered this from:\n# {3}kube-proxy version: v1\.38\.0-alpha\.2 \(from --kube-proxy-version\)\n/, mode)
      assert.match(r.stdout, /\n# note: rendered with the v1\.37 layout, the newest known\n/, mode)
    }
  })

  it('prints the iptables-save view with --format save', async () => {
    const r = await runCli(['proxy', 'render', '--objects', NODES, '--objects', objects('clusterip'), '--node', 'node-a', '--format', 'save', '-q'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^\*filter\n:INPUT ACCEPT \[0:0\]\n/)
    assert.match(r.stdout, /\n-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000\/0x4000\n/)
    assert.match(r.stdout, /\n\*mangle\n[^*]*:KUBE-PROXY-CANARY - \[0:0\]\n/)
  })

  it('fails with exit 2 naming the problem', async () => {
    const bad = join(tmp, 'bad.yaml')
    // A malformed object is left out with an EP-003 note (objects-problems-cli.test.ts); a file that is not YAML fails.
    writeFileSync(bad, 'kind: Service\nmetadata: {name: x, namespace: n}\nspec:\n  ports: [{port: 80\n')
    const cases: Array<[string[], RegExp]> = [
      [['--objects', NODES, '--node', 'node-z'], /node "node-z" is not in the objects\n {2}Known nodes: node-a, node-b, node-v6\./],
      [['--objects', bad, '--node', 'node-a'], /bad\.yaml:\d+: not valid JSON or YAML/],
      [['--objects', join(tmp, 'missing.yaml'), '--node', 'node-a'], /missing\.yaml does not exist/],
      [['--objects', NODES, '--node', 'node-a', '--kube-proxy-version', 'v1.27'], /kube-proxy v1\.27 \(from --kube-proxy-version\) is older than the oldest layout known \(v1\.28\)\n {2}Layouts known: v1\.28 to v1\.\d+, and anything newer with the newest\./],
      [['--objects', NODES, '--node', 'node-a', '--kube-proxy-version', 'latest'], /--kube-proxy-version "latest" is not a version/],
      [['--objects', NODES, '--objects', objects('nodeport'), '--node', 'node-a', '--format', 'json'], /Expected --format=json to be one of: restore, save/],
    ]
    for (const [args, re] of cases) {
      const r = await runCli(['proxy', 'render', ...args])
      assert.equal(r.exitCode, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, re)
    }
    const cm = join(tmp, 'cm.yaml')
    writeFileSync(cm, 'kind: ConfigMap\nmetadata: {name: kube-proxy, namespace: kube-system}\ndata:\n  config.conf: |\n    detectLocalMode: Magic\n')
    const r = await runCli(['proxy', 'render', '--objects', NODES, '--objects', cm, '--node', 'node-a'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /kube-system\/kube-proxy ConfigMap \(config\.conf\): detectLocalMode: unknown mode "Magic"/)
  })
})
