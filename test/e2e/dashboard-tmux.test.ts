// `dashboard` in a real terminal: tmux runs the built CLI on the example bundle (node-a has IPT-003 and IPT-002 on
// Service port default/lb:http, node-b is healthy), keys go in with `tmux send-keys`, and every step is checked on
// the captured screen, polling with a deadline. Piped, the command refuses with a pointer to check/analyze.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {type LiveCluster, liveClusterSkipReason, startLiveCluster} from '../support/live-cluster.js'
import {CLI, runCli} from '../support/run-cli.js'
import {TMUX_AVAILABLE as TMUX, TmuxTerminal} from '../support/tmux-terminal.js'

const STEP_MS = 20_000

/** A tmux terminal of 120x40 whose screen() is the visible pane only (the dashboard redraws it in place). */
class Terminal extends TmuxTerminal {
  constructor() {
    super({capture: 'visible', timeoutMs: STEP_MS})
  }

  override start(command: string[], env: Record<string, string> = {}): void {
    super.start(command, env, {columns: 120, rows: 40})
  }

  /** Presses q and waits for the program to end; returns its exit status. */
  async quit(): Promise<number> {
    this.keys('q')
    return this.exitStatus()
  }
}

/** The line of the screen that starts with the selection mark. */
function selectedLine(screen: string): string {
  return screen.split('\n').find((l) => l.startsWith('› ')) ?? ''
}

describe('kubectl node-doctor dashboard in a terminal (tmux)', {skip: TMUX ? false : 'tmux is not installed (apt-get install tmux)'}, () => {
  const term = new Terminal()
  before(() => term.start(['node', CLI, 'dashboard', '--bundle', 'examples/bundle']))
  after(() => term.stop())

  it('shows the fleet, opens a node, a Service port, filters, and quits cleanly with q', async () => {
    // The fleet table: both nodes, with their column statuses, node-a selected.
    let s = await term.waitFor('the fleet table with both nodes checked', (x) => x.includes('2 nodes checked'))
    assert.match(s, /NODE\s+STATUS\s+KUBELET\s+PROXY MODE\s+RULES IN SYNC\s+ROUTES\s+DNS/)
    assert.match(s, /› node-a\s+✖ unhealthy\s+− n\/a\s+✔ iptables\s+✖ 1 error\s+✔ ok\s+− n\/a/)  // ROUTES: the node prerequisites (NODE-*) pass on the example bundle
    assert.match(s, /\n {2}node-b\s+✔ healthy\s+− n\/a\s+✔ iptables\s+✔ ok/)
    assert.match(s, /1 error, 1 warning/)

    // j moves to node-b; Enter opens it: healthy, no findings, its Service ports listed.
    term.keys('j')
    await term.waitFor('node-b selected', (x) => selectedLine(x).startsWith('› node-b'))
    term.keys('Enter')
    s = await term.waitFor('the node view of node-b', (x) => x.includes('node-b  ✔ healthy · no findings'))
    assert.match(s, /SERVICE PORTS \(5\)/)
    assert.doesNotMatch(s, /FINDINGS/)

    // Backspace goes back to the fleet; k and Enter open node-a with its two findings, the first one's remedy below.
    term.keys('BSpace')
    await term.waitFor('the fleet table again', (x) => x.includes('PROXY MODE') && selectedLine(x).startsWith('› node-b'))
    term.keys('k')
    await term.waitFor('node-a selected', (x) => selectedLine(x).startsWith('› node-a'))
    term.keys('Enter')
    s = await term.waitFor('the node view of node-a', (x) => x.includes('node-a  ✖ unhealthy · 1 error, 1 warning'))
    assert.match(s, /FINDINGS \(2\)/)
    assert.match(selectedLine(s), /✖ IPT-003 +KUBE-SERVICES in nat lacks the rule "default\/lb:http cluster IP"/)
    assert.match(s, /▲ IPT-002 +stale chain KUBE-SEP-OLDENDPOINT0000A/)
    assert.match(s, /✖ default\/lb:http +172\.30\.3\.1:80\/TCP +2 findings/)
    assert.match(s, /remedy: Make kube-proxy do a full sync/)

    // Enter on a rule-diff finding opens its Service port: the diff and the packet trace through both rule sets.
    term.keys('Enter')
    s = await term.waitFor('the Service view', (x) => x.includes('Service port default/lb:http'))
    assert.match(s, /RULE DIFF on node-a/)
    assert.match(s, /^- nat -A KUBE-SERVICES -d 172\.30\.3\.1\/32 -p tcp .*default\/lb:http cluster IP/m)
    assert.match(s, /^\+ nat :KUBE-SEP-OLDENDPOINT0000A \(stale chain\)/m)
    assert.match(s, /PACKET TRACE to 172\.30\.3\.1:80\/TCP/)
    // The trace's conclusion: the node's rules do not DNAT the cluster IP to its endpoint.
    assert.match(s, /^ {2}differs: missing 10\.0\.2\.8:80 \(expected 100\.0%\); extra no DNAT \(100\.0%\)$/m)
    // The pane scrolls to its last line (the trace table's own conclusion).
    for (let i = 0; i < 80; i++) term.keys('j')
    s = await term.waitFor('the end of the pane', (x) => /lines \d+–(\d+) of \1 /.test(x))
    assert.match(s, /^differs: missing 10\.0\.2\.8:80/m)

    // Esc back to the node, Esc back to the fleet; `/` filters the fleet to node-b.
    term.keys('Escape')
    await term.waitFor('the node view of node-a again', (x) => x.includes('FINDINGS (2)'))
    term.keys('Escape')
    await term.waitFor('the fleet table again', (x) => x.includes('PROXY MODE'))
    term.keys('/')
    await term.waitFor('the filter prompt', (x) => x.includes('Enter keep · Esc clear'))
    term.type('node-b')
    term.keys('Enter')
    s = await term.waitFor('the filtered fleet', (x) => x.includes('filter "node-b"') && !x.includes('node-a  '))
    assert.match(selectedLine(s), /^› node-b +✔ healthy/)

    // r re-checks (the bundle is read again) and the table comes back whole.
    term.keys('r')
    await term.waitFor('a finished re-check', (x) => x.includes('2 nodes checked') && x.includes('node-b'))

    // q quits: the process exits with status 0 and the shell's screen comes back.
    assert.equal(await term.quit(), 0)
    assert.doesNotMatch(term.screen(), /PROXY MODE|node-doctor dashboard/)
  })
})

