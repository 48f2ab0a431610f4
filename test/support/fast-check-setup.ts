// Loaded before every test file (scripts/run-tests.mjs): property tests run with a fixed seed so CI is repeatable.
// FC_SEED=random explores new inputs locally; FC_SEED=N replays a reported failure.
import fc from 'fast-check'

const seed = process.env.FC_SEED
if (seed !== 'random') fc.configureGlobal({seed: seed === undefined ? 20261202 : Number(seed)})
