// EP-003 over snapshots: the cluster's Services, EndpointSlices, Nodes and ConfigMaps checked as the offline
// objects files are (src/core/proxier/objects.ts), once per run.
import {factKey} from '../../facts/node-facts.js'
import {type ObjectProblem, objectProblems} from '../../proxier/objects.js'
import {type Check, type CheckOutcome, factsOf} from '../types.js'
import {EP_INVALID_OBJECT, objectProblemDrafts} from './specs.js'

const PROBLEMS = factKey<ObjectProblem[]>('object problems')

function run(ctx: Parameters<Check['run']>[0]): CheckOutcome {
  const problems = factsOf(ctx).run.derive(PROBLEMS, (cluster) => objectProblems(cluster))
  return problems.length === 0 ? {status: 'passed'} : {status: 'failed', findings: objectProblemDrafts(problems)}
}

export const OBJECT_CHECKS: readonly Check[] = [{spec: EP_INVALID_OBJECT, run}]
