// A real terminal for e2e tests: one tmux server on its own socket (nothing else running tmux is touched) runs a
// command, keys go in with `tmux send-keys`, and the screen is captured and polled with a deadline.
import assert from 'node:assert/strict'
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {REPO_ROOT} from './golden.js'

export const TMUX_AVAILABLE = spawnSync('tmux', ['-V'], {encoding: 'utf8'}).status === 0

export interface TmuxTerminalOptions {
  /** What screen() captures: the scrollback too, wrapped lines joined (default), or the visible pane only, as shown. */
  capture?: 'scrollback' | 'visible'
  /** waitFor's deadline when the call names none (default 60 s). */
  timeoutMs?: number
}

export class TmuxTerminal {
  /** The server's socket, in a directory of its own that stop() removes. */
  private readonly dir = mkdtempSync(join(tmpdir(), 'nd-tmux-'))
  private readonly socket = join(this.dir, 'socket')
  private readonly capture: 'scrollback' | 'visible'
  private readonly timeoutMs: number

  constructor(options: TmuxTerminalOptions = {}) {
    this.capture = options.capture ?? 'scrollback'
    this.timeoutMs = options.timeoutMs ?? 60_000
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, ...args], {encoding: 'utf8'})
  }

  /** Runs `command`; when it ends the screen shows `[exit status N]`. */
  start(command: string[], env: Record<string, string> = {}, size = {columns: 160, rows: 60}): void {
    const vars = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`])
    const wrapped = ['sh', '-c', '"$@"; echo "[exit status $?]"; exec sleep 600', 'sh', ...command]
    this.tmux('-f', '/dev/null', 'new-session', '-d', '-x', String(size.columns), '-y', String(size.rows), '-c', REPO_ROOT, ...vars, ...wrapped)
  }

  /** The screen as the capture option says. */
  screen(): string {
    return this.capture === 'visible' ? this.tmux('capture-pane', '-p') : this.tmux('capture-pane', '-p', '-J', '-S', '-')
  }

  /** Presses `keys` (tmux key names: Enter, Escape, BSpace, j), one send-keys each, as a user presses them one by one. */
  keys(...keys: string[]): void {
    for (const k of keys) this.tmux('send-keys', k)
  }

  /** Types `text` literally, no Enter. */
  type(text: string): void {
    this.tmux('send-keys', '-l', text)
  }

  /** Types `text` and presses Enter, as a user answering a question. */
  answer(text: string): void {
    this.type(text)
    this.keys('Enter')
  }

  /** Polls the screen until `test` holds; fails with the last screen after the deadline. */
  async waitFor(what: string, test: (screen: string) => boolean, timeoutMs = this.timeoutMs): Promise<string> {
    const deadline = Date.now() + timeoutMs
    let last = ''
    while (Date.now() < deadline) {
      last = this.screen()
      if (test(last)) return last
      await new Promise((r) => setTimeout(r, 100))
    }
    assert.fail(`timed out waiting for ${what}; the screen was:\n${last}`)
  }

  /** Waits for the command to end and returns its exit status. */
  async exitStatus(timeoutMs?: number): Promise<number> {
    const screen = await this.waitFor('the command to end', (x) => /\[exit status \d+\]/.test(x), timeoutMs)
    return Number(/\[exit status (\d+)\]/.exec(screen)![1])
  }

  stop(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server'])
    rmSync(this.dir, {recursive: true, force: true})
  }
}
