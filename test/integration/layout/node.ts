// A node for layout tests: a network namespace (links made with the real `ip`), and per command a private mount
// namespace whose /etc, /var/lib, /run, /home and /usr are overlays that add the layout's files at their real paths, plus a
// private PID namespace where fake processes run under the names and command lines discovery reads: a tiny idle
// program (compiled once with the host's cc; `--version` alone prints nothing and exits) copied under the process's name, so /proc/PID/cmdline is exactly
// `argv0 args...` as the real process has it; without a C compiler, a copy of tail (`tail -f /dev/null -- args...`:
// it only reports the words it cannot open). Nothing touches the host's files or namespaces.
import {spawnSync} from 'node:child_process'
import {copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {COLLECTION_PLAN, commandLine} from '../../../src/core/collection/plan.js'
import {createNetns, type Netns, netnsUnavailable} from '../../support/netns.js'

export interface FakeProcess {
  /** /proc/PID/comm (the copied binary's file name). */
  name: string
  /** argv[0] as shown in /proc/PID/cmdline. */
  argv0: string
  /** The process's arguments, as the real process has them (no spaces or quotes inside one). */
  args: string[]
}

export interface LayoutNode {
  ns: Netns
  /** Runs the collection plan's exact command line for `id` on the node (files and processes in place). */
  collect(id: string): {status: number | null; stdout: string; stderr: string}
  /** Runs any shell command line on the node (files and processes in place): what a NodeTransport execs. */
  run(command: string): {status: number | null; stdout: string; stderr: string}
  destroy(): void
}

export function layoutNodeSkipReason(): string | undefined {
  const base = netnsUnavailable()
  if (base) return base
  for (const tool of ['unshare', 'bash', 'tail']) if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} not installed`
  return undefined
}

/** Host trees the node's files are laid over (GKE keeps the kubelet under /home/kubernetes, EKS has /usr/bin/nodeadm). */
const OVERLAID = ['etc', 'var/lib', 'run', 'home', 'usr']

let idle: string | null | undefined

/** The idle program's path (built once per test process), or null without a C compiler. */
function idleProgram(): string | null {
  if (idle !== undefined) return idle
  const dir = mkdtempSync(join(tmpdir(), 'nd-idle-'))
  writeFileSync(join(dir, 'idle.c'), '#include <string.h>\n#include <unistd.h>\nint main(int argc, char **argv) {\n  if (argc == 2 && strcmp(argv[1], "--version") == 0) return 0;\n  for (;;) pause();\n}\n')
  const r = spawnSync('cc', ['-O', '-o', join(dir, 'idle'), join(dir, 'idle.c')], {encoding: 'utf8'})
  idle = r.status === 0 ? join(dir, 'idle') : null
  return idle
}

export function createLayoutNode(files: Record<string, string>, processes: FakeProcess[]): LayoutNode {
  const dir = mkdtempSync(join(tmpdir(), 'nd-layout-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'up', path)), {recursive: true})
    writeFileSync(join(dir, 'up', path), text)
  }
  for (const top of OVERLAID) {
    mkdirSync(join(dir, 'up', top), {recursive: true})
    mkdirSync(join(dir, 'work', top), {recursive: true})
  }
  mkdirSync(join(dir, 'bin'))
  const program = idleProgram()
  for (const p of processes) copyFileSync(program ?? '/usr/bin/tail', join(dir, 'bin', p.name))
  const argsOf = (p: FakeProcess) => (program ? p.args : ['-f', '/dev/null', '--', ...p.args]).join(' ')
  const ns = createNetns('ndl')
  ns.exec(['ip', 'link', 'set', 'lo', 'up'])
  const overlays = OVERLAID.map((t) => `mount -t overlay overlay -o lowerdir=/${t},upperdir=${dir}/up/${t},workdir=${dir}/work/${t} /${t}`).join(' && ')
  const starts = processes.map((p) => `bash -c 'exec -a ${p.argv0} ${dir}/bin/${p.name} ${argsOf(p)}' >/dev/null 2>&1 & `).join('')
  const waits = processes.map((p) => `for i in $(seq 40); do grep -qx ${p.name} /proc/[0-9]*/comm 2>/dev/null && break; sleep 0.05; done; `).join('')
  const run = (command: string) => {
    const setup = `${overlays} && ${starts}${waits}eval "$1"`
    return ns.run(['unshare', '-m', '-p', '-f', '--mount-proc', '--propagation', 'private', 'sh', '-c', setup, 'node-doctor', command])
  }
  return {
    ns,
    collect(id) {
      const item = COLLECTION_PLAN.find((p) => p.id === id)
      if (!item) throw new Error(`no plan item ${id}`)
      return run(commandLine(item, false))
    },
    run,
    destroy() {
      ns.destroy()
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
