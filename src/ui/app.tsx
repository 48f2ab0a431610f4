// The dashboard application: runs checks from a FleetSource (nodes fill in as they finish), keeps the navigation
// state, and shows the fleet table, a node, or a Service port. Keys: ↑↓/j k move, Enter opens, Esc/Backspace back,
// `/` filters, `r` re-checks, `q` quits.
import {Box, useApp, useInput, useStdout} from 'ink'
import {Text} from './text.js'
import {useCallback, useEffect, useMemo, useReducer, useRef, useState} from 'react'
import type {ProfileSelection} from '../app/analyze.js'
import type {Area} from '../core/model/report.js'
import {artifactText} from '../core/model/snapshot.js'
import {FleetTable} from './fleet-table.js'
import {type FleetState, fleetReducer, fleetReport, INITIAL_FLEET} from './fleet-state.js'
import {filterRows, fleetRows, nodeDetail, nodeItems, progressSummary, progressText} from './model.js'
import {current, INITIAL_NAV, keyActions, type Nav, type NavContext, navigate, type Screen} from './navigation.js'
import {NodeView} from './node-view.js'
import {nodeServices, serviceDetail} from '../app/dashboard/service-detail.js'
import {ServiceView, serviceLines} from './service-view.js'
import type {FleetSource} from '../app/dashboard/sources.js'
import {startRun} from './sources.js'
import {colorOf} from './theme.js'

export interface DashboardProps {
  source: FleetSource
  /** Re-check every this many milliseconds (0 or absent: only on `r`). */
  refreshMs?: number
  now: () => Date
  tool: {name: string; version: string}
  /** Recorded in the Report's metadata, e.g. `dashboard --bundle b`. */
  command: string
  areas?: Area[]
  profile?: ProfileSelection
  color: boolean
  /** Terminal size; default: the output stream's, following resizes. */
  size?: {rows: number; columns: number}
  /** Called with the exit code the dashboard should end with (that of the last failed run, else 0). */
  onExitCode?: (code: number) => void
}

/** Lines besides the body: title, a blank line, two status lines, and one spare so ink never scrolls the screen. */
const CHROME_LINES = 5

const HINTS: Record<Screen['kind'], string> = {
  fleet: '↑↓/jk move · Enter open node · / filter · r re-check · q quit',
  node: '↑↓/jk move · Enter open Service · Esc/Backspace back · / filter · r re-check · q quit',
  service: '↑↓/jk scroll · PgUp/PgDn page · Esc/Backspace back · r re-check · q quit',
}

function useTerminalSize(fixed: DashboardProps['size']): {rows: number; columns: number} {
  const {stdout} = useStdout()
  const read = useCallback(() => ({rows: stdout.rows || 24, columns: stdout.columns || 100}), [stdout])
  const [size, setSize] = useState(read)
  useEffect(() => {
    if (fixed) return
    const onResize = () => setSize(read())
    stdout.on('resize', onResize)
    return () => {
      stdout.off('resize', onResize)
    }
  }, [stdout, read, fixed])
  return fixed ?? size
}

function clockTime(iso: string): string {
  return iso.slice(11, 19)
}

function StatusLine({fleet, text, refreshMs, color}: {fleet: FleetState; text: string; refreshMs: number | undefined; color: boolean}) {
  if (fleet.error) {
    return (
      <Text color={colorOf('red', color)} wrap="truncate-end">
        {`✖ ${fleet.error.message}${fleet.error.hint ? ` — ${fleet.error.hint}` : ''} (r to retry)`}
      </Text>
    )
  }
  const when = fleet.running ? '' : fleet.checkedAt ? ` · checked at ${clockTime(fleet.checkedAt)}` : ''
  const refresh = refreshMs ? ` · re-checks every ${Math.round(refreshMs / 1000)}s` : ''
  return (
    <Text wrap="truncate-end">
      <Text color={colorOf(fleet.running ? 'cyan' : undefined, color)}>{fleet.running ? '⟳ ' : ''}</Text>
      {text}
      <Text dimColor>{`${when}${refresh}`}</Text>
    </Text>
  )
}

