// The namespace of a --via pod run: created once with privileged Pod Security labels, deleted at the end, kube-system
// (with a warning) where namespaces may not be created, and never deleted when it was not created.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {DEBUG_NAMESPACE_SELECTOR, debugNamespaceManifest} from '../../../../src/core/model/managed-objects.js'
import type {KubeObject} from '../../../../src/core/model/k8s.js'
import {ClusterAccessError} from '../../../../src/ports/cluster.js'
import {RunNamespace} from '../../../../src/transports/pod/run-namespace.js'

function fakeApi(refuse?: ClusterAccessError) {
  const created: KubeObject[] = []
  const deleted: string[] = []
  return {
    created,
    deleted,
    api: {
      create: async (objects: readonly KubeObject[]) => {
        if (refuse) throw refuse
        created.push(...objects)
      },
      deleteNamespace: async (name: string) => {
        deleted.push(name)
        return true
      },
    },
  }
}
const noRegister = () => () => undefined

describe('RunNamespace', () => {
  it('creates node-doctor-debug-RUN once, labelled privileged and findable by cleanup, and deletes it on close', async () => {
    const f = fakeApi()
    const ns = new RunNamespace(f.api, '0a1b2c3d', () => assert.fail('no warning'), noRegister)
    assert.deepEqual(await Promise.all([ns.ensure(), ns.ensure()]), ['node-doctor-debug-0a1b2c3d', 'node-doctor-debug-0a1b2c3d'])
    assert.equal(f.created.length, 1)
    const labels = f.created[0]!.metadata.labels!
    for (const mode of ['enforce', 'warn', 'audit']) assert.equal(labels[`pod-security.kubernetes.io/${mode}`], 'privileged')
    for (const term of DEBUG_NAMESPACE_SELECTOR.split(',')) {
      const [k, v] = term.split('=')
      assert.equal(labels[k!], v, `cleanup's selector matches ${term}`)
    }
    assert.deepEqual(f.created[0], debugNamespaceManifest('0a1b2c3d'))
    await ns.close()
    await ns.close()
    assert.deepEqual(f.deleted, ['node-doctor-debug-0a1b2c3d'])
  })

  it('where namespaces may not be created: kube-system, with a warning naming --pod-namespace; nothing deleted', async () => {
    const f = fakeApi(new ClusterAccessError('status', 'namespaces is forbidden: User "dev" cannot create resource "namespaces"', {server: 'https://127.0.0.1:6443', status: {code: 403} as never}))
    const warnings: string[] = []
    const ns = new RunNamespace(f.api, '0a1b2c3d', (m) => warnings.push(m), noRegister)
    assert.equal(await ns.ensure(), 'kube-system')
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /--pod-namespace/)
    await ns.close()
    assert.deepEqual(f.deleted, [])
  })
})
