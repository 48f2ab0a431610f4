// The kubelet's true hazard stories (issue #18 item 5): `systemctl show kubelet -p NeedDaemonReload,...` read, and
// the sentence a KUBELET-019 / KUBELET-001 finding tells when the kubelet runs fine with a rejected flag in its files.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parseKubeletSystemdState, pendingRestartCaveat, rejectedFlagStory} from '../../../../../src/core/checks/kubelet/daemon-reload.js'
import {COLLECTION_PLAN} from '../../../../../src/core/collection/plan.js'

// systemctl show prints systemd's own property order, not the -p order.
const SHOW = [
  'FragmentPath=/lib/systemd/system/kubelet.service',
  'DropInPaths=/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf /etc/systemd/system/kubelet.service.d/20-extra.conf',
  'NeedDaemonReload=yes',
  'ExecMainStartTimestamp=Tue 2026-11-10 09:12:01 UTC',
  'ActiveEnterTimestamp=Tue 2026-11-10 09:12:01 UTC',
  '',
].join('\n')

describe('kubelet daemon-reload hazard', () => {
  it('reads NeedDaemonReload, the timestamps, the unit file and its drop-ins', () => {
    assert.deepEqual(parseKubeletSystemdState(SHOW), {
      fragmentPath: '/lib/systemd/system/kubelet.service',
      dropInPaths: ['/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf', '/etc/systemd/system/kubelet.service.d/20-extra.conf'],
      needDaemonReload: true,
      mainStarted: 'Tue 2026-11-10 09:12:01 UTC',
      activeSince: 'Tue 2026-11-10 09:12:01 UTC',
    })
    assert.deepEqual(parseKubeletSystemdState('NeedDaemonReload=no\nActiveEnterTimestamp=\nDropInPaths=\n'), {needDaemonReload: false, dropInPaths: []})
    assert.deepEqual(parseKubeletSystemdState('garbage\n=x\n'), {dropInPaths: []})
  })

  it('a running kubelet with NeedDaemonReload=yes: the next daemon-reload + restart will fail, and why', () => {
    const story = rejectedFlagStory(['--network-plugin'], true, parseKubeletSystemdState(SHOW))
    assert.equal(
      story,
      'the kubelet runs (started Tue 2026-11-10 09:12:01 UTC) from files as they were when it started; the unit files changed since systemd loaded them (NeedDaemonReload=yes) and now pass --network-plugin: ' +
        'the next daemon-reload + restart will fail because the kubelet exits with "unknown flag: --network-plugin"',
    )
    assert.doesNotMatch(story, /^the kubelet exits/)
  })

  it('a running kubelet without a pending reload (an environment file changed): the next restart will fail', () => {
    assert.match(rejectedFlagStory(['--network-plugin'], true, {needDaemonReload: false, dropInPaths: []}), /the next restart \(or reboot\) will fail because the kubelet exits with "unknown flag: --network-plugin"$/)
  })

  it('a kubelet that does not run: it exits at start, in a restart loop', () => {
    assert.match(rejectedFlagStory(['--container-runtime'], false, undefined), /^the kubelet exits with "unknown flag: --container-runtime" at start; systemd restarts it in a loop/)
  })

  it('KUBELET-001: applying pending changes by a restart says it will fail while a rejected flag is in the files', () => {
    assert.equal(pendingRestartCaveat([], undefined), '')
    assert.equal(
      pendingRestartCaveat(['--network-plugin'], parseKubeletSystemdState(SHOW)),
      "a daemon-reload + restart applies these, but the kubelet's files also pass --network-plugin, which it rejects: the daemon-reload + restart will fail until that flag is removed (KUBELET-019)",
    )
  })

  it('the collection plan reads the unit state with a fixed command', () => {
    const item = COLLECTION_PLAN.find((p) => p.id === 'kubelet-systemd-state')
    assert.deepEqual(item?.argv, ['systemctl', 'show', 'kubelet', '-p', 'NeedDaemonReload,ActiveEnterTimestamp,ExecMainStartTimestamp,FragmentPath,DropInPaths'])
    assert.deepEqual(item?.areas, ['kubelet'])
  })
})

describe('KUBELET-019 and KUBELET-001 tell the hazard from what runs (removed-flag bundle)', async () => {
  const {readBundle} = await import('../../../../../src/transports/bundle/bundle.js')
  const {runChecks} = await import('../../../../../src/core/checks/run.js')
  const {KUBELET_CHECKS} = await import('../../../../../src/core/checks/kubelet/index.js')
  const {FIXTURES} = await import('../../../../support/golden.js')
  const {join} = await import('node:path')
  const b = await readBundle(join(FIXTURES, 'checks', 'kubelet', 'removed-flag'))
  // The bundle's kubelet crashed (no /configz); a kubelet still running from before the flag was added answers it.
  const healthy = await readBundle(join(FIXTURES, 'checks', 'kubelet', 'healthy'))
  const run = (id: string, systemd?: string, configz = true) => {
    const node = structuredClone(b.nodes.find((n) => n.node === 'node-a')!)
    if (systemd !== undefined) node.artifacts['kubelet-systemd-state'] = {id: 'kubelet-systemd-state', source: 'systemctl show kubelet', content: systemd} as never
    const cluster = structuredClone(b.cluster)
    if (configz) cluster.configz['node-a'] = healthy.cluster.configz['node-a']!
    return runChecks([KUBELET_CHECKS.find((c) => c.spec.id === id)!], cluster, [node]).findings
  }

  it('a kubelet that runs (configz answered) with NeedDaemonReload=yes: the next daemon-reload + restart will fail', () => {
    const f = run('KUBELET-019', 'NeedDaemonReload=yes\nExecMainStartTimestamp=Tue 2026-11-10 09:12:01 UTC\n')
    assert.ok(f.length > 0)
    for (const x of f) {
      if (!/unknown flag/.test(x.message)) continue
      assert.match(x.message, /the kubelet runs \(started Tue 2026-11-10 09:12:01 UTC\)/)
      assert.match(x.message, /NeedDaemonReload=yes.*the next daemon-reload \+ restart will fail because the kubelet exits with "unknown flag: /)
      assert.doesNotMatch(x.message, /this kubelet \(1\.\d+\) exits with/)
    }
  })

  it('the story is composed from the removal facts: the whole flag as written, its version, replacement and reference', () => {
    const f = run('KUBELET-019', 'NeedDaemonReload=no\n').filter((x) => /unknown flag/.test(x.message))
    assert.ok(f.length > 0)
    for (const x of f) {
      const flag = x.subject?.name ?? ''
      assert.ok(x.message.startsWith(`${flag}: removed in `), x.message)
      assert.match(x.message, /; the kubelet runs from files as they were when it started; they now pass .*: the next restart \(or reboot\) will fail because the kubelet exits with "unknown flag: .*"\. Use .+ \(.+\)$/)
    }
  })

  it('without /configz the kubelet may not be running: the story stays "exits at start"', () => {
    const f = run('KUBELET-019', 'NeedDaemonReload=yes\n', false)
    assert.ok(f.some((x) => /this kubelet \(1\.\d+\) exits with "unknown flag/.test(x.message)), f.map((x) => x.message).join('\n'))
  })
})
