// A repair's Event on the Node, through the real client against the test API server: the Event is a core/v1 Event
// in namespace default about the Node; a 403 on it is a warning and the audit record is still written.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {after, afterEach, before, describe, it} from 'node:test'
import {recordRepair, type RepairSummary} from '../../../src/app/repair/audit.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {FileAuditSink} from '../../../src/transports/audit/file-audit-sink.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {node} from '../../support/kube-objects.js'
import {tempDir} from '../../support/kubeconfig.js'

const tmp = tempDir('nd-event-')
let api: FakeApiServer
let client: KubeClusterClient

const SUMMARY: RepairSummary = {
  who: {localUser: 'alice', host: 'laptop', kubeContext: 'fake', kubeUser: 'fake-user'},
  node: 'node-a',
  nodeUid: 'uid-node-a',
  action: 'fix kubelet',
  target: '/var/lib/kubelet/config.yaml',
  before: 'clusterDNS: [10.96.0.99]',
  after: 'clusterDNS: [10.96.0.10]',
  outcome: 'rolled-back',
  message: 'the kubelet did not become healthy; the backup was restored.',
  time: new Date('2025-06-01T12:00:00.123Z'),
}

before(async () => {
  api = await startFakeApiServer({objects: [node('node-a', '192.168.0.11', '10.0.1.0/24')]})
  client = new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, tmp.path('home')))
})
after(async () => {
  await api.close()
  tmp.cleanup()
})
afterEach(() => api.setDenyRules([]))

describe('recordRepair with the Kubernetes client', () => {
  it('posts a Warning Event about the Node in namespace default and appends the audit record', async () => {
    const log = tmp.path('audit-1.log')
    const warnings: string[] = []
    const r = await recordRepair(SUMMARY, {audit: new FileAuditSink(log), events: client, warn: (m) => warnings.push(m)})
    assert.equal(r.eventPosted, true)
    assert.deepEqual(warnings, [])
    const events = api.objects().filter((o) => o.kind === 'Event')
    assert.equal(events.length, 1)
    const e = events[0] as unknown as Record<string, unknown> & {metadata: {namespace: string; name: string}}
    assert.equal(e.metadata.namespace, 'default')
    assert.match(e.metadata.name, /^node-a\.node-doctor\./)
    assert.deepEqual(e['involvedObject'], {apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'uid-node-a'})
    assert.equal(e['type'], 'Warning')
    assert.equal(e['reason'], 'NodeDoctorRollback')
    assert.equal(e['action'], 'fix kubelet')
    assert.equal(e['firstTimestamp'], '2025-06-01T12:00:00Z')
    assert.deepEqual(e['source'], {component: 'node-doctor'})
    assert.match(String(e['message']), /fix kubelet \(rolled-back\) on \/var\/lib\/kubelet\/config\.yaml: clusterDNS: \[10\.96\.0\.99\] -> clusterDNS: \[10\.96\.0\.10\]/)
    assert.match(String(e['message']), /By alice@laptop, kube user fake-user\./)
    assert.equal(JSON.parse(readFileSync(log, 'utf8')).outcome, 'rolled-back')
  })

  it('tolerates a 403 on the Event: a warning, and the audit record is still appended', async () => {
    api.setDenyRules([{verb: 'create', resource: 'events'}])
    const before = api.objects().filter((o) => o.kind === 'Event').length
    const log = tmp.path('audit-2.log')
    const warnings: string[] = []
    const r = await recordRepair({...SUMMARY, outcome: 'applied'}, {audit: new FileAuditSink(log), events: client, warn: (m) => warnings.push(m)})
    assert.equal(r.eventPosted, false)
    assert.deepEqual(warnings, [`warning: the repair was not recorded as an Event on node node-a (not allowed to create events in namespace default); it is in the audit log ${log}`])
    assert.equal(api.objects().filter((o) => o.kind === 'Event').length, before)
    assert.equal(JSON.parse(readFileSync(log, 'utf8')).outcome, 'applied')
    assert.ok(api.requests.some((q) => q.method === 'POST' && q.path === '/api/v1/namespaces/default/events' && q.status === 403))
  })
})
