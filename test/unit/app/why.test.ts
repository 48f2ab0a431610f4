// explainWhy offline (--bundle): the node is looked up in the bundle, the target is validated, and the verdict is
// the one core/why gives over the analysed bundle. The bundle is test/fixtures/checks/dns/coredns-unreachable.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {explainWhy, WHY_AREAS} from '../../../src/app/why.js'
import type {Environment} from '../../../src/ports/environment.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {REPO_ROOT} from '../../support/golden.js'

const BUNDLE = join(REPO_ROOT, 'test/fixtures/checks/dns/coredns-unreachable')
const env = {readBundle} as Partial<Environment> as Environment
const O = {tool: {name: 'node-doctor', version: 'test'}, command: 'why'}

describe('explainWhy --bundle', () => {
  it('judges the target from the bundle, running only the Service-path areas', async () => {
    const {verdict, report} = await explainWhy('svc/shop/web', {from: 'node-a', bundle: BUNDLE}, env, O)
    assert.equal(verdict.headline, 'partly broken: 1 of 2 endpoints unreachable from node-a')
    assert.deepEqual([...new Set(report.results.map((r) => r.area))].filter((a) => !WHY_AREAS.includes(a)), [])
    assert.equal(report.metadata.annotations?.['node-doctor/profile'], 'incident')
  })

  it('refuses a node the bundle does not hold, an unreadable target and an unknown Service', async () => {
    await assert.rejects(explainWhy('dns', {from: 'node-z', bundle: BUNDLE}, env, O), /node "node-z" is not in the bundle/)
    await assert.rejects(explainWhy('web', {from: 'node-a', bundle: BUNDLE}, env, O), /cannot read the target "web"/)
    await assert.rejects(explainWhy('svc/shop/nope', {from: 'node-a', bundle: BUNDLE}, env, O), /service "shop\/nope" not found/)
  })
})
