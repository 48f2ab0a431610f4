// The Environment commands hand to services: nothing is read before a service asks, --via picks the transport.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {UsageError} from '../../../src/errors.js'
import type {ClusterConnection} from '../../../src/ports/environment.js'
import {environment} from '../../../src/transports/connect.js'

describe('transports/connect environment()', () => {
  it('reads no kubeconfig until a service asks for the cluster', () => {
    const env = environment({kubeconfig: '/nonexistent/kubeconfig'})
    assert.throws(() => env.cluster(), UsageError)
  })

  it('picks the node transport by --via, refusing an unknown one', async () => {
    const cluster = {access: {context: 'c', server: 'https://x'}, api: {}} as unknown as ClusterConnection
    const local = environment({via: 'local'}).nodes(cluster, () => undefined)
    assert.equal(local.kind, 'local')
    const t = await local.connect({apiVersion: 'v1', kind: 'Node', metadata: {name: 'n1'}} as never)
    assert.equal(t.kind, 'local')
    await t.close()
    await local.close()
    assert.equal(environment({via: 'ssh'}).nodes(cluster, () => undefined).kind, 'ssh')
    assert.throws(() => environment({via: 'carrier-pigeon'}).nodes(cluster, () => undefined), (e: unknown) => e instanceof UsageError && /unknown --via carrier-pigeon/.test(e.message))
  })
})