export function Dashboard(props: DashboardProps) {
  const {source, refreshMs, now, tool, command, areas, profile, color, onExitCode} = props
  const {exit} = useApp()
  const {rows: termRows, columns} = useTerminalSize(props.size)
  const [fleet, dispatch] = useReducer(fleetReducer, INITIAL_FLEET)
  const [nav, setNav] = useState<Nav>(INITIAL_NAV)
  const navRef = useRef(nav)
  const ctxRef = useRef<NavContext>({count: 0, page: 1})
  const runs = useRef(0)
  /** The run in progress, if any; aborted when the dashboard goes away. */
  const running = useRef<AbortController | undefined>(undefined)

  // A re-check while a run is in progress is ignored: the run in progress already brings fresh results.
  const recheck = useCallback(() => {
    if (running.current) return
    const controller = new AbortController()
    running.current = controller
    runs.current += 1
    void startRun(source, dispatch, {run: runs.current, signal: controller.signal, now, tool, command, ...(areas ? {areas} : {}), ...(profile ? {profile} : {})}).finally(() => {
      running.current = undefined
    })
  }, [source, now, tool, command, areas, profile])

  useEffect(() => {
    recheck()
    return () => running.current?.abort()
  }, [recheck])
  useEffect(() => {
    if (!refreshMs) return
    const timer = setInterval(recheck, refreshMs)
    return () => clearInterval(timer)
  }, [recheck, refreshMs])
  useEffect(() => {
    onExitCode?.(fleet.error?.exitCode ?? 0)
  }, [fleet.error, onExitCode])

  const modes = useMemo(() => {
    const m = new Map<string, string>()
    for (const [name, a] of fleet.analyses) {
      const mode = artifactText(a.snapshot, 'proxy-mode')?.trim()
      if (mode) m.set(name, mode)
    }
    return m
  }, [fleet.analyses])
  // The run's node names change only with its cluster snapshot: a node starting does not re-merge the report.
  const report = useMemo(() => fleetReport(fleet), [fleet.metadata, fleet.cluster, fleet.analyses])
  const rows = useMemo(() => fleetRows(report, fleet.progress, modes), [report, fleet.progress, modes])

  const level = current(nav)
  const screen = level.screen
  const bodyHeight = Math.max(6, termRows - CHROME_LINES)
  const width = Math.max(40, columns - 1)
  const analysis = screen.kind === 'fleet' ? undefined : fleet.analyses.get(screen.node)
  const services = useMemo(() => (analysis ? nodeServices(analysis.cluster, analysis.snapshot) : []), [analysis])
  const detail = useMemo(
    () => (screen.kind === 'fleet' ? undefined : nodeDetail(report, screen.node, Array.isArray(services) ? services : [])),
    [screen, report, services],
  )
  const service = useMemo(() => {
    if (screen.kind !== 'service' || !analysis) return undefined
    const d = serviceDetail(analysis.cluster, analysis.snapshot, screen.service)
    return {detail: d, lines: serviceLines(d, width, color)}
  }, [screen, analysis, width, color])

  let body
  let ctx: NavContext
  if (screen.kind === 'fleet') {
    const visible = filterRows(rows, level.query)
    const cursor = Math.min(level.cursor, Math.max(0, visible.length - 1))
    const selected = visible[cursor]
    ctx = {count: visible.length, page: bodyHeight - 1, ...(selected ? {open: {kind: 'node', node: selected.name}} : {})}
    body = (
      <Box flexDirection="column" height={bodyHeight}>
        <FleetTable rows={visible} cursor={cursor} height={bodyHeight - (selected?.problem ? 2 : 0)} width={width} color={color} />
        {selected?.problem ? (
          <Text color={colorOf('red', color)} wrap="truncate-end">
            {`${selected.name}: ${selected.problem}`}
          </Text>
        ) : null}
      </Box>
    )
  } else if (screen.kind === 'node') {
    const items = nodeItems(detail!, level.query)
    const cursor = Math.min(level.cursor, Math.max(0, items.length - 1))
    const item = items[cursor]
    const target = item?.kind === 'service' ? item.service : item?.finding.group !== undefined ? detail!.services.find((s) => s.name === item.finding.group) : undefined
    ctx = {count: items.length, page: bodyHeight, ...(target ? {open: {kind: 'service', node: screen.node, service: target}} : {})}
    body = (
      <NodeView
        detail={detail!}
        items={items}
        cursor={cursor}
        height={bodyHeight}
        width={width}
        color={color}
        {...(!Array.isArray(services) ? {servicesUnavailable: services.reason} : {})}
      />
    )
  } else {
    ctx = {count: service?.lines.length ?? 0, page: bodyHeight - 1}
    const scroll = Math.min(level.cursor, Math.max(0, ctx.count - ctx.page))
    body = service ? (
      <ServiceView detail={service.detail} lines={service.lines} scroll={scroll} height={bodyHeight} />
    ) : (
      <Box height={bodyHeight}>
        <Text dimColor>{`${screen.node} has no result yet.`}</Text>
      </Box>
    )
  }

  // The latest render's state and lists: ink may deliver a key before the handler of that render is subscribed.
  navRef.current = nav
  ctxRef.current = ctx
  useInput((input, key) => {
    let next = navRef.current
    for (const action of keyActions(input, key, next.editing)) {
      const step = navigate(next, action, ctxRef.current)
      const moved = step.nav.levels.length !== next.levels.length
      next = step.nav
      if (step.effect === 'quit') return exit()
      if (step.effect === 'recheck') recheck()
      // The rest of a chunk was typed for the screen just left; its list (ctx) is no longer the one shown.
      if (moved) break
    }
    navRef.current = next
    setNav(next)
  })

  const context = fleet.metadata?.context
  const title = `node-doctor dashboard · ${source.title}${context ? ` · context ${context}` : ''}${screen.kind === 'fleet' ? '' : ` › ${screen.node}`}${screen.kind === 'service' ? ` › ${screen.service.name}` : ''}`
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">
        {title}
      </Text>
      <Text> </Text>
      {body}
      <StatusLine fleet={fleet} text={progressText(progressSummary(rows), report)} refreshMs={refreshMs} color={color} />
      {nav.editing ? (
        <Text>
          <Text bold>/</Text>
          {level.query}
          <Text inverse> </Text>
          <Text dimColor>{'  Enter keep · Esc clear'}</Text>
        </Text>
      ) : (
        <Text dimColor wrap="truncate-end">
          {level.query ? `filter "${level.query}" · ` : ''}
          {HINTS[screen.kind]}
        </Text>
      )}
    </Box>
  )
}
