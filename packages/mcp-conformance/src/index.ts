export { node22, runServerConformance } from './run';
export type { ConformanceCheck, ConformanceRun, ScenarioResult } from './run';
