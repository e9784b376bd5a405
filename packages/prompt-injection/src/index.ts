export { scorePrompt } from './score';
export type { InputKind, PromptScore, ScoreOptions, Signal } from './score';
