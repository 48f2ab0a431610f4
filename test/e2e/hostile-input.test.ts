// Hostile input, through the built CLI (issue #14): values the API or a node controls are data, and secrets given
// on the command line never reach a report.
import assert from 'node:assert/strict'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {KubeObject} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import {type FakeApiServer, startFakeApiServer} from '../support/fake-apiserver.js'
import {fixturePath, REPO_ROOT} from '../support/golden.js'
import {node, sampleCluster} from '../support/kube-objects.js'
import {runCli} from '../support/run-cli.js'
import {makeUserKey} from '../support/sshd.js'

const BUNDLE = join(REPO_ROOT, 'examples', 'bundle')

describe('hostile input', () => {
  let dir: string
  let api: FakeApiServer
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nd-hostile-'))
    const evil = node('node-evil', `10.0.0.3$(touch ${join(dir, 'pwned')})`, '10.0.3.0/24')
    const evil2 = node('node-evil2', `10.0.0.4\`touch ${join(dir, 'pwned2')}\``, '10.0.4.0/24')
    api = await startFakeApiServer({objects: [...sampleCluster(), evil, evil2] as KubeObject[]})
  })
  after(async () => {
    await api?.close()
    rmSync(dir, {recursive: true, force: true})
  })

  it('a node-reported address with shell syntax never reaches ProxyCommand: nothing runs, the node is a collection error', async () => {
    const log = join(dir, 'proxy.log')
    const config = join(dir, 'ssh_config')
    // A ProxyCommand that records the host it was given and fails (nothing listens): it runs for the clean nodes.
    const key = makeUserKey(dir)
    writeFileSync(config, `Host *\n  IdentityFile ${key.privateKeyPath}\n  ProxyCommand sh -c 'echo %h >> ${log}; exit 1'\n  UserKnownHostsFile /dev/null\n  GlobalKnownHostsFile /dev/null\n`)
    const r = await runCli(['check', '--all', '--only', 'iptables', '-o', 'json', '--kubeconfig', api.kubeconfigPath, '--ssh-config', config, '--timeout', '5s'], {
      env: {HOME: dir},
    })
    assert.equal(r.exitCode, 3, r.stderr)
    assert.equal(existsSync(join(dir, 'pwned')), false, 'the $(...) payload ran on the operator machine')
    assert.equal(existsSync(join(dir, 'pwned2')), false, 'the `...` payload ran on the operator machine')
    const report = JSON.parse(r.stdout) as Report
    const byNode = new Map(report.collectionErrors.map((e) => [e.node, e.message]))
    assert.match(byNode.get('node-evil') ?? '', /address "10\.0\.0\.3\$\(touch .*pwned\)" is not an IP address or a DNS name \(it contains "\$"/)
    assert.match(byNode.get('node-evil2') ?? '', /is not an IP address or a DNS name \(it contains "`"/)
    // The clean nodes did go through the ProxyCommand, with their validated addresses.
    assert.ok(existsSync(log), JSON.stringify(report.collectionErrors, null, 1))
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n').sort(), ['192.168.0.11', '192.168.0.12'])
  })

  it('--token is <redacted> in every report format and in the preflight files', async () => {
    const secret = 'sekrit-token-0123456789abcdef'
    const objects = ['--objects', fixturePath('proxier/iptables/loadbalancer/objects.yaml'), '--objects', fixturePath('proxier/iptables/nodes.yaml')]
    for (const format of ['json', 'yaml', 'sarif', 'junit', 'table', 'wide']) {
      const r = await runCli(['proxy', 'diff', ...objects, '--node', 'node-a', '--iptables-save', join(BUNDLE, 'nodes/node-a/iptables-save.txt'), '-o', format, '--fail-on', 'none', '--token', secret])
      assert.equal(r.exitCode, 0, r.stderr)
      assert.ok(!(r.stdout + r.stderr).includes(secret), `${format} shows the token`)
    }
    const files = ['a.xml', 'b.sarif', 'c.json', 'd.md'].map((f) => join(dir, f))
    const p = await runCli(['preflight', '--from-bundle', BUNDLE, '--junit', files[0]!, '--sarif', files[1]!, '--json', files[2]!, '--markdown', files[3]!, `--token=${secret}`, '--fail-on', 'none'])
    assert.equal(p.exitCode, 0, p.stderr)
    for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes(secret), `${f} holds the token`)
    const report = JSON.parse(readFileSync(files[2]!, 'utf8')) as Report
    assert.match(report.metadata.command, /^preflight --from-bundle \S+ --junit .* --token <redacted> --fail-on none$/)
  })

  it('check records the command without the token it was given (live)', async () => {
    const r = await runCli(['check', 'node-a', '--only', 'kubelet', '-o', 'json', '--kubeconfig', api.kubeconfigPath, '--token', api.token, '--via', 'pod', '--timeout', '2s', '--node-timeout', '5s'])
    const report = JSON.parse(r.stdout) as Report
    assert.ok(!r.stdout.includes(api.token), 'the JSON report holds the bearer token')
    assert.equal(report.metadata.command, `check node-a --only kubelet --output json --kubeconfig ${api.kubeconfigPath} --token <redacted> --via pod --timeout 2s --node-timeout 5s`)
  })
})
