// `agent manifests --layout`: the printed objects are exactly what a run over nodes of those layouts creates. The
// command runs in-process through oclif; its output is compared with a golden file and with the generator a run uses
// (app/agent-collect.ts agentManifestsText with the run's sorted, distinct layouts).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {Config} from '@oclif/core'
import {agentManifestsText} from '../../../../src/app/agent-collect.js'
import {LAYOUT_NAMES} from '../../../../src/app/manifest-layouts.js'
import AgentManifests from '../../../../src/commands/agent/manifests.js'
import {agentLayoutScope} from '../../../../src/core/agent/layout-scope.js'
import type {Node} from '../../../../src/core/model/k8s.js'
import {type ClusterSnapshot, emptyClusterSnapshot} from '../../../../src/core/model/snapshot.js'
import {expectGolden, REPO_ROOT} from '../../../support/golden.js'
import {node} from '../../../support/kube-objects.js'

async function manifests(args: string[]): Promise<{stdout: string; stderr: string; exitCode: number}> {
  const config = await Config.load({root: REPO_ROOT})
  const out: string[] = []
  const err: string[] = []
  const write = process.stdout.write.bind(process.stdout)
  const writeErr = process.stderr.write.bind(process.stderr)
  const saved = process.exitCode
  process.exitCode = undefined
  process.stdout.write = ((chunk: string | Uint8Array) => (out.push(String(chunk)), true)) as typeof process.stdout.write
  process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write
  try {
    await config.runCommand('agent:manifests', args)
  } finally {
    process.stdout.write = write
    process.stderr.write = writeErr
  }
  const exitCode = Number(process.exitCode ?? 0)
  process.exitCode = saved
  return {stdout: out.join(''), stderr: err.join(''), exitCode}
}

const fixed = ['--run-id', '0a1b2c3d', '--image', 'ghcr.io/node-doctor/kubectl-node-doctor:0.1.0']

describe('agent manifests --layout', () => {
  it("--layout k3s --layout kubeadm --only kubelet: only those layouts' directories, as a run over a k3s and a kubeadm node", async () => {
    const r = await manifests([...fixed, '--only', 'kubelet', '--layout', 'k3s', '--layout', 'kubeadm', '--layout', 'k3s'])
    assert.equal(r.exitCode, 0, r.stderr)
    expectGolden('agent/manifests/kubelet-k3s-kubeadm.yaml', r.stdout)
    assert.ok(r.stdout.includes('node-doctor.io/mounts-for-layouts: k3s,kubeadm'))
    assert.ok(r.stdout.includes('/var/lib/rancher/k3s/agent/etc'))
    assert.ok(!r.stdout.includes('/home/kubernetes') && !r.stdout.includes('/var/lib/rancher/rke2'), 'no GKE or RKE2 directory')
    // A run's layout scope of a k3s node and a kubeadm node (from their Node objects) gives the same objects.
    const kubeadmNode = node('node-a', '192.168.0.11', '10.0.1.0/24') as Node
    const base = node('node-k', '192.168.0.12', '10.0.2.0/24') as Node
    const k3s: Node = {...base, status: {...base.status, nodeInfo: {...base.status?.nodeInfo, kubeletVersion: 'v1.37.2+k3s1'}}} as Node
    const kubeadmConfig = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kubeadm-config'}, data: {}}
    const cluster: ClusterSnapshot = {...emptyClusterSnapshot('2026-12-01T00:00:00Z'), nodes: [kubeadmNode, k3s], configMaps: [kubeadmConfig as ClusterSnapshot['configMaps'][number]]}
    const scope = agentLayoutScope(cluster, [kubeadmNode, k3s])
    assert.deepEqual(scope.layouts, ['k3s', 'kubeadm'])
    assert.equal(r.stdout, agentManifestsText({runId: '0a1b2c3d', image: 'ghcr.io/node-doctor/kubectl-node-doctor:0.1.0', version: 'x', areas: ['kubelet'], commandTimeoutMs: 30_000, layouts: scope.layouts}))
  })

  it("without --layout: every layout's directories (the most a run mounts), unchanged", async () => {
    const r = await manifests([...fixed, '--only', 'kubelet'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.equal(r.stdout, agentManifestsText({runId: '0a1b2c3d', image: 'ghcr.io/node-doctor/kubectl-node-doctor:0.1.0', version: 'x', areas: ['kubelet'], commandTimeoutMs: 30_000}))
    for (const p of ['/home/kubernetes', '/var/lib/rancher/rke2/agent/etc', '/var/lib/rancher/k3s/agent/etc']) assert.ok(r.stdout.includes(p), p)
  })

  it('an unknown layout name is refused, naming the known ones', async () => {
    const r = await manifests([...fixed, '--layout', 'openshift'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /unknown layout "openshift"/)
    assert.ok(r.stderr.includes(`Known layouts: ${LAYOUT_NAMES.join(', ')}.`), r.stderr)
    assert.equal(r.stdout, '')
  })

  it("the flag's help names exactly the layouts the table knows", () => {
    const summary = AgentManifests.flags.layout.summary ?? ''
    const listed = /: (.*?)\. /.exec(summary)?.[1]?.replace(' or ', ', ').split(', ')
    assert.deepEqual(listed, [...LAYOUT_NAMES])
  })
})
