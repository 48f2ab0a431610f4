// The built `fix kubelet` and `fix conntrack` commands end to end: a kubelet node (kubelet-node.ts) behind real
// sshd, the test API server, the audit log in a temp dir. Dry runs and refusals must leave the node's files,
// the API objects and the audit log exactly as they were.
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {after, afterEach, before, describe, it} from 'node:test'
import type {AuditRecord} from '../../../src/core/model/audit.js'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {tempDir} from '../../support/kubeconfig.js'
import {runCli} from '../../support/run-cli.js'
import {netnsSkipReason} from '../../support/sshd.js'
import {KUBEADM_CONFIG, type KubeletNode, startKubeletNode} from './kubelet-node.js'

describe('fix kubelet, the command', {skip: netnsSkipReason()}, () => {
  const tmp = tempDir('nd-fix-cli-')
  let api: FakeApiServer
  let node: KubeletNode
  let sshConfig: string
  let n = 0

  before(async () => {
    node = await startKubeletNode({config: KUBEADM_CONFIG})
    const nodeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name: 'node-a', uid: 'uid-node-a'},
      status: {addresses: [{type: 'InternalIP', address: node.netns.address}], conditions: [{type: 'Ready', status: 'True'}], nodeInfo: {kubeletVersion: 'v1.33.1'}},
    } as KubeObject
    api = await startFakeApiServer({objects: [nodeObject], configz: {}})
    sshConfig = tmp.path('ssh_config')
    writeFileSync(sshConfig, node.sshConfigLines())
  })
  after(async () => {
    await node?.stop()
    await api?.close()
    tmp.cleanup()
  })
  afterEach(() => api.setDenyRules([]))

  const cli = (args: string[], audit: string) =>
    runCli([...args, '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {env: {HOME: tmp.dir, SSH_AUTH_SOCK: '', NODE_DOCTOR_AUDIT_LOG: audit}, timeoutMs: 120_000})
  const snapshot = () => ({
    files: readdirSync(dirname(node.configPath)).sort(),
    config: readFileSync(node.configPath, 'utf8'),
    objects: JSON.stringify(api.objects()),
    restarts: node.restarts(),
  })
  const writes = () => api.requests.filter((r) => r.method !== 'GET' && r.resource !== 'selfsubjectaccessreviews')

  it('--dry-run prints the plan with the diff and changes nothing: files, API objects, audit log', async () => {
    const before = snapshot()
    api.resetRequests()
    const audit = tmp.path(`audit-${++n}`, 'audit.log')
    const r = await cli(['fix', 'kubelet', 'node-a', '--set', 'clusterDNS=10.96.0.10', '--dry-run'], audit)
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^Plan: fix kubelet on node node-a \(kubelet 1\.33\)/)
    assert.match(r.stdout, /set clusterDNS: \[10\.96\.0\.99\] -> \[10\.96\.0\.10\] in .*config\.yaml/)
    assert.match(r.stdout, /^-- 10\.96\.0\.99\n\+- 10\.96\.0\.10$/m)
    assert.match(r.stderr, /Dry run: nothing was changed\./)
    assert.deepEqual(snapshot(), before)
    assert.deepEqual(writes(), [])
    assert.equal(existsSync(audit), false)
  })

  it('refuses without a terminal and without --yes (exit 2, naming --yes) and changes nothing', async () => {
    const before = snapshot()
    api.resetRequests()
    const audit = tmp.path(`audit-${++n}`, 'audit.log')
    const r = await cli(['fix', 'kubelet', 'node-a', '--set', 'clusterDNS=10.96.0.10'], audit)
    assert.equal(r.exitCode, 2, r.stderr)
    assert.match(r.stdout, /^Plan: fix kubelet on node node-a/, 'the plan is still shown')
    assert.match(r.stderr, /error: refusing to go on without confirmation \(apply this change to node node-a and restart its kubelet\?\): no terminal to ask on, nothing was changed/)
    assert.match(r.stderr, /--yes/)
    assert.deepEqual(snapshot(), before)
    assert.deepEqual(writes(), [])
    assert.equal(readFileSync(audit, 'utf8'), '', 'the audit log was only checked for writability')
  })

  it('--yes applies, verifies and records; a rejected change rolls back and exits 1', async () => {
    const audit = tmp.path(`audit-${++n}`, 'audit.log')
    const ok = await cli(['fix', 'kubelet', 'node-a', '--set', 'clusterDNS=10.96.0.10', '--yes', '--wait-timeout', '15s'], audit)
    assert.equal(ok.exitCode, 0, ok.stderr)
    assert.match(ok.stdout, /^node-a: applied: the kubelet restarted and is healthy \(http:\/\/127\.0\.0\.1:10248\/healthz ok, node Ready\); backup: .*config\.yaml\.node-doctor-backup-\d{8}T\d{6}Z\n$/m)
    assert.match(ok.stderr, /node-a: systemctl restart kubelet/)
    assert.match(ok.stderr, new RegExp(`Recorded in the audit log ${audit} and as an Event on the node\\.`))
    assert.match(readFileSync(node.configPath, 'utf8'), /clusterDNS:\n- 10\.96\.0\.10\n/)

    node.refuseConfig('cgroupDriver: cgroupfs')
    const configBefore = readFileSync(node.configPath, 'utf8')
    const bad = await cli(['fix', 'kubelet', 'node-a', '--set', 'cgroupDriver=cgroupfs', '--yes', '--wait-timeout', '3s'], audit)
    assert.equal(bad.exitCode, 1, bad.stderr)
    assert.match(bad.stderr, /error: node-a: the change was not kept: .*healthz did not answer ok within 3s.*; the old configuration was restored from .* and the kubelet is healthy again/)
    assert.match(bad.stderr, /journalctl -u kubelet/)
    assert.equal(readFileSync(node.configPath, 'utf8'), configBefore)
    const recs = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditRecord)
    assert.deepEqual(recs.map((x) => [x.action, x.outcome, x.who.kubeContext]), [['fix kubelet', 'applied', 'fake'], ['fix kubelet', 'rolled-back', 'fake']])
    const events = api.objects().filter((o) => o.kind === 'Event').map((e) => (e as unknown as {reason: string}).reason)
    assert.deepEqual(events.sort(), ['NodeDoctorRepair', 'NodeDoctorRollback'])
  })

  it('bad input is a usage error naming what was wrong', async () => {
    const audit = tmp.path(`audit-${++n}`, 'audit.log')
    const both = await cli(['fix', 'kubelet', 'node-a', '--set', 'clusterDNS=10.96.0.10', '--from-finding', 'KUBELET-016', '--dry-run'], audit)
    assert.equal(both.exitCode, 2)
    assert.match(both.stderr, /give either --set FIELD=VALUE \(repeatable\) or --from-finding ID/)
    const unknown = await cli(['fix', 'kubelet', 'node-a', '--set', 'clusterDns=10.96.0.10', '--dry-run'], audit)
    assert.equal(unknown.exitCode, 2)
    assert.match(unknown.stderr, /unknown KubeletConfiguration field "clusterDns"/)
    const missing = await cli(['fix', 'kubelet', 'node-z', '--set', 'clusterDNS=10.96.0.10', '--dry-run'], audit)
    assert.equal(missing.exitCode, 2)
    assert.match(missing.stderr, /nodes "node-z" not found/)
    const svc = await cli(['fix', 'conntrack', 'node-a', '--service', 'kube-dns', '--dry-run'], audit)
    assert.equal(svc.exitCode, 2)
    assert.match(svc.stderr, /--service kube-dns: expected NAMESPACE\/NAME/)
  })
})
