// Agent pod status → done / still coming / never going to produce a document, with the reason shown to the user.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {agentPodState} from '../../../../src/core/agent/pod-state.js'
import type {Pod} from '../../../../src/core/model/k8s.js'
import {agentWaitMs} from '../../../../src/app/live/in-cluster.js'

type Status = NonNullable<Pod['status']>
type ContainerStatus = NonNullable<Status['containerStatuses']>[number]
const pod = (status: Status): Pod => ({apiVersion: 'v1', kind: 'Pod', metadata: {name: 'node-doctor-agent-x', namespace: 'node-doctor-1'}, spec: {nodeName: 'node-a'}, status})
const agent = (extra: Partial<ContainerStatus>): ContainerStatus => ({name: 'agent', ready: false, restartCount: 0, image: 'ghcr.io/node-doctor/kubectl-node-doctor:0.1.0', ...extra})

describe('agentPodState', () => {
  it('Ready means the document is in the log; Running alone means still collecting', () => {
    assert.deepEqual(agentPodState(pod({phase: 'Running', conditions: [{type: 'Ready', status: 'True'}], containerStatuses: [agent({ready: true, state: {running: {}}})]})), {state: 'ready'})
    assert.deepEqual(agentPodState(pod({phase: 'Running', conditions: [{type: 'Ready', status: 'False'}], containerStatuses: [agent({state: {running: {}}})]})), {
      state: 'waiting',
      detail: 'collecting (pod running, not Ready yet)',
    })
  })

  it('image pulls, container config errors and crashes are final, with the kubelet reason', () => {
    assert.deepEqual(agentPodState(pod({phase: 'Pending', containerStatuses: [agent({state: {waiting: {reason: 'ImagePullBackOff', message: 'Back-off pulling image'}}})]})), {
      state: 'failed',
      reason: 'image-pull',
      detail: 'cannot pull the agent image ghcr.io/node-doctor/kubectl-node-doctor:0.1.0: ImagePullBackOff: Back-off pulling image',
    })
    assert.deepEqual(agentPodState(pod({phase: 'Pending', containerStatuses: [agent({state: {waiting: {reason: 'CreateContainerConfigError', message: 'failed to generate container spec'}}})]})), {
      state: 'failed',
      reason: 'config',
      detail: 'the agent container cannot be created: CreateContainerConfigError: failed to generate container spec',
    })
    const crashed = agentPodState(pod({phase: 'Running', containerStatuses: [agent({restartCount: 2, state: {waiting: {reason: 'CrashLoopBackOff'}}, lastState: {terminated: {exitCode: 5, reason: 'Error'}}})]}))
    assert.deepEqual(crashed, {state: 'failed', reason: 'crashed', detail: 'the agent exited with code 5 (Error) and was restarted 2 time(s)'})
    assert.equal(agentPodState(pod({phase: 'Failed'})).state, 'failed')
  })

  it('not scheduled yet, or no kubelet report yet: keep waiting, and say why', () => {
    const unscheduled = pod({phase: 'Pending', conditions: [{type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available'} as {type: string; status: string}]})
    assert.deepEqual(agentPodState(unscheduled), {state: 'waiting', detail: 'not scheduled: Unschedulable: 0/3 nodes are available'})
    assert.deepEqual(agentPodState(pod({phase: 'Pending'})), {state: 'waiting', detail: 'pod Pending, no container status yet (is the node Ready?)'})
    assert.deepEqual(agentPodState(pod({phase: 'Pending', containerStatuses: [agent({state: {waiting: {reason: 'ContainerCreating'}}})]})), {state: 'waiting', detail: 'container ContainerCreating'})
  })

  it('the wait deadline grows with the DaemonSet controller\'s pod creation rate', () => {
    assert.equal(agentWaitMs(300_000, 1000), 350_000)
    assert.equal(agentWaitMs(0, 5000), 550_000)
  })
})
