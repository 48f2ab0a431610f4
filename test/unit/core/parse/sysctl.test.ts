// The sysctls artifact as the plan collects it: `sysctl KEY...` lines then `grep -H . /proc/sys/net/ipv4/conf/*/rp_filter`
// lines, read from a real namespace capture (test/fixtures/checks/node/rp-mtu-ok, scripts/make-node-prereq-fixtures.ts).
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {effectiveRpFilter, parseSysctl, rpFilterTable, sysctlValue} from '../../../../src/core/parse/sysctl.js'
import {FIXTURES} from '../../../support/golden.js'

const CAPTURE = readFileSync(join(FIXTURES, 'checks', 'node', 'rp-mtu-ok', 'nodes', 'node-a', 'sysctls.txt'), 'utf8')

describe('sysctl output with /proc/sys paths', () => {
  it('reads both line forms into the same keys; an interface name with a dot keeps it', () => {
    const s = parseSysctl(CAPTURE)
    assert.deepEqual(s.issues, [])
    assert.equal(sysctlValue(s, 'net.ipv4.ip_forward'), '1')
    assert.equal(sysctlValue(s, 'net.ipv4.conf.all.rp_filter'), '1')
    const t = rpFilterTable(s)
    assert.equal(t.all, 1)
    assert.deepEqual([...t.interfaces.keys()].sort(), ['eth0', 'eth0-peer', 'eth1', 'eth1-peer', 'lo', 'tunl0', 'tunl0-peer', 'vxlan.calico'])
    // sysctl spells vxlan.calico's key with a slash; both forms land on the same interface.
    assert.equal(rpFilterTable(parseSysctl('net.ipv4.conf.all.rp_filter = 0\nnet.ipv4.conf.vxlan/calico.rp_filter = 2\n')).interfaces.get('vxlan.calico'), 2)
  })

  it('the effective value is max(all, interface), and unknown when either is missing', () => {
    const t = rpFilterTable(parseSysctl(CAPTURE.replace('/proc/sys/net/ipv4/conf/eth1/rp_filter:0', '/proc/sys/net/ipv4/conf/eth1/rp_filter:2')))
    assert.equal(effectiveRpFilter(t, 'eth0'), 1)
    assert.equal(effectiveRpFilter(t, 'eth1'), 2)
    assert.equal(effectiveRpFilter(t, 'eth9'), undefined)
    assert.equal(effectiveRpFilter(rpFilterTable(parseSysctl('/proc/sys/net/ipv4/conf/eth0/rp_filter:1\n')), 'eth0'), undefined)
  })

  it('a /proc/sys line without a value separator is a warning, not a value', () => {
    const s = parseSysctl('/proc/sys/net/ipv4/conf/eth0/rp_filter\n')
    assert.equal(s.issues[0]?.code, 'sysctl-syntax')
    assert.deepEqual(Object.keys(s.values), [])
  })
})
