// The release runner's oclif half (scripts/lib/release-run.ts loads it only when the fast path does not answer):
// every byte written to stdout/stderr goes through the terminal sanitiser, then oclif finds package.json, the
// manifest and commands/ in `dir`. A module of its own so that esbuild keeps oclif's named exports (a dynamic
// import of the CommonJS @oclif/core itself would give only its default export in the bundle).
import {execute} from '@oclif/core'
import {installTerminalGuard} from '../../src/render/terminal-safe.js'

export async function runOclif(dir: string): Promise<void> {
  installTerminalGuard()
  await execute({dir})
}
