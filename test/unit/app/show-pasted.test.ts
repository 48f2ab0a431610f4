// The show services on pasted --from-file input: the lenient readers run for files, --strict and live input keep
// the strict parsers, and a parse error after normalisation names the user's line.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {showIptables, showIpvs, showRoutes} from '../../../src/app/show.js'
import {InputError} from '../../../src/errors.js'
import type {Environment} from '../../../src/ports/environment.js'
import {readFixture} from '../../support/golden.js'

const fileEnv = (text: string): Environment => ({readInput: () => text}) as unknown as Environment

describe('show services on pasted input', () => {
  it('iptables: the lenient reader for files, its warnings in the result; --strict refuses the same input', async () => {
    const text = readFixture('pasted/grep-kube-nat.txt')
    const r = await showIptables(undefined, 'paste.txt', undefined, {}, fileEnv(text))
    assert.equal(r.value.excerpt, true)
    assert.ok(r.value.analysis.servicePorts.length > 0)
    assert.deepEqual(r.warnings[0], {line: 1, message: 'shell prompt `$ sudo iptables-save | grep KUBE` skipped'})
    await assert.rejects(showIptables(undefined, 'paste.txt', undefined, {}, fileEnv(text), {strict: true}), (e: unknown) => e instanceof InputError)
  })

  it('routes: indentation, CRLF and the prompt line undone, with warnings', async () => {
    const r = await showRoutes(undefined, 'routes.txt', {}, fileEnv('$ ip route\r\n    default via 192.168.1.1 dev eth0 proto dhcp metric 100\r\n    10.244.1.0/24 via 10.244.1.0 dev flannel.1 onlink\r\n'))
    assert.deepEqual(r.warnings.map((w) => [w.line, w.message]), [
      [1, 'CRLF line ends read as LF'],
      [1, 'shell prompt `$ ip route` skipped'],
      [2, 'common indentation of 4 spaces removed'],
    ])
    const strict = await showRoutes(undefined, 'routes.txt', {}, fileEnv('default via 192.168.1.1 dev eth0\n'), {strict: true})
    assert.deepEqual(strict.warnings, [])
  })

  it('ipvs: a parse error after a dropped prompt line names the user line', async () => {
    const text = '$ ipvsadm -Ln\nIP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\nTCP  10.96.0.1:443 rr\n  -> 192.168.1.10:6443            Masq    x      0          0\n'
    await assert.rejects(showIpvs(undefined, 'ipvs.txt', {}, fileEnv(text)), (e: unknown) => {
      assert.ok(e instanceof InputError)
      assert.match(e.message, /ipvs\.txt:6:/)
      return true
    })
  })
})
