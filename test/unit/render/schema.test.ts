// schemas/report.schema.json describes the Report exactly: real output validates, broken documents do not,
// and its enums follow the model's constants.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {AREAS, SEVERITIES, buildReport} from '../../../src/core/model/report.js'
import {renderJson} from '../../../src/render/json.js'
import {REPO_ROOT} from '../../support/golden.js'
import {SAMPLE_METADATA, SAMPLE_REPORTS} from '../../support/sample-reports.js'

const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8'))
const validate = new Ajv2020({allErrors: true, strict: true}).compile(schema)

type Doc = Record<string, any>

function sample(): Doc {
  return JSON.parse(renderJson(SAMPLE_REPORTS.unhealthy()))
}

function errors(doc: unknown): string[] {
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
}

describe('report schema', () => {
  it('validates the JSON output of every sample report and of a minimal one', () => {
    for (const [name, make] of Object.entries(SAMPLE_REPORTS)) assert.deepEqual(errors(JSON.parse(renderJson(make()))), [], name)
    const minimal = buildReport({metadata: {generatedAt: '2026-01-01T00:00:00.123+02:00', tool: {name: 'node-doctor', version: ''}, command: ''}, nodes: []})
    assert.deepEqual(errors(JSON.parse(renderJson(minimal))), [])
  })

  it('has the model enums for area and severity', () => {
    assert.deepEqual(schema.$defs.area.enum, [...AREAS])
    assert.deepEqual(schema.$defs.severity.enum, [...SEVERITIES])
  })

  const broken: Array<[string, (d: Doc) => void, RegExp]> = [
    ['a missing top-level field', (d) => delete d.collectionErrors, /must have required property 'collectionErrors'/],
    ['a missing finding field', (d) => delete d.findings[0].remedy, /\/findings\/0 must have required property 'remedy'/],
    ['a bad severity', (d) => (d.findings[1].severity = 'critical'), /\/findings\/1\/severity must be equal to one of the allowed values/],
    ['a bad area', (d) => (d.results[0].area = 'firewall'), /\/results\/0\/area must be equal to one of the allowed values/],
    ['a bad check status', (d) => (d.results[0].status = 'error'), /\/results\/0\/status must be equal/],
    ['a bad node status', (d) => (d.nodes[0].status = 'down'), /\/nodes\/0\/status must be equal/],
    ['a bad report status', (d) => (d.summary.status = 'ok'), /\/summary\/status must be equal/],
    ['an unknown field on a finding', (d) => (d.findings[0].fixed = true), /\/findings\/0 must NOT have additional properties/],
    ['an unknown field on the report', (d) => (d.extra = 1), /must NOT have additional properties/],
    ['an unknown field on a subject', (d) => (d.findings[0].subject.table = 'nat'), /\/findings\/0\/subject must NOT have additional properties/],
    ['a wrong apiVersion', (d) => (d.apiVersion = 'node-doctor.io/v1'), /\/apiVersion must be equal to constant/],
    ['a wrong kind', (d) => (d.kind = 'List'), /\/kind must be equal to constant/],
    ['a non-string evidence line', (d) => (d.findings[0].evidence = [1]), /\/findings\/0\/evidence\/0 must be string/],
    ['a negative count', (d) => (d.summary.findings.error = -1), /\/summary\/findings\/error must be >= 0/],
    ['a fractional count', (d) => (d.nodes[0].findings.info = 0.5), /\/nodes\/0\/findings\/info must be integer/],
    ['a timestamp that is not RFC 3339', (d) => (d.metadata.generatedAt = 'yesterday'), /\/metadata\/generatedAt must match pattern/],
    ['a non-string annotation', (d) => (d.metadata.annotations.mode = 3), /\/metadata\/annotations\/mode must be string/],
    ['a collection error without a source', (d) => (d.collectionErrors = [{message: 'x'}]), /\/collectionErrors\/0 must have required property 'source'/],
  ]
  for (const [what, breakIt, expected] of broken) {
    it(`rejects ${what}`, () => {
      const doc = sample()
      breakIt(doc)
      const found = errors(doc)
      assert.ok(found.some((e) => expected.test(e)), `expected ${expected} in:\n${found.join('\n')}`)
    })
  }

  it('accepts the optional fields the model allows', () => {
    const doc = JSON.parse(
      renderJson(
        buildReport({
          metadata: SAMPLE_METADATA,
          nodes: [{name: 'n1', durationMs: 12.5}],
          results: [{id: 'X-1', node: 'n1', area: 'conntrack', status: 'skipped', reason: 'missing input: conntrack'}],
          findings: [{id: 'X-2', node: 'n1', area: 'endpoints', severity: 'info', message: 'm', subject: {kind: 'Service', name: 'web', namespace: 'default', in: 'cluster'}, evidence: [], remedy: 'r', group: 'default/web:80'}],
          collectionErrors: [{source: 'list services', message: 'forbidden', fatal: false}],
        }),
      ),
    )
    assert.deepEqual(errors(doc), [])
  })
})
