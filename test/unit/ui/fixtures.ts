// Shared by the dashboard tests: the example bundle (node-a: IPT-003 and IPT-002 on Service port default/lb:http;
// node-b healthy), its per-node analyses, a FleetSource over it whose nodes arrive when the test says, and frames.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import type {ReportMetadata} from '../../../src/core/model/report.js'
import {type Bundle, readBundle} from '../../../src/transports/bundle/bundle.js'
import {analyzeNode, type NodeAnalysis} from '../../../src/ui/fleet-state.js'
import type {FleetSource, RunHandlers} from '../../../src/app/dashboard/sources.js'
import {REPO_ROOT} from '../../support/golden.js'

export const BUNDLE_DIR = join(REPO_ROOT, 'examples', 'bundle')

export const METADATA: ReportMetadata = {
  generatedAt: '2026-12-02T12:00:00.000Z',
  tool: {name: 'node-doctor', version: '0.1.0'},
  command: 'dashboard --bundle examples/bundle',
  context: 'example',
}

export const FIXED_NOW = () => new Date(METADATA.generatedAt)

export function exampleBundle(): Promise<Bundle> {
  return readBundle(BUNDLE_DIR)
}

export function analysesOf(bundle: Bundle): Map<string, NodeAnalysis> {
  return new Map(bundle.nodes.map((n) => [n.node, analyzeNode(bundle.cluster, n, {metadata: METADATA})]))
}

/**
 * The bundle's nodes as a live run would deliver them: the run names its nodes at once, each node starts and
 * finishes when the test calls start()/finish(). Every run (`r`) is recorded.
 */
export class HeldSource implements FleetSource {
  readonly title = 'held bundle'
  runs = 0
  private handlers?: RunHandlers
  private done?: () => void

  constructor(private readonly bundle: Bundle) {}

  run(h: RunHandlers): Promise<void> {
    this.runs++
    this.handlers = h
    h.targets(this.bundle.cluster, this.bundle.nodes.map((n) => n.node), 'example')
    return new Promise((resolve) => (this.done = resolve))
  }

  start(node: string): void {
    this.handlers!.nodeStart(node)
  }

  finish(node: string): void {
    this.handlers!.nodeDone(this.bundle.nodes.find((n) => n.node === node)!)
  }

  end(): void {
    this.done!()
  }
}

/** A frame as a person reads it: no escapes, no trailing blanks. */
export function plain(frame: string | undefined): string {
  return stripVTControlCharacters(frame ?? '')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd() + '\n'
}

/** Polls `frame()` until `test` holds (renders are asynchronous; the machine may be busy); fails with the last frame. */
export async function until(frame: () => string | undefined, test: (f: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + 60_000
  let last = ''
  while (Date.now() < deadline) {
    last = plain(frame())
    if (test(last)) return last
    await new Promise((r) => setTimeout(r, 10))
  }
  assert.fail(`timed out waiting for ${what}; the frame was:\n${last}`)
}
