export { runServerConformance } from './run';
export type { ConformanceCheck, ConformanceRun, ScenarioResult } from './run';
