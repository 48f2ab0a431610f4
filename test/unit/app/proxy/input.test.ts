// Pasted dump files under `proxy diff`: a whole dump pasted with indentation, CRLF and prompt lines gives the same
// findings as the file itself, with what was assumed on stderr (warning: FILE:LINE) and in the Report's
// node-doctor/pasted-input annotation; --strict (io.strict) keeps the old error; excerpts and `ipvsadm -L` names,
// which a diff would turn into false differences, are refused with the reason.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {describe, it} from 'node:test'
import {diffIptables} from '../../../../src/app/proxy/iptables.js'
import {PASTED_INPUT_ANNOTATION, parseInputFile, pastedIptablesDump, pastedIpvsTable, type ProxyIO, withPastedInput} from '../../../../src/app/proxy/input.js'
import {parseIpvsadm} from '../../../../src/core/parse/ipvsadm.js'
import {parseIptablesSave} from '../../../../src/core/iptables/save.js'
import {InputError} from '../../../../src/errors.js'
import type {Environment} from '../../../../src/ports/environment.js'
import {fixturePath, readFixture, REPO_ROOT} from '../../../support/golden.js'

const DUMP = `${REPO_ROOT}/examples/bundle/nodes/node-b/iptables-save.txt`
const pastedDump = (): string => `root@node-b:~# iptables-save\r\n${readFileSync(DUMP, 'utf8').split('\n').map((l) => (l === '' ? '' : `    ${l}`)).join('\r\n')}root@node-b:~#\r\n`
const envWith = (files: Record<string, string>): Environment => ({readInput: (p: string) => files[p] ?? readFileSync(p, 'utf8')}) as unknown as Environment
const ioLog = (extra: Partial<ProxyIO> = {}): ProxyIO & {notes: string[]} => {
  const notes: string[] = []
  return {notes, note: (m: string) => notes.push(m), ...extra}
}
const flags = {
  objects: [fixturePath('proxier/iptables/loadbalancer/objects.yaml'), fixturePath('proxier/iptables/session-affinity/objects.yaml'), fixturePath('proxier/iptables/nodes.yaml')],
  node: 'node-b',
  nfacct: false,
  'kube-proxy-version': 'v1.31',
}

describe('proxy diff of pasted dump files', () => {
  it('a whole dump pasted indented, with CRLF and prompts: the same findings, the warnings on stderr and in the annotation', async () => {
    const meta = {toolVersion: 'test', command: 'proxy diff'}
    const plain = (await diffIptables(undefined, {...flags, 'iptables-save': DUMP}, envWith({}), ioLog(), meta)).report
    const io = ioLog()
    const pasted = (await diffIptables(undefined, {...flags, 'iptables-save': 'paste.txt'}, envWith({'paste.txt': pastedDump()}), io, meta)).report
    assert.deepEqual(pasted.findings, plain.findings)
    assert.deepEqual(pasted.summary, plain.summary)
    const expected = ['paste.txt:1: CRLF line ends read as LF', 'paste.txt:1: shell prompt `root@node-b:~# iptables-save` skipped', 'paste.txt:2: common indentation of 4 spaces removed']
    for (const w of expected) {
      assert.ok(io.pasted?.includes(w), w)
      assert.ok(io.notes.includes(`warning: ${w}`), w)
    }
    assert.deepEqual(pasted.metadata.annotations?.[PASTED_INPUT_ANNOTATION]?.split('\n'), io.pasted)
    assert.equal(plain.metadata.annotations?.[PASTED_INPUT_ANNOTATION], undefined)
    await assert.rejects(diffIptables(undefined, {...flags, 'iptables-save': 'paste.txt'}, envWith({'paste.txt': pastedDump()}), ioLog({strict: true}), meta), InputError)
  })

  it('an excerpt is refused: a diff would call every rule outside it missing', () => {
    const env = envWith({'x.txt': readFixture('pasted/grep-kube-nat.txt')})
    assert.throws(() => parseInputFile(env, 'x.txt', (t) => parseIptablesSave(t), {io: ioLog(), read: pastedIptablesDump()}), (e: unknown) => e instanceof InputError && /excerpt of a dump/.test(e.message))
  })

  it('ipvsadm: a listing with its header cut off is read; `ipvsadm -L` names are refused with the reason', () => {
    const io = ioLog()
    const env = envWith({'cut.txt': readFixture('pasted/ipvs/ipvsadm-header-cut-indented.txt'), 'names.txt': readFixture('pasted/ipvs/ipvsadm-L-names.txt')})
    const t = parseInputFile(env, 'cut.txt', parseIpvsadm, {io, read: pastedIpvsTable()})
    assert.equal(t.virtualServers.length, 3)
    assert.equal(io.pasted?.length, 2)
    assert.throws(() => parseInputFile(env, 'names.txt', parseIpvsadm, {io, read: pastedIpvsTable()}), (e: unknown) => e instanceof InputError && /not comparable with ClusterIPs/.test(e.message) && e.message.includes('names.txt:5'))
  })

  it('without pasted input the report is unchanged', () => {
    const report = {metadata: {annotations: {a: 'b'}}} as unknown as Parameters<typeof withPastedInput>[0]
    assert.equal(withPastedInput(report, ioLog()), report)
  })
})
