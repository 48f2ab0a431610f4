// `ipvs show` renderer: table goldens per ipvsadm variant (colour off), colour only when asked, JSON/YAML = model.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parse as parseYaml} from 'yaml'
import {parseIpvsadm} from '../../../src/core/parse/ipvsadm.js'
import {renderIpvsShow} from '../../../src/render/ipvs-show.js'
import {expectGolden, readFixture} from '../../support/golden.js'

const table = (name: string) => parseIpvsadm(readFixture(`parse/ipvs/${name}.txt`))

describe('renderIpvsShow', () => {
  for (const name of ['list', 'stats', 'rate', 'persistent-conn', 'thresholds', 'tun-info', 'save', 'list-empty']) {
    it(`table: ${name}`, () => {
      expectGolden(`render/ipvs-show/${name}.golden.txt`, renderIpvsShow(table(name), 'table', {color: false, node: 'node-a', source: `${name}.txt`}))
    })
  }

  it('one row per real server, the virtual server only on its first row; weight-0 and empty services noted', () => {
    const out = renderIpvsShow(table('list'), 'table', {color: false})
    assert.match(out, /^TCP 10\.96\.0\.1:443 +rr +10800s +10\.0\.0\.5:6443 +Local +1 +4 +0$/m)
    assert.match(out, /^ +10\.0\.0\.6:6443 +Masq +1 +2 +0$/m)
    assert.match(out, /^TCP 10\.96\.0\.10:9153 +rr +\(none\)$/m)
    assert.match(out, /1 real server has weight 0/)
    assert.match(out, /1 virtual server has no real servers/)
    assert.doesNotMatch(out, /\x1b\[/)
  })

  it('colours weight 0 and missing real servers only when asked', () => {
    const out = renderIpvsShow(table('list'), 'table', {color: true})
    assert.match(out, /\x1b\[33m0\x1b\[39m/)
    assert.match(out, /\x1b\[31m\(none\)\x1b\[39m/)
  })

  it('json and yaml are the parsed model in a versioned envelope', () => {
    const t = table('save')
    const json = JSON.parse(renderIpvsShow(t, 'json', {color: true, node: 'node-a', source: 's.txt'})) as Record<string, unknown>
    assert.deepEqual(json, {apiVersion: 'node-doctor.io/v1alpha1', kind: 'IpvsTable', node: 'node-a', source: 's.txt', ...JSON.parse(JSON.stringify(t))})
    assert.deepEqual(parseYaml(renderIpvsShow(t, 'yaml', {color: false, node: 'node-a', source: 's.txt'})), json)
  })
})
