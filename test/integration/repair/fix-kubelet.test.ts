// fix kubelet against real sshd nodes in network namespaces (kubelet-node.ts: config files in a temp dir, a
// systemctl test double and a fake kubelet serving /healthz in the namespace) and the test API server.
// Cluster: node-a (Ready), Service kube-system/kube-dns 10.96.0.10; the node's kubelet starts with clusterDNS 10.96.0.99.
import assert from 'node:assert/strict'
import {chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {after, afterEach, before, describe, it} from 'node:test'
import {collectNode} from '../../../src/app/collect-node.js'
import {kubeletView} from '../../../src/core/checks/kubelet/view.js'
import {planFor} from '../../../src/core/collection/plan.js'
import {emptyClusterSnapshot} from '../../../src/core/model/snapshot.js'
import {applyKubeletFix, formatKubeletPlan, type KubeletFixDeps, planKubeletFix} from '../../../src/app/repair/kubelet.js'
import {parseSetArg} from '../../../src/app/repair/kubelet-edit.js'
import {RepairFailedError} from '../../../src/app/repair/errors.js'
import {NodeShell} from '../../../src/app/repair/node-shell.js'
import type {AuditRecord} from '../../../src/core/model/audit.js'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import {UsageError} from '../../../src/errors.js'
import {FileAuditSink} from '../../../src/transports/audit/file-audit-sink.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import type {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {TransportError} from '../../../src/transports/ssh/errors.js'
import type {NodeTransport} from '../../../src/ports/node-transport.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {expectGolden} from '../../support/golden.js'
import {service} from '../../support/kube-objects.js'
import {tempDir} from '../../support/kubeconfig.js'
import {netnsSkipReason} from '../../support/sshd.js'
import {KUBEADM_CONFIG, type KubeletNode, startKubeletNode} from './kubelet-node.js'


// A clock that starts at a fixed time and runs at real speed (the waits measure elapsed time on it).
const T0 = Date.parse('2025-06-01T12:00:00Z')
const started = Date.now()
const NOW = () => new Date(T0 + Date.now() - started)
const BACKUP = /\.node-doctor-backup-20250601T12\d{4}Z$/

describe('fix kubelet on a real node', {skip: netnsSkipReason()}, () => {
  const tmp = tempDir('nd-fix-kubelet-api-')
  let api: FakeApiServer
  let client: KubeClusterClient
  let node: KubeletNode | undefined
  let transport: SshTransport | undefined
  let n = 0
  // The running kubelet's /configz by node (read at request time): what the kubelet started with.
  const configz: Record<string, unknown> = {}

  before(async () => {
    const kubeDns = service('kube-system', 'kube-dns', '10.96.0.10', 53, {'k8s-app': 'kube-dns'})
    api = await startFakeApiServer({objects: [nodeObject('192.0.2.1'), kubeDns], configz})
    client = new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, tmp.path('home')))
  })
  after(async () => {
    await api.close()
    tmp.cleanup()
  })
  afterEach(async () => {
    for (const k of Object.keys(configz)) delete configz[k]
    await transport?.close()
    await node?.stop()
    transport = undefined
    node = undefined
    api.setDenyRules([])
  })

  function nodeObject(ip: string): KubeObject {
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name: 'node-a', uid: 'uid-node-a'},
      status: {addresses: [{type: 'InternalIP', address: ip}], conditions: [{type: 'Ready', status: 'True'}], nodeInfo: {kubeletVersion: 'v1.33.1', containerRuntimeVersion: 'containerd://2.0.5'}},
    } as KubeObject
  }

  async function setup(options: Parameters<typeof startKubeletNode>[0]): Promise<{deps: KubeletFixDeps; log: string; progress: string[]; warnings: string[]}> {
    node = await startKubeletNode(options)
    api.upsert(nodeObject(node.netns.address))
    transport = await node.connect()
    const log = tmp.path(`audit-${++n}`, 'audit.log')
    const progress: string[] = []
    const warnings: string[] = []
    const deps: KubeletFixDeps = {
      transport,
      cluster: client,
      events: client,
      audit: new FileAuditSink(log),
      who: {localUser: 'tester', kubeContext: 'fake', kubeUser: 'fake-user'},
      sudo: false,
      timeoutMs: 20_000,
      now: NOW,
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 200))),
      progress: (m) => progress.push(m),
      warn: (m) => warnings.push(m),
    }
    return {deps, log, progress, warnings}
  }

  const events = () => api.objects().filter((o) => o.kind === 'Event') as unknown as Array<{reason: string; type: string; involvedObject: {name: string}; message: string}>
  const records = (log: string) => readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditRecord)
  const leftovers = (dir: string) => readdirSync(dir).filter((f) => f.includes('node-doctor-') && !f.includes('node-doctor-backup-'))

  /** /configz as the kubelet reports it after starting from the node's files as they are now (defaulted, flags applied). */
  async function startedFromFiles(deps: KubeletFixDeps): Promise<Record<string, unknown>> {
    const snapshot = await collectNode(deps.transport, {plan: planFor(['kubelet']), timeoutMs: 20_000, sudo: false, now: NOW})
    // The test kubelet's --config is in the node's own directory: read it as the plan reads a config file.
    snapshot.artifacts['kubelet-config'] = {id: 'kubelet-config', source: node!.configPath, content: `# node-doctor-file: ${node!.configPath}\n${readFileSync(node!.configPath, 'utf8')}`}
    // Its --config-dir drop-ins likewise (the collection script reads the default directory).
    const dir = node!.configDir
    if (dir !== undefined) {
      const content = readdirSync(dir).filter((f) => f.endsWith('.conf')).sort().map((f) => `# node-doctor-file: ${join(dir, f)}\n${readFileSync(join(dir, f), 'utf8')}`).join('\n')
      snapshot.artifacts['kubelet-dropins'] = {id: 'kubelet-dropins', source: dir, content}
    }
    const nodeObj = (await client.getNode('node-a'))!
    const view = kubeletView({cluster: {...emptyClusterSnapshot(NOW().toISOString()), nodes: [nodeObj]}, node: snapshot})
    assert.ok(view.next.ok, view.next.ok ? '' : view.next.reason)
    return {kubeletconfig: view.next.value.values}
  }

  it('lists what else the restart applies (the files changed since the kubelet started)', async () => {
    const {deps} = await setup({config: KUBEADM_CONFIG})
    configz['node-a'] = await startedFromFiles(deps)
    // Since the kubelet started, maxPods went to 250 in its file: the restart for clusterDNS would apply that too.
    writeFileSync(node!.configPath, `${KUBEADM_CONFIG}maxPods: 250\n`)
    const plan = await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')]})
    assert.deepEqual(plan.pending.map((p) => [p.field, p.from, p.to]), [['maxPods', 110, 250]])
    const text = formatKubeletPlan(plan)
    assert.match(text, /the restart also applies 1 pending difference between the files and the running kubelet/)
    assert.equal(text.split('\n').find((l) => l.startsWith('    maxPods')), `    maxPods: 110 -> 250 (from ${node!.configPath}:24)`)
    // Once the kubelet runs with 250 too: nothing pending.
    configz['node-a'] = await startedFromFiles(deps)
    assert.deepEqual((await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')]})).pending, [])
  })

  /**
   * fix kubelet's whole flow (src/app/fix/node-repairs.ts: session, plan, a question per pending difference, the
   * final question, apply) over a scripted terminal: each answer is typed when its prompt appears.
   */
  async function fixOnTerminal(answers: string[]) {
    const {environment} = await import('../../../src/transports/connect.js')
    const {fixKubelet} = await import('../../../src/app/fix/node-repairs.js')
    const {pendingQuestion} = await import('../../../src/app/repair/kubelet-pending.js')
    const {askChoice, confirmPlan} = await import('../../../src/cli/confirm.js')
    const {scriptedTerminal} = await import('../../support/scripted-terminal.js')
    const sshConfig = tmp.path(`ssh-${++n}`, 'ssh_config')
    mkdirSync(dirname(sshConfig), {recursive: true})
    writeFileSync(sshConfig, node!.sshConfigLines())
    const log = tmp.path(`audit-${n}`, 'audit.log')
    const t = scriptedTerminal(answers)
    const env = {...environment({kubeconfig: api.kubeconfigPath, 'ssh-config': sshConfig}), stderr: t.stderr}
    const outcome = await fixKubelet(
      {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')], waitTimeoutMs: 15_000},
      {'audit-log': log, quiet: true},
      env,
      (text, question) => confirmPlan(text, {}, {question, io: t}),
      async (d, i, total) => {
        const q = pendingQuestion(d, i, total)
        t.stderr.write(`${q.text}\n`)
        return (await askChoice(`${d.field}:`, q.choices, t)) ?? 'abort'
      },
    )
    return {outcome, terminal: t, log}
  }

  it('on a terminal, asks for each pending difference: keep writes the running value back into config.yaml, apply lets the restart take the file\'s', async () => {
    const {deps} = await setup({config: KUBEADM_CONFIG})
    configz['node-a'] = await startedFromFiles(deps)
    // Since the kubelet started, two fields changed in its file: maxPods (with a comment) and imageGCHighThresholdPercent.
    const changed = `${KUBEADM_CONFIG}maxPods: 250 # for the big pods CIDR\nimageGCHighThresholdPercent: 90\n`
    writeFileSync(node!.configPath, changed)
    const {outcome, terminal, log} = await fixOnTerminal(['apply', 'keep', 'y'])
    assert.equal(outcome.status, 'applied', terminal.err())
    // Asked in diffConfigs order (sorted fields): imageGCHighThresholdPercent, then maxPods; then the final question.
    assert.equal(terminal.prompts(), 3)
    assert.match(terminal.err(), /^Pending difference 1 of 2: imageGCHighThresholdPercent: the running kubelet has 85, the files have 90 \(.*config\.yaml:\d+\)\.$/m)
    assert.match(terminal.err(), /^Pending difference 2 of 2: maxPods: the running kubelet has 110, the files have 250 \(.*config\.yaml:\d+\)\.$/m)
    assert.match(terminal.err(), /^ {2}keep: {2}write the running value 110 back to .*config\.yaml$/m)
    assert.match(terminal.err(), /Apply this change, write back the 1 running value kept and the 1 pending difference listed to node node-a and restart its kubelet\? \[y\/N\] /)
    // The plan shown before the final question names each choice.
    assert.match(terminal.out(), /^ {2}keep maxPods: 110 \(the running value\) in .*config\.yaml, which has 250$/m)
    assert.match(terminal.out(), /^ {4}imageGCHighThresholdPercent: 85 -> 90 \(from .*config\.yaml:\d+\): apply \(the restart takes 90\)$/m)
    // On the node: the change, the kept value in place of the file's (its comment kept), the applied one untouched.
    assert.equal(readFileSync(node!.configPath, 'utf8'), changed.replace('- 10.96.0.99', '- 10.96.0.10').replace('maxPods: 250 #', 'maxPods: 110 #'))
    assert.equal(node!.restarts(), 2)
    const [rec] = records(log)
    assert.equal(rec!.before, 'clusterDNS: [10.96.0.99]; maxPods: 250')
    assert.equal(rec!.after, 'clusterDNS: [10.96.0.10]; maxPods: 110')
    assert.match(String(rec!.details?.['pending']), /^imageGCHighThresholdPercent: 85 -> 90 \(from .*\): apply/)
    assert.match(String(rec!.details?.['kept']), /^maxPods: 110 -> 250 \(from .*\): keep \(110 written back to .*config\.yaml\)$/)
    assert.ok(outcome.kubeletPlan)
    assert.deepEqual([...outcome.kubeletPlan.pending, ...outcome.kubeletPlan.kept].map((p) => [p.field, p.choice]), [['imageGCHighThresholdPercent', 'apply'], ['maxPods', 'keep']])
  })

  it('keep writes a drop-in\'s value back into that drop-in; a value from a kubelet flag cannot be kept, and abort changes nothing', async () => {
    const dropIn = '# garbage collection for this node\nimageGCHighThresholdPercent: 90\n'
    const {deps} = await setup({config: KUBEADM_CONFIG, dropIns: {'20-gc.conf': dropIn}})
    configz['node-a'] = await startedFromFiles(deps)
    const dropInPath = join(node!.configDir!, '20-gc.conf')
    writeFileSync(dropInPath, dropIn.replace('90', '95'))
    const kept = await fixOnTerminal(['keep', 'y'])
    assert.equal(kept.outcome.status, 'applied', kept.terminal.err())
    assert.match(kept.terminal.err(), /imageGCHighThresholdPercent: the running kubelet has 90, the files have 95 \(.*20-gc\.conf:2\)/)
    assert.match(kept.terminal.err(), /keep: {2}write the running value 90 back to .*20-gc\.conf$/m)
    assert.equal(readFileSync(dropInPath, 'utf8'), dropIn, 'the drop-in holds the running value again, comment kept')
    assert.match(readFileSync(node!.configPath, 'utf8'), /clusterDNS:\n- 10\.96\.0\.10\n/)
    assert.equal(node!.restarts(), 2)

    // A flag the unit passes now but did not when the kubelet started: keep is not offered; abort changes nothing.
    configz['node-a'] = await startedFromFiles(deps)
    const unit = join(node!.dir, 'state', 'kubelet.service')
    writeFileSync(unit, readFileSync(unit, 'utf8').replace('--kubeconfig=', '--max-pods=200 --kubeconfig='))
    const before = {config: readFileSync(node!.configPath, 'utf8'), dropIn: readFileSync(dropInPath, 'utf8'), restarts: node!.restarts()}
    writeFileSync(node!.configPath, before.config.replace('- 10.96.0.10', '- 10.96.0.99'))
    const aborted = await fixOnTerminal(['keep', 'abort'])
    assert.equal(aborted.outcome.status, 'not-applied')
    assert.match(aborted.terminal.err(), /maxPods: the running kubelet has 110, the files have 200 \(flag --max-pods=200 at \/usr\/lib\/systemd\/system\/kubelet\.service:\d+\)/)
    assert.match(aborted.terminal.err(), /keep is not possible: the files' value comes from the kubelet flag --max-pods=200 .*change or remove that flag by hand/)
    assert.match(aborted.terminal.err(), /maxPods: \[apply\/abort\] keep\nAnswer apply or abort\.\nmaxPods: \[apply\/abort\] abort\n/, '"keep" is not an answer there: asked again')
    assert.match(aborted.terminal.err(), /Aborted at the pending difference maxPods: nothing was changed\./)
    assert.equal(aborted.outcome.kubeletPlan?.abortedAt?.field, 'maxPods')
    assert.equal(readFileSync(node!.configPath, 'utf8'), before.config.replace('- 10.96.0.10', '- 10.96.0.99'))
    assert.equal(readFileSync(dropInPath, 'utf8'), before.dropIn)
    assert.equal(node!.restarts(), before.restarts)
    assert.equal(readFileSync(aborted.log, 'utf8'), '', 'nothing to record')
  })

  it('edits config.yaml in place: comments kept, backup, atomic write with the same mode and owner, restart, audit and Event', async () => {
    const {deps, log, progress} = await setup({config: KUBEADM_CONFIG})
    configz['node-a'] = await startedFromFiles(deps)
    const plan = await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10'), parseSetArg('memorySwap.swapBehavior=LimitedSwap')]})
    assert.equal(plan.configFile, node!.configPath)
    assert.match(plan.configFileSource, /--config in the kubelet unit/)
    expectGolden('repair/kubelet/plan-set.txt', formatKubeletPlan(plan).replaceAll(node!.configPath, '/var/lib/kubelet/config.yaml').replace(/\(kubelet 1\.\d+\)/, '(kubelet 1.N)'))
    // Planning changed nothing.
    assert.equal(readFileSync(node!.configPath, 'utf8'), KUBEADM_CONFIG)
    assert.equal(node!.restarts(), 1)

    const result = await applyKubeletFix(deps, plan, {waitTimeoutMs: 15_000})
    assert.equal(result.outcome, 'applied')
    const after = readFileSync(node!.configPath, 'utf8')
    expectGolden('repair/kubelet/config-after-set.yaml', after)
    assert.match(after, /^# Written by kubeadm join/)
    assert.match(after, /cgroupDriver: systemd # must match containerd's SystemdCgroup\n# DNS for pods: the kube-dns Service\nclusterDNS:\n- 10\.96\.0\.10\n/)
    const st = statSync(node!.configPath)
    assert.equal(st.mode & 0o7777, 0o640)
    assert.deepEqual([st.uid, st.gid], [1234, 2345])
    const backup = result.backups[0]!
    assert.equal(result.backups.length, 1)
    assert.ok(backup.startsWith(`${node!.configPath}.node-doctor-backup-`) && BACKUP.test(backup), backup)
    assert.equal(readFileSync(backup, 'utf8'), KUBEADM_CONFIG)
    const bst = statSync(backup)
    assert.deepEqual([bst.mode & 0o7777, bst.uid, bst.gid], [0o640, 1234, 2345])
    assert.deepEqual(leftovers(dirname(node!.configPath)), [], 'no temp file is left behind')
    assert.equal(node!.restarts(), 2)
    assert.ok(node!.healthy())
    assert.ok(progress.some((p) => /systemctl restart kubelet/.test(p)))

    const [rec, ...more] = records(log)
    assert.equal(more.length, 0)
    assert.deepEqual(
      {outcome: rec!.outcome, node: rec!.node, action: rec!.action, target: rec!.target, before: rec!.before, after: rec!.after, who: rec!.who, details: rec!.details},
      {
        outcome: 'applied',
        node: 'node-a',
        action: 'fix kubelet',
        target: node!.configPath,
        before: 'clusterDNS: [10.96.0.99]; memorySwap.swapBehavior: <unset>',
        after: 'clusterDNS: [10.96.0.10]; memorySwap.swapBehavior: LimitedSwap',
        who: {localUser: 'tester', kubeContext: 'fake', kubeUser: 'fake-user'},
        details: {backup},
      },
    )
    assert.equal(result.eventPosted, true)
    const ev = events().at(-1)!
    assert.deepEqual([ev.reason, ev.type, ev.involvedObject.name], ['NodeDoctorRepair', 'Normal', 'node-a'])
  })

  it('edits the --config-dir drop-in that sets the field and leaves config.yaml alone', async () => {
    const dropIn = '# cluster DNS override for this node\nclusterDNS: [10.96.0.98]\n'
    const {deps} = await setup({config: KUBEADM_CONFIG, dropIns: {'20-dns.conf': dropIn, '10-other.conf': 'maxPods: 200\n'}})
    const plan = await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')]})
    assert.deepEqual(plan.changes.map((c) => c.path), [join(node!.configDir!, '20-dns.conf')])
    await applyKubeletFix(deps, plan, {waitTimeoutMs: 15_000})
    assert.equal(readFileSync(join(node!.configDir!, '20-dns.conf'), 'utf8'), '# cluster DNS override for this node\nclusterDNS: [10.96.0.10]\n')
    assert.equal(readFileSync(node!.configPath, 'utf8'), KUBEADM_CONFIG)
    assert.equal(readFileSync(join(node!.configDir!, '10-other.conf'), 'utf8'), 'maxPods: 200\n')
    // The backup does not end in .conf, so the kubelet does not read it as a drop-in.
    const files = readdirSync(node!.configDir!).sort()
    assert.deepEqual(files.slice(0, 2), ['10-other.conf', '20-dns.conf'])
    assert.equal(files.length, 3)
    assert.match(files[2]!, /^20-dns\.conf\.node-doctor-backup-20250601T12\d{4}Z$/)
  })

  it('rolls back when the kubelet does not come up with the new config: backup restored, restarted again, exit 1, audit and Warning Event', async () => {
    const {deps, log} = await setup({config: KUBEADM_CONFIG})
    node!.refuseConfig('cgroupDriver: cgroupfs')
    const plan = await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('cgroupDriver=cgroupfs')]})
    await assert.rejects(applyKubeletFix(deps, plan, {waitTimeoutMs: 3_000}), (err: unknown) => {
      assert.ok(err instanceof RepairFailedError)
      assert.equal(err.exitCode, 1)
      assert.match(err.message, /the change was not kept: http:\/\/127\.0\.0\.1:10248\/healthz did not answer ok within 3s/)
      assert.match(err.message, /the old configuration was restored from .*config\.yaml\.node-doctor-backup-20250601T12\d{4}Z and the kubelet is healthy again/)
      return true
    })
    assert.equal(readFileSync(node!.configPath, 'utf8'), KUBEADM_CONFIG)
    const st = statSync(node!.configPath)
    assert.deepEqual([st.mode & 0o7777, st.uid, st.gid], [0o640, 1234, 2345])
    assert.equal(node!.restarts(), 3, 'initial start, the failed restart, the rollback restart')
    assert.ok(node!.healthy())
    assert.deepEqual(leftovers(dirname(node!.configPath)), [])
    const rec = records(log)[0]!
    assert.equal(rec.outcome, 'rolled-back')
    assert.equal(rec.after, 'cgroupDriver: cgroupfs')
    assert.deepEqual([events().at(-1)!.reason, events().at(-1)!.type], ['NodeDoctorRollback', 'Warning'])
  })

  it('rolls back when systemctl restart itself fails', async () => {
    const {deps, log} = await setup({config: KUBEADM_CONFIG})
    node!.failNextRestart()
    const plan = await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')]})
    await assert.rejects(applyKubeletFix(deps, plan, {waitTimeoutMs: 10_000}), (err: unknown) => {
      assert.ok(err instanceof RepairFailedError)
      assert.match(err.message, /systemctl restart kubelet failed \(exit code 1: Job for kubelet\.service failed/)
      assert.match(err.message, /restored .* and the kubelet is healthy again/)
      return true
    })
    assert.equal(readFileSync(node!.configPath, 'utf8'), KUBEADM_CONFIG)
    assert.equal(records(log)[0]!.outcome, 'rolled-back')
  })

  it('a 403 on the Event is a warning; the repair is applied and audited', async () => {
    const {deps, log, warnings} = await setup({config: KUBEADM_CONFIG})
    api.setDenyRules([{verb: 'create', resource: 'events'}])
    const before = events().length
    const plan = await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')]})
    const result = await applyKubeletFix(deps, plan, {waitTimeoutMs: 15_000})
    assert.equal(result.outcome, 'applied')
    assert.equal(result.eventPosted, false)
    assert.equal(events().length, before)
    assert.match(warnings.join('\n'), /not recorded as an Event on node node-a \(not allowed to create events in namespace default\)/)
    assert.equal(records(log)[0]!.outcome, 'applied')
  })

  it('--from-finding KUBELET-016 sets clusterDNS to the kube-dns ClusterIP', async () => {
    const {deps} = await setup({config: KUBEADM_CONFIG})
    const plan = await planKubeletFix(deps, {node: 'node-a', fromFinding: 'kubelet-016'})
    assert.match(plan.why.join('\n'), /KUBELET-016: clusterDNS has 10\.96\.0\.99, which is not the kube-dns Service's ClusterIP \(10\.96\.0\.10\)/)
    assert.deepEqual(plan.changes[0]!.settings, [{field: 'clusterDNS', from: ['10.96.0.99'], to: ['10.96.0.10']}])
    await applyKubeletFix(deps, plan, {waitTimeoutMs: 15_000})
    assert.match(readFileSync(node!.configPath, 'utf8'), /clusterDNS:\n- 10\.96\.0\.10\n/)
    // Applied, the finding no longer fires: a second plan has nothing to do.
    const again = await planKubeletFix(deps, {node: 'node-a', fromFinding: 'KUBELET-016'})
    assert.equal(again.changes.length, 0)
    assert.equal(again.nothingReason, 'KUBELET-016 does not fire on node-a: nothing to change')
  })

  it('moves file names and content with quotes, $(...) and backslashes to and from the node exactly, never as shell code', async () => {
    await setup({config: KUBEADM_CONFIG})
    const shell = new NodeShell(transport!, {sudo: false, timeoutMs: 20_000})
    const dir = dirname(node!.configPath)
    // Were any of it run by a shell, the name or content would change and the exact comparisons below would fail.
    const path = join(dir, `we ird 'name' $(echo INJECTED) \`echo x\` *.conf`)
    const before = "a: 'it''s'\nb: \"$HOME $(id) \\\\ `uname`\"\nc: ünïcödé\n"
    writeFileSync(path, before)
    chmodSync(path, 0o604)
    chownSync(path, 4321, 5432)
    const read = await shell.readFile(path)
    assert.deepEqual(read, {path, text: before, mode: '604', uid: 4321, gid: 5432})
    const after = `${before}d: '$(echo INJECTED)' \`echo x\`\n`
    await shell.backupFile(path, `${path}.bak`)
    await shell.writeFileAtomic(path, after)
    assert.deepEqual(await shell.readFile(path), {path, text: after, mode: '604', uid: 4321, gid: 5432})
    await assert.rejects(shell.backupFile(path, `${path}.bak`), /already exists/)
    await shell.restoreFile(`${path}.bak`, path)
    assert.equal(readFileSync(path, 'utf8'), before)
    const name = path.slice(dir.length + 1)
    assert.deepEqual(readdirSync(dir).sort(), ['config.yaml', name, `${name}.bak`].sort(), 'no other file appeared (no temp file left, nothing created by a shell)')
  })

  it('refuses a change the kubelet would reject at start, and one a flag overrides; nothing is written', async () => {
    const {deps} = await setup({config: KUBEADM_CONFIG, extraFlags: '--cluster-dns=10.96.0.50'})
    await assert.rejects(planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('imageGCLowThresholdPercent=90'), parseSetArg('imageGCHighThresholdPercent=80')]}), (err: unknown) => {
      assert.ok(err instanceof UsageError)
      assert.match(err.message, /refuses at start, so nothing was changed:\n {2}imageGCLowThresholdPercent \(90\) must be less than imageGCHighThresholdPercent \(80\)/)
      return true
    })
    await assert.rejects(planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')]}), (err: unknown) => {
      assert.ok(err instanceof UsageError)
      assert.match(err.message, /clusterDNS: the kubelet flag --cluster-dns=10\.96\.0\.50 .*overrides the config file, so the change would have no effect/)
      return true
    })
    assert.equal(readFileSync(node!.configPath, 'utf8'), KUBEADM_CONFIG)
    assert.equal(node!.restarts(), 1)
  })

  it('a connection lost during systemctl restart kubelet: reconnects once, restores the backup, restarts, writes the audit record and says what the node holds', async () => {
    const {deps, log, progress} = await setup({config: KUBEADM_CONFIG})
    const ssh = transport!
    let dropped = false
    // The restart runs on the node, then the connection dies before its answer arrives (what a kubelet restart
    // that takes the node's network with it looks like from here).
    deps.transport = {
      node: ssh.node,
      kind: ssh.kind,
      close: () => ssh.close(),
      reconnect: () => ssh.reconnect(),
      async exec(command: string, options: {timeoutMs: number}) {
        const r = await ssh.exec(command, options)
        if (!dropped && command.includes('systemctl restart kubelet')) {
          dropped = true
          for (const c of (ssh as unknown as {clients: Array<{end(): void}>}).clients) c.end()
          throw new TransportError({node: ssh.node, address: 'test', reason: 'disconnected', detail: 'connection lost: read ECONNRESET'})
        }
        return r
      },
    } as NodeTransport & {reconnect(): Promise<void>}
    const plan = await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')]})
    await assert.rejects(applyKubeletFix(deps, plan, {waitTimeoutMs: 10_000}), (err: unknown) => {
      assert.ok(err instanceof RepairFailedError, String(err))
      assert.equal(err.exitCode, 1)
      assert.match(err.message, /interrupted while restarting the kubelet and waiting for it \(ssh to node node-a \(test\): connection lost: read ECONNRESET\); reconnected; the files were restored from .*config\.yaml\.node-doctor-backup-20250601T12\d{4}Z; the kubelet was restarted on the old configuration; on the node now: .*config\.yaml holds the old configuration/)
      return true
    })
    assert.ok(dropped)
    assert.equal(readFileSync(node!.configPath, 'utf8'), KUBEADM_CONFIG)
    assert.equal(node!.restarts(), 3, 'initial start, the interrupted restart, the restart after the restore')
    const [rec, ...more] = records(log)
    assert.equal(more.length, 0)
    assert.equal(rec!.outcome, 'rolled-back')
    assert.match(rec!.message, /^interrupted while restarting the kubelet .*holds the old configuration/)
    assert.match(String(rec!.details?.backup), BACKUP)
    assert.ok(progress.some((p) => /interrupted while restarting the kubelet/.test(p)))
  })

  it('a connection that cannot be re-made: the audit record still says what was left (the new config, the backup)', async () => {
    const {deps, log} = await setup({config: KUBEADM_CONFIG})
    const ssh = transport!
    let dead = false
    deps.transport = {
      node: ssh.node,
      kind: ssh.kind,
      close: () => ssh.close(),
      async exec(command: string, options: {timeoutMs: number}) {
        if (command.includes('systemctl restart kubelet')) dead = true
        if (dead) throw new TransportError({node: ssh.node, address: 'test', reason: 'disconnected', detail: 'connection lost'})
        return ssh.exec(command, options)
      },
    }
    deps.reconnect = () => Promise.reject(new Error('no route to host'))
    const plan = await planKubeletFix(deps, {node: 'node-a', set: [parseSetArg('clusterDNS=10.96.0.10')]})
    await assert.rejects(applyKubeletFix(deps, plan, {waitTimeoutMs: 5_000}), (err: unknown) => {
      assert.ok(err instanceof RepairFailedError, String(err))
      assert.match(err.message, /could not reconnect \(no route to host\); RESTORE FAILED: .*connection lost/)
      assert.match(err.hint ?? '', /the backups are .*node-doctor-backup-/)
      return true
    })
    const [rec] = records(log)
    assert.equal(rec!.outcome, 'failed')
    assert.match(rec!.message, /could not be read/)
  })
})