describe('kubectl node-doctor dashboard live in a terminal (tmux)', {skip: TMUX ? liveClusterSkipReason() : 'tmux is not installed (apt-get install tmux)'}, () => {
  // Two "nodes" (network namespaces with a real sshd and real iptables); node-a loses the lb:http cluster IP rule.
  const term = new Terminal()
  let c: LiveCluster
  before(async () => {
    c = await startLiveCluster()
    const rule = c.nodeExec('node-a', ['iptables', '-t', 'nat', '-S', 'KUBE-SERVICES']).split('\n').find((l) => l.includes('default/lb:http cluster IP'))!
    c.nodeExec('node-a', ['sh', '-c', `iptables -t nat -D ${rule.slice(3)}`])
    term.start(['node', CLI, 'dashboard', '--all', '--only', 'iptables', '--kubeconfig', c.api.kubeconfigPath, '--ssh-config', c.sshConfig], {HOME: c.dir, SSH_AUTH_SOCK: ''})
  })
  after(async () => {
    term.stop()
    await c?.stop()
  })

  it('collects the nodes over SSH, shows the missing rule on node-a with its trace, and quits with q', async () => {
    let s = await term.waitFor('both nodes checked', (x) => x.includes('2 nodes checked'), 60_000)
    assert.match(s, /› node-a\s+✖ unhealthy\s+− n\/a\s+− n\/a\s+✖ 1 error/)
    assert.match(s, /\n {2}node-b\s+✔ healthy\s+− n\/a\s+− n\/a\s+✔ ok/)
    assert.match(s, /live: all nodes/)
    term.keys('Enter')
    s = await term.waitFor('node-a', (x) => x.includes('FINDINGS (1)'))
    assert.match(selectedLine(s), /✖ IPT-003 +KUBE-SERVICES in nat lacks the rule "default\/lb:http cluster IP"/)
    term.keys('Enter')
    s = await term.waitFor('the Service view', (x) => x.includes('PACKET TRACE to'))
    assert.match(s, /^- nat -A KUBE-SERVICES .*default\/lb:http cluster IP/m)
    assert.match(s, /^ {2}differs: missing \S+ \(expected 100\.0%\); extra no DNAT \(100\.0%\)$/m)
    assert.equal(await term.quit(), 0)
  })

  it('shows a node as soon as it is collected while another hangs, and q leaves at once', async () => {
    // node-b's SSH connection hangs (its packets are dropped; ConnectTimeout 600 s) while node-a is collected.
    const slowConfig = join(c.dir, 'ssh_config_slow')
    writeFileSync(slowConfig, `Host node-b\n  ConnectTimeout 600\n\n${readFileSync(c.sshConfig, 'utf8')}`)
    const port = readFileSync(c.sshConfig, 'utf8').match(/Host node-b\n {2}Port (\d+)/)![1]!
    c.nodeExec('node-b', ['iptables', '-I', 'INPUT', '-p', 'tcp', '--dport', port, '-j', 'DROP'])
    const slow = new Terminal()
    const quiet = new Terminal()
    try {
      slow.start(['node', CLI, 'dashboard', '--all', '--only', 'iptables', '--kubeconfig', c.api.kubeconfigPath, '--ssh-config', slowConfig], {HOME: c.dir, SSH_AUTH_SOCK: ''})
      const s = await slow.waitFor('node-a done while node-b is collecting', (x) => x.includes('collecting 1/2 · 1 running'), 60_000)
      assert.match(s, /› node-a\s+✖ unhealthy/)
      assert.match(s, /\n {2}node-b\s+… collecting/)
      // q gives the terminal back at once (the dashboard's screen is gone), naming what still holds the process.
      slow.keys('q')
      const after = await slow.waitFor('the shell screen back', (x) => !x.includes('node-doctor dashboard'), 10_000)
      assert.doesNotMatch(after, /PROXY MODE/)
      await slow.waitFor('the note on what holds the process', (x) => x.includes('waiting for node connections still opening to give up'), 10_000)
      // --quiet: nothing on the shell's screen after quitting.
      quiet.start(['node', CLI, 'dashboard', '--all', '--only', 'iptables', '--quiet', '--kubeconfig', c.api.kubeconfigPath, '--ssh-config', slowConfig], {HOME: c.dir, SSH_AUTH_SOCK: ''})
      await quiet.waitFor('node-a done while node-b is collecting (--quiet)', (x) => x.includes('collecting 1/2 · 1 running'), 60_000)
      quiet.keys('q')
      await quiet.waitFor('the shell screen back (--quiet)', (x) => !x.includes('node-doctor dashboard'), 10_000)
      await new Promise((r) => setTimeout(r, 2000))
      assert.doesNotMatch(quiet.screen(), /waiting for node connections/)
    } finally {
      slow.stop()
      quiet.stop()
      c.nodeExec('node-b', ['iptables', '-D', 'INPUT', '-p', 'tcp', '--dport', port, '-j', 'DROP'])
    }
  })
})

describe('kubectl node-doctor dashboard without a terminal', () => {
  it('refuses with a usage error that points to analyze (bundle) and check (live)', async () => {
    const bundle = await runCli(['dashboard', '--bundle', 'examples/bundle'])
    assert.equal(bundle.exitCode, 2)
    assert.equal(bundle.stdout, '')
    assert.equal(
      bundle.stderr,
      'error: dashboard needs an interactive terminal: stdin and stdout must be a TTY\n' +
        '  For plain output use `kubectl node-doctor analyze examples/bundle` (-o table, wide, json, yaml, junit, sarif).\n',
    )
    const live = await runCli(['dashboard', '--all'])
    assert.equal(live.exitCode, 2)
    assert.match(live.stderr, /For plain output use `kubectl node-doctor check`/)
  })

  it('answers -o with the command that prints it', async () => {
    const r = await runCli(['dashboard', '--bundle', 'examples/bundle', '-o', 'json'])
    assert.equal(r.exitCode, 2)
    assert.equal(r.stderr, 'error: dashboard is interactive and has no -o\n  For -o json use `kubectl node-doctor analyze examples/bundle -o json`.\n')
  })
})
