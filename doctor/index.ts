export { exitCode, summarize, type CheckResult, type CheckStatus } from './check-result';
export { gptActionsRules } from './gpt-actions-rules';
export { parseDoctorArgs, type DoctorOptions } from './options';
export { formatJson, formatText } from './report';
export { runDoctor } from './run-doctor';
