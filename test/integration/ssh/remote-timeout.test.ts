// A timed-out command must not keep running on the node: every command reports its process group first
// (remote-kill.ts), and a timed-out one gets TERM, then KILL, sent to that group over a channel of its own.
// Real sshd on 127.0.0.1, so the "node's" processes are visible here with pgrep.
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {GroupReportReader, KILL_AFTER_S} from '../../../src/transports/ssh/remote-kill.js'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd, targetFor, type UserKey} from '../../support/sshd.js'

/** pids whose whole command line is exactly `line` (the node's processes: sshd runs on this machine). */
function pidsOf(line: string): number[] {
  const r = spawnSync('pgrep', ['-fx', line], {encoding: 'utf8'})
  return r.stdout.split('\n').filter(Boolean).map(Number)
}

async function waitUntilGone(lines: string[], withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs
  while (lines.some((l) => pidsOf(l).length > 0)) {
    if (Date.now() > until) return false
    await new Promise((r) => setTimeout(r, 100))
  }
  return true
}

describe('timed-out commands on the node', {skip: sshdSkipReason()}, () => {
  let dir: string
  let sshd: Sshd
  let knownHosts: string
  let key: UserKey
  const open: SshTransport[] = []
  const transport = () => {
    const t = new SshTransport('node-a', targetFor(sshd, key, knownHosts), {agentSocket: ''})
    open.push(t)
    return t
  }

  before(async () => {
    dir = makeTempDir()
    key = makeUserKey(dir)
    sshd = await startSshd({authorizedKeys: [key.publicKey]})
    knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, sshd.knownHostsLine())
  })
  after(async () => {
    await Promise.all(open.map((t) => t.close()))
    await sshd?.stop()
    rmSync(dir, {recursive: true, force: true})
    // Should a test fail, leave nothing behind.
    for (const l of ['sleep 47.123', 'sleep 48.5', 'sleep 51.1', 'sleep 52.2']) for (const pid of pidsOf(l)) process.kill(pid, 'SIGKILL')
  })

  it('a silent command that times out is gone from the node at once, and exec returns promptly', async () => {
    const t = transport()
    const started = Date.now()
    const r = await t.exec('sleep 47.123', {timeoutMs: 500})
    assert.equal(r.timedOut, true)
    assert.equal(r.exitCode, null)
    assert.equal(r.stderr, '', 'the group report is not part of the output')
    assert.ok(Date.now() - started < 2_000, `exec took ${Date.now() - started} ms`)
    assert.ok(await waitUntilGone(['sleep 47.123'], 3_000), 'sleep 47.123 still runs on the node')
    assert.equal((await t.exec('echo next', {timeoutMs: 10_000})).stdout, 'next\n', 'the connection stays usable')
  })

  it('kills the whole group: background children too', async () => {
    const t = transport()
    const r = await t.exec('sleep 51.1 & sleep 52.2; wait', {timeoutMs: 400})
    assert.equal(r.timedOut, true)
    assert.ok(await waitUntilGone(['sleep 51.1', 'sleep 52.2'], 3_000), 'a child of the timed-out command survived')
  })

  it('a command that ignores TERM is KILLed a moment later', async () => {
    const t = transport()
    const started = Date.now()
    // A timeout long enough for the trap to be set before the TERM comes, even on a loaded machine.
    const running = t.exec("trap '' TERM; sleep 48.5; :", {timeoutMs: 1_500})
    // sleep inherits the ignored TERM: after the TERM (at 1.5 s) it still runs, until the KILL KILL_AFTER_S later.
    await new Promise((res) => setTimeout(res, 1_500 + 800 - (Date.now() - started)))
    assert.ok(pidsOf('sleep 48.5').length > 0, 'TERM alone did not end it')
    const r = await running
    assert.equal(r.timedOut, true)
    assert.ok(await waitUntilGone(['sleep 48.5'], (KILL_AFTER_S + 3) * 1000), 'sleep 48.5 still runs on the node')
  })

  it('leaves output, exit codes, stderr and quoting unchanged', async () => {
    const t = transport()
    const r = await t.exec(`printf '%s|' "it's" '$HOME' "a b"; echo; printf 'err' >&2; exit 7`, {timeoutMs: 10_000})
    assert.deepEqual(r, {exitCode: 7, stdout: "it's|$HOME|a b|\n", stderr: 'err'})
    const big = await t.exec('head -c 300000 /dev/zero | tr "\\0" x >&2', {timeoutMs: 10_000})
    assert.equal(big.stderr, 'x'.repeat(300_000))
    // What the kill relies on: the command's shell leads its own process group (sshd starts a session per channel).
    const [pid, pgid] = (await t.exec('echo $$; ps -o pgid= -p $$', {timeoutMs: 10_000})).stdout.split('\n').map((x) => x.trim())
    assert.match(pid!, /^\d+$/)
    assert.equal(pgid, pid)
  })
})

describe('GroupReportReader', () => {
  const read = (chunks: string[]) => {
    const g = new GroupReportReader()
    const out = chunks.map((c) => g.push(Buffer.from(c)).toString()).join('') + g.flush().toString()
    return {pgid: g.pgid, out}
  }

  it('takes the report off the front, however the chunks are cut', () => {
    assert.deepEqual(read(['node-doctor-pgid:4242\nreal err\n']), {pgid: 4242, out: 'real err\n'})
    assert.deepEqual(read(['node-doc', 'tor-pgid:7', '\n', 'e']), {pgid: 7, out: 'e'})
  })

  it('passes anything else through untouched', () => {
    assert.deepEqual(read(['motd from a login shell\n', 'node-doctor-pgid:1\n']), {pgid: undefined, out: 'motd from a login shell\nnode-doctor-pgid:1\n'})
    assert.deepEqual(read(['short']), {pgid: undefined, out: 'short'})
    assert.deepEqual(read([]), {pgid: undefined, out: ''})
  })
})
