// Bundle round trip through real temp directories and a real .tgz.
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {emptyClusterSnapshot, type NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {type Bundle, readBundle, writeBundle} from '../../../src/transports/bundle/bundle.js'
import {UsageError} from '../../../src/errors.js'

const dir = mkdtempSync(join(tmpdir(), 'nd-bundle-test-'))
after(() => rmSync(dir, {recursive: true, force: true}))

function sample(): Bundle {
  const cluster = emptyClusterSnapshot('2026-01-01T00:00:00.000Z')
  cluster.nodes.push({metadata: {name: 'n1'}})
  const node: NodeSnapshot = {
    apiVersion: 'node-doctor.io/v1alpha1', kind: 'NodeSnapshot', node: 'n1', collectedAt: '2026-01-01T00:00:00.000Z', transport: 'ssh',
    artifacts: {
      'iptables-save': {id: 'iptables-save', source: 'iptables-save', exitCode: 0, content: '*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n'},
      ipvsadm: {id: 'ipvsadm', source: 'ipvsadm -Sn', exitCode: 127, content: '', error: 'ipvsadm is not installed on the node'},
      'kubelet-config': {id: 'kubelet-config', source: 'cat /var/lib/kubelet/config.yaml', content: 'kind: KubeletConfiguration\ntoken: s3cret\n'},
    },
    errors: [],
  }
  return {manifest: {apiVersion: 'node-doctor.io/v1alpha1', kind: 'Bundle', createdAt: 'now', tool: {name: 'node-doctor', version: '0'}, nodes: ['n1']}, cluster, nodes: [node]}
}

describe('bundles', () => {
  it('round-trips a directory, keeping artifact errors and redacting secrets', async () => {
    const out = join(dir, 'b1')
    await writeBundle(out, sample())
    assert.equal(readFileSync(join(out, 'nodes/n1/iptables-save.txt'), 'utf8'), '*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n')
    const back = await readBundle(out)
    assert.deepEqual(back.nodes[0]!.artifacts['iptables-save'], sample().nodes[0]!.artifacts['iptables-save'])
    assert.equal(back.nodes[0]!.artifacts.ipvsadm!.error, 'ipvsadm is not installed on the node')
    assert.ok(!back.nodes[0]!.artifacts['kubelet-config']!.content.includes('s3cret'))
    assert.deepEqual(back.cluster, sample().cluster)
  })

  it('round-trips a .tgz', async () => {
    const out = join(dir, 'b2.tgz')
    await writeBundle(out, sample())
    const back = await readBundle(out)
    assert.equal(back.nodes[0]!.artifacts['iptables-save']!.content, sample().nodes[0]!.artifacts['iptables-save']!.content)
  })

  it('refuses a non-empty output directory and explains incomplete bundles', async () => {
    const out = join(dir, 'b3')
    mkdirSync(out)
    writeFileSync(join(out, 'keep.txt'), 'user data')
    await assert.rejects(writeBundle(out, sample()), (e: unknown) => e instanceof UsageError && /exists and is not empty/.test(e.message))
    assert.equal(readFileSync(join(out, 'keep.txt'), 'utf8'), 'user data')
    const b = join(dir, 'b4')
    await writeBundle(b, sample())
    rmSync(join(b, 'nodes/n1/iptables-save.txt'))
    await assert.rejects(readBundle(b), /artifact iptables-save of node n1 .* is missing/)
    await assert.rejects(readBundle(join(dir, 'nope')), /does not exist/)
  })
})
