import type { RequestTelemetry } from '../../observability/telemetry-options';
import type { PromptDescriptor, ResourceDescriptor, TemplateDescriptor, ToolDescriptor } from '../../registry/descriptors';
import type { Authorizer } from '../authorizer';
import type { ToolErrorPolicy } from '../handlers/tool-result.mapper';
import { authorizeStep } from './authorize.step';
import { denialStep } from './denial.step';
import { completionResultStep } from './completion.steps';
import { methodResultStep, methodValidateStep } from './method.steps';
import { promptResultStep, promptValidateStep } from './prompt.steps';
import { resourceResultStep, templateValidateStep } from './resource.steps';
import type { StageSuppliers } from './stages';
import { toolHeadersStep, toolResultStep, toolValidateStep } from './tool.steps';

export interface CoreStagesOptions {
  readonly authorizer: Authorizer;
  readonly telemetry?: RequestTelemetry;
  readonly logError: (message: string, error?: unknown) => void;
  /** How a tool's plain exceptions reach the model. */
  readonly toolErrors: ToolErrorPolicy;
  /** Refusals carry SEP-2643's envelope (a draft). */
  readonly structuredDenials?: boolean;
}

/** The stages the protocol supplies itself: authorization, a call's headers, validation, results, the handler's own middleware. */
export function coreStages(options: CoreStagesOptions): StageSuppliers {
  return {
    denials: () => (options.structuredDenials ? denialStep : undefined),
    authorize: authorizeStep(options.authorizer),
    headers: (ref) => (ref.kind === 'tool' ? toolHeadersStep(ref as ToolDescriptor) : undefined),
    result: (ref) => {
      switch (ref.access.kind) {
        case 'tool':
          return toolResultStep(ref as ToolDescriptor, options.logError, options.toolErrors);
        case 'prompt':
          return promptResultStep(ref as PromptDescriptor);
        case 'resource':
        case 'template':
          return resourceResultStep(ref as ResourceDescriptor | TemplateDescriptor);
        case 'completion':
          return completionResultStep(ref);
        case 'method':
          return methodResultStep(ref, options.logError);
      }
    },
    validate: (ref) => {
      switch (ref.access.kind) {
        case 'tool':
          return toolValidateStep(ref as ToolDescriptor, options.telemetry);
        case 'prompt':
          return promptValidateStep(ref as PromptDescriptor);
        case 'template':
          return templateValidateStep(ref as TemplateDescriptor);
        case 'method':
          return methodValidateStep;
        default:
          return undefined;
      }
    },
    own: (ref) => (ref.access.middleware.length > 0 ? ref.access.middleware : undefined),
  };
}
