// Starts the dashboard on the terminal, on the alternate screen (the shell's screen comes back on quit), and
// resolves with the exit code once the user quits; the source's warnings are printed after that.
import {render} from 'ink'
import {Dashboard, type DashboardProps} from './app.js'

const ALTERNATE_SCREEN_ON = '\x1b[?1049h\x1b[H'
const ALTERNATE_SCREEN_OFF = '\x1b[?1049l'

/** `quiet`: nothing on stderr once the screen is given back (transport warnings, the note about slow connections). */
export async function runDashboard(props: Omit<DashboardProps, 'onExitCode' | 'size'>, options: {quiet?: boolean} = {}): Promise<number> {
  let code = 0
  process.stdout.write(ALTERNATE_SCREEN_ON)
  const app = render(<Dashboard {...props} onExitCode={(c) => {
        code = c
      }} />, {exitOnCtrlC: true, patchConsole: true})
  try {
    await app.waitUntilExit()
  } finally {
    process.stdout.write(ALTERNATE_SCREEN_OFF)
    if (!options.quiet) for (const w of props.source.warnings ?? []) process.stderr.write(`${w}\n`)
  }
  if (options.quiet) return code
  // Quitting aborts the run, but a node still connecting holds the process until its connect timeout: say so.
  // Unref'd: when nothing is left open the process ends at once and this never prints.
  setTimeout(() => process.stderr.write('waiting for node connections still opening to give up (Ctrl-C to stop now)\n'), 1000).unref()
  return code
}
