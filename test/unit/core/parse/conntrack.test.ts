// `conntrack -L` lines as conntrack-tools 1.4.7 prints them (captured from `conntrack -I` entries in a namespace).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {conntrackCounterTotal, isDestinationNatted, parseConntrack, parseConntrackLine, parseConntrackStats} from '../../../../src/core/parse/conntrack.js'
import {ParseError} from '../../../../src/errors.js'

const NATTED = 'udp      17 99 src=10.244.1.5 dst=10.96.0.10 sport=41234 dport=53 [UNREPLIED] src=10.244.2.7 dst=10.244.1.5 sport=53 dport=41234 mark=0 use=1'
const PLAIN = 'udp      17 99 src=10.244.1.6 dst=10.96.0.10 sport=41235 dport=53 [UNREPLIED] src=10.96.0.10 dst=10.244.1.6 sport=53 dport=41235 [ASSURED] mark=0 use=1'

describe('parseConntrack', () => {
  it('splits the original and reply tuples, flags and fields', () => {
    const e = parseConntrackLine(NATTED, 3)
    assert.deepEqual(e.original, {src: '10.244.1.5', dst: '10.96.0.10', sport: 41234, dport: 53})
    assert.deepEqual(e.reply, {src: '10.244.2.7', dst: '10.244.1.5', sport: 53, dport: 41234})
    assert.equal(e.protocol, 'udp')
    assert.equal(e.protocolNumber, 17)
    assert.equal(e.timeout, 99)
    assert.deepEqual(e.flags, ['UNREPLIED'])
    assert.deepEqual(e.fields, {mark: '0', use: '1'})
    assert.equal(e.line, 3)
    assert.ok(isDestinationNatted(e))
    assert.ok(!isDestinationNatted(parseConntrackLine(PLAIN)))
  })
  it('reads the extended format and TCP states, and skips the summary line', () => {
    const text = `ipv4     2 ${NATTED} id=1417998532\nipv4     2 tcp      6 431999 ESTABLISHED src=10.0.0.1 dst=10.96.0.1 sport=5000 dport=443 src=10.0.0.9 dst=10.0.0.1 sport=6443 dport=5000 [ASSURED] mark=0 use=1\nconntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.\n`
    const [a, b] = parseConntrack(text)
    assert.equal(a?.family, 'ipv4')
    assert.equal(a?.fields['id'], '1417998532')
    assert.equal(b?.state, 'ESTABLISHED')
    assert.deepEqual(b?.flags, ['ASSURED'])
    assert.equal(parseConntrack('').length, 0)
  })
  it('names the line of anything that is not an entry', () => {
    assert.throws(() => parseConntrack(`${NATTED}\nconntrack: command not found\n`), (e: unknown) => e instanceof ParseError && e.line === 2)
    assert.throws(() => parseConntrackLine('udp 17 99 src=1.1.1.1 sport=1'), /lacks src= or dst=/)
  })
})

// `conntrack -S` as conntrack-tools 1.4.7 prints it on kernel 6.18 (two CPUs, a tab after the padded cpu= field).
const STATS = 'cpu=0   \tfound=0 invalid=12 insert=0 insert_failed=3 drop=0 early_drop=2868 error=0 search_restart=4 clash_resolve=0 chaintoolong=0 \ncpu=1   \tfound=0 invalid=0 insert=0 insert_failed=1 drop=0 early_drop=21061 error=0 search_restart=0 clash_resolve=2 chaintoolong=0 \n'

describe('parseConntrackStats', () => {
  it('reads the per-CPU counters of one or two reads and sums them', () => {
    const one = parseConntrackStats(STATS)
    assert.equal(one.reads.length, 1)
    assert.deepEqual(one.reads[0]!.cpus.map((c) => c.cpu), [0, 1])
    assert.equal(one.reads[0]!.cpus[0]!.counters['invalid'], 12)
    assert.equal(conntrackCounterTotal(one.reads[0]!, 'early_drop'), 23929)
    assert.equal(conntrackCounterTotal(one.reads[0]!, 'entries'), undefined)
    assert.equal(one.reads[0]!.uptime, undefined)
    const two = parseConntrackStats(`# node-doctor: uptime 24341.50\n${STATS}# node-doctor: uptime 24343.22\n${STATS.replace('insert_failed=3', 'insert_failed=9')}`)
    assert.deepEqual(two.reads.map((r) => [r.uptime, conntrackCounterTotal(r, 'insert_failed')]), [[24341.5, 4], [24343.22, 10]])
    assert.equal(two.reads[1]!.cpus[0]!.line, 5)
  })
  it('names the line of anything else', () => {
    assert.throws(() => parseConntrackStats(`${STATS}conntrack v1.4.7 (conntrack-tools): Operation not permitted\n`), (e: unknown) => e instanceof ParseError && e.line === 3)
    assert.throws(() => parseConntrackStats('cpu=0 found=x\n'), /unexpected word "found=x"/)
    assert.throws(() => parseConntrackStats('# node-doctor: uptime soon\n'), /not an uptime/)
    assert.deepEqual(parseConntrackStats('').reads, [])
  })
})
