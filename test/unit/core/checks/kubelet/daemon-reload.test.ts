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
