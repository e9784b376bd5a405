export { DETECTOR_KINDS } from './types';
export type { BlockedBy, Detection, DetectorKind, Direction, RuleAction, RuleOverride, ScanDirection, ScanResult, SecurityRule } from './types';
export { effectiveRules } from './effective-rules';
export { LABEL_PATTERN, MAX_NAME_LENGTH, MAX_PATTERN_LENGTH, validateRule } from './validate-rule';
export type { RuleFieldError, RuleValidation } from './validate-rule';
export { catastrophicBacktrackingRisk } from './regex-safety';
export { InvalidRuleError, MAX_DEPTH, ScanError, Scanner } from './scanner';
export { scanModelOutput, scanModelRequest } from './model-content';
export type { ModelBlockLike, ModelRequestLike, ModelScanResult } from './model-content';
