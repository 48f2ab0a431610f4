// Pure parts of the debug-pod transport: pod names, reading a pod's start-up state, exit codes from the exec
// status channel, and the flag defaults matching the transport's.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {transportFlags} from '../../../../src/cli/flags.js'
import type {Pod} from '../../../../src/core/model/k8s.js'
import {
  DEFAULT_POD_IMAGE,
  DEFAULT_POD_NAMESPACE,
  debugPodName,
  debugPodStartState,
  exitCodeFromStatus,
  HOST_BOUND_DIRS,
  hostHasNoShell,
  newRunId,
  nsenterArgv,
} from '../../../../src/transports/pod/debug-pod.js'

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/

const podWith = (status: Record<string, unknown>): Pod => ({apiVersion: 'v1', kind: 'Pod', metadata: {name: 'p'}, status}) as Pod
const container = (state: Record<string, unknown>) => ({containerStatuses: [{name: 'node-doctor', ready: false, restartCount: 0, state}]})

describe('debugPodName', () => {
  it('is a DNS label of at most 62 characters, unique per node even for long names', () => {
    assert.equal(debugPodName('node-a', '0a1b2c3d'), 'node-doctor-node-a-0a1b2c3d')
    assert.equal(debugPodName('ip-10-0-0-1.ec2.internal', '0a1b2c3d'), 'node-doctor-ip-10-0-0-1-ec2-internal-0a1b2c3d')
    const long1 = debugPodName(`${'worker-'.repeat(8)}one.example.com`, '0a1b2c3d')
    const long2 = debugPodName(`${'worker-'.repeat(8)}two.example.com`, '0a1b2c3d')
    for (const n of [long1, long2]) {
      assert.ok(n.length <= 62, n)
      assert.match(n, DNS_LABEL)
    }
    assert.notEqual(long1, long2)
    assert.match(newRunId(), /^[0-9a-f]{8}$/)
  })

  it('wraps the command for nsenter into every namespace of PID 1', () => {
    assert.deepEqual(nsenterArgv("iptables-save -t 'nat'"), ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--', 'sh', '-c', "iptables-save -t 'nat'"])
  })
})

describe('debugPodStartState', () => {
  it('is running only when the phase is Running and the container runs', () => {
    assert.deepEqual(debugPodStartState(podWith({phase: 'Running', ...container({running: {startedAt: 'x'}})})), {state: 'running'})
    assert.equal(debugPodStartState(podWith({phase: 'Pending', ...container({running: {}})})).state, 'waiting')
  })

  it('keeps waiting through a first pull error or a slow start, and says why', () => {
    assert.deepEqual(debugPodStartState(podWith({phase: 'Pending', ...container({waiting: {reason: 'ErrImagePull', message: 'rate limited'}})})), {
      state: 'waiting',
      detail: 'container ErrImagePull: rate limited',
    })
    assert.deepEqual(debugPodStartState(podWith({phase: 'Pending', ...container({waiting: {reason: 'ContainerCreating'}})})), {state: 'waiting', detail: 'container ContainerCreating'})
    assert.deepEqual(
      debugPodStartState(podWith({phase: 'Pending', conditions: [{type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'node "x" not found'}]})),
      {state: 'waiting', detail: 'not scheduled: Unschedulable: node "x" not found'},
    )
    assert.match((debugPodStartState(podWith({})) as {detail: string}).detail, /no container status yet .*is the node Ready/)
  })

  it('gives up on back-off pulls, bad config, and pods that ended', () => {
    assert.deepEqual(debugPodStartState(podWith({phase: 'Pending', ...container({waiting: {reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"'}})})), {
      state: 'failed',
      reason: 'image-pull',
      detail: 'container ImagePullBackOff: Back-off pulling image "x"',
    })
    assert.equal((debugPodStartState(podWith({phase: 'Pending', ...container({waiting: {reason: 'CreateContainerConfigError'}})})) as {reason: string}).reason, 'pod-failed')
    assert.deepEqual(debugPodStartState(podWith({phase: 'Failed', reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline'})), {
      state: 'failed',
      reason: 'pod-failed',
      detail: 'pod Failed (DeadlineExceeded: Pod was active on the node longer than the specified deadline)',
    })
    assert.deepEqual(debugPodStartState(podWith({phase: 'Running', ...container({terminated: {reason: 'StartError', exitCode: 128, message: 'exec: "sleep": executable file not found'}})})), {
      state: 'failed',
      reason: 'pod-failed',
      detail: 'pod Running, container StartError with exit code 128: exec: "sleep": executable file not found',
    })
  })
})

describe('exitCodeFromStatus', () => {
  it('reads Success as 0 and the ExitCode cause of NonZeroExitCode; anything else is not an exit', () => {
    assert.equal(exitCodeFromStatus({status: 'Success'}), 0)
    assert.equal(exitCodeFromStatus({status: 'Failure', reason: 'NonZeroExitCode', details: {causes: [{reason: 'ExitCode', message: '137'}]}}), 137)
    assert.equal(exitCodeFromStatus({status: 'Failure', reason: 'InternalError', message: 'exec: "nsenter": executable file not found in $PATH'}), undefined)
    assert.equal(exitCodeFromStatus({status: 'Failure', details: {causes: [{reason: 'ExitCode', message: 'x'}]}}), undefined)
  })
})

describe('--via pod flags', () => {
  it("default to the transport's image and to a namespace of the run's own (kube-system where none may be created)", () => {
    assert.equal(transportFlags['pod-image'].default, DEFAULT_POD_IMAGE)
    assert.equal(transportFlags['pod-namespace'].default, undefined)
    assert.match(transportFlags['pod-namespace'].summary ?? '', new RegExp(`${DEFAULT_POD_NAMESPACE} where namespaces may not be created`))
  })
})

describe('hosts without a shell', () => {
  it('recognises util-linux and busybox nsenter failing to find sh, nothing else', () => {
    assert.equal(hostHasNoShell({exitCode: 127, stderr: 'nsenter: failed to execute sh: No such file or directory\n'}), true)
    assert.equal(hostHasNoShell({exitCode: 127, stderr: "nsenter: can't execute 'sh': No such file or directory\n"}), true)
    assert.equal(hostHasNoShell({exitCode: 127, stderr: 'sh: iptables-save: not found\n'}), false, 'a tool missing on a host with a shell')
    assert.equal(hostHasNoShell({exitCode: 1, stderr: 'nsenter: failed to execute sh: No such file or directory'}), false)
  })

  it("the host-network scope keeps the pod's mount namespace and binds the host's directories, passing the command as one word", () => {
    const argv = nsenterArgv("cat '/etc/a b'", 'host-network')
    assert.deepEqual(argv.slice(0, 11), ['nsenter', '-t', '1', '-u', '-i', '-n', '-p', '--', 'unshare', '-m', '--'])
    assert.equal(argv.at(-1), "cat '/etc/a b'")
    for (const d of HOST_BOUND_DIRS) assert.ok(argv.at(-2)!.includes(d))
    assert.deepEqual(nsenterArgv('x'), ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--', 'sh', '-c', 'x'])
  })
})
