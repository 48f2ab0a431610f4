// The built `fix kubelet` command when its restart would also apply pending differences (the kubelet's file changed
// since it started): without a terminal it refuses naming them and both flags, --yes alone refuses, --yes
// --apply-pending applies them and says so, -o json names each with its choice. A kubelet node (kubelet-node.ts)
// behind real sshd; the test API server's /configz is what the kubelet started with (kubeletView of its files then).
import assert from 'node:assert/strict'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {after, before, beforeEach, describe, it} from 'node:test'
import type {KubeletFixResultJson} from '../../../src/app/fix/node-repairs.js'
import {kubeletView} from '../../../src/core/checks/kubelet/view.js'
import type {AuditRecord} from '../../../src/core/model/audit.js'
import type {KubeObject, Node} from '../../../src/core/model/k8s.js'
import {emptyClusterSnapshot, type NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {tempDir} from '../../support/kubeconfig.js'
import {CLI, runCli} from '../../support/run-cli.js'
import {netnsSkipReason} from '../../support/sshd.js'
import {TMUX_AVAILABLE, TmuxTerminal} from '../../support/tmux-terminal.js'
import {KUBEADM_CONFIG, type KubeletNode, startKubeletNode} from './kubelet-node.js'

describe('fix kubelet with pending differences, the command', {skip: netnsSkipReason()}, () => {
  const tmp = tempDir('nd-fix-pending-cli-')
  let api: FakeApiServer
  let node: KubeletNode
  let sshConfig: string
  let n = 0
  const configz: Record<string, unknown> = {}
  const nodeObject = (address: string) =>
    ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name: 'node-a', uid: 'uid-node-a'},
      status: {addresses: [{type: 'InternalIP', address}], conditions: [{type: 'Ready', status: 'True'}], nodeInfo: {kubeletVersion: 'v1.33.1'}},
    }) as KubeObject

  /** /configz of a kubelet started from `config` (defaults and start-time fills applied, as the checks compute). */
  function startedFrom(config: string): unknown {
    const snapshot = {
      apiVersion: 'node-doctor.io/v1alpha1',
      kind: 'NodeSnapshot',
      node: 'node-a',
      collectedAt: '2026-12-01T00:00:00Z',
      transport: 'files',
      artifacts: {'kubelet-config': {id: 'kubelet-config', source: node.configPath, content: `# node-doctor-file: ${node.configPath}\n${config}`}},
      errors: [],
    } as NodeSnapshot
    const view = kubeletView({cluster: {...emptyClusterSnapshot('2026-12-01T00:00:00Z'), nodes: [nodeObject(node.netns.address) as Node]}, node: snapshot})
    assert.ok(view.next.ok)
    return {kubeletconfig: view.next.value.values}
  }

  before(async () => {
    node = await startKubeletNode({config: KUBEADM_CONFIG})
    api = await startFakeApiServer({objects: [nodeObject(node.netns.address)], configz})
    sshConfig = tmp.path('ssh_config')
    writeFileSync(sshConfig, node.sshConfigLines())
  })
  after(async () => {
    await node?.stop()
    await api?.close()
    tmp.cleanup()
  })
  // Each case: the kubelet runs from KUBEADM_CONFIG; since then maxPods: 250 was added to its file.
  const CHANGED = `${KUBEADM_CONFIG}maxPods: 250\n`
  beforeEach(() => {
    configz['node-a'] = startedFrom(KUBEADM_CONFIG)
    writeFileSync(node.configPath, CHANGED)
  })

  const cli = (args: string[], audit: string) =>
    runCli(['fix', 'kubelet', 'node-a', '--set', 'clusterDNS=10.96.0.10', ...args, '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color', '--wait-timeout', '15s'], {
      env: {HOME: tmp.dir, SSH_AUTH_SOCK: '', NODE_DOCTOR_AUDIT_LOG: audit},
      timeoutMs: 120_000,
    })
  const unchanged = (restarts: number) => {
    assert.equal(readFileSync(node.configPath, 'utf8'), CHANGED)
    assert.equal(node.restarts(), restarts)
  }

  it('no terminal and no --yes --apply-pending: refuses (exit 2) naming the difference and both flags; nothing changed', async () => {
    const restarts = node.restarts()
    const r = await cli([], tmp.path(`audit-${++n}`, 'audit.log'))
    assert.equal(r.exitCode, 2, r.stderr)
    assert.match(r.stderr, /error: the kubelet restart on node-a would also apply 1 pending difference between its files and the running kubelet: maxPods: 110 -> 250, and there is no terminal to ask about each; nothing was changed/)
    assert.match(r.stderr, /Pass --yes --apply-pending to apply them too, run on a terminal to apply or keep each/)
    unchanged(restarts)
  })

  it('--yes alone refuses (exit 2) naming the difference and --apply-pending; nothing changed', async () => {
    const restarts = node.restarts()
    const r = await cli(['--yes'], tmp.path(`audit-${++n}`, 'audit.log'))
    assert.equal(r.exitCode, 2, r.stderr)
    assert.match(r.stderr, /error: the kubelet restart on node-a would also apply 1 pending difference .*: maxPods: 110 -> 250; nothing was changed/)
    assert.match(r.stderr, /Pass --apply-pending with --yes/)
    unchanged(restarts)
  })

  it('--dry-run -o json: the plan on stderr, JSON on stdout naming the difference, undecided; nothing changed', async () => {
    const restarts = node.restarts()
    const r = await cli(['--dry-run', '-o', 'json'], tmp.path(`audit-${++n}`, 'audit.log'))
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stderr, /^Plan: fix kubelet on node node-a/m)
    const json = JSON.parse(r.stdout) as KubeletFixResultJson
    assert.equal(json.status, 'dry-run')
    assert.deepEqual(json.pending, [{field: 'maxPods', running: 110, files: 250, origin: `${node.configPath}:24`, choice: 'undecided'}])
    assert.deepEqual(json.changes, [{path: node.configPath, settings: [{field: 'clusterDNS', from: ['10.96.0.99'], to: ['10.96.0.10']}]}])
    unchanged(restarts)
  })

  it('on a real terminal (tmux): asks for each difference, keep writes the running value back, then the final question', {skip: TMUX_AVAILABLE ? false : 'tmux is not installed'}, async () => {
    // Two differences since the start: maxPods (kept) and imageGCHighThresholdPercent (applied).
    const changed = `${CHANGED}imageGCHighThresholdPercent: 90\n`
    writeFileSync(node.configPath, changed)
    const restarts = node.restarts()
    const audit = tmp.path(`audit-${++n}`, 'audit.log')
    const term = new TmuxTerminal()
    try {
      term.start(
        ['node', CLI, 'fix', 'kubelet', 'node-a', '--set', 'clusterDNS=10.96.0.10', '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color', '--wait-timeout', '15s'],
        {HOME: tmp.dir, SSH_AUTH_SOCK: '', NODE_DOCTOR_AUDIT_LOG: audit},
      )
      await term.waitFor('the first question', (x) => /imageGCHighThresholdPercent: \[apply\/keep\/abort\] $/m.test(x))
      term.answer('apply')
      await term.waitFor('the second question', (x) => /maxPods: \[apply\/keep\/abort\] $/m.test(x))
      term.answer('k')
      const screen = await term.waitFor('the final question', (x) => /restart its kubelet\? \[y\/N\] $/m.test(x))
      assert.match(screen, /^The kubelet restart this change needs would also apply 2 differences between its files and the running kubelet \(changed on disk, never restarted\); for each:\nPending difference 1 of 2: imageGCHighThresholdPercent/m)
      assert.match(screen, /Pending difference 2 of 2: maxPods: the running kubelet has 110, the files have 250/)
      assert.match(screen, /^ {2}keep maxPods: 110 \(the running value\) in .*config\.yaml, which has 250$/m)
      assert.match(screen, /Apply this change, write back the 1 running value kept and the 1 pending difference listed to node node-a and restart its kubelet\?/)
      term.answer('y')
      assert.equal(await term.exitStatus(), 0, term.screen())
      assert.match(term.screen(), /^node-a: pending maxPods: 110 -> 250 \(from .*\): keep \(110 written back to .*config\.yaml\)$/m)
    } finally {
      term.stop()
    }
    assert.equal(readFileSync(node.configPath, 'utf8'), changed.replace('- 10.96.0.99', '- 10.96.0.10').replace('maxPods: 250', 'maxPods: 110'))
    assert.equal(node.restarts(), restarts + 1)
    assert.ok(existsSync(audit))
  })

  it('--yes --apply-pending applies the change and the difference, says so in the summary, the audit record and -o json', async () => {
    const audit = tmp.path(`audit-${++n}`, 'audit.log')
    const r = await cli(['--yes', '--apply-pending'], audit)
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^node-a: applied: the kubelet restarted and is healthy/m)
    assert.match(r.stdout, /^node-a: pending maxPods: 110 -> 250 \(from .*config\.yaml:24\): apply \(the restart takes 250\)$/m)
    assert.equal(readFileSync(node.configPath, 'utf8'), CHANGED.replace('- 10.96.0.99', '- 10.96.0.10'))
    const [rec] = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditRecord)
    assert.match(String(rec!.details?.['pending']), /^maxPods: 110 -> 250 \(from .*\): apply/)

    // Again with -o json (the kubelet now runs with clusterDNS 10.96.0.10 but was given maxPods 110 at start).
    configz['node-a'] = startedFrom(KUBEADM_CONFIG.replace('- 10.96.0.99', '- 10.96.0.10'))
    writeFileSync(node.configPath, CHANGED)
    const j = await cli(['--yes', '--apply-pending', '-o', 'json'], audit)
    assert.equal(j.exitCode, 0, j.stderr)
    const json = JSON.parse(j.stdout) as KubeletFixResultJson
    assert.equal(json.status, 'applied')
    assert.deepEqual(json.pending.map((p) => [p.field, p.running, p.files, p.choice]), [['maxPods', 110, 250, 'apply']])
    assert.equal(json.auditLog, audit)
    assert.match(json.message ?? '', /the kubelet restarted and is healthy/)
  })
})
