// The local audit log: where it is, that it creates its directory, appends whole JSON lines (also from many
// writers at once) and fails with a clear error naming the file.
import assert from 'node:assert/strict'
import {chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {auditRecord, recordRepair, type RepairSummary} from '../../../../src/app/repair/audit.js'
import {AUDIT_API_VERSION, type AuditRecord} from '../../../../src/core/model/audit.js'
import {auditLogPath, AuditWriteError, FileAuditSink} from '../../../../src/transports/audit/file-audit-sink.js'

const dir = mkdtempSync(join(tmpdir(), 'nd-audit-'))
after(() => rmSync(dir, {recursive: true, force: true}))

const SUMMARY: RepairSummary = {
  who: {localUser: 'alice', host: 'laptop', kubeContext: 'prod', kubeUser: 'alice@prod'},
  node: 'node-a',
  action: 'fix kubelet',
  target: '/var/lib/kubelet/config.yaml',
  before: 'clusterDNS: [10.96.0.99]',
  after: 'clusterDNS: [10.96.0.10]',
  outcome: 'applied',
  message: 'kubelet restarted and healthy; backup at /var/lib/kubelet/config.yaml.node-doctor-20250601T120000Z',
  details: {backup: '/var/lib/kubelet/config.yaml.node-doctor-20250601T120000Z'},
  time: new Date('2025-06-01T12:00:00Z'),
}

describe('auditLogPath', () => {
  it('prefers --audit-log, then NODE_DOCTOR_AUDIT_LOG, then XDG_STATE_HOME, then ~/.local/state', () => {
    assert.equal(auditLogPath('/x/a.log', {NODE_DOCTOR_AUDIT_LOG: '/y/b.log'}, '/home/u'), '/x/a.log')
    assert.equal(auditLogPath(undefined, {NODE_DOCTOR_AUDIT_LOG: '/y/b.log', XDG_STATE_HOME: '/s'}, '/home/u'), '/y/b.log')
    assert.equal(auditLogPath(undefined, {XDG_STATE_HOME: '/s'}, '/home/u'), '/s/node-doctor/audit.log')
    assert.equal(auditLogPath('', {NODE_DOCTOR_AUDIT_LOG: ''}, '/home/u'), '/home/u/.local/state/node-doctor/audit.log')
  })
})

describe('FileAuditSink', () => {
  it('creates missing directories and appends one JSON line per record, file mode 0600', async () => {
    const file = join(dir, 'deep', 'er', 'audit.log')
    const sink = new FileAuditSink(file)
    await sink.append(auditRecord(SUMMARY))
    await sink.append(auditRecord({...SUMMARY, outcome: 'rolled-back'}))
    const lines = readFileSync(file, 'utf8').split('\n')
    assert.equal(lines.length, 3)
    assert.equal(lines[2], '')
    const first = JSON.parse(lines[0]!) as AuditRecord
    assert.deepEqual(first, {
      apiVersion: AUDIT_API_VERSION,
      kind: 'RepairRecord',
      time: '2025-06-01T12:00:00.000Z',
      who: SUMMARY.who,
      node: 'node-a',
      action: 'fix kubelet',
      target: '/var/lib/kubelet/config.yaml',
      before: 'clusterDNS: [10.96.0.99]',
      after: 'clusterDNS: [10.96.0.10]',
      outcome: 'applied',
      message: SUMMARY.message,
      details: SUMMARY.details,
    })
    assert.equal((JSON.parse(lines[1]!) as AuditRecord).outcome, 'rolled-back')
    assert.equal(statSync(file).mode & 0o777, 0o600)
  })

  it('keeps existing content and never interleaves records from concurrent writers', async () => {
    const file = join(dir, 'concurrent.log')
    writeFileSync(file, 'earlier line\n')
    const big = 'x'.repeat(20_000)
    await Promise.all(Array.from({length: 40}, (_, i) => new FileAuditSink(file).append(auditRecord({...SUMMARY, node: `node-${i}`, message: big}))))
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    assert.equal(lines[0], 'earlier line')
    assert.equal(lines.length, 41)
    assert.deepEqual(lines.slice(1).map((l) => (JSON.parse(l) as AuditRecord).node).sort(), Array.from({length: 40}, (_, i) => `node-${i}`).sort())
  })

  it('fails with an AuditWriteError naming the file when it cannot write', async () => {
    const blocker = join(dir, 'not-a-dir')
    writeFileSync(blocker, '')
    chmodSync(blocker, 0o600)
    const sink = new FileAuditSink(join(blocker, 'audit.log'))
    await assert.rejects(sink.append(auditRecord(SUMMARY)), (err: unknown) => {
      assert.ok(err instanceof AuditWriteError)
      assert.match(err.message, /cannot append to the audit log .*not-a-dir\/audit\.log/)
      assert.match(err.hint ?? '', /--audit-log/)
      return true
    })
  })
})

describe('recordRepair', () => {
  it('appends the record even when no event writer is given, and reports no Event', async () => {
    const file = join(dir, 'no-events.log')
    const warnings: string[] = []
    const r = await recordRepair(SUMMARY, {audit: new FileAuditSink(file), warn: (m) => warnings.push(m)})
    assert.equal(r.eventPosted, false)
    assert.deepEqual(warnings, [])
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), r.record)
  })
})
