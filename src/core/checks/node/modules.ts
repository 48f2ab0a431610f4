// NODE-022: kernel modules kube-proxy's mode needs that are neither loaded, built in nor installed (issue #19 item 7).
// A running mode has its modules by construction (an in-use module cannot be unloaded), so the useful case is the
// mode kube-proxy is configured for and will use at its next start (a mode change not yet applied, PROXY-003), and a
// scheduler or match module not yet used. IPVS configured but not running is PROXY-001's finding (which names the
// modules missing from /proc/modules): this check stays quiet there. "Loadable" means listed in modules.dep for the
// running kernel (modprobe and the kernel's autoload can load it); absent means the kernel's module directory exists
// and lists it nowhere.
import type {ModuleAvailability} from '../../parse/kernel-modules.js'
import {parseModulesAvailable} from '../../parse/kernel-modules.js'
import type {CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'

export const NODE_MODULES: CheckSpec = {
  id: 'NODE-022',
  area: 'proxy-mode',
  severity: 'error',
  title: "A kernel module kube-proxy's mode needs is neither loaded, built in nor installed for the running kernel",
  looksAt:
    'The `modules-available` artifact (for each module kube-proxy\'s modes use: /sys/module, then /lib/modules/$(uname -r)/modules.builtin, then modules.dep) against ' +
    "what kube-proxy's running mode and its configured mode (the one it uses at its next start) need: IPVS: ip_vs, the scheduler's ip_vs_SCHED (ipvs.scheduler, rr by default), " +
    'nf_conntrack; nftables: nf_tables, nf_conntrack, nf_nat; iptables: nf_conntrack, nf_nat, xt_conntrack, xt_statistic, xt_comment, xt_mark, xt_addrtype (and xt_recent where a ' +
    'Service uses ClientIP session affinity). IPVS configured but not running is left to PROXY-001. Without /lib/modules for the running kernel nothing is judged.',
  why:
    'kube-proxy loads nothing itself: the kernel autoloads a module the first time a rule or virtual server needs it, which works only if the module is built in or installed ' +
    'for the running kernel. One that is absent (a kernel upgraded without its modules package, a minimal image, a module blacklisted and removed) makes kube-proxy fail ' +
    'to start in that mode, or fail every sync that needs it, the next time it restarts.',
  remedy:
    'Install the running kernel\'s modules package (e.g. `linux-modules-extra-$(uname -r)` on Ubuntu, `kernel-modules-extra` on Fedora/RHEL), or reboot into a kernel whose modules ' +
    'are installed, then `modprobe MODULE` to check; list them in /etc/modules-load.d/ to load them at boot. If the mode was changed by mistake, set kube-proxy\'s mode back.',
  requires: ['modules-available'],
}

type Mode = 'iptables' | 'ipvs' | 'nftables'

/** What each mode needs, given the configured IPVS scheduler and whether any Service uses ClientIP affinity. */
export function modulesForMode(mode: Mode, opts: {scheduler: string; clientIPAffinity: boolean}): string[] {
  switch (mode) {
    case 'ipvs':
      return ['ip_vs', `ip_vs_${opts.scheduler}`, 'nf_conntrack']
    case 'nftables':
      return ['nf_tables', 'nf_conntrack', 'nf_nat']
    case 'iptables':
      return ['nf_conntrack', 'nf_nat', 'xt_conntrack', 'xt_statistic', 'xt_comment', 'xt_mark', 'xt_addrtype', ...(opts.clientIPAffinity ? ['xt_recent'] : [])]
  }
}

const asMode = (m: string | undefined): Mode | undefined => (m === 'iptables' || m === 'ipvs' || m === 'nftables' ? m : undefined)

export function checkModules(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const text = facts.text('modules-available')
  if (text === undefined) return {status: 'skipped', reason: 'missing input: modules-available'}
  let avail: Map<string, ModuleAvailability>
  try {
    avail = parseModulesAvailable(text)
  } catch (err) {
    return {status: 'skipped', reason: `the modules-available output could not be parsed: ${(err as Error).message}`}
  }
  const p = facts.proxy
  const running = asMode(p.running?.mode)
  const configured = asMode(p.configured?.mode)
  if (!running && !configured) return {status: 'skipped', reason: p.configuredUnknown ?? "kube-proxy's mode is unknown"}
  const ipvsCfg = (p.configured?.config.values['ipvs'] ?? {}) as Record<string, unknown>
  const scheduler = typeof ipvsCfg['scheduler'] === 'string' && ipvsCfg['scheduler'] !== '' ? ipvsCfg['scheduler'] : 'rr'
  const clientIPAffinity = ctx.cluster.services.some((s) => s.spec.sessionAffinity === 'ClientIP')
  const judged: Array<{mode: Mode; when: 'runs' | 'next start'}> = []
  if (running) judged.push({mode: running, when: 'runs'})
  if (configured && configured !== running) {
    // PROXY-001 reports IPVS configured but not in use, with the modules it lacks.
    if (!(configured === 'ipvs' && running !== undefined)) judged.push({mode: configured, when: 'next start'})
  }
  const findings: FindingDraft[] = []
  const unknown = new Set<string>()
  for (const j of judged) {
    const needed = modulesForMode(j.mode, {scheduler, clientIPAffinity})
    const absent = needed.filter((m) => avail.get(m) === 'absent')
    for (const m of needed) if (avail.get(m) === undefined || avail.get(m) === 'unknown') unknown.add(m)
    if (absent.length === 0) continue
    const what = j.when === 'runs' ? `kube-proxy runs ${j.mode} mode` : `kube-proxy is configured for ${j.mode} mode (${p.configured?.source ?? 'its configuration'}), which it uses at its next start,`
    findings.push({
      message: `${what} but ${absent.join(', ')} ${absent.length === 1 ? 'is' : 'are'} neither loaded, built in nor installed for the running kernel: ${j.when === 'runs' ? 'every sync that needs them fails' : 'it will fail to start in that mode'}`,
      subject: {kind: 'module', name: absent[0] ?? ''},
      evidence: [...needed.map((m) => `${m}: ${avail.get(m) ?? 'not reported'}`), ...(j.mode === 'ipvs' ? [`ipvs.scheduler: ${scheduler}`] : [])],
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (unknown.size > 0) return {status: 'skipped', reason: `cannot tell: ${[...unknown].join(', ')} not found loaded, and the running kernel's /lib/modules (modules.builtin, modules.dep) was not readable`}
  return {status: 'passed'}
}
