// The lenient reader of pasted ipvsadm output (`ipvs show --from-file`, `proxy diff --ipvsadm`): normalisePasted,
// then the ipvsadm parser with its leniency (ipvsadm/leniency.ts): host and service names from `ipvsadm -L`
// without -n, listings whose header lines were cut off. Line numbers in the model and the warnings are the user's.
// Input that is not ipvsadm output keeps the strict parser's "this looks like X" error. Pure.
import {ParseError} from '../../../errors.js'
import {parseIpvsadm} from '../ipvsadm.js'
import {normalisePasted, originalLine, type PastedWarning} from '../pasted.js'
import {Leniency} from './leniency.js'
import type {IpvsTable} from './model.js'
import {wellKnownPort} from './values.js'

export interface PastedIpvsadm {
  table: IpvsTable
  warnings: PastedWarning[]
}

export function readPastedIpvsadm(input: string): PastedIpvsadm {
  const norm = normalisePasted(input)
  const user = (n: number): number => originalLine(norm.lineOf, n)
  const lenient = new Leniency()
  let table: IpvsTable
  try {
    table = parseIpvsadm(norm.text, lenient)
  } catch (err) {
    if (err instanceof ParseError && err.line !== undefined) throw new ParseError(err.message, user(err.line))
    throw err
  }
  for (const vs of table.virtualServers) {
    vs.line = user(vs.line)
    for (const rs of vs.realServers) rs.line = user(rs.line)
  }
  const own = lenient.finish(wellKnownPort).map((w) => ({line: user(w.line), message: w.message}))
  return {table, warnings: [...norm.warnings, ...own].sort((a, b) => a.line - b.line)}
}
