// The release bundle's runner (scripts/bundle.mjs), as bin/kubectl-node_doctor is the development one: every byte
// written to stdout/stderr goes through the terminal sanitiser, then oclif finds package.json, the manifest and
// commands/ one folder up from this file.
import {execute} from '@oclif/core'
import {installTerminalGuard} from '../../src/render/terminal-safe.js'

installTerminalGuard()
await execute({dir: new URL('..', import.meta.url).href})
