// The iptables diff's runtime facts from node artifacts: interface addresses come from parseLinks, with the same
// result the former hand-written `ip -j addr` reader gave (kept below as the oracle) on every real capture.
import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {addressesFromIpJson, runtimeFacts} from '../../../../../src/core/checks/iptables/live.js'
import {FIXTURES, readFixture} from '../../../../support/golden.js'
import {nodeSnapshot} from '../../../../support/calico-dns-builders.js'

/** The reader addressesFromIpJson replaced, verbatim in behaviour: the oracle for "nothing changed". */
function formerReader(text: string): string[] | undefined {
  try {
    const links = JSON.parse(text) as Array<{ifname?: string; addr_info?: Array<{local?: string; prefixlen?: number}>}>
    if (!Array.isArray(links)) return undefined
    return links.flatMap((l) => (l.ifname === 'kube-ipvs0' ? [] : (l.addr_info ?? []).flatMap((a) => (a.local ? [`${a.local}/${a.prefixlen ?? 32}`] : []))))
  } catch {
    return undefined
  }
}

/** Every real `ip -j addr` capture in the fixtures (parser fixtures and the route bundles' ip-addr artifacts). */
function jsonCaptures(): Array<{name: string; text: string}> {
  const out = ['parse/links/ip-j-addr.json', 'parse/links/ip-j-d-addr.json'].map((name) => ({name, text: readFixture(name)}))
  const routes = join(FIXTURES, 'checks/routes')
  for (const c of readdirSync(routes, {withFileTypes: true})) {
    if (c.isDirectory()) out.push({name: `checks/routes/${c.name}`, text: readFixture(`checks/routes/${c.name}/nodes/node-a/ip-addr.txt`)})
  }
  return out
}

describe('iptables runtime facts: interface addresses', () => {
  it('match the former reader on every real ip -j addr capture', () => {
    const captures = jsonCaptures()
    assert.ok(captures.length >= 5)
    for (const c of captures) {
      const got = addressesFromIpJson(c.text)
      assert.ok(got && got.length > 0, c.name)
      assert.deepEqual(got, formerReader(c.text), c.name)
    }
  })

  it('leave out kube-ipvs0 (Service VIPs are not node addresses) and keep every other interface', () => {
    const text = readFixture('parse/links/ip-j-d-addr.json')
    const got = addressesFromIpJson(text)!
    const vips = (JSON.parse(text) as Array<{ifname: string; addr_info: Array<{local: string}>}>).find((l) => l.ifname === 'kube-ipvs0')!.addr_info.map((a) => a.local)
    assert.ok(vips.length > 0)
    for (const v of vips) assert.ok(!got.some((a) => a.startsWith(`${v}/`)), `${v} left out`)
    assert.ok(got.includes('127.0.0.1/8') && got.includes('10.0.0.5/24') && got.includes('2001:db8::5/64'))
  })

  it('are unknown for absent, empty, non-JSON and malformed input', () => {
    assert.equal(addressesFromIpJson(undefined), undefined)
    assert.equal(addressesFromIpJson(''), undefined)
    assert.equal(addressesFromIpJson(readFixture('parse/links/ip-addr.txt')), undefined, 'the text form is not what the plan collects')
    assert.equal(addressesFromIpJson('{"ifname":"eth0"'), undefined)
    assert.equal(addressesFromIpJson('[{"dst":"default"}]'), undefined)
  })

  it('reach the proxier as nodeInterfaceAddresses only when some were found', () => {
    const text = readFixture('parse/links/ip-j-addr.json')
    const facts = runtimeFacts(nodeSnapshot('node-a', {'ip-addr': text}), '')
    assert.deepEqual(facts.nodeInterfaceAddresses, addressesFromIpJson(text))
    assert.equal(runtimeFacts(nodeSnapshot('node-a', {'ip-addr': '[]'}), '').nodeInterfaceAddresses, undefined)
    assert.equal(runtimeFacts(nodeSnapshot('node-a', {}), '').nodeInterfaceAddresses, undefined)
  })
})
