// SARIF 2.1.0: checked against the parts of the OASIS schema node-doctor uses (no network, no SARIF dependency),
// plus the mapping rules: levels, rule metadata from the catalog, logical locations, notifications.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {buildReport} from '../../../src/core/model/report.js'
import {renderSarif, toSarif} from '../../../src/render/sarif.js'
import {SAMPLE_CATALOG, SAMPLE_METADATA, healthyReport, partialReport, unhealthyReport} from '../../support/sample-reports.js'

const text = {type: 'object', required: ['text'], properties: {text: {type: 'string', minLength: 1}}}
const logicalLocation = {
  type: 'object',
  properties: {name: {type: 'string'}, fullyQualifiedName: {type: 'string'}, kind: {type: 'string'}, properties: {type: 'object'}},
  additionalProperties: false,
}
const location = {type: 'object', required: ['logicalLocations'], properties: {logicalLocations: {type: 'array', minItems: 1, items: logicalLocation}}}

/** A subset of sarif-schema-2.1.0.json: required members, enums and the shapes of the members we emit. */
const SARIF_SUBSET = {
  type: 'object',
  required: ['$schema', 'version', 'runs'],
  properties: {
    $schema: {type: 'string', pattern: 'sarif-2\\.1\\.0'},
    version: {const: '2.1.0'},
    runs: {
      type: 'array',
      minItems: 1,
      maxItems: 1,
      items: {
        type: 'object',
        required: ['tool', 'results', 'invocations'],
        properties: {
          tool: {
            type: 'object',
            required: ['driver'],
            properties: {
              driver: {
                type: 'object',
                required: ['name', 'rules'],
                properties: {
                  name: {const: 'node-doctor'},
                  version: {type: 'string'},
                  rules: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['id'],
                      properties: {
                        id: {type: 'string'},
                        shortDescription: text,
                        fullDescription: text,
                        help: text,
                        defaultConfiguration: {type: 'object', properties: {level: {enum: ['none', 'note', 'warning', 'error']}}},
                        properties: {type: 'object'},
                      },
                      additionalProperties: false,
                    },
                  },
                },
              },
            },
          },
          invocations: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['executionSuccessful'],
              properties: {
                executionSuccessful: {type: 'boolean'},
                toolExecutionNotifications: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['message'],
                    properties: {
                      level: {enum: ['none', 'note', 'warning', 'error']},
                      message: text,
                      descriptor: {type: 'object', required: ['id'], properties: {id: {type: 'string'}}},
                      locations: {type: 'array', items: location},
                      properties: {type: 'object'},
                    },
                    additionalProperties: false,
                  },
                },
              },
            },
          },
          results: {
            type: 'array',
            items: {
              type: 'object',
              required: ['ruleId', 'level', 'message', 'locations'],
              properties: {
                ruleId: {type: 'string'},
                ruleIndex: {type: 'integer', minimum: 0},
                level: {enum: ['none', 'note', 'warning', 'error']},
                message: text,
                locations: {type: 'array', minItems: 1, items: location},
                partialFingerprints: {type: 'object', additionalProperties: {type: 'string'}},
                properties: {type: 'object'},
              },
              additionalProperties: false,
            },
          },
          properties: {type: 'object'},
        },
      },
    },
  },
}

const validate = new Ajv2020({allErrors: true}).compile(SARIF_SUBSET)

function sarifErrors(doc: unknown): string | undefined {
  return validate(doc) ? undefined : JSON.stringify(validate.errors, null, 2)
}

