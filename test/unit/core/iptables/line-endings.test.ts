// Regression (found by the fuzz test): a rule line ending in CR CR LF kept a CR in its text, so formatting the
// parsed dump was not a fixed point.
import assert from 'node:assert/strict'
import {test} from 'node:test'
import {formatIptablesSave, parseIptablesSave} from '../../../../src/core/iptables/save.js'

test('every trailing CR is dropped from a line', () => {
  const text = '*nat\r\n:KUBE-SEP-X - [0:0]\r\n-A KUBE-SEP-X -p tcp -m tcp -j DNAT --to-destination 10.0.0.1:80\r\r\nCOMMIT\n'
  const dump = parseIptablesSave(text)
  assert.equal(dump.tables[0]!.ruleText(0), '-A KUBE-SEP-X -p tcp -m tcp -j DNAT --to-destination 10.0.0.1:80')
  const once = formatIptablesSave(dump)
  assert.equal(formatIptablesSave(parseIptablesSave(once)), once)
})
