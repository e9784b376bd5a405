export { scorePrompt, scoreRules } from './score';
export type { InputKind, PromptScore, ScoreOptions, Signal } from './score';
export { SIGNAL_CATEGORY, SIGNAL_IDS } from './signals';
export type { SignalCategory, SignalId } from './signals';
export { normalize } from './normalize';
export type { Normalized, Obfuscation, View, ViewName } from './normalize';
export {
  DEFAULT_PI_SETTINGS,
  InvalidPiSettingsError,
  MAX_ALLOWLIST_PATTERNS,
  PI_MODES,
  allowlistPatternProblem,
  applyPiOverride,
  assertPiSettings,
  piOverrideToWire,
  piSettingsToWire,
  validatePiOverride,
  validatePiSettings,
} from './settings';
export type { PiMode, PiOverride, PiSettings, PiSettingsWire, SettingsFieldError } from './settings';
export { compilePiSettings, evaluatePrompt, isBroadAllowlistPattern, promptTexts, screenText } from './evaluate';
export type { CompiledPiSettings, EvaluateOptions, PiEvaluation, PiTextResult, PiVerdict, Scorer, ScreenedText } from './evaluate';
export { checkTexts, MAX_CHECK_TEXT_LENGTH, MAX_CHECK_TEXTS, validateCheckRequest } from './check';
export type { CheckAnswer, CheckRequest, CheckResult } from './check';
export { evaluate, loadDataset } from './dataset';
export type { Evaluation, Label, LabelledPrompt, Split } from './dataset';