describe('sarif', () => {
  for (const [name, make] of [['healthy', healthyReport], ['unhealthy', unhealthyReport], ['partial', partialReport]] as const) {
    it(`${name}: has the SARIF 2.1.0 structure, with or without a catalog`, () => {
      for (const catalog of [SAMPLE_CATALOG, undefined]) {
        const log = JSON.parse(renderSarif(make(), {catalog}))
        assert.equal(sarifErrors(log), undefined)
        const rules: Array<{id: string}> = log.runs[0].tool.driver.rules
        for (const r of log.runs[0].results) assert.equal(rules[r.ruleIndex]?.id, r.ruleId, 'ruleIndex points at the rule')
      }
    })
  }

  it('the structure check catches what SARIF forbids', () => {
    const log = JSON.parse(renderSarif(unhealthyReport(), {catalog: SAMPLE_CATALOG}))
    log.runs[0].results[0].level = 'info'
    delete log.runs[0].results[1].message
    const found = sarifErrors(log) ?? ''
    assert.match(found, /\/runs\/0\/results\/0\/level/)
    assert.match(found, /"missingProperty": "message"/)
  })

  it('lists only the rules the findings use, with catalog metadata, in catalog order', () => {
    const log = toSarif(unhealthyReport(), SAMPLE_CATALOG)
    const rules = log.runs[0].tool.driver.rules
    assert.deepEqual(rules.map((r) => r.id), ['KUBELET-001', 'KUBELET-007', 'IPT-001', 'IPT-002', 'IPT-003', 'RT-001', 'RT-002'])
    assert.deepEqual(rules[2], {
      id: 'IPT-001',
      shortDescription: {text: 'Service chain missing'},
      fullDescription: {text: 'Without its chain, traffic to the Service IP is not load-balanced: connections hang or are refused.'},
      help: {text: 'Restart kube-proxy on the node and check its log for iptables-restore errors.'},
      defaultConfiguration: {level: 'error'},
      properties: {area: 'iptables', looksAt: 'KUBE-SERVICES and KUBE-SVC-* chains in the nat table against the Services and EndpointSlices.'},
    })
    assert.equal(rules[1]!.defaultConfiguration?.level, 'note', 'info maps to note')
  })

  it('maps each finding to a result with level, logical locations and properties', () => {
    const log = toSarif(unhealthyReport(), SAMPLE_CATALOG)
    const results = log.runs[0].results
    assert.deepEqual(results.map((r) => r.level), ['error', 'error', 'error', 'error', 'warning', 'note', 'warning'])
    const ipt = results.find((r) => r.ruleId === 'IPT-002')!
    assert.deepEqual(ipt.locations[0]!.logicalLocations, [
      {name: 'KUBE-SEP-OVEKJ3D4ZQ6NMR7X', fullyQualifiedName: 'worker-1:nat:chain/KUBE-SEP-OVEKJ3D4ZQ6NMR7X', kind: 'chain', properties: {in: 'nat'}},
      {name: 'worker-1', fullyQualifiedName: 'worker-1', kind: 'node'},
    ])
    assert.equal(ipt.properties.node, 'worker-1')
    assert.equal(ipt.properties.area, 'iptables')
    assert.equal(ipt.properties.group, 'payments/api:grpc')
    assert.equal(ipt.properties.evidence.length, 5)
    assert.equal(ipt.message.text, 'KUBE-SEP chain still sends payments/api:grpc traffic to 10.244.2.17:8443, which is no longer an endpoint')
    const fingerprints = results.map((r) => r.partialFingerprints['nodeDoctor/v1'])
    assert.equal(new Set(fingerprints).size, fingerprints.length, 'fingerprints tell findings apart')
  })

  it('puts collection errors in the invocation notifications; a fatal one marks the execution unsuccessful', () => {
    const inv = toSarif(partialReport(), SAMPLE_CATALOG).runs[0].invocations[0]
    assert.equal(inv.executionSuccessful, false)
    assert.deepEqual(
      inv.toolExecutionNotifications.map((n) => [n.level, n.descriptor.id, n.properties.node ?? null]),
      [['error', 'ssh', 'worker-1'], ['warning', 'ipvsadm', 'worker-2'], ['warning', 'kube-proxy logs', null]],
    )
    assert.equal(toSarif(unhealthyReport(), SAMPLE_CATALOG).runs[0].invocations[0].executionSuccessful, true)
  })

  it('keeps findings whose check is not in the catalog, with a bare rule', () => {
    const report = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}],
      findings: [{id: 'ZZ-1', node: 'n1', area: 'dns', severity: 'info', message: 'm', subject: {kind: 'Service', namespace: 'kube-system', name: 'kube-dns'}, evidence: [], remedy: 'r'}],
    })
    const log = toSarif(report, SAMPLE_CATALOG)
    assert.deepEqual(log.runs[0].tool.driver.rules, [{id: 'ZZ-1'}])
    assert.equal(log.runs[0].results[0]!.locations[0]!.logicalLocations[0]!.fullyQualifiedName, 'n1:Service/kube-system/kube-dns')
  })
})
